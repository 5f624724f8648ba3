//! Partial records merge: a response that carries a record without its
//! optional parts (an embedded list, an expanded parent) keeps what a
//! fuller response stored; a part it carries, even as `null`, replaces it.

use std::rc::Rc;

use restcache::Absent;
use restcache::http::{Body, Client};
use restcache::prelude::*;
use restcache_demo::DemoApi;
use serde_json::json;

use crate::common::mock::{once, server};
use crate::common::{Comment, User};

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Post {
    id: u64,
    user_id: u64,
    title: String,
    content: Option<String>,
    /// Embedded on request (`?_embed=comments`).
    #[entity(nested)]
    comments: Option<Vec<Rc<Comment>>>,
    /// Expanded on request (`?_expand=user`).
    #[entity(nested)]
    user: Option<Rc<User>>,
}

resource!(PostResource {
    path: "/posts/:id",
    schema: Post
});
resource!(CommentResource {
    path: "/comments/:id",
    schema: Comment
});
endpoint!(PostResource::full {
    path: "/posts/:id",
    schema: Rc<Post>,
    params: {
        id: u64,
        #[serde(rename = "_embed")]
        embed: &'static str,
        #[serde(rename = "_expand")]
        expand: &'static str,
    },
});

fn full(id: u64) -> PostResourceFullParams {
    PostResourceFullParams {
        id,
        embed: "comments",
        expand: "user",
    }
}

#[tokio::test]
async fn a_plain_list_keeps_what_an_embedded_read_stored() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let post = ctrl
        .fetch(&PostResource::full(), &full(1), None)
        .await
        .unwrap();
    let comments = post.comments.clone().expect("embedded");
    assert!(!comments.is_empty());
    assert!(post.user.is_some(), "expanded");
    // A comment changes after the post embedded it.
    let body = Body::json(&json!({"name": "edited"})).unwrap();
    let first = CommentResourceParams { id: comments[0].id };
    ctrl.fetch(&CommentResource::partial_update(), &first, Some(body))
        .await
        .unwrap();

    ctrl.fetch(&PostResource::get_list(), &(), None)
        .await
        .unwrap();
    let read = ctrl.read(&PostResource::full(), &full(1));
    assert_eq!(read.status, ExpiryStatus::Valid);
    let kept = read.data.unwrap();
    assert_eq!(
        kept.comments.as_ref().map(Vec::len),
        Some(comments.len()),
        "the comments stay"
    );
    assert!(kept.user.is_some(), "the author stays");
    let kept_comments = kept.comments.as_ref().unwrap();
    assert_eq!(
        kept_comments[0].name, "edited",
        "as the store has it now, not as embedded"
    );
    let listed = ctrl.read(&PostResource::get_list(), &()).data.unwrap();
    assert!(
        listed[0].comments.is_some(),
        "one record: the list shows them too"
    );

    // What the plain response carried does replace: its title.
    let body = Body::json(&json!({"title": "Renamed"})).unwrap();
    let params = PostResourceParams { id: 1 };
    ctrl.fetch(&PostResource::partial_update(), &params, Some(body))
        .await
        .unwrap();
    let post = ctrl.read(&PostResource::full(), &full(1)).data.unwrap();
    assert_eq!(post.title, "Renamed");
    assert!(post.comments.is_some());
}

#[tokio::test]
async fn a_field_carried_as_null_replaces_the_stored_value() {
    let (mut server, client) = server().await;
    let with_user = json!({"id": 1, "userId": 2, "title": "t", "content": "c", "user": {"id": 2}});
    let _first = once(server.mock("GET", "/posts/1"), 200, &with_user.to_string()).await;
    let ctrl = Controller::new(client);
    let params = PostResourceParams { id: 1 };
    let post = ctrl
        .fetch(&PostResource::get(), &params, None)
        .await
        .unwrap();
    assert!(post.user.is_some());

    server.reset();
    let nulls = json!({"id": 1, "userId": 2, "title": "t", "content": null, "user": null});
    let _second = once(server.mock("GET", "/posts/1"), 200, &nulls.to_string()).await;
    ctrl.invalidate(&PostResource::get(), &params);
    let post = ctrl
        .fetch(&PostResource::get(), &params, None)
        .await
        .unwrap();
    assert_eq!(
        (post.content.clone(), post.user.clone()),
        (None, None),
        "null is a value"
    );
}

#[tokio::test]
async fn a_full_replace_drops_what_its_answer_left_out() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let params = PostResourceParams { id: 2 };
    let post = ctrl
        .fetch(&PostResource::get(), &params, None)
        .await
        .unwrap();
    assert!(post.content.is_some());
    // The PUT's body leaves `content` out: the server drops it, and its
    // answer does not carry it. The cache drops it too.
    let body = Body::json(&json!({"userId": post.user_id, "title": "Only a title"})).unwrap();
    let replaced = ctrl
        .fetch(&PostResource::update(), &params, Some(body))
        .await
        .unwrap();
    assert_eq!(replaced.title, "Only a title");
    assert_eq!(replaced.content, None, "left out of a full replace: gone");
    let cached = ctrl.read(&PostResource::get(), &params).data.unwrap();
    assert_eq!(cached.content, None);
    let on_server = &api.records("posts")[1];
    assert!(
        on_server.get("content").is_none(),
        "the server replaced the whole record"
    );
}

/// A post that a response replaces whole: what it leaves out is gone.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[entity(key = "Post", merge = replace_whole)]
struct WholePost {
    id: u64,
    title: String,
    content: Option<String>,
}

fn replace_whole(_incoming: &mut WholePost, _stored: &WholePost, _absent: &Absent) {}

resource!(WholePostResource {
    path: "/posts/:id",
    schema: WholePost
});

