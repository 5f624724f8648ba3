use restcache::prelude::*;
use restcache::yew::use_suspense;
use yew::prelude::*;

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Todo {
    id: u64,
}

resource!(pub TodoResource { path: "/todos/:id", schema: Todo });

#[component]
fn Creates() -> HtmlResult {
    let made = use_suspense(&TodoResource::create(), ())?;
    Ok(html! { <p>{ made.id }</p> })
}

fn main() {}
