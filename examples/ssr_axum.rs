//! A web server that renders a Yew app with restcache and hands its cache
//! to the browser: an axum handler renders each page with `ServerRender`
//! on a pinned local worker (the render's future holds `Rc`s, which axum's
//! `Send` handlers cannot), then embeds the cache the page read.
//!
//!     cargo run --example ssr_axum            # serves until stopped
//!     cargo run --example ssr_axum -- --once  # renders one page, prints it
//!
//! The page a browser gets holds the app's HTML and one
//! `<script type="application/json" id="restcache-handoff">`; the browser
//! build of the same app (a `CacheProvider` with a `base_url`, and
//! restcache's `hydration` feature on) takes it before hydrating, and
//! makes no request for what the server read.
//!
//! `ServerRender` answers once the whole page is known (a read that fails
//! changes what a boundary shows above it), so it does not stream.

use axum::Router;
use axum::extract::State;
use axum::response::Html as Page;
use axum::routing::get;
use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, BoundaryError, CacheProvider, ServerRender, use_suspense};
use restcache_demo::DemoApi;
use tokio_util::task::LocalPoolHandle;
use yew::prelude::*;

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Todo {
    id: u64,
    user_id: u64,
    title: String,
    completed: bool,
}

resource!(TodoResource {
    path: "/todos/:id",
    schema: Todo
});

#[component]
fn Todos() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    Ok(html! {
        <ul>{ for todos.iter().map(|t| html! { <li>{ &t.title }</li> }) }</ul>
    })
}

#[derive(Properties, PartialEq, Clone)]
struct AppProps {
    /// Where the browser reaches the API.
    api: AttrValue,
}

/// The app, as the browser builds it too: on the server its provider
/// takes the render's controller instead of building one from `api`.
#[component]
fn App(props: &AppProps) -> Html {
    let error_fallback =
        Callback::from(|e: BoundaryError| html! { <p>{ e.error.to_string() }</p> });
    html! {
        <CacheProvider base_url={props.api.clone()}>
            <h1>{"Todos"}</h1>
            <AsyncBoundary fallback={html! { <p>{"Loading..."}</p> }} {error_fallback}>
                <Todos />
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[derive(Clone)]
struct Server {
    /// Local workers: a render stays on one thread.
    renderers: LocalPoolHandle,
    api: String,
}

/// Renders the page on a local worker: a controller for this request,
/// the app, and the cache the page read, embedded once.
async fn page(State(server): State<Server>) -> Page<String> {
    let api = server.api.clone();
    let page = server.renderers.spawn_pinned(move || async move {
        let ctrl = Controller::new(Client::new(api.as_str()));
        let props = AppProps { api: api.into() };
        let html = match ServerRender::<App>::new(ctrl.clone(), props).render().await {
            Ok(html) => html,
            Err(error) => format!("<p>{error}</p>"),
        };
        let cache = restcache::handoff_script(&ctrl.export_handoff());
        format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>Todos</title></head>\
             <body>{html}{cache}</body></html>"
        )
    });
    Page(
        page.await
            .unwrap_or_else(|e| format!("<p>the render failed: {e}</p>")),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let api = DemoApi::start()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let server = Server {
            renderers: LocalPoolHandle::new(2),
            api: api.url().to_owned(),
        };
        let app = Router::new().route("/", get(page)).with_state(server);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/", listener.local_addr()?);
        if std::env::args().any(|arg| arg == "--once") {
            tokio::spawn(async move { axum::serve(listener, app).await });
            let client = Client::new(url.as_str());
            let request = restcache::http::Request::new(Method::Get, url.clone());
            let response = client.send(request).await?;
            println!("{}", response.body);
            return Ok(());
        }
        println!("serving the server-rendered page on {url} (Ctrl-C stops)");
        axum::serve(listener, app).await?;
        Ok(())
    })
}
