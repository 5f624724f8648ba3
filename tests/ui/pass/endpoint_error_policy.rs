//! `error_policy` in both macros: a feed whose every error leaves the data
//! on show, and a resource whose 5xx errors take its place.

use restcache::http::{Error, Method};
use restcache::prelude::*;
use restcache::rest::ErrorPolicy;

#[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
pub struct Todo {
    id: u64,
}

fn keep_on_show(_: &Error) -> ErrorPolicy {
    ErrorPolicy::Soft
}

fn strict(_: &Error) -> ErrorPolicy {
    ErrorPolicy::Hard
}

endpoint!(pub feed { path: "/feed", schema: Vec<std::rc::Rc<Todo>>, error_policy: keep_on_show });
resource!(pub TodoResource { path: "/todos/:id", schema: Todo, error_policy: strict });

fn main() {
    let gone = Error::http_status(Method::Get, "http://h/feed", 404, "");
    let down = Error::http_status(Method::Get, "http://h/todos/1", 503, "");
    assert_eq!(feed().error_policy(&gone), ErrorPolicy::Soft);
    assert_eq!(TodoResource::get().error_policy(&down), ErrorPolicy::Hard);
    assert_eq!(TodoResource::get_list().error_policy(&down), ErrorPolicy::Hard);
}
