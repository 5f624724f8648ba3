//! The smallest Yew app that reads a list: the todos of `GET /todos`,
//! with "Loading…" while they come and the error if they fail. Built as it
//! is, it reads them as an app without a data layer would (`use_state`, an
//! effect, reqwest and serde); with the `cache` feature, through
//! restcache (a `CacheProvider`, an `AsyncBoundary`, one `use_suspense`).
//! The difference between the two bundles is what the library adds:
//!
//!     benches/bundle.sh

use serde::Deserialize;
use yew::prelude::*;

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "cache", derive(restcache::Entity, serde::Serialize))]
pub struct Todo {
    pub id: u64,
    pub title: String,
    pub completed: bool,
}

fn list(todos: &[impl std::ops::Deref<Target = Todo>]) -> Html {
    html! {
        <ul>
            { for todos.iter().map(|todo| html! {
                <li key={todo.id} class={todo.completed.then_some("done")}>{ &todo.title }</li>
            }) }
        </ul>
    }
}

/// The page's own address: the API is served beside it.
fn origin() -> String {
    web_sys::window()
        .and_then(|window| window.location().origin().ok())
        .unwrap_or_default()
}

#[cfg(not(feature = "cache"))]
mod read {
    use super::*;

    async fn fetch_todos() -> Result<Vec<Todo>, String> {
        let response = reqwest::get(format!("{}/todos", origin()))
            .await
            .and_then(|response| response.error_for_status())
            .map_err(|error| error.to_string())?;
        let text = response.text().await.map_err(|error| error.to_string())?;
        serde_json::from_str(&text).map_err(|error| error.to_string())
    }

    #[component]
    pub fn App() -> Html {
        let todos = use_state(|| None::<Result<Vec<Todo>, String>>);
        {
            let todos = todos.clone();
            use_effect_with((), move |_| {
                wasm_bindgen_futures::spawn_local(async move {
                    todos.set(Some(fetch_todos().await));
                });
            });
        }
        match &*todos {
            None => html! { <p>{ "Loading…" }</p> },
            Some(Err(error)) => html! { <p role="alert">{ error }</p> },
            Some(Ok(todos)) => list(&todos.iter().collect::<Vec<_>>()),
        }
    }
}

#[cfg(feature = "cache")]
mod read {
    use restcache::yew::{AsyncBoundary, BoundaryError, CacheProvider, use_suspense};

    use super::*;

    restcache::resource!(TodoResource {
        path: "/todos/:id",
        schema: Todo
    });

    #[component]
    fn Todos() -> HtmlResult {
        let todos = use_suspense(&TodoResource::get_list(), ())?;
        Ok(list(&todos))
    }

    #[component]
    pub fn App() -> Html {
        let failed = Callback::from(|failed: BoundaryError| {
            html! { <p role="alert">{ failed.error.to_string() }</p> }
        });
        html! {
            <CacheProvider base_url={origin()}>
                <AsyncBoundary fallback={html! { <p>{ "Loading…" }</p> }} error_fallback={failed}>
                    <Todos />
                </AsyncBoundary>
            </CacheProvider>
        }
    }
}

pub use read::App;

/// Mounts the app on the page's body.
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    yew::Renderer::<App>::new().render();
}
