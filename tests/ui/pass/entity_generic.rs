//! `#[derive(Entity)]` on a generic type: one table per instantiation.

use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Tagged<T: Clone + std::fmt::Debug + Default + 'static> {
    id: u64,
    tag: T,
}

fn main() {
    assert_eq!(Tagged::<String>::KEY, "Tagged");
    let mut store = Store::new();
    let tagged = vec![Rc::new(Tagged { id: 1, tag: 5u32 })];
    store.set("tags", tagged, Meta::default()).unwrap();
    assert_eq!(store.entity_count("Tagged"), 1);
}
