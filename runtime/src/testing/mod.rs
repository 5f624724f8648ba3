//! Testing an app built on restcache, with no server (feature `testing`).
//!
//! - [`MockClient`] answers requests in memory from [`Fixture`]s (an
//!   endpoint and its params answer a value or an error, at once or
//!   after a delay) and interceptors (a function of the request, which
//!   may keep state), and records every request for the test to assert.
//!   Its [`client`](MockClient::client) is a real [`Client`](crate::http::Client):
//!   limits, statuses and error texts are those of the network.
//! - [`MockClient::filled_controller`] fills a controller from the read
//!   fixtures before the first render, so the first render shows them
//!   with no request.
//! - [`render`] and [`render_hook`] (with the `ssr` feature) render a
//!   component or a hook natively under a provider, once every read has
//!   settled; render again after a mutation or a failure to see what a
//!   mounted view would show.
//! - [`settled`] waits until the controller has no request on its way
//!   and the page has re-rendered: natively, and in a browser test
//!   (wasm-bindgen-test) after a click.
//!
//! ```
//! use restcache::prelude::*;
//! use restcache::testing::{Fixture, MockClient};
//! use serde_json::json;
//!
//! #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
//! struct Todo { id: u64, title: String }
//! resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
//!
//! let mock = MockClient::new();
//! mock.answer(Fixture::new(&TodoResource::get_list(), (), json!([{"id": 1, "title": "milk"}])));
//! let ctrl = mock.controller();
//! # restcache_demo::block_on(async {
//! let todos = ctrl.fetch(&TodoResource::get_list(), &(), None).await?;
//! assert_eq!(todos[0].title, "milk");
//! # Ok::<(), restcache::http::Error>(()) })?;
//! assert_eq!(mock.count(Method::Get, "/todos"), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod fixture;
mod mock;
#[cfg(feature = "ssr")]
mod render;

use std::time::Duration;

use web_time::Instant;

pub use fixture::{Fixture, Reply};
pub use mock::{MockClient, RecordedRequest};
#[cfg(feature = "ssr")]
pub use render::{render, render_hook};

use crate::controller::Controller;

/// How long [`settled`] waits before it gives up.
///
/// ```
/// assert_eq!(restcache::testing::SETTLE_LIMIT.as_secs(), 10);
/// ```
pub const SETTLE_LIMIT: Duration = Duration::from_secs(10);

/// Waits until `controller` is at rest (no read, mutation or background
/// fetch on its way) and what it told its views has had a turn of the
/// event loop to render. In a browser test, call it after a click to see
/// the page its requests lead to.
///
/// Panics when the controller is still busy after [`SETTLE_LIMIT`] (a
/// reply that never comes), naming how many reads are on their way.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::testing::{settled, Fixture, MockClient};
/// use std::time::Duration;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// let mock = MockClient::new();
/// mock.answer(Fixture::new(&TodoResource::get_list(), (), [Todo { id: 1 }]).after(Duration::from_millis(5)));
/// let ctrl = mock.controller();
/// let list = TodoResource::get_list();
/// # restcache_demo::block_on(async {
/// let (fetched, ()) = futures_util::join!(ctrl.fetch(&list, &(), None), async {
///     assert!(!ctrl.is_idle()); // the read is on its way
///     settled(&ctrl).await;
///     assert!(ctrl.is_idle());
/// });
/// assert_eq!(fetched.unwrap().len(), 1);
/// # });
/// ```
pub async fn settled(controller: &Controller) {
    let start = Instant::now();
    loop {
        // A turn of the event loop: spawned requests and renders run.
        futures_timer::Delay::new(Duration::from_millis(1)).await;
        if controller.is_idle() {
            // And one more, for the renders the last answer asked for.
            futures_timer::Delay::new(Duration::from_millis(1)).await;
            if controller.is_idle() {
                return;
            }
        }
        assert!(
            start.elapsed() < SETTLE_LIMIT,
            "restcache::testing::settled: the controller is still busy after {SETTLE_LIMIT:?} \
             ({} reads on their way): a reply that never comes?",
            controller.in_flight()
        );
    }
}
