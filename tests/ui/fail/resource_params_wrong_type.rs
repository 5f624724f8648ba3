use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Todo {
    id: u64,
}

resource!(pub TodoResource { path: "/todos/:id", schema: Todo });

fn main() {
    let _ = TodoResource::get().key("http://h", &TodoResourceParams { id: "1" });
}
