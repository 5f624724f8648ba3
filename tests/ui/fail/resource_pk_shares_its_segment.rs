use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct User {
    #[entity(pk)]
    handle: String,
}

resource!(pub UserResource { path: "/users/@:handle", schema: User });

fn main() {}
