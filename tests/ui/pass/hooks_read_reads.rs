//! The reading hooks take an endpoint that reads: a `GET`, and a `POST`
//! declared to read.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::yew::use_suspense;
use yew::prelude::*;

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Todo {
    id: u64,
}

resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
endpoint!(pub current_todo { method: POST, path: "/current_todo", schema: Rc<Todo>, side_effect: false });

#[component]
fn Reads() -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: 1 });
    let current = use_suspense(&current_todo(), ());
    let (todo, current) = (todo?, current?);
    Ok(html! { <p>{ todo.id + current.id }</p> })
}

fn main() {
    let _ = html! { <Reads /> };
}
