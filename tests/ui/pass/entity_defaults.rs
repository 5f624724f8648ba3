//! `#[derive(Entity)]` with its defaults: the key is the struct's name,
//! the pk the field `id`.

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Todo {
    id: u64,
    title: String,
}

fn main() {
    assert_eq!(Todo::KEY, "Todo");
    assert_eq!(Todo { id: 3, title: String::new() }.pk(), Some(Pk::from(3u64)));
}
