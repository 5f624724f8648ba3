//! Tabs that agree, in the browser: two apps on two controllers, each
//! synced over a real `BroadcastChannel` of one name (as two tabs are),
//! follow each other's mutation and log-out with no request.

use restcache::prelude::*;
use restcache::tabs::TabSync;
use restcache::yew::{AsyncBoundary, CacheProvider, use_suspense, use_tab_sync};
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

/// The todos' titles.
#[component]
fn Titles() -> HtmlResult {
    use_tab_sync(&TabSync::new("restcache-browser-tabs").entity::<Todo>());
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    let titles: Vec<&str> = todos.iter().map(|todo| todo.title.as_str()).collect();
    Ok(html! { <p>{ titles.join(", ") }</p> })
}

#[component]
fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}>
                <Titles />
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn a_mutation_in_one_tab_shows_in_the_other_with_no_request() {
    reset_demo().await;
    let (one, two) = (controller(), controller());
    let first = mount::<App>(CtrlProps { ctrl: one.clone() });
    let second = mount::<App>(CtrlProps { ctrl: two.clone() });
    until("both lists", || {
        first.text().contains("delectus aut autem") && second.text().contains("delectus aut autem")
    })
    .await;
    assert_eq!(hits("GET /todos").await, 2, "each tab read its list");

    let body = Body::json(&json!({"title": "renamed in tab one"})).unwrap();
    one.fetch(
        &TodoResource::partial_update(),
        &TodoResourceParams { id: 1 },
        Some(body),
    )
    .await
    .unwrap();
    until("the other tab shows it", || {
        second.text().contains("renamed in tab one")
    })
    .await;
    assert_eq!(hits("GET /todos").await, 2, "with no request");

    let reset = std::rc::Rc::new(std::cell::Cell::new(false));
    let heard = std::rc::Rc::clone(&reset);
    let _listener = two.on_event(move |event, _| {
        if let restcache::Event::Reset = event {
            heard.set(true);
        }
    });
    one.reset(); // a log-out
    until("the other tab resets too", || reset.get()).await;
}
