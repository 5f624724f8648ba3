//! The app's web server: renders each page on the server with the cache
//! it read embedded, and serves the stylesheet and the browser bundle.
//!
//! A render holds `Rc`s (Yew's and the cache's), so it runs on a pinned
//! local worker; the handler that awaits it stays `Send`, as axum asks.

use std::path::PathBuf;

use axum::Router;
use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use restcache::http::Request;
use restcache::prelude::*;
use restcache::yew::ServerRender;
use tokio_util::task::LocalPoolHandle;

use crate::view::View;
use crate::{App, AppProps, ROOT_ID};

/// The stylesheet, served at `/style.css`.
pub const STYLE: &str = include_str!("../style.css");

/// The files of the bundle (`wasm-bindgen --target web` writes them).
pub const BUNDLE_FILES: [(&str, &str); 2] = [
    ("restcache_todo_app.js", "text/javascript"),
    ("restcache_todo_app_bg.wasm", "application/wasm"),
];

/// What the server needs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The API's base address, as the browser reaches it too.
    pub api: String,
    /// The folder of the bundle; without one, pages are served as plain
    /// documents (links work, nothing else does).
    pub bundle: Option<PathBuf>,
}

#[derive(Clone)]
struct Server {
    settings: Settings,
    renderers: LocalPoolHandle,
}

/// The routes: `/` (a page; `?user=2&profile=1` picks the view),
/// `/style.css`, and `/pkg/<file>` (the bundle).
///
/// ```no_run
/// # async fn run() -> std::io::Result<()> {
/// use restcache_todo_app::server::{Settings, router};
///
/// let settings = Settings { api: "http://127.0.0.1:3000".into(), bundle: None };
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// axum::serve(listener, router(settings)).await
/// # }
/// ```
pub fn router(settings: Settings) -> Router {
    let server = Server {
        settings,
        renderers: LocalPoolHandle::new(2),
    };
    Router::new()
        .route("/", get(page))
        .route("/saved", get(saved_page))
        .route("/style.css", get(style))
        .route("/pkg/{file}", get(bundle_file))
        .with_state(server)
}

/// One page: the app rendered for the view its address names, then the
/// cache it read, then the bundle that hydrates it.
async fn page(State(server): State<Server>, RawQuery(query): RawQuery) -> Response {
    let api = server.settings.api.clone();
    let with_bundle = server.settings.bundle.is_some();
    let rendered = server
        .renderers
        .spawn_pinned(move || render(api, query.unwrap_or_default(), with_bundle))
        .await;
    match rendered {
        Ok(Ok(page)) => Html(page).into_response(),
        Ok(Err(error)) => (StatusCode::INTERNAL_SERVER_ERROR, error).into_response(),
        Err(error) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the render stopped: {error}"),
        )
            .into_response(),
    }
}

/// The page that keeps its cache across reloads: rendered in the browser
/// alone (no server render, no handed cache), from what it saved.
async fn saved_page(State(server): State<Server>) -> Response {
    let (preload, bundle) = bundle_tags(server.settings.bundle.is_some());
    let api = server.settings.api.clone();
    let switched = server
        .renderers
        .spawn_pinned(
            move || async move { outage(&Controller::new(Client::new(api.as_str()))).await },
        )
        .await
        .unwrap_or(false);
    Html(format!(
        "{head}{preload}</head>\
         <body><div id=\"{ROOT_ID}\" data-api=\"{api}\" data-outage=\"{switched}\" data-saved=\"true\">\
         <p class=\"loading\">Opening the saved todos…</p></div>{bundle}</body></html>",
        head = HEAD,
        api = escape(&server.settings.api),
    ))
    .into_response()
}

/// The head of every page, up to its end tag.
const HEAD: &str = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
     <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
     <title>Todos · restcache</title><link rel=\"icon\" href=\"data:,\">\
     <link rel=\"stylesheet\" href=\"/style.css\">";

/// The tags that load the bundle (none without one): a preload for the
/// head, and the script that starts it.
fn bundle_tags(with_bundle: bool) -> (&'static str, &'static str) {
    if with_bundle {
        (
            "<link rel=\"modulepreload\" href=\"/pkg/restcache_todo_app.js\">",
            "<script type=\"module\">import init from \"/pkg/restcache_todo_app.js\"; init();</script>",
        )
    } else {
        ("", "")
    }
}

/// Renders the page of the address query `query` (`user=2&profile=1`)
/// with a controller of its own, for the API at `api`.
pub async fn render(api: String, query: String, with_bundle: bool) -> Result<String, String> {
    let ctrl = Controller::new(Client::new(api.as_str()));
    let props = AppProps {
        view: View::from_query(&query),
        outage: outage(&ctrl).await,
        api: api.into(),
        saved: false,
    };
    let html = ServerRender::<App>::new(ctrl.clone(), props.clone())
        .render()
        .await
        .map_err(|error| format!("the render failed: {error}"))?;
    let cache = restcache::handoff_script(&ctrl.export_handoff());
    let (preload, bundle) = bundle_tags(with_bundle);
    Ok(format!(
        "{head}{preload}</head>\
         <body><div id=\"{ROOT_ID}\" data-api=\"{api}\" data-outage=\"{outage}\">{html}</div>\
         {cache}{bundle}</body></html>",
        head = HEAD,
        api = escape(&props.api),
        outage = props.outage,
    ))
}

/// Whether the demo API's outage switch is on (off when it cannot say).
async fn outage(ctrl: &Controller) -> bool {
    let url = format!("{}/__demo/switches", ctrl.client().base_url());
    let Ok(response) = ctrl.client().send(Request::new(Method::Get, url)).await else {
        return false;
    };
    serde_json::from_str::<serde_json::Value>(&response.body)
        .is_ok_and(|switches| switches["outage"] == true)
}

/// `text` as an attribute's value.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

async fn style() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE)
}

/// A file of the bundle; only the bundle's own files are served.
async fn bundle_file(State(server): State<Server>, Path(file): Path<String>) -> Response {
    let Some((name, kind)) = BUNDLE_FILES.iter().find(|(name, _)| *name == file) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let Some(folder) = &server.settings.bundle else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match tokio::fs::read(folder.join(name)).await {
        Ok(bytes) => ([(header::CONTENT_TYPE, *kind)], bytes).into_response(),
        Err(error) => (StatusCode::NOT_FOUND, format!("{name}: {error}")).into_response(),
    }
}
