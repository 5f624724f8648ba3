//! GraphQL against the demo API's real GraphQL server (async-graphql),
//! which serves the same todos and users as its REST routes: reads with
//! equal variables share one request, records land in the one normalized
//! store (a todo changed through either protocol shows in the other's
//! cached views with no request), and `errors` are typed errors.

use std::rc::Rc;

use futures_util::future::join;
use restcache::http::{ErrorKind, Method};
use restcache::prelude::*;
use restcache_demo::DemoApi;
use serde_json::json;

use crate::common::{Todo, TodoResource, TodoResourceParams, User};

#[derive(Schema, Clone, Debug, PartialEq, Deserialize)]
pub struct TodosOf {
    #[schema(nested)]
    pub todos: Vec<Rc<Todo>>,
}

/// A todo with its user, as GraphQL nests it.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[entity(key = "Todo")]
pub struct TodoWithUser {
    pub id: u64,
    pub title: String,
    pub completed: bool,
    #[entity(nested)]
    pub user: Option<Rc<User>>,
}

#[derive(Schema, Clone, Debug, PartialEq, Deserialize)]
pub struct OneTodo {
    #[schema(nested)]
    pub todo: Rc<TodoWithUser>,
}

#[derive(Schema, Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Updated {
    #[schema(nested)]
    pub update_todo: Rc<Todo>,
}

endpoint!(pub todos_of {
    graphql: "query TodosOf($userId: Int) { todos(userId: $userId) { id userId title completed } }",
    path: "/graphql",
    schema: TodosOf,
    params: #[serde(rename_all = "camelCase")] { user_id: u64 },
});

endpoint!(pub todo_with_user {
    graphql: "query Todo($id: Int!) { todo(id: $id) { id title completed user { id username email } } }",
    path: "/graphql",
    schema: OneTodo,
    params: { id: u64 },
});

endpoint!(pub complete_todo {
    graphql: "mutation Complete($id: Int!, $completed: Boolean!) {
        updateTodo(id: $id, completed: $completed) { id userId title completed }
    }",
    path: "/graphql",
    schema: Updated,
    params: { id: u64, completed: bool },
});

endpoint!(pub complete_todo_by_fragment {
    graphql: "fragment Fields on Todo { id userId title completed }
    mutation Complete($id: Int!, $completed: Boolean!) {
        updateTodo(id: $id, completed: $completed) { ...Fields }
    }",
    path: "/graphql",
    schema: Updated,
    params: { id: u64, completed: bool },
});

resource!(pub UserResource { path: "/users/:id", schema: User });

fn ids(todos: &[Rc<Todo>]) -> Vec<u64> {
    todos.iter().map(|todo| todo.id).collect()
}

#[tokio::test]
async fn reads_of_one_operation_and_variables_share_one_request() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let (query, two) = (todos_of(), TodosOfParams { user_id: 2 });
    let (a, b) = join(
        ctrl.fetch(&query, &two, None),
        ctrl.fetch(&query, &two, None),
    )
    .await;
    assert_eq!(ids(&a.unwrap().todos), [4, 5]);
    assert!(Rc::ptr_eq(
        &b.unwrap(),
        &ctrl.read(&query, &two).data.unwrap()
    ));
    assert_eq!(api.hits("POST /graphql"), 1);
    let one = ctrl
        .fetch(&query, &TodosOfParams { user_id: 1 }, None)
        .await
        .unwrap();
    assert_eq!(ids(&one.todos), [1, 2, 3]);
    assert_eq!(
        api.hits("POST /graphql"),
        2,
        "other variables, another request"
    );
    // The records are the REST detail's too: no request for todo 4.
    let detail = ctrl.read(&TodoResource::get(), &TodoResourceParams { id: 4 });
    assert_eq!(detail.data.unwrap().title, "et porro tempora");
    assert_eq!(api.hits("GET /todos/4"), 0);
}

