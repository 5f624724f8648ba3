use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Todo {
    id: u64,
}

resource!(pub TodoResource { path: "/todos/:id/copies/:id", schema: Todo });

fn main() {}
