//! Nested fields serde may read as their default: an `Option` of a record
//! (absent reads as `None`) and a list of records (absent reads as
//! empty), under a field's or the container's `#[serde(default)]`.

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct User {
    id: u64,
}

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Post {
    id: u64,
    #[entity(nested)]
    #[serde(default)]
    author: Option<Rc<User>>,
    #[entity(nested)]
    #[serde(default)]
    readers: Vec<Rc<User>>,
}

#[derive(Schema, Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct Profile {
    #[schema(nested)]
    user: Option<Rc<User>>,
}

fn main() {
    let post: Post = serde_json::from_str(r#"{"id": 1}"#).unwrap();
    assert!(post.author.is_none() && post.readers.is_empty());
    let profile: Profile = serde_json::from_str("{}").unwrap();
    assert!(profile.user.is_none());
}
