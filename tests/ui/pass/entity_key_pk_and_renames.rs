//! `#[derive(Entity)]` with another key, a pk of another name and type,
//! and serde's renames.

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
#[entity(key = "Person")]
#[serde(rename_all = "camelCase")]
struct User {
    #[entity(pk)]
    user_name: String,
    #[serde(rename = "displayName")]
    name: String,
}

fn main() {
    assert_eq!(User::KEY, "Person");
    let mut store = Store::new();
    store
        .set_json::<std::rc::Rc<User>>("me", r#"{"userName": "ada", "displayName": "Ada"}"#, Meta::default())
        .unwrap();
    assert_eq!(store.get_entity::<User>("ada").value().unwrap().name, "Ada");
}
