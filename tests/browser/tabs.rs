//! Tabs that agree, in the browser: two apps on two controllers, each
//! synced over a real `BroadcastChannel` of one name (as two tabs are),
//! share a read request, and follow each other's optimistic value,
//! mutation and log-out with no request.

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
    until("the first list", || {
        first.text().contains("delectus aut autem")
    })
    .await;
    let second = mount::<App>(CtrlProps { ctrl: two.clone() });
    until("both lists", || {
        second.text().contains("delectus aut autem")
    })
    .await;
    assert_eq!(hits("GET /todos").await, 2, "each tab read its list");

    // Answers come late (long enough, on a slow machine too, for tab two
    // to see an optimistic value before its answer); tab one invalidates
    // the list, which both tabs show: one request answers both.
    set_delay(1500).await;
    rename_elsewhere(1, "changed on the server").await;
    one.invalidate(&TodoResource::get_list(), &());
    until("both tabs refetched", || {
        first.text().contains("changed on the server")
            && second.text().contains("changed on the server")
    })
    .await;
    assert_eq!(
        hits("GET /todos").await,
        3,
        "one request answered both tabs"
    );

    // An optimistic rename shows in the other tab before its answer.
    let optimistic = Todo {
        id: 2,
        user_id: 1,
        title: "optimistic in tab one".into(),
        completed: false,
    };
    let body = Body::json(&json!({"title": "optimistic in tab one"})).unwrap();
    let update = TodoResource::partial_update();
    let answered = std::rc::Rc::new(std::cell::Cell::new(false));
    let renaming = async {
        let renamed = one
            .fetch_optimistic(
                &update,
                &TodoResourceParams { id: 2 },
                Some(body),
                std::rc::Rc::new(optimistic),
            )
            .await;
        answered.set(true);
        renamed
    };
    let seen_before_the_answer = async {
        until("the optimistic value in the other tab", || {
            second.text().contains("optimistic in tab one")
        })
        .await;
        !answered.get()
    };
    let (renamed, before) = futures_util::join!(renaming, seen_before_the_answer);
    renamed.unwrap();
    assert!(before, "shown in tab two while its request was on its way");
    set_delay(0).await;

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
    assert_eq!(hits("GET /todos").await, 3, "with no request");

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
