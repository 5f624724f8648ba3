//! An app of two components (a header naming the signed-in user, and
//! the todo list) tested as its authors would: rendered from fixtures,
//! then after a mutation, then after a failure, with the requests it made
//! asserted.

use restcache::http::Method;
use restcache::prelude::*;
use restcache::testing::{Fixture, MockClient, Reply, render};
use restcache::yew::{AsyncBoundary, BoundaryError, CacheProvider, use_suspense};
use serde_json::json;
use yew::prelude::*;

use crate::common::{Todo, TodoResource, TodoResourceParams, User};

resource!(pub UserResource { path: "/users/:id", schema: User });

#[component]
fn Header() -> HtmlResult {
    let user = use_suspense(&UserResource::get(), UserResourceParams { id: 1 })?;
    Ok(html! { <header>{ format!("Signed in as {}", user.username) }</header> })
}

#[component]
fn Todos() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    Ok(html! {
        <ul>
            { for todos.iter().map(|todo| html! {
                <li key={todo.id} class={todo.completed.then_some("done")}>{ &todo.title }</li>
            }) }
        </ul>
    })
}

#[component]
fn App() -> Html {
    let error_fallback = Callback::from(|failed: BoundaryError| {
        html! { <p role="alert">{ format!("Could not load: HTTP {:?}", failed.error.status()) }</p> }
    });
    html! {
        <CacheProvider base_url="https://api.example">
            <AsyncBoundary fallback={html! { "Loading…" }} error_fallback={error_fallback.clone()}>
                <Header />
            </AsyncBoundary>
            <AsyncBoundary fallback={html! { "Loading…" }} {error_fallback}>
                <Todos />
            </AsyncBoundary>
        </CacheProvider>
    }
}

/// The server's data: user 1 and two todos; a PATCH answers the todo
/// with the body's fields over it.
fn mock() -> MockClient {
    let mock = MockClient::new();
    mock.answer(Fixture::new(
        &UserResource::get(),
        UserResourceParams { id: 1 },
        json!({"id": 1, "username": "ada"}),
    ))
    .answer(Fixture::new(
        &TodoResource::get_list(),
        (),
        json!([
            {"id": 1, "userId": 1, "title": "milk", "completed": false},
            {"id": 2, "userId": 1, "title": "eggs", "completed": false},
        ]),
    ))
    .intercept(|request| {
        let id: u64 = request.params_of(&TodoResource::partial_update())?["id"]
            .parse()
            .ok()?;
        let mut todo = json!({"id": id, "userId": 1, "title": "milk", "completed": false});
        let changes: serde_json::Value = request.json()?;
        for (field, value) in changes.as_object()? {
            todo[field] = value.clone();
        }
        Some(Reply::json(&todo))
    });
    mock
}

const FIRST: &str = "<header>Signed in as ada</header>\
                     <ul><li>milk</li><li>eggs</li></ul>";

#[tokio::test]
async fn an_app_renders_from_fixtures_then_a_mutation_then_a_failure() {
    let mock = mock();
    let ctrl = mock.controller();
    assert_eq!(render::<App>(&ctrl, ()).await.unwrap(), FIRST);
    assert_eq!(mock.count(Method::Get, "/users/1"), 1);
    assert_eq!(mock.count(Method::Get, "/todos"), 1);

    // A mutation: the list shows its answer with no refetch.
    let done = Body::json(&json!({"completed": true})).unwrap();
    let params = TodoResourceParams { id: 1 };
    let todo: std::rc::Rc<Todo> = ctrl
        .fetch(&TodoResource::partial_update(), &params, Some(done))
        .await
        .unwrap();
    assert!(todo.completed);
    assert_eq!(
        render::<App>(&ctrl, ()).await.unwrap(),
        "<header>Signed in as ada</header>\
         <ul><li class=\"done\">milk</li><li>eggs</li></ul>"
    );
    let sent = mock.requests();
    let patch = sent.iter().find(|r| r.method == Method::Patch).unwrap();
    assert_eq!(patch.path, "/todos/1");
    assert_eq!(
        patch.json::<serde_json::Value>(),
        Some(json!({"completed": true}))
    );
    assert_eq!(patch.headers["content-type"], "application/json");
    assert_eq!(
        mock.count(Method::Get, "/todos"),
        1,
        "no refetch after the mutation"
    );

    // A failure: the user is gone; its boundary shows the error, the
    // list stays.
    mock.answer(Fixture::error(
        &UserResource::get(),
        UserResourceParams { id: 1 },
        404,
        "gone",
    ));
    ctrl.invalidate(&UserResource::get(), &UserResourceParams { id: 1 });
    assert_eq!(
        render::<App>(&ctrl, ()).await.unwrap(),
        "<p role=\"alert\">Could not load: HTTP Some(404)</p>\
         <ul><li class=\"done\">milk</li><li>eggs</li></ul>"
    );
    assert_eq!(mock.count(Method::Get, "/users/1"), 2);
    assert_eq!(mock.requests().len(), 4);
}

#[tokio::test]
async fn a_controller_filled_from_fixtures_renders_with_no_request() {
    let mock = mock();
    let ctrl = mock.filled_controller().unwrap();
    assert_eq!(render::<App>(&ctrl, ()).await.unwrap(), FIRST);
    assert!(mock.requests().is_empty(), "{:?}", mock.requests());
}

#[tokio::test]
async fn an_error_fixture_fills_the_controller_with_its_failure() {
    let mock = mock();
    mock.answer(Fixture::error(
        &UserResource::get(),
        UserResourceParams { id: 1 },
        403,
        "no",
    ));
    let ctrl = mock.filled_controller().unwrap();
    let html = render::<App>(&ctrl, ()).await.unwrap();
    assert!(
        html.starts_with("<p role=\"alert\">Could not load: HTTP Some(403)</p>"),
        "{html}"
    );
    assert!(mock.requests().is_empty(), "{:?}", mock.requests());
}
