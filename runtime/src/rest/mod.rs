//! REST endpoints: path templates filled in with typed params, the
//! endpoints `resource!` and `endpoint!` declare (typed by what their
//! response does to the cache), and pagination.

mod call;
pub(crate) mod declared;
pub(crate) mod effect;
mod endpoint;
mod fields;
mod page;
mod parts;
mod policy;
mod template;
mod updates;

pub use effect::{Create, Delete, Effect, JoinAt, Mutate, Read, Readable, Target};
pub use endpoint::Endpoint;
pub use page::{NextPage, Page, Paged, Pagination, with_param, without_param};
pub use parts::{DecodeFn, FetchFn, KeyArgs, KeyFn, Options, body_json, decode_json, default_key};
pub use policy::{ErrorPolicy, ErrorPolicyFn};
pub use template::{Part, PathTemplate};
pub use updates::{UpdateFn, Updates};

pub use crate::cache::deleted::Deleted;
pub use crate::cache::filter::{FieldText, QueryText};
pub use crate::error::UrlError;
