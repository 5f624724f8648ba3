//! GraphQL in the browser, against the demo API's GraphQL server: a view
//! reading through GraphQL and one reading the same todo over REST follow
//! each other's writes with no refetch.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, use_suspense};
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

#[derive(Schema, Clone, Debug, PartialEq, Deserialize)]
struct TodosOf {
    #[schema(nested)]
    todos: Vec<Rc<Todo>>,
}

#[derive(Schema, Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Renamed {
    #[schema(nested)]
    update_todo: Rc<Todo>,
}

endpoint!(todos_of {
    graphql: "query TodosOf($userId: Int) { todos(userId: $userId) { id userId title completed } }",
    path: "/graphql",
    schema: TodosOf,
    params: #[serde(rename_all = "camelCase")] { user_id: u64 },
});

endpoint!(rename {
    graphql: "mutation Rename($id: Int!, $title: String) { updateTodo(id: $id, title: $title) { id userId title completed } }",
    path: "/graphql",
    schema: Renamed,
    params: { id: u64, title: String },
});

/// User 2's todos, read through GraphQL.
#[component]
fn ThroughGraphQl() -> HtmlResult {
    let list = use_suspense(&todos_of(), TodosOfParams { user_id: 2 })?;
    let titles: Vec<&str> = list.todos.iter().map(|todo| todo.title.as_str()).collect();
    Ok(html! { <p class="graphql">{ titles.join(", ") }</p> })
}

/// Todo 5, read over REST.
#[component]
fn OverRest() -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: 5 })?;
    Ok(html! { <p class="rest">{ &todo.title }</p> })
}

#[component]
fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}>
                <ThroughGraphQl />
                <OverRest />
            </AsyncBoundary>
        </CacheProvider>
    }
}

fn text_of(page: &Mounted<App>, selector: &str) -> String {
    let element = page.root.query_selector(selector).unwrap();
    element.and_then(|e| e.text_content()).unwrap_or_default()
}

#[wasm_bindgen_test]
async fn graphql_and_rest_views_follow_each_others_writes() {
    reset_demo().await;
    let ctrl = controller();
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    until("both views", || {
        text_of(&page, ".rest") == "laboriosam mollitia et enim quasi"
    })
    .await;
    assert_eq!(
        text_of(&page, ".graphql"),
        "et porro tempora, laboriosam mollitia et enim quasi"
    );

    let params = RenameParams {
        id: 5,
        title: "renamed through GraphQL".into(),
    };
    ctrl.fetch(&rename(), &params, None).await.unwrap();
    until("the REST view", || {
        text_of(&page, ".rest") == "renamed through GraphQL"
    })
    .await;

    let body = Body::json(&json!({"title": "renamed over REST"})).unwrap();
    let rest = TodoResourceParams { id: 5 };
    ctrl.fetch(&TodoResource::partial_update(), &rest, Some(body))
        .await
        .unwrap();
    until("the GraphQL view", || {
        text_of(&page, ".graphql") == "et porro tempora, renamed over REST"
    })
    .await;
    assert_eq!(
        hits("POST /graphql").await,
        2,
        "the query once, the mutation once"
    );
    assert!(
        hits("GET /todos/5").await <= 1,
        "the REST view fetched once at most"
    );
}
