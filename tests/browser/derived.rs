//! A derived view in a browser: a header counting the open todos (a
//! `Query` through `use_query`) follows a mutation with no request, and
//! does not render again for a write that leaves its count as it was.

use restcache::Query;
use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, use_query, use_suspense};
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

thread_local! {
    static OPEN: Query<usize> =
        Query::new(|q| q.all::<Todo>().iter().filter(|todo| !todo.completed).count());
}

#[derive(Properties, PartialEq)]
struct HeaderProps {
    renders: Renders,
}

#[component]
fn Header(props: &HeaderProps) -> Html {
    props.renders.bump();
    let open = use_query(&OPEN.with(Query::clone));
    html! { <h1>{ format!("{open} open") }</h1> }
}

#[component]
fn Todos() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    Ok(html! { <p>{ format!("{} todos", todos.len()) }</p> })
}

#[derive(Properties, PartialEq)]
struct AppProps {
    ctrl: Controller,
    renders: Renders,
}

#[component]
fn App(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <Header renders={props.renders.clone()} />
            <AsyncBoundary fallback={html! { <p>{"loading"}</p> }} error_fallback={failed()}>
                <Todos />
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn a_header_counting_open_todos_follows_a_mutation_with_no_request() {
    reset_demo().await;
    let (ctrl, renders) = (controller(), Renders::default());
    let page = mount::<App>(AppProps {
        ctrl: ctrl.clone(),
        renders: renders.clone(),
    });
    until("the list", || page.text() == "3 open5 todos").await;
    let rendered = renders.count();

    // A write that leaves the count as it was: no render.
    ctrl.set_entity(
        User {
            id: 1,
            username: "Bret".into(),
        },
        ctrl.write_time(),
    )
    .unwrap();
    sleep(std::time::Duration::from_millis(30)).await;
    assert_eq!(renders.count(), rendered, "the count did not change");

    let done = Body::json(&json!({"completed": true})).unwrap();
    ctrl.fetch(
        &TodoResource::partial_update(),
        &TodoResourceParams { id: 1 },
        Some(done),
    )
    .await
    .unwrap();
    until("the header follows", || page.text() == "2 open5 todos").await;
    assert_eq!(hits("GET /todos").await, 1, "no request for the list again");
    assert_eq!(renders.count(), rendered + 1);
}
