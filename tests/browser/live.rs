//! Live streams in the browser, against the demo API's server-sent events
//! and websocket routes: a mounted list shows a record changed by another
//! client with no request, says where its stream stands, and unmounting
//! the last view closes the connection.

use std::time::Duration;

use restcache::live::Live;
use restcache::yew::{AsyncBoundary, CacheProvider, use_stream, use_suspense};
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

#[derive(Properties, PartialEq, Clone)]
struct StreamProps {
    ctrl: restcache::Controller,
    websocket: bool,
}

fn live(websocket: bool) -> Live {
    let live = match websocket {
        true => Live::websocket("/socket")
            .on_open(|last_id| Some(json!({ "since": last_id }).to_string())),
        false => Live::sse("/events"),
    };
    live.entity::<Todo>()
        .retry(Duration::from_millis(100), Duration::from_secs(1))
}

/// The todos, kept current by the stream.
#[component]
fn LiveTodos(props: &StreamProps) -> HtmlResult {
    let status = use_stream(&live(props.websocket));
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    Ok(html! {
        <>
            <p class="status">{ format!("{status:?}") }</p>
            <ul>{ for todos.iter().map(|t| html! { <li key={t.id}>{ &t.title }</li> }) }</ul>
        </>
    })
}

#[component]
fn App(props: &StreamProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}>
                <LiveTodos ..props.clone() />
            </AsyncBoundary>
        </CacheProvider>
    }
}

fn status_of(page: &Mounted<App>) -> String {
    let element = page.root.query_selector(".status").unwrap();
    element.and_then(|e| e.text_content()).unwrap_or_default()
}

async fn a_mounted_list_follows_its_stream(websocket: bool) {
    reset_demo().await;
    let mut page = mount::<App>(StreamProps {
        ctrl: controller(),
        websocket,
    });
    until("the stream opens", || status_of(&page) == "Open").await;
    until("the list", || page.text().contains("fugiat veniam minus")).await;
    until_streams_open(1).await;

    rename_elsewhere(3, "pushed to the page").await;
    until("the pushed title", || {
        page.text().contains("pushed to the page")
    })
    .await;
    assert_eq!(hits("GET /todos").await, 1, "no request but the first");

    page.unmount();
    until_streams_open(0).await;
}

/// Waits until the demo API has `count` stream connections open (a
/// websocket counts once subscribed).
async fn until_streams_open(count: u64) {
    let start = now_ms();
    while streams_open().await != count {
        assert!(now_ms() - start < 10_000.0, "never {count} open streams");
        sleep(Duration::from_millis(10)).await;
    }
}

#[wasm_bindgen_test]
async fn a_mounted_list_follows_server_sent_events_and_closes_them_on_unmount() {
    a_mounted_list_follows_its_stream(false).await;
}

#[wasm_bindgen_test]
async fn a_mounted_list_follows_a_websocket_and_closes_it_on_unmount() {
    a_mounted_list_follows_its_stream(true).await;
}
