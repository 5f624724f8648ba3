//! The REST layer through the public API: declared resources and custom
//! endpoints make real HTTP requests to mockito on 127.0.0.1, asserting
//! method, path, query, body, Content-Type and call counts.

mod common;

use std::rc::Rc;
use std::time::Duration;

use common::{
    Birthday, PostPageParams, Profile, Todo, current_user, post_page, upcoming_birthdays,
};
use mockito::{Matcher, Server, ServerGuard};
use restcache::http::{Body, Client, ErrorKind, FetchFuture, HeaderValue, header};
use restcache::prelude::*;
use restcache::rest::{Kind, Request};
use serde_json::json;

resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
resource!(pub ProfileResource { path: "/profiles/:id", schema: Profile });
resource!(pub BirthdayResource {
    path: "/birthdays/:id",
    schema: Birthday,
    data_expiry: Duration::from_secs(5),
    invalid_if_stale: true,
});
resource!(pub PostResource {
    path: "/users/:user_id/posts/:id",
    schema: Todo,
    params: { user_id: u64 },
});

endpoint!(pub make_manager {
    method: POST,
    path: "/users/:id/make_manager",
    schema: serde_json::Value,
    params: { id: u64 },
});
endpoint!(pub TodoResource::search {
    path: "/todos/search/:term",
    schema: Vec<Rc<Todo>>,
    params: { user_id: Option<u64>, tags: Vec<String> },
});

const TODO_1: &str = r#"{"id": 1, "userId": 3, "title": "milk", "completed": false}"#;

async fn server() -> (ServerGuard, Client) {
    let server = Server::new_async().await;
    let client = Client::new(server.url());
    (server, client)
}

fn json_response(mock: mockito::Mock, status: usize, body: &str) -> mockito::Mock {
    mock.with_status(status)
        .with_header("content-type", "application/json")
        .with_body(body)
}

/// `mock`, expected once, with `body` as its JSON request body.
async fn once_sent(mock: mockito::Mock, body: &serde_json::Value) -> mockito::Mock {
    mock.match_header("content-type", "application/json")
        .match_body(Matcher::Json(body.clone()))
        .expect(1)
        .create_async()
        .await
}

