//! REST endpoints: path templates filled in with typed params, and the
//! endpoints `resource!` and `endpoint!` declare.

mod call;
pub(crate) mod declared;
mod effect;
mod endpoint;
mod page;
mod template;

pub use crate::cache::page::NextPage;
pub use effect::{JoinAt, Kind, Target};
pub use endpoint::{
    DecodeFn, Endpoint, FetchFn, KeyArgs, KeyFn, Options, body_json, decode_json, default_fetch,
    default_key,
};
pub use page::{Paged, Pagination, with_param, without_param};
pub use template::{Part, PathTemplate};

#[cfg(feature = "legacy")]
pub(crate) use endpoint::ByParams;

pub use crate::cache::deleted::Deleted;
pub use crate::error::UrlError;
pub use crate::http::{Method, Request};
