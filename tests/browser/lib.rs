//! restcache's Yew layer in a real browser: components rendered by Yew in
//! headless Chromium (wasm-bindgen-test), reading the demo API through the
//! browser's fetch. `scripts/test.sh` starts the demo API on 127.0.0.1 and
//! passes its address in `DEMO_API_URL`.
//!
//! - `reads`: shared requests, stale data shown then refreshed, polling;
//! - `updates`: what re-renders after a mutation, another component's
//!   fetch, an optimistic update and its rollback, and what does not;
//! - `boundaries`: a 404 caught by the boundary and reset, a fallback
//!   gone with its page, a fallback's own failure after every reset, or at the boundary above;
//! - `derived`: a header counting open todos (`use_query`) follows a
//!   mutation, and does not render again for a write that leaves it;
//! - `graphql`: a GraphQL view and a REST view of one todo follow each
//!   other's writes;
//! - `hydration`: a server-rendered page hydrates from a filled cache;
//! - `legacy`: the older API's hooks and the current ones on one cache;
//! - `mutations`: `use_loading` around a mutation button;
//! - `pages`: an infinite list grown by `use_next_page`;
//! - `revalidation`: `visibilitychange` and `online` refetch stale reads;
//! - `testing`: an app on `restcache::testing`'s mock client, followed
//!   through a click with `settled`;
//! - `render_cost`: the cost of re-rendering a warm read, printed.

#![cfg(all(test, target_arch = "wasm32"))]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod harness;

mod boundaries;
mod derived;
mod graphql;
mod hydration;
mod image;
mod legacy;
mod live;
mod mutations;
mod offline;
mod pages;
mod persist;
mod provider;
mod reads;
mod render_cost;
mod revalidation;
mod tabs;
mod testing;
mod updates;
