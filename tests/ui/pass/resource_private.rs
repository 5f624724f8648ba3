//! `resource!` private to its module, with a private entity.

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Item {
    id: u64,
}

resource!(ItemResource { path: "/items/:id", schema: Item });

fn main() {
    assert_eq!(ItemResource::PATH, "/items/:id");
    let _ = ItemResource::get();
}
