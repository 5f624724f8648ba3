use std::rc::Rc;

use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Deserialize)]
struct Comment {
    id: u64,
}

// Each variant must hold exactly one schema, as one unnamed field; every
// mistake is reported together.
#[derive(Schema, Clone, Debug, Deserialize)]
enum FeedItem {
    Nothing,
    Named { id: u64 },
    Two(Rc<Comment>, Rc<Comment>),
    #[schema(nested)]
    Comment(Rc<Comment>),
}

#[derive(Schema, Clone, Debug, Deserialize)]
enum Empty {}

fn main() {
    // Code that uses the union adds no error of its own.
    let _ = Store::new().read::<Vec<FeedItem>>("feed");
}
