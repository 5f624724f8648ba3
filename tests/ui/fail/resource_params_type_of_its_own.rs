use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Todo {
    id: u64,
}

#[derive(Serialize)]
pub struct Mine {
    id: u64,
}

resource!(pub TodoResource { path: "/todos/:id", schema: Todo, params: Mine });

fn main() {
    let _ = TodoResource::get();
}
