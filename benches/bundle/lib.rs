//! The smallest Yew app that reads a list: the todos of `GET /todos`,
//! with "Loading…" while they come and the error if they fail. Built as it
//! is, it reads them as an app without a data layer would (`use_state`, an
//! effect, reqwest and serde); with the `cache` feature, through
//! restcache (a `CacheProvider`, an `AsyncBoundary`, one `use_suspense`).
//! The difference between the two bundles is what the library adds.
//! With the `second-resource` feature, both apps also read a second list
//! (the users of `GET /users`) in a component of its own, which tells
//! what each further resource an app reads adds:
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

/// The second resource, with `second-resource`.
#[cfg(feature = "second-resource")]
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[cfg_attr(feature = "cache", derive(restcache::Entity, serde::Serialize))]
pub struct User {
    pub id: u64,
    pub name: String,
    pub email: String,
}

#[cfg(feature = "second-resource")]
fn users(users: &[impl std::ops::Deref<Target = User>]) -> Html {
    html! {
        <ol>
            { for users.iter().map(|user| html! {
                <li key={user.id} title={user.email.clone()}>{ &user.name }</li>
            }) }
        </ol>
    }
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
    use serde::de::DeserializeOwned;

    use super::*;

    async fn fetch<T: DeserializeOwned>(path: &str) -> Result<Vec<T>, String> {
        let response = reqwest::get(format!("{}{path}", origin()))
            .await
            .and_then(|response| response.error_for_status())
            .map_err(|error| error.to_string())?;
        let text = response.text().await.map_err(|error| error.to_string())?;
        serde_json::from_str(&text).map_err(|error| error.to_string())
    }

    /// The list at `path`: `None` while it comes.
    #[hook]
    fn use_fetched<T: DeserializeOwned + 'static>(
        path: &'static str,
    ) -> UseStateHandle<Option<Result<Vec<T>, String>>> {
        let fetched = use_state(|| None);
        {
            let fetched = fetched.clone();
            use_effect_with((), move |_| {
                wasm_bindgen_futures::spawn_local(async move {
                    fetched.set(Some(fetch(path).await));
                });
            });
        }
        fetched
    }

    /// "Loading…" while the list comes, its error if it failed, else
    /// the list as `view` shows it.
    fn shown<T>(fetched: &Option<Result<Vec<T>, String>>, view: fn(&[&T]) -> Html) -> Html {
        match fetched {
            None => html! { <p>{ "Loading…" }</p> },
            Some(Err(error)) => html! { <p role="alert">{ error }</p> },
            Some(Ok(all)) => view(&all.iter().collect::<Vec<_>>()),
        }
    }

    #[cfg(feature = "second-resource")]
    #[component]
    fn Users() -> Html {
        shown(&use_fetched::<User>("/users"), |all| users(all))
    }

    #[component]
    pub fn App() -> Html {
        let todos = shown(&use_fetched::<Todo>("/todos"), |all| list(all));
        #[cfg(feature = "second-resource")]
        let todos = html! { <>{ todos }<Users /></> };
        todos
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

    #[cfg(feature = "second-resource")]
    restcache::resource!(UserResource {
        path: "/users/:id",
        schema: User
    });

    #[cfg(feature = "second-resource")]
    #[component]
    fn Users() -> HtmlResult {
        let all = use_suspense(&UserResource::get_list(), ())?;
        Ok(users(&all))
    }

    #[component]
    pub fn App() -> Html {
        let failed = Callback::from(|failed: BoundaryError| {
            html! { <p role="alert">{ failed.error.to_string() }</p> }
        });
        let lists = html! { <Todos /> };
        #[cfg(feature = "second-resource")]
        let lists = html! { <>{ lists }<Users /></> };
        html! {
            <CacheProvider base_url={origin()}>
                <AsyncBoundary fallback={html! { <p>{ "Loading…" }</p> }} error_fallback={failed}>
                    { lists }
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
