use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
struct Todo {
    id: u64,
}

// Values of another kind than their options take are reported together,
// each on its token, and the code using the declarations adds no error.
endpoint!(pub todo_by_number { path: 42, schema: std::rc::Rc<Todo>, method: "POST" });
endpoint!(pub todo_named { path: "/todos/:id", schema: "Todo" });
resource!(pub TodoResource { path: "/todos/:id", schema: Todo, params: 7 });

fn main() {
    let base = "http://127.0.0.1:8080";
    let _ = todo_by_number().url(base, &());
    let _ = TodoResource::get().key(base, &TodoResourceParams { id: 1 });
}
