use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Todo {
    id: u64,
}

// Two mistakes, reported together.
resource!(pub TodoResource { path: "/todos/:id", schema: Todo, data_expiry_ms: 5, url_prefx: "http://h" });

fn main() {}
