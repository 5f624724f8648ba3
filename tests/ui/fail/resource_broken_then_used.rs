use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Todo {
    id: u64,
}

// One mistake in the declaration; the code that uses the resource and its
// params struct adds no error of its own.
resource!(pub TodoResource { path: "todos/:id", schema: Todo });
endpoint!(pub todo_page { path: "/todos?page=:page", schema: Vec<std::rc::Rc<Todo>> });

fn main() {
    let base = "http://127.0.0.1:8080";
    let _ = TodoResource::get().key(base, &TodoResourceParams { id: 1 });
    let _ = TodoResource::get_list().url(base, &());
    let _ = todo_page().url(base, &TodoPageParams { page: "2".into() });
}