#[tokio::test]
async fn a_graphql_mutation_shows_in_a_cached_rest_list_and_a_rest_one_in_a_graphql_list() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let rest_list = ctrl
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    assert!(!rest_list[4].completed);
    let params = CompleteTodoParams {
        id: 5,
        completed: true,
    };
    let done = ctrl.fetch(&complete_todo(), &params, None).await.unwrap();
    assert!(done.update_todo.completed);
    let rest_list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert!(
        rest_list[4].completed,
        "the REST list shows the GraphQL mutation"
    );
    assert_eq!(api.hits("GET /todos"), 1, "with no refetch");

    let (query, two) = (todos_of(), TodosOfParams { user_id: 2 });
    ctrl.fetch(&query, &two, None).await.unwrap();
    let body = Body::json(&json!({"title": "renamed over REST"})).unwrap();
    let params = TodoResourceParams { id: 4 };
    ctrl.fetch(&TodoResource::partial_update(), &params, Some(body))
        .await
        .unwrap();
    let graphql_list = ctrl.read(&query, &two).data.unwrap();
    assert_eq!(graphql_list.todos[0].title, "renamed over REST");
    assert_eq!(
        api.hits("POST /graphql"),
        2,
        "the GraphQL list was not fetched again"
    );
}

#[tokio::test]
async fn a_nested_record_of_an_answer_is_the_rest_one() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let todo = ctrl
        .fetch(&todo_with_user(), &TodoWithUserParams { id: 4 }, None)
        .await
        .unwrap();
    assert_eq!(todo.todo.user.as_ref().unwrap().username, "Antonette");
    let user = ctrl.read(&UserResource::get(), &UserResourceParams { id: 2 });
    assert_eq!(user.data.unwrap().email, "Shanna@melissa.tv");
    assert_eq!(api.hits("GET /users/2"), 0);
}

#[tokio::test]
async fn errors_in_an_answer_are_hard_and_an_outage_is_soft() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::builder(Client::new(api.url()))
        .retry(restcache::Retry::NONE)
        .build();
    let missing = ctrl
        .fetch(&todo_with_user(), &TodoWithUserParams { id: 99 }, None)
        .await
        .unwrap_err();
    assert!(missing.is_hard());
    assert_eq!(missing.method(), Method::Post);
    match missing.kind() {
        ErrorKind::GraphQl(errors) => {
            assert_eq!(errors[0].message, "no todos/99");
            assert_eq!(errors[0].path, ["todo"]);
        }
        other => panic!("not a GraphQL error: {other:?}"),
    }
    let refused = ctrl
        .fetch(
            &complete_todo(),
            &CompleteTodoParams {
                id: 77,
                completed: true,
            },
            None,
        )
        .await
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .ends_with("GraphQL: no todos/77 (at updateTodo)"),
        "{refused}"
    );

    api.set_outage(true);
    let down = ctrl
        .fetch(&todos_of(), &TodosOfParams { user_id: 3 }, None)
        .await
        .unwrap_err();
    assert!(down.is_soft() && down.status() == Some(503), "{down}");
}

#[tokio::test]
async fn a_mock_answers_each_operation_and_variables_from_its_own_fixture() {
    use restcache::testing::{Fixture, MockClient};
    let mock = MockClient::new();
    let todo =
        |id: u64, title: &str| json!({"id": id, "userId": 2, "title": title, "completed": false});
    mock.answer(Fixture::new(
        &todos_of(),
        TodosOfParams { user_id: 1 },
        json!({"todos": [todo(1, "one")]}),
    ));
    mock.answer(Fixture::new(
        &todos_of(),
        TodosOfParams { user_id: 2 },
        json!({"todos": [todo(4, "four")]}),
    ));
    let ctrl = mock.controller();
    let two = ctrl
        .fetch(&todos_of(), &TodosOfParams { user_id: 2 }, None)
        .await
        .unwrap();
    let one = ctrl
        .fetch(&todos_of(), &TodosOfParams { user_id: 1 }, None)
        .await
        .unwrap();
    assert_eq!((ids(&one.todos), ids(&two.todos)), (vec![1], vec![4]));
    let sent = mock.requests();
    assert_eq!(
        sent[0].json::<serde_json::Value>().unwrap()["variables"],
        json!({"userId": 2})
    );

    // Filled before the first render, the same fixture reads with no request.
    let filled = mock.filled_controller().unwrap();
    let cached = filled.read(&todos_of(), &TodosOfParams { user_id: 1 });
    assert_eq!(ids(&cached.data.unwrap().todos), [1]);
    assert_eq!(mock.requests().len(), 2);
}

