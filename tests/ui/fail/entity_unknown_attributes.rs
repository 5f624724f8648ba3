use restcache::prelude::*;

// Every mistake is reported at once, each on its own token.
#[derive(Entity, Clone)]
#[entity(kee = "Note")]
struct Note {
    #[entity(primary)]
    id: u64,
    #[entity(key = "x")]
    title: String,
}

fn main() {}
