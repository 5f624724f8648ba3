//! Polymorphic records (a union of entities): a feed mixing comments and
//! mentions, each normalized into its own table and read back as the
//! enum; a comment's edit shows in the feed with no refetch.

use std::rc::Rc;

use restcache::prelude::*;
use serde_json::json;

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Comment {
    id: u64,
    text: String,
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Mention {
    id: u64,
    who: String,
}

/// One item of the feed, told apart by its `"type"`.
#[derive(Schema, Clone, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum FeedItem {
    Comment(Rc<Comment>),
    Mention(Rc<Mention>),
}

endpoint!(feed { path: "/feed", schema: Vec<FeedItem> });
resource!(CommentResource {
    path: "/comments/:id",
    schema: Comment
});

fn describe(item: &FeedItem) -> String {
    match item {
        FeedItem::Comment(comment) => format!("comment {}: {}", comment.id, comment.text),
        FeedItem::Mention(mention) => format!("mention {}: {}", mention.id, mention.who),
    }
}

#[tokio::test]
async fn a_feed_of_comments_and_mentions_follows_an_edit_of_a_comment() {
    let mut server = mockito::Server::new_async().await;
    let feed_route = server
        .mock("GET", "/feed")
        .with_header("content-type", "application/json")
        .with_body(
            json!([
                {"type": "comment", "id": 1, "text": "first"},
                {"type": "mention", "id": 1, "who": "ada"},
                {"type": "comment", "id": 2, "text": "second"}
            ])
            .to_string(),
        )
        .expect(1)
        .create_async()
        .await;
    let edit = server
        .mock("PATCH", "/comments/1")
        .match_body(mockito::Matcher::Json(json!({"text": "edited"})))
        .with_header("content-type", "application/json")
        .with_body(json!({"id": 1, "text": "edited"}).to_string())
        .expect(1)
        .create_async()
        .await;
    let ctrl = Controller::new(Client::new(server.url()));
    let items = ctrl.fetch(&feed(), &(), None).await.unwrap();
    let shown: Vec<String> = items.iter().map(describe).collect();
    assert_eq!(
        shown,
        ["comment 1: first", "mention 1: ada", "comment 2: second"]
    );
    // Each variant in its own table: comment 1 and mention 1 do not clash.
    ctrl.with_store(|store| {
        assert_eq!(store.entity_count("Comment"), 2);
        assert_eq!(store.entity_count("Mention"), 1);
    });

    let body = Body::json(&json!({"text": "edited"})).unwrap();
    ctrl.fetch(
        &CommentResource::partial_update(),
        &CommentResourceParams { id: 1 },
        Some(body),
    )
    .await
    .unwrap();
    let after = ctrl.read(&feed(), &()).data.unwrap();
    let shown: Vec<String> = after.iter().map(describe).collect();
    assert_eq!(
        shown,
        ["comment 1: edited", "mention 1: ada", "comment 2: second"]
    );
    // The items that did not change keep their records.
    match (&items[1], &after[1]) {
        (FeedItem::Mention(a), FeedItem::Mention(b)) => assert!(Rc::ptr_eq(a, b)),
        _ => panic!("a mention"),
    }
    feed_route.assert_async().await;
    edit.assert_async().await;
}

#[test]
fn a_union_read_as_one_record_and_in_an_envelope() {
    #[derive(Schema, Clone, Debug, Deserialize)]
    struct Page {
        #[schema(nested)]
        items: Vec<FeedItem>,
        total: u64,
    }
    let mut store = Store::new();
    store
        .set_json::<Page>(
            "page",
            r#"{"items":[{"type":"mention","id":4,"who":"bob"}],"total":1}"#,
            Meta::default(),
        )
        .unwrap();
    store
        .set_entity(
            Mention {
                id: 4,
                who: "Bob".into(),
            },
            Meta::default(),
        )
        .unwrap();
    let page = store.read::<Page>("page").into_value().unwrap();
    assert_eq!(describe(&page.items[0]), "mention 4: Bob");
    assert_eq!(page.total, 1);
}

/// A post whose responses may leave `pinned` out.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Post {
    id: u64,
    text: String,
    pinned: Option<bool>,
}

/// Whether post 1, stored pinned, is still pinned after `feed` (its JSON
/// leaving `pinned` out) is written as a list of `U`.
fn still_pinned_after<U: restcache::Schema + serde::de::DeserializeOwned>(
    feed: &str,
) -> Option<bool> {
    let mut store = Store::new();
    let pinned = Post {
        id: 1,
        text: "first".into(),
        pinned: Some(true),
    };
    store.set_entity(pinned, Meta::default()).unwrap();
    store
        .set_json::<Vec<U>>("feed", feed, Meta::default())
        .unwrap();
    let post = store.get_entity::<Post>(1u64).into_value().unwrap();
    assert_eq!(post.text, "edited", "the fields it carries are written");
    post.pinned
}

#[test]
fn a_record_in_a_union_keeps_the_fields_its_json_left_out() {
    // Told apart by a field of the record (serde's `tag`).
    #[derive(Schema, Clone, Debug, Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Tagged {
        BlogPost(Rc<Post>),
        Mention(Rc<Mention>),
    }
    let feed =
        r#"[{"id":1,"type":"blog_post","text":"edited"},{"type":"mention","id":2,"who":"ada"}]"#;
    assert_eq!(still_pinned_after::<Tagged>(feed), Some(true));

    // Named by the only key of an object (serde's default).
    #[derive(Schema, Clone, Debug, Deserialize)]
    enum External {
        #[serde(rename = "post", alias = "article")]
        Post(Rc<Post>),
        Mention(Rc<Mention>),
    }
    let feed = r#"[{"Mention":{"id":2,"who":"ada"}},{"article":{"id":1,"text":"edited"}}]"#;
    assert_eq!(still_pinned_after::<External>(feed), Some(true));

    // A tag beside the record (serde's `tag` and `content`), either first.
    #[derive(Schema, Clone, Debug, Deserialize)]
    #[serde(tag = "t", content = "c")]
    enum Adjacent {
        Post(Rc<Post>),
        Mention(Rc<Mention>),
    }
    let feed = r#"[{"c":{"id":1,"text":"edited"},"t":"Post"}]"#;
    assert_eq!(still_pinned_after::<Adjacent>(feed), Some(true));

    // A field the JSON carries as null is written.
    let feed = r#"[{"type":"blog_post","id":1,"text":"edited","pinned":null}]"#;
    assert_eq!(still_pinned_after::<Tagged>(feed), None);
}
