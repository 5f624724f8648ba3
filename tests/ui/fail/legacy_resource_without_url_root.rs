use restcache::legacy::Resource;
use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Birthday {
    id: String,
}

// An older-generation resource needs the root of its URLs.
impl Resource for Birthday {}

fn main() {}
