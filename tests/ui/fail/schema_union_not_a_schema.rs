use std::rc::Rc;

use restcache::prelude::*;

#[derive(Clone, Debug, Default, Deserialize)]
struct Plain {
    id: u64,
}

// A variant holds a schema: a record (`Rc<E>` of an entity), a list, ...
#[derive(Schema, Clone, Debug, Deserialize)]
#[serde(untagged)]
enum Item {
    Plain(Rc<Plain>),
}

fn main() {}
