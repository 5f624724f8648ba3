use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Doc {
    id: u64,
    #[entity(version)]
    updated_at: u64,
    #[entity(version)]
    revision: u64,
}

fn main() {}