#[tokio::test]
async fn the_six_standard_methods_make_the_contracts_requests() {
    let (mut server, client) = server().await;
    let params = TodoResourceParams { id: 1 };

    let get = json_response(server.mock("GET", "/todos/1"), 200, TODO_1)
        .match_header("accept", "application/json")
        .match_header("content-type", Matcher::Missing)
        .expect(1)
        .create_async()
        .await;
    let todo = client
        .call(&TodoResource::get(), &params, None)
        .await
        .unwrap();
    assert_eq!((todo.id, todo.user_id, todo.title.as_str()), (1, 3, "milk"));
    get.assert_async().await;

    let list = json_response(server.mock("GET", "/todos"), 200, &format!("[{TODO_1}]"))
        .match_query(Matcher::Missing)
        .expect(1)
        .create_async()
        .await;
    let todos = client
        .call(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    assert_eq!(todos.len(), 1);
    list.assert_async().await;

    let new = json!({"userId": 3, "title": "eggs", "completed": false});
    let create = once_sent(
        json_response(
            server.mock("POST", "/todos"),
            201,
            r#"{"id": 2, "userId": 3, "title": "eggs", "completed": false}"#,
        ),
        &new,
    )
    .await;
    let body = Body::json(&new).unwrap();
    let created = client
        .call(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    assert_eq!(created.id, 2);
    create.assert_async().await;

    let whole = json!({"id": 1, "userId": 3, "title": "oat milk", "completed": true});
    let update = once_sent(
        json_response(server.mock("PUT", "/todos/1"), 200, &whole.to_string()),
        &whole,
    )
    .await;
    let updated = client
        .call(&TodoResource::update(), &params, Some(whole.into()))
        .await
        .unwrap();
    assert!(updated.completed);
    update.assert_async().await;

    let some = json!({"completed": true});
    let patch = once_sent(
        json_response(
            server.mock("PATCH", "/todos/1"),
            200,
            r#"{"id": 1, "userId": 3, "title": "milk", "completed": true}"#,
        ),
        &some,
    )
    .await;
    let patched = client
        .call(&TodoResource::partial_update(), &params, Some(some.into()))
        .await
        .unwrap();
    assert_eq!((patched.title.as_str(), patched.completed), ("milk", true));
    patch.assert_async().await;

    let delete = server
        .mock("DELETE", "/todos/1")
        .with_status(204)
        .expect(1)
        .create_async()
        .await;
    let gone = client
        .call(&TodoResource::delete(), &params, None)
        .await
        .unwrap();
    assert_eq!(gone.pk, Pk::from(1u64));
    delete.assert_async().await;

    let kinds = [
        TodoResource::get().kind(),
        TodoResource::get_list().kind(),
        TodoResource::create().kind(),
        TodoResource::update().kind(),
        TodoResource::partial_update().kind(),
        TodoResource::delete().kind(),
    ];
    use Kind::*;
    assert_eq!(kinds, [Read, Read, Create, Mutate, Mutate, Delete]);
}

#[tokio::test]
async fn a_delete_that_answers_with_a_body_still_names_its_record() {
    let (mut server, client) = server().await;
    let delete = json_response(server.mock("DELETE", "/todos/4"), 200, "{}")
        .expect(1)
        .create_async()
        .await;
    let gone = client
        .call(&TodoResource::delete(), &TodoResourceParams { id: 4 }, None)
        .await
        .unwrap();
    assert_eq!(gone.pk, Pk::from(4u64));
    delete.assert_async().await;
}

#[tokio::test]
async fn a_nested_resource_drops_its_last_placeholder_for_the_list() {
    let (mut server, client) = server().await;
    let list = json_response(
        server.mock("GET", "/users/7/posts"),
        200,
        &format!("[{TODO_1}]"),
    )
    .expect(1)
    .create_async()
    .await;
    let one = json_response(server.mock("GET", "/users/7/posts/1"), 200, TODO_1)
        .expect(1)
        .create_async()
        .await;
    let create = json_response(server.mock("POST", "/users/7/posts"), 201, TODO_1)
        .match_body(Matcher::Json(json!({"title": "milk"})))
        .expect(1)
        .create_async()
        .await;

    let in_list = PostResourceListParams { user_id: 7 };
    client
        .call(&PostResource::get_list(), &in_list, None)
        .await
        .unwrap();
    let params = PostResourceParams { user_id: 7, id: 1 };
    client
        .call(&PostResource::get(), &params, None)
        .await
        .unwrap();
    let body = Body::json(&json!({"title": "milk"})).unwrap();
    client
        .call(&PostResource::create(), &in_list, Some(body))
        .await
        .unwrap();
    list.assert_async().await;
    one.assert_async().await;
    create.assert_async().await;
    assert_eq!(
        PostResource::get_list().path().source(),
        "/users/:user_id/posts"
    );
}

#[tokio::test]
async fn a_pk_held_as_an_optional_number_is_a_plain_number_in_params() {
    let (mut server, client) = server().await;
    let profile = json!({"id": "5", "img": "", "fullName": "Ada", "bio": "Counts."});
    let get = json_response(server.mock("GET", "/profiles/5"), 200, &profile.to_string())
        .expect(1)
        .create_async()
        .await;
    // `id` is `u64` here although the record holds `Option<u64>`.
    let params = ProfileResourceParams { id: 5 };
    let got = client
        .call(&ProfileResource::get(), &params, None)
        .await
        .unwrap();
    assert_eq!((got.id, got.full_name.as_str()), (Some(5), "Ada"));
    get.assert_async().await;
}

#[tokio::test]
async fn path_values_are_percent_encoded_and_never_change_the_path() {
    let (mut server, client) = server().await;
    let birthday =
        json!({"id": "x", "name": "n", "image": "", "source": "", "date": "2026-01-01T00:00:00Z"});
    let admin = json_response(
        server.mock("GET", "/birthdays/..%2Fadmin"),
        200,
        &birthday.to_string(),
    )
    .expect(1)
    .create_async()
    .await;
    let odd = json_response(
        server.mock("GET", "/birthdays/a%20b%3Fc%23d"),
        200,
        &birthday.to_string(),
    )
    .match_query(Matcher::Missing)
    .expect(1)
    .create_async()
    .await;
    let get = BirthdayResource::get();
    for id in ["../admin", "a b?c#d"] {
        let params = BirthdayResourceParams { id: id.into() };
        client.call(&get, &params, None).await.unwrap();
    }
    admin.assert_async().await;
    odd.assert_async().await;

    // `..` itself would climb out of the path: refused before any request.
    let params = BirthdayResourceParams { id: "..".into() };
    let err = client.call(&get, &params, None).await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Url(_)), "{err}");
    assert!(err.is_hard());
    assert_eq!(
        get.options().data_expiry,
        Some(Duration::from_secs(5)),
        "options are declared on the resource"
    );
    assert!(get.options().invalid_if_stale);
}