#[tokio::test]
async fn an_entity_may_merge_its_own_way() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let params = WholePostResourceParams { id: 3 };
    ctrl.fetch(&WholePostResource::get(), &params, None)
        .await
        .unwrap();
    let body = Body::json(&json!({"title": "Only a title"})).unwrap();
    let replaced = ctrl
        .fetch(&WholePostResource::update(), &params, Some(body))
        .await
        .unwrap();
    assert_eq!(replaced.content, None, "replaced whole, as the entity says");
}

#[tokio::test]
async fn a_comment_deleted_since_it_was_embedded_stays_deleted() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let post = ctrl
        .fetch(&PostResource::full(), &full(1), None)
        .await
        .unwrap();
    let gone = post.comments.as_ref().unwrap()[0].id;
    let params = CommentResourceParams { id: gone };
    ctrl.fetch(&CommentResource::delete(), &params, None)
        .await
        .unwrap();
    ctrl.fetch(&PostResource::get_list(), &(), None)
        .await
        .unwrap();
    let post = ctrl.read(&PostResource::full(), &full(1)).data.unwrap();
    let ids: Vec<u64> = post
        .comments
        .as_ref()
        .unwrap()
        .iter()
        .map(|c| c.id)
        .collect();
    assert!(
        !ids.contains(&gone),
        "not brought back by the kept field: {ids:?}"
    );
}

#[tokio::test]
async fn a_field_left_out_under_an_optimistic_value_keeps_the_confirmed_copy() {
    let (mut server, client) = server().await;
    let stored = json!({"id": 1, "userId": 2, "title": "t", "content": "confirmed"});
    let _first = once(server.mock("GET", "/posts/1"), 200, &stored.to_string()).await;
    let ctrl = Controller::new(client);
    let params = PostResourceParams { id: 1 };
    ctrl.fetch(&PostResource::get(), &params, None)
        .await
        .unwrap();

    server.reset();
    let _put = server
        .mock("PUT", "/posts/1")
        .with_status(500)
        .expect(1)
        .create_async()
        .await;
    let _list = once(
        server.mock("GET", "/posts"),
        200,
        r#"[{"id": 1, "userId": 2, "title": "t"}]"#,
    )
    .await;
    let guess = Post {
        id: 1,
        user_id: 2,
        title: "t".into(),
        content: Some("draft".into()),
        ..Post::default()
    };
    let update = PostResource::update();
    let body = Body::json(&guess).unwrap();
    let request = ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(guess));
    // A list without `content` lands while the draft shows.
    ctrl.fetch(&PostResource::get_list(), &(), None)
        .await
        .unwrap();
    assert!(request.await.is_err());
    let post = ctrl.read(&PostResource::get(), &params).data.unwrap();
    assert_eq!(post.content.as_deref(), Some("confirmed"), "not the draft");
}

/// A server that names the author field two ways.
#[derive(Entity, Clone, Debug, Default, PartialEq, Deserialize)]
#[entity(key = "Post")]
struct AliasedPost {
    id: u64,
    #[serde(rename = "userId", alias = "user_id")]
    owner: Option<u64>,
}

#[test]
fn a_field_read_under_its_alias_is_carried() {
    let mut store = Store::new();
    let at = |ms| Meta {
        fetched_at: Timestamp::from_millis(ms),
        ..Meta::default()
    };
    store
        .set_json::<Rc<AliasedPost>>("one", r#"{"id": 1, "userId": 2}"#, at(1))
        .unwrap();
    store
        .set_json::<Rc<AliasedPost>>("one", r#"{"id": 1, "user_id": 7}"#, at(2))
        .unwrap();
    let post = store.read::<Rc<AliasedPost>>("one").into_value().unwrap();
    assert_eq!(post.owner, Some(7));
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Writer {
    id: u64,
    name: String,
    email: Option<String>,
}

/// A draft with its writer's summary nested, and a pin the app keeps for
/// itself.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Draft {
    id: u64,
    title: String,
    #[serde(skip)]
    pinned: bool,
    #[entity(nested)]
    writer: Rc<Writer>,
}

resource!(DraftResource {
    path: "/drafts/:id",
    schema: Draft
});

#[tokio::test]
async fn a_full_replace_keeps_the_apps_own_fields_and_its_nested_records_merge() {
    let (mut server, client) = server().await;
    let ctrl = Controller::new(client);
    let params = DraftResourceParams { id: 1 };
    let _get = once(
        server.mock("GET", "/drafts/1"),
        200,
        r#"{"id": 1, "title": "a", "writer": {"id": 9, "name": "Ada", "email": "ada@example.com"}}"#,
    )
    .await;
    let draft = ctrl
        .fetch(&DraftResource::get(), &params, None)
        .await
        .unwrap();
    let pinned = Draft {
        pinned: true,
        ..(*draft).clone()
    };
    ctrl.set_entity(pinned, ctrl.write_time()).unwrap();

    // The PUT's answer nests the writer's summary, without the email.
    let _put = once(
        server.mock("PUT", "/drafts/1"),
        200,
        r#"{"id": 1, "title": "b", "writer": {"id": 9, "name": "Ada"}}"#,
    )
    .await;
    let body = Body::json(&json!({"title": "b", "writer": 9})).unwrap();
    let replaced = ctrl
        .fetch(&DraftResource::update(), &params, Some(body))
        .await
        .unwrap();
    assert_eq!(replaced.title, "b");
    assert!(
        replaced.pinned,
        "the app's own field is never on the wire: kept"
    );
    let writer = ctrl
        .with_store(|store| store.get_entity::<Writer>(9u64).into_value())
        .unwrap();
    assert_eq!(
        writer.email.as_deref(),
        Some("ada@example.com"),
        "the PUT replaced the draft, not its writer: the summary merges"
    );
}
