use restcache::prelude::*;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Todo {
    id: u64,
}

resource!(pub TodoResource { path: "/todos/:id", schema: Todo });

fn main() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    let _ = ctrl.read(&TodoResource::delete(), &TodoResourceParams { id: 1 });
}
