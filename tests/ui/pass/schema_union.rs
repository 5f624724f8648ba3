//! `#[derive(Schema)]` on an enum: a union of records told apart by a
//! field, in a list, read back as the enum.

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Deserialize)]
pub struct Comment {
    id: u64,
    text: String,
}

#[derive(Entity, Clone, Debug, Default, Deserialize)]
pub struct Mention {
    id: u64,
}

#[derive(Schema, Clone, Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum FeedItem {
    Comment(Rc<Comment>),
    Mention(Rc<Mention>),
}

/// A union of one record type and a list of another.
#[derive(Schema, Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(Rc<Comment>),
    Many(Vec<Rc<Mention>>),
}

/// Named by an object's only key (serde's default): renamed, read under
/// an alias too, and a variant serde never reads.
#[derive(Schema, Clone, Debug, Deserialize)]
pub enum External {
    #[serde(rename = "comment", alias = "note")]
    Comment(Rc<Comment>),
    Mention(Rc<Mention>),
    #[serde(skip)]
    Draft(Rc<Comment>),
}

/// A tag beside the record.
#[derive(Schema, Clone, Debug, Deserialize)]
#[serde(tag = "t", content = "c", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Adjacent {
    Comment(Rc<Comment>),
    Mention(Rc<Mention>),
}

/// Generic over its records.
#[derive(Schema, Clone, Debug, Deserialize)]
#[serde(tag = "type")]
pub enum Either<A: Entity, B: Entity> {
    Left(Rc<A>),
    Right(Rc<B>),
}

endpoint!(pub feed { path: "/feed", schema: Vec<FeedItem> });

fn main() {
    let mut store = Store::new();
    let json = r#"[{"type":"comment","id":1,"text":"hi"},{"type":"mention","id":1}]"#;
    store.set_json::<Vec<FeedItem>>("feed", json, Meta::default()).unwrap();
    let feed = store.read::<Vec<FeedItem>>("feed").into_value().unwrap();
    assert!(matches!(&feed[0], FeedItem::Comment(c) if c.text == "hi"));
    assert!(matches!(&feed[1], FeedItem::Mention(m) if m.id == 1));
    store.set_json::<OneOrMany>("many", r#"[{"id":2}]"#, Meta::default()).unwrap();
    assert!(matches!(&*store.read::<OneOrMany>("many").into_value().unwrap(), OneOrMany::Many(m) if m.len() == 1));
    store.set_json::<Vec<External>>("external", r#"[{"note":{"id":3,"text":"x"}}]"#, Meta::default()).unwrap();
    store.set_json::<Vec<Adjacent>>("adjacent", r#"[{"t":"MENTION","c":{"id":4}}]"#, Meta::default()).unwrap();
    store.set_json::<Vec<Either<Comment, Mention>>>("either", r#"[{"type":"Right","id":5}]"#, Meta::default()).unwrap();
    let _ = feed_endpoint_compiles();
}

fn feed_endpoint_compiles() -> Endpoint<(), Vec<FeedItem>> {
    feed()
}