#[tokio::test]
async fn the_contracts_custom_endpoints() {
    let (mut server, client) = server().await;

    // POST /users/:id/make_manager: no body expected, one may be sent.
    let rpc = server
        .mock("POST", "/users/5/make_manager")
        .match_header("content-type", Matcher::Missing)
        .with_status(204)
        .expect(1)
        .create_async()
        .await;
    let done = client
        .call(&make_manager(), &MakeManagerParams { id: 5 }, None)
        .await
        .unwrap();
    assert_eq!(done, serde_json::Value::Null);
    rpc.assert_async().await;
    let with_text = server
        .mock("POST", "/users/6/make_manager")
        .match_header("content-type", "text/plain; charset=utf-8")
        .match_body("because")
        .with_status(200)
        .with_body(r#"{"ok": true}"#)
        .expect(1)
        .create_async()
        .await;
    let answer = client
        .call(
            &make_manager(),
            &MakeManagerParams { id: 6 },
            Some(Body::text("because")),
        )
        .await
        .unwrap();
    assert_eq!(answer, json!({"ok": true}));
    with_text.assert_async().await;
    assert_eq!(make_manager().kind(), Kind::Mutate);

    // POST /current_user/, read with empty params.
    let me = json_response(
        server.mock("POST", "/current_user/"),
        200,
        r#"{"id": 9, "username": "ada", "email": "a@b.c", "isManager": true}"#,
    )
    .expect(1)
    .create_async()
    .await;
    let user = client.call(&current_user(), &(), None).await.unwrap();
    assert!(user.is_manager);
    me.assert_async().await;
    assert_eq!(current_user().kind(), Kind::Read);

    // POST /api/birthdays/upcoming/ -> the envelope of Birthday lists.
    let upcoming = json_response(
        server.mock("POST", "/api/birthdays/upcoming/"),
        200,
        r#"{"withinSevenDays": [{"id": "1", "name": "Ada", "image": "", "source": "", "date": "2026-11-25T00:00:00Z"}],
            "withinThirtyDays": []}"#,
    )
    .expect(1)
    .create_async()
    .await;
    let soon = client.call(&upcoming_birthdays(), &(), None).await.unwrap();
    assert_eq!(soon.within_seven_days[0].name, "Ada");
    upcoming.assert_async().await;

    // GET /post\?page=:page -> /post?page=2.
    let page = json_response(
        server.mock("GET", "/post"),
        200,
        r#"{"results": [{"id": 1, "title": "t", "content": "c"}], "nextPage": "3", "lastPage": "9"}"#,
    )
    .match_query(Matcher::Exact("page=2".into()))
    .expect(1)
    .create_async()
    .await;
    let posts = client
        .call(&post_page(), &PostPageParams { page: "2".into() }, None)
        .await
        .unwrap();
    assert_eq!((posts.results.len(), posts.next_page.as_str()), (1, "3"));
    page.assert_async().await;
}

