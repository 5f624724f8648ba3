//! The six standard endpoints of a resource and the custom endpoints:
//! method, path, body and call count of each request.

use mockito::Matcher;
use restcache::http::{Body, Client, HeaderName, HeaderValue, Request, ResponseFuture};
use restcache::prelude::*;
use restcache::rest::Effect;
use serde_json::json;

use super::TODO_1;
use crate::common::mock::{json_response, once, once_sent, server};
use crate::common::{
    PostPageParams, Profile, Todo, TodoResource, TodoResourceParams, current_user, post_page,
    upcoming_birthdays,
};

resource!(pub ProfileResource { path: "/profiles/:id", schema: Profile });
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

#[tokio::test]
async fn the_six_standard_methods_make_their_requests() {
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

    let effects = [
        effect(&TodoResource::get()),
        effect(&TodoResource::get_list()),
        effect(&TodoResource::create()),
        effect(&TodoResource::update()),
        effect(&TodoResource::partial_update()),
        effect(&TodoResource::delete()),
    ];
    assert_eq!(
        effects,
        ["Read", "Read", "Create", "Mutate", "Mutate", "Delete"]
    );
}

/// What an endpoint's response does to the cache, by name.
fn effect<P, S, E: Effect>(_: &Endpoint<P, S, E>) -> &'static str {
    E::NAME
}

#[tokio::test]
async fn a_delete_that_answers_with_a_body_still_names_its_record() {
    let (mut server, client) = server().await;
    let delete = once(server.mock("DELETE", "/todos/4"), 200, "{}").await;
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
    let list = once(
        server.mock("GET", "/users/7/posts"),
        200,
        &format!("[{TODO_1}]"),
    )
    .await;
    let one = once(server.mock("GET", "/users/7/posts/1"), 200, TODO_1).await;
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
        PostResource::get_list().path().unwrap().source(),
        "/users/:user_id/posts"
    );
}

#[tokio::test]
async fn a_pk_held_as_an_optional_number_is_a_plain_number_in_params() {
    let (mut server, client) = server().await;
    let profile = json!({"id": "5", "img": "", "fullName": "Ada", "bio": "Counts."});
    let get = once(server.mock("GET", "/profiles/5"), 200, &profile.to_string()).await;
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
async fn the_custom_endpoints_of_the_docs_make_their_requests() {
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
    assert_eq!(effect(&make_manager()), "Mutate");

    // POST /current_user/, read with empty params.
    let me = once(
        server.mock("POST", "/current_user/"),
        200,
        r#"{"id": 9, "username": "ada", "email": "a@b.c", "isManager": true}"#,
    )
    .await;
    let user = client.call(&current_user(), &(), None).await.unwrap();
    assert!(user.is_manager);
    me.assert_async().await;
    assert_eq!(effect(&current_user()), "Read");

    // POST /api/birthdays/upcoming/ -> the envelope of Birthday lists.
    let upcoming = once(
        server.mock("POST", "/api/birthdays/upcoming/"),
        200,
        r#"{"withinSevenDays": [{"id": "1", "name": "Ada", "image": "", "source": "", "date": "2026-11-25T00:00:00Z"}],
            "withinThirtyDays": []}"#,
    ).await;
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

/// A custom endpoint from a base one: a key function and a fetch
/// function replaced, everything else from the base. The fetch function
/// sees the params, and may capture what it needs.
#[tokio::test]
async fn an_endpoint_can_replace_its_key_and_fetch_functions() {
    fn via_post(client: &Client, _: &TodoResourceParams, request: Request) -> ResponseFuture {
        client.request(Method::Post, &request.url, request.body)
    }
    let (mut server, client) = server().await;
    let me = once(server.mock("POST", "/todos/1"), 200, TODO_1).await;
    let endpoint = TodoResource::get()
        .with_key(|args| format!("todo #{}", args.params.id))
        .with_fetch(via_post);
    let one = TodoResourceParams { id: 1 };
    assert_eq!(endpoint.key("http://h", &one).unwrap(), "todo #1");
    let todo = client.call(&endpoint, &one, None).await.unwrap();
    assert_eq!(todo.title, "milk");
    me.assert_async().await;

    // A fetch function that captures a value and reads the params.
    let tenant = HeaderValue::from_static("acme");
    let tagged = server
        .mock("GET", "/todos/1")
        .match_header("x-tenant", "acme")
        .match_header("x-todo", "1")
        .with_body(TODO_1)
        .expect(1)
        .create_async()
        .await;
    let endpoint = TodoResource::get().with_fetch(move |client, params, request| {
        let todo = HeaderValue::from(params.id);
        let request = request
            .with_header(HeaderName::from_static("x-tenant"), tenant.clone())
            .with_header(HeaderName::from_static("x-todo"), todo);
        client.send(request)
    });
    client.call(&endpoint, &one, None).await.unwrap();
    tagged.assert_async().await;

    // Another schema over the same request.
    let raw = TodoResource::get().with_schema::<serde_json::Value>();
    let again = once(server.mock("GET", "/todos/1"), 200, TODO_1).await;
    let value = client.call(&raw, &one, None).await.unwrap();
    assert_eq!(value["title"], "milk");
    again.assert_async().await;
}

// A comment of a post: `:id` names the post, `:comment_id` the comment.
resource!(pub PostCommentResource {
    path: "/posts/:id/comments/:comment_id",
    schema: crate::common::Comment,
});

#[test]
fn a_nested_detail_is_answered_from_its_own_record_not_by_its_parents_id() {
    use crate::common::Comment;
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    for id in [1, 2] {
        let comment = Comment {
            post_id: 1,
            id,
            name: format!("comment {id}"),
            ..Comment::default()
        };
        ctrl.set_entity(comment, ctrl.write_time()).unwrap();
    }
    let params = PostCommentResourceParams {
        id: "1".into(),
        comment_id: 2,
    };
    let shown = ctrl.read(&PostCommentResource::get(), &params).data;
    assert_eq!(
        shown.map(|comment| comment.id),
        Some(2),
        "comment 2 of post 1"
    );
}
