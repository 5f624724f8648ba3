//! REST endpoints: path templates filled in with typed params, and the
//! endpoints `resource!` and `endpoint!` declare.

mod endpoint;
mod template;

pub use endpoint::{
    DecodeFn, Deleted, Endpoint, FetchFn, KeyArgs, KeyFn, Kind, Method, Options, Request,
    decode_json, default_fetch, default_key,
};
pub use template::{Part, PathTemplate, UrlError};