#[tokio::test]
async fn params_not_in_the_path_make_a_sorted_query() {
    let (mut server, client) = server().await;
    let search = json_response(server.mock("GET", "/todos/search/a%20b"), 200, "[]")
        .match_query(Matcher::Exact("tags=x&tags=y%26z&user_id=3".into()))
        .expect(1)
        .create_async()
        .await;
    let params = SearchParams {
        term: "a b".into(),
        user_id: Some(3),
        tags: vec!["x".into(), "y&z".into()],
    };
    client
        .call(&TodoResource::search(), &params, None)
        .await
        .unwrap();
    search.assert_async().await;

    let base = "http://127.0.0.1:8080";
    let key = TodoResource::search().key(base, &params).unwrap();
    assert_eq!(
        key,
        "GET http://127.0.0.1:8080/todos/search/a%20b?tags=x&tags=y%26z&user_id=3"
    );
    assert_eq!(
        key,
        TodoResource::search().key(base, &params.clone()).unwrap()
    );
    let none = SearchParams {
        user_id: None,
        ..params
    };
    assert_eq!(
        TodoResource::search().key(base, &none).unwrap(),
        "GET http://127.0.0.1:8080/todos/search/a%20b?tags=x&tags=y%26z"
    );
}

#[test]
fn every_endpoint_has_a_method_and_url_key() {
    let base = "http://127.0.0.1:8080";
    let one = TodoResourceParams { id: 1 };
    assert_eq!(
        TodoResource::get().key(base, &one).unwrap(),
        "GET http://127.0.0.1:8080/todos/1"
    );
    assert_eq!(
        TodoResource::delete().key(base, &one).unwrap(),
        "DELETE http://127.0.0.1:8080/todos/1"
    );
    assert_eq!(
        TodoResource::get_list().key(base, &()).unwrap(),
        "GET http://127.0.0.1:8080/todos"
    );
    assert_eq!(
        current_user().key(base, &()).unwrap(),
        "POST http://127.0.0.1:8080/current_user/"
    );
    assert_ne!(
        TodoResource::get().key(base, &one).unwrap(),
        TodoResource::get()
            .key(base, &TodoResourceParams { id: 2 })
            .unwrap()
    );
}

const ELSEWHERE: &str = "http://127.0.0.1:9";

resource!(pub RemoteTodo { path: "/todos/:id", schema: Todo, url_prefix: ELSEWHERE });

#[tokio::test]
async fn a_url_prefix_beats_the_clients_base_address() {
    let base = "http://127.0.0.1:8080";
    let one = RemoteTodoParams { id: 1 };
    assert_eq!(
        RemoteTodo::get().key(base, &one).unwrap(),
        "GET http://127.0.0.1:9/todos/1"
    );
    let (mut server, client) = server().await;
    let local = TodoResource::get().with_url_prefix(server.url());
    let get = json_response(server.mock("GET", "/todos/1"), 200, TODO_1)
        .expect(1)
        .create_async()
        .await;
    let other = Client::new("http://127.0.0.1:9");
    other
        .call(&local, &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap();
    get.assert_async().await;
    drop(client);
}

/// Contract, custom endpoints rules 1-3: a key function and a fetch
/// function replaced, everything else from the base.
#[tokio::test]
async fn an_endpoint_can_replace_its_key_and_fetch_functions() {
    fn via_post(client: &Client, request: Request) -> FetchFuture {
        client.fetch("post", &request.url, request.body)
    }
    let (mut server, client) = server().await;
    let me = json_response(server.mock("POST", "/todos/1"), 200, TODO_1)
        .expect(1)
        .create_async()
        .await;
    let endpoint = TodoResource::get()
        .with_key(|args| format!("todo #{}", args.params.id))
        .with_fetch(via_post);
    let one = TodoResourceParams { id: 1 };
    assert_eq!(endpoint.key("http://h", &one).unwrap(), "todo #1");
    let todo = client.call(&endpoint, &one, None).await.unwrap();
    assert_eq!(todo.title, "milk");
    me.assert_async().await;

    // The helper refuses a method it does not know, without panicking.
    let err = client.fetch("brew", &server.url(), None).await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Request(_)), "{err}");

    // Another schema over the same request.
    let raw = TodoResource::get().with_schema::<serde_json::Value>();
    let again = json_response(server.mock("GET", "/todos/1"), 200, TODO_1)
        .expect(1)
        .create_async()
        .await;
    let value = client.call(&raw, &one, None).await.unwrap();
    assert_eq!(value["title"], "milk");
    again.assert_async().await;
}

