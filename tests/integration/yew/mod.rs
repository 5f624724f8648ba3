//! The Yew layer rendered natively through Yew's server rendering: what
//! the hooks fetch, when they suspend, what they render, and how a failed
//! read ends a server render.

mod boundaries;
mod handoff;
mod pages;
mod reads;
mod server;

use std::future::Future;
use std::time::Duration;

/// Runs `test` on a local task set, where the hooks' requests run (a
/// server render spawns them as local tasks).
pub async fn local<F: Future>(test: F) -> F::Output {
    tokio::task::LocalSet::new().run_until(test).await
}

/// The HTML a server render of `C` with `props` ends with (not
/// hydratable), failing the test if the render waits for more than a few
/// seconds.
pub async fn server_html<C>(props: C::Properties) -> String
where
    C: yew::BaseComponent,
{
    rendered(
        yew::LocalServerRenderer::<C>::with_props(props)
            .hydratable(false)
            .render(),
    )
    .await
}

/// Waits for a server render to end, failing the test (instead of hanging
/// it) if the render waits for more than a few seconds.
pub async fn rendered<F: Future>(render: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), render)
        .await
        .expect("the server render ended")
}