#[tokio::test]
async fn an_answer_with_neither_data_nor_errors_is_read_whole() {
    use restcache::http::{Incoming, Outgoing};
    let client = Client::new("http://api.test")
        .with_transport(|_: Outgoing| async { Ok(Incoming::new(200, r#"{"todos": []}"#)) });
    let list = client
        .call(&todos_of(), &TodosOfParams { user_id: 1 }, None)
        .await
        .unwrap();
    assert!(list.todos.is_empty());
}

#[tokio::test]
async fn a_mutation_whose_fragments_come_first_is_a_mutation() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let params = CompleteTodoByFragmentParams {
        id: 5,
        completed: true,
    };
    let complete = complete_todo_by_fragment();
    let done = ctrl.fetch(&complete, &params, None).await.unwrap();
    assert!(done.update_todo.completed);
    // A mutation is never answered from the cache.
    ctrl.fetch(&complete, &params, None).await.unwrap();
    assert_eq!(api.hits("POST /graphql"), 2);
    let stored = ctrl.read(&TodoResource::get(), &TodoResourceParams { id: 5 });
    assert!(stored.data.unwrap().completed);
}

#[test]
#[should_panic(expected = "a GraphQL mutation needs an endpoint of a mutation's effect")]
fn a_mutation_built_as_a_read_is_refused() {
    use restcache::rest::{Part, PathTemplate};
    const GRAPHQL: PathTemplate = PathTemplate::new("/graphql", &[Part::Static("/graphql")]);
    let _ = Endpoint::<(), serde_json::Value>::new(Method::Post, GRAPHQL)
        .graphql("# resets\nmutation { reset }");
}

#[test]
#[should_panic(expected = "a GraphQL mutation needs an endpoint of a mutation's effect")]
fn a_mutation_after_its_fragments_built_as_a_read_is_refused() {
    use restcache::rest::{Part, PathTemplate};
    const GRAPHQL: PathTemplate = PathTemplate::new("/graphql", &[Part::Static("/graphql")]);
    let _ = Endpoint::<(), serde_json::Value>::new(Method::Post, GRAPHQL).graphql(
        "fragment T on Todo { id title } # a \"quoted\" { comment\nmutation { reset { ...T } }",
    );
}

#[test]
fn a_query_whose_fragment_holds_a_block_string_of_any_text_is_a_read() {
    use restcache::rest::{Part, PathTemplate};
    const GRAPHQL: PathTemplate = PathTemplate::new("/graphql", &[Part::Static("/graphql")]);
    let query = Endpoint::<(), serde_json::Value>::new(Method::Post, GRAPHQL).graphql(
        "fragment T on Todo { title(lang: \"\"\"é, ü, 日本\"\"\") } query { todos { ...T } }",
    );
    assert!(query.graphql_document().is_some(), "a read, no panic");
}

#[tokio::test]
async fn an_answer_whose_data_is_null_reads_as_null() {
    use restcache::rest::{Part, PathTemplate};
    const GRAPHQL: PathTemplate = PathTemplate::new("/graphql", &[Part::Static("/graphql")]);
    let mut server = mockito::Server::new_async().await;
    let _answer = server
        .mock("POST", "/graphql")
        .with_header("content-type", "application/json")
        .with_body(r#"{"data": null}"#)
        .create_async()
        .await;
    let viewer = Endpoint::<(), serde_json::Value>::new(Method::Post, GRAPHQL)
        .graphql("query { viewer { id } }");
    let ctrl = Controller::new(Client::new(server.url()));
    let data = ctrl.fetch(&viewer, &(), None).await.unwrap();
    assert_eq!(*data, serde_json::Value::Null, "the data, not the envelope");
}
