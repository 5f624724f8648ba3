use restcache::prelude::*;

#[derive(Entity, Clone)]
struct Note {
    #[entity(pk)]
    slug: String,
    #[entity(pk)]
    id: u64,
}

fn main() {}
