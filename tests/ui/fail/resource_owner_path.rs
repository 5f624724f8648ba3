use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Todo {
    id: u64,
}

struct Api;

resource!(pub Api::TodoResource { path: "/todos/:id", schema: Todo });

fn main() {}
