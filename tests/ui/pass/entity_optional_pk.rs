//! `#[derive(Entity)]` with a pk that may be absent on the wire.

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Draft {
    id: Option<u64>,
}

fn main() {
    assert_eq!(Draft::default().pk(), None);
    assert_eq!(Draft { id: Some(2) }.pk(), Some(Pk::from(2u64)));
}
