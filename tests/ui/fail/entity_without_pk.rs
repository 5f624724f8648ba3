use restcache::prelude::*;

#[derive(Entity, Clone)]
struct Note {
    slug: String,
    text: String,
}

fn main() {}
