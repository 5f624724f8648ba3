//! Yew hooks and components over the [`Controller`](crate::Controller)
//! (feature `yew`, on by default).
//!
//! - [`CacheProvider`] gives a subtree one controller; [`use_controller`]
//!   returns it, for mutations.
//! - [`use_suspense`] reads an endpoint and suspends until there is
//!   something to show, following the read's expiry status; identical
//!   reads anywhere on the page share one request, and a component
//!   re-renders when (and only when) the data it read changes.
//! - [`ErrorBoundary`] and [`AsyncBoundary`] catch the reads that fail;
//!   [`use_error`] tells a component about a hard error, and
//!   [`use_soft_error`] about a soft one beside its data (reported only
//!   when asked for; the endpoint's [`ErrorPolicy`](crate::rest::ErrorPolicy)
//!   says which is which).
//! - The rest of the family: [`use_cache`] (read, no fetch), [`use_dle`]
//!   (data, loading, error; no suspense), [`use_prefetch`] (fetch, no read),
//!   [`use_poll`] and [`use_live`] (polling), [`use_loading`]
//!   (a mutation's callback with its state), [`use_next_page`] (a "load
//!   more" button over a paginated list).
//! - Every reading hook takes the endpoint's params, or an `Option` of
//!   them: `None` does nothing at all (see [`ReadArgs`]).
//! - On a server, [`ServerRender`] renders an app whose reads may fail
//!   (feature `ssr`); the browser build that hydrates its pages turns on
//!   feature `hydration`, so that the provider takes the cache the server
//!   handed to the page.
//!
//! The hooks work in a browser (wasm32, rendered or hydrated) and on a
//! server (Yew's server rendering). Each reading hook is a thin adapter
//! over a [`ReadObserver`](crate::ReadObserver), which holds the policy
//! of when a read fetches (revalidation when stale, polls, focus and
//! reconnect); the hook turns its callbacks into re-renders and its waits
//! into suspensions, and subscribes in an effect, so a server render
//! never watches anything. In a browser, the provider tells its
//! controller when the page becomes visible again or the browser comes
//! back online, and every mounted read that is stale refetches.

mod args;
mod boundary;
mod context;
mod errors;
mod hooks;
mod image;
mod pages;
#[cfg(feature = "persist")]
mod persist;
mod provider;
mod query;
mod read;
mod server;
#[cfg(feature = "live")]
mod stream;
#[cfg(feature = "tabs")]
mod tabs;

pub use args::ReadArgs;
pub use boundary::{
    AsyncBoundary, AsyncBoundaryProps, BoundaryError, ErrorBoundary, ErrorBoundaryProps,
};
pub use errors::{use_error, use_soft_error};
pub use hooks::{
    Dle, Loading, use_cache, use_dle, use_live, use_loading, use_poll, use_prefetch, use_suspense,
};
pub use image::{Img, ImgProps, use_image};
pub use pages::{NextPageLoader, use_next_page};
#[cfg(feature = "persist")]
pub use persist::use_persist;
pub use provider::{CacheProvider, CacheProviderProps, use_controller};
pub use query::use_query;
#[cfg(feature = "ssr")]
pub use server::ServerRender;
#[cfg(feature = "live")]
pub use stream::use_stream;
#[cfg(feature = "tabs")]
pub use tabs::use_tab_sync;
