//! Mutations while offline, in the browser: with the window's `offline`
//! event, two changes show at once and send nothing; with `online`, they
//! go in order and the page keeps the last.

use std::rc::Rc;

use futures_util::future::join;
use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, use_suspense};
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

#[component]
fn FirstTitle() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    Ok(html! { <p>{ &todos[0].title }</p> })
}

#[component]
fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}>
                <FirstTitle />
            </AsyncBoundary>
        </CacheProvider>
    }
}

fn network(up: bool) {
    let event = web_sys::Event::new(if up { "online" } else { "offline" }).unwrap();
    web_sys::window().unwrap().dispatch_event(&event).unwrap();
}

fn renamed(title: &str) -> Rc<Todo> {
    Rc::new(Todo {
        id: 1,
        user_id: 1,
        title: title.into(),
        completed: false,
    })
}

#[wasm_bindgen_test]
async fn changes_made_offline_show_at_once_and_go_in_order_when_back() {
    reset_demo().await;
    let ctrl = controller();
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    until("the list", || page.text() == "delectus aut autem").await;

    network(false);
    let (update, one) = (TodoResource::partial_update(), TodoResourceParams { id: 1 });
    let body = |title: &str| Some(Body::json(&json!({ "title": title })).unwrap());
    let first = ctrl.fetch_optimistic(&update, &one, body("first"), renamed("first"));
    let second = ctrl.fetch_optimistic(&update, &one, body("second"), renamed("second"));
    let back_online = async {
        until("the last change on show", || page.text() == "second").await;
        sleep(std::time::Duration::from_millis(50)).await;
        assert_eq!(
            hits("PATCH /todos/1").await,
            0,
            "nothing sent while offline"
        );
        assert_eq!(ctrl.queued_mutations(), 2);
        network(true);
    };
    let ((first, second), ()) = join(join(first, second), back_online).await;
    assert_eq!(first.unwrap().title, "first");
    assert_eq!(second.unwrap().title, "second");
    assert_eq!(hits("PATCH /todos/1").await, 2);
    until("the page keeps the last", || page.text() == "second").await;
}