#[tokio::test]
async fn a_header_hook_runs_on_every_request_and_errors_never_show_headers() {
    let server_and_client = server().await;
    let mut server = server_and_client.0;
    let client = Client::new(server.url()).with_headers(|headers| {
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer s3cr3t-token"),
        );
    });
    let get = server
        .mock("GET", "/todos/1")
        .match_header("authorization", "Bearer s3cr3t-token")
        .with_status(403)
        .with_body("forbidden")
        .expect(1)
        .create_async()
        .await;
    let err = client
        .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap_err();
    get.assert_async().await;
    assert_eq!(err.status(), Some(403));
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("s3cr3t"), "{shown}");
}

#[tokio::test]
async fn statuses_refusals_and_bad_bodies_are_typed_errors() {
    let (mut server, client) = server().await;
    let get = TodoResource::get();
    let one = TodoResourceParams { id: 1 };

    for (status, hard) in [(400, true), (404, true), (500, false)] {
        let mock = server
            .mock("GET", "/todos/1")
            .with_status(status)
            .with_body(format!("{{\"detail\": \"status {status}\"}}"))
            .expect(1)
            .create_async()
            .await;
        let err = client.call(&get, &one, None).await.unwrap_err();
        mock.assert_async().await;
        mock.remove_async().await;
        assert_eq!(err.status(), Some(status as u16));
        assert_eq!(err.method(), "GET");
        assert_eq!(err.url(), format!("{}/todos/1", server.url()));
        assert_eq!(err.is_hard(), hard, "{status}");
        assert!(err.excerpt().contains(&format!("status {status}")));
        assert!(err.to_string().contains(&format!("HTTP {status}")), "{err}");
    }

    // HTML where JSON is expected: a hard decode error with an excerpt.
    let html = format!("<!doctype html><title>502</title>{}", "x".repeat(2000));
    let mock = server
        .mock("GET", "/todos/1")
        .with_status(200)
        .with_header("content-type", "text/html")
        .with_body(&html)
        .expect(1)
        .create_async()
        .await;
    let err = client.call(&get, &one, None).await.unwrap_err();
    mock.assert_async().await;
    mock.remove_async().await;
    assert!(matches!(err.kind(), ErrorKind::Decode(_)), "{err}");
    assert!(err.is_hard());
    assert!(err.excerpt().starts_with("<!doctype html>"));
    assert!(err.excerpt().chars().count() <= restcache::http::EXCERPT_CHARS + 1);

    // JSON of the wrong shape names the field.
    let mock = json_response(
        server.mock("GET", "/todos/1"),
        200,
        r#"{"id": 1, "completed": "yes"}"#,
    )
    .expect(1)
    .create_async()
    .await;
    let err = client.call(&get, &one, None).await.unwrap_err();
    mock.assert_async().await;
    mock.remove_async().await;
    match err.kind() {
        ErrorKind::Decode(schema) => assert_eq!(schema.path().unwrap().to_string(), "completed"),
        other => panic!("{other:?}"),
    }

    // An empty body where a record is expected.
    let mock = server
        .mock("GET", "/todos/1")
        .with_status(204)
        .expect(1)
        .create_async()
        .await;
    let err = client.call(&get, &one, None).await.unwrap_err();
    mock.assert_async().await;
    assert!(matches!(err.kind(), ErrorKind::Decode(_)), "{err}");

    // Nobody listening: a soft network error.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let nowhere = Client::new(format!("http://127.0.0.1:{port}"));
    let err = nowhere.call(&get, &one, None).await.unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::Network(_)), "{err}");
    assert!(err.is_soft());
    assert_eq!(err.status(), None);
}
