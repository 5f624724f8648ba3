use restcache::prelude::*;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Todo {
    id: u64,
}

resource!(pub TodoResource { path: "/todos/:id", schema: Todo });

fn main() {}
