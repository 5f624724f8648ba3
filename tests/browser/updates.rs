//! What re-renders, counted: a mutation re-renders every view of its
//! record and no other component; another component's fetch updates a
//! view that only reads the cache; an optimistic update shows at once and
//! its rollback shows the data from before; an unrelated write, or a
//! refetch that brings what the cache holds, renders nothing.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, use_cache, use_suspense};
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

#[derive(Properties, PartialEq)]
struct ViewProps {
    renders: Renders,
    #[prop_or_default]
    id: u64,
}

/// The list of todos.
#[component]
fn List(props: &ViewProps) -> HtmlResult {
    props.renders.bump();
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    Ok(
        html! { <ul class="list">{ for todos.iter().map(|t| html! { <li>{ &t.title }</li> }) }</ul> },
    )
}

/// One todo.
#[component]
fn Detail(props: &ViewProps) -> HtmlResult {
    props.renders.bump();
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: props.id })?;
    Ok(html! { <h1 class={format!("todo-{}", props.id)}>{ &todo.title }</h1> })
}

/// The users, which no todo write touches.
#[component]
fn Users(props: &ViewProps) -> HtmlResult {
    props.renders.bump();
    let users = use_suspense(&UserResource::get_list(), ())?;
    Ok(html! { <p class="users">{ users.len() }</p> })
}

#[derive(Properties, PartialEq)]
struct AppProps {
    ctrl: Controller,
    list: Renders,
    first: Renders,
    second: Renders,
    users: Renders,
}

#[component]
fn Views(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}>
                <List renders={props.list.clone()} />
                <Detail renders={props.first.clone()} id={1} />
                <Detail renders={props.second.clone()} id={2} />
                <Users renders={props.users.clone()} />
            </AsyncBoundary>
        </CacheProvider>
    }
}

struct Counts([u32; 4]);

impl Counts {
    fn of(renders: &[Renders; 4]) -> Counts {
        Counts(renders.each_ref().map(Renders::count))
    }
}

fn views() -> (Mounted<Views>, Controller, [Renders; 4]) {
    let ctrl = controller();
    let renders: [Renders; 4] = Default::default();
    let page = mount::<Views>(AppProps {
        ctrl: ctrl.clone(),
        list: renders[0].clone(),
        first: renders[1].clone(),
        second: renders[2].clone(),
        users: renders[3].clone(),
    });
    (page, ctrl, renders)
}

/// [`views`] on a fresh demo API, once every view shows.
async fn views_shown() -> (Mounted<Views>, Controller, [Renders; 4]) {
    reset_demo().await;
    let (page, ctrl, renders) = views();
    until("every view", || text_of(&page, ".users") == "3").await;
    (page, ctrl, renders)
}

fn text_of(page: &Mounted<Views>, selector: &str) -> String {
    page.root
        .query_selector(selector)
        .ok()
        .flatten()
        .and_then(|e| e.text_content())
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn a_mutation_rerenders_every_view_of_its_record_and_no_other_component() {
    let (page, ctrl, renders) = views_shown().await;
    let before = Counts::of(&renders);

    let body = Body::json(&json!({"title": "renamed"})).unwrap();
    ctrl.fetch(
        &TodoResource::partial_update(),
        &TodoResourceParams { id: 1 },
        Some(body),
    )
    .await
    .unwrap();
    until("the renamed todo", || {
        text_of(&page, ".todo-1") == "renamed"
    })
    .await;
    assert!(text_of(&page, ".list").starts_with("renamed"));
    let after = Counts::of(&renders);
    assert_eq!(after.0[0], before.0[0] + 1, "the list re-rendered once");
    assert_eq!(after.0[1], before.0[1] + 1, "todo 1 re-rendered once");
    assert_eq!(after.0[2], before.0[2], "todo 2 did not re-render");
    assert_eq!(after.0[3], before.0[3], "the users did not re-render");

    // A write no view read renders nothing.
    let user = User {
        id: 99,
        username: "nobody".into(),
    };
    ctrl.set_response(
        &UserResource::get(),
        &UserResourceParams { id: 99 },
        Rc::new(user),
    )
    .unwrap();
    sleep(std::time::Duration::from_millis(50)).await;
    yew::scheduler::flush().await;
    let last = Counts::of(&renders);
    assert_eq!(last.0, after.0, "an unrelated write renders nothing");
}

#[wasm_bindgen_test]
async fn an_optimistic_update_shows_at_once_and_its_rollback_shows_the_data_from_before() {
    let (page, ctrl, renders) = views_shown().await;
    let second = renders[2].count();

    outage(true).await;
    let params = TodoResourceParams { id: 1 };
    let todo = ctrl.read(&TodoResource::get(), &params).data.unwrap();
    let guess = Todo {
        title: "optimistic".into(),
        ..(*todo).clone()
    };
    let body = Body::json(&guess).unwrap();
    let update = TodoResource::update();
    let request = ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(guess));
    yew::scheduler::flush().await;
    assert_eq!(text_of(&page, ".todo-1"), "optimistic");
    assert!(text_of(&page, ".list").starts_with("optimistic"));

    let error = request.await.unwrap_err();
    assert_eq!(error.status(), Some(503));
    until("the rollback", || {
        text_of(&page, ".todo-1") == "delectus aut autem"
    })
    .await;
    assert!(text_of(&page, ".list").starts_with("delectus aut autem"));
    assert_eq!(renders[2].count(), second, "todo 2 never re-rendered");
    outage(false).await;
}

/// How many todos the cache holds, without fetching.
#[component]
fn Cached(props: &ViewProps) -> Html {
    props.renders.bump();
    let todos = use_cache(&TodoResource::get_list(), ());
    html! { <p class="cached">{ todos.map_or("nothing".to_owned(), |t| t.len().to_string()) }</p> }
}

#[derive(Properties, PartialEq)]
struct CachedProps {
    ctrl: Controller,
    renders: Renders,
}

#[component]
fn CachedApp(props: &CachedProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <Cached renders={props.renders.clone()} />
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn another_components_fetch_shows_in_a_view_that_only_reads_the_cache() {
    reset_demo().await;
    let ctrl = controller();
    let renders = Renders::default();
    let page = mount::<CachedApp>(CachedProps {
        ctrl: ctrl.clone(),
        renders: renders.clone(),
    });
    yew::scheduler::flush().await;
    assert_eq!(page.text(), "nothing");
    assert_eq!(hits("GET /todos").await, 0, "use_cache never fetches");

    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    until("the fetched list", || page.text() == "5").await;
    assert_eq!(renders.count(), 2);
}

#[wasm_bindgen_test]
async fn a_refetch_that_brings_nothing_new_renders_nothing() {
    let (_page, ctrl, renders) = views_shown().await;
    let before = Counts::of(&renders);

    // The list and todo 1 fetched again: the API answers what the cache
    // holds, parsed into new copies.
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    let one = TodoResourceParams { id: 1 };
    ctrl.fetch(&TodoResource::get(), &one, None).await.unwrap();
    sleep(std::time::Duration::from_millis(50)).await;
    yew::scheduler::flush().await;

    assert_eq!(hits("GET /todos").await, 2, "the list came again");
    assert_eq!(hits("GET /todos/1").await, 2, "todo 1 came again");
    assert_eq!(Counts::of(&renders).0, before.0, "no view rendered again");
}
