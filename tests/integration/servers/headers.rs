//! A decoder sees the whole response: status, headers and body, while the
//! request still goes through the client (its header hook and limits).

use std::rc::Rc;

use restcache::http::{Client, HeaderValue, Response, header};
use restcache::prelude::*;
use restcache::rest::body_json;
use restcache_demo::DemoApi;

use crate::common::mock::server;
use crate::common::{Todo, TodoResource};

/// A created todo, with what the server said beside the body.
#[derive(Schema, Clone, Debug)]
struct Created {
    #[schema(nested)]
    todo: Rc<Todo>,
    status: u16,
    location: Option<String>,
}

fn created(response: &Response, _: &()) -> Result<Decoded<Created>, SchemaError> {
    let todo = restcache::from_json::<Rc<Todo>>(body_json(response))?;
    Ok(todo.map(|todo| Created {
        todo,
        status: response.status,
        location: response.location().map(str::to_owned),
    }))
}

#[tokio::test]
async fn a_create_answered_201_with_its_location() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let create = TodoResource::create().with_decoder(created);
    let body = Body::json(&serde_json::json!({"userId": 2, "title": "tea"})).unwrap();
    let done = ctrl.fetch(&create, &(), Some(body)).await.unwrap();
    assert_eq!(done.status, 201);
    assert_eq!(
        done.location.as_deref(),
        Some(format!("/todos/{}", done.todo.id).as_str())
    );
    assert_eq!(done.todo.title, "tea");
    assert_eq!(api.hits("POST /todos"), 1);
}

/// A list, with the collection's size from `X-Total-Count`.
#[derive(Schema, Clone, Debug)]
struct Counted {
    #[schema(nested)]
    todos: Vec<Rc<Todo>>,
    total: Option<u64>,
}

fn counted(response: &Response, _: &()) -> Result<Decoded<Counted>, SchemaError> {
    let todos = restcache::from_json::<Vec<Rc<Todo>>>(body_json(response))?;
    Ok(todos.map(|todos| Counted {
        todos,
        total: response.total_count(),
    }))
}

#[tokio::test]
async fn a_decoder_reads_the_headers_of_an_answer_the_header_hook_asked_for() {
    let (mut server, _) = server().await;
    let _answer = server
        .mock("GET", "/todos")
        .match_header("authorization", "Bearer t0k3n")
        .with_header("content-type", "application/json")
        .with_header("x-total-count", "41")
        .with_body(r#"[{"id": 1, "title": "milk"}]"#)
        .expect(1)
        .create_async()
        .await;
    let client = Client::new(server.url()).with_headers(|headers| {
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer t0k3n"),
        );
    });
    let ctrl = Controller::new(client);
    let list = TodoResource::get_list().with_decoder(counted);
    let page = ctrl.fetch(&list, &(), None).await.unwrap();
    assert_eq!((page.todos.len(), page.total), (1, Some(41)));
    let cached = ctrl.read(&list, &()).data.unwrap();
    assert_eq!(cached.total, Some(41), "cached with the header's value");
    _answer.assert_async().await;
}
