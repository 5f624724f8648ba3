//! Failed reads on a server: `ServerRender` ends with the nearest
//! boundary's fallback (Yew's own renderers would wait forever), soft
//! errors keep the data on show, and a hook without a provider or a
//! boundary says what to add. The reads are answered by
//! `restcache::testing`'s mock client: what fails here is the boundary's
//! subject, not HTTP.

use std::panic::AssertUnwindSafe;
use std::rc::Rc;

use futures_util::FutureExt;
use restcache::http::Error;
use restcache::prelude::*;
use restcache::rest::ErrorPolicy;
use restcache::testing::{Fixture, MockClient, Reply};
use restcache::yew::{
    AsyncBoundary, BoundaryError, CacheProvider, ErrorBoundary, ServerRender, use_dle, use_error,
    use_soft_error, use_suspense,
};
use yew::LocalServerRenderer;
use yew::prelude::*;

use super::{local, rendered};
use crate::common::{Todo, TodoResource, TodoResourceParams, todo};

#[derive(Properties, PartialEq, Clone)]
struct AppProps {
    ctrl: Controller,
}

fn fallback(name: &'static str) -> Callback<BoundaryError, Html> {
    Callback::from(move |failed: BoundaryError| {
        html! { <p class={name}>{ format!("{name}: {:?}", failed.error.status()) }</p> }
    })
}

#[derive(Properties, PartialEq)]
struct TitleProps {
    id: u64,
}

#[component]
fn Title(props: &TitleProps) -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: props.id })?;
    Ok(html! { <h1>{ &todo.title }</h1> })
}

/// Todo 1 in a boundary of its own, todo 2 in another, inside an outer
/// boundary beside a plain paragraph.
#[component]
fn Nested(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={fallback("outer")}>
                <p>{"header"}</p>
                <AsyncBoundary error_fallback={fallback("first")}><Title id={1} /></AsyncBoundary>
                <AsyncBoundary error_fallback={fallback("second")}><Title id={2} /></AsyncBoundary>
            </AsyncBoundary>
        </CacheProvider>
    }
}

/// A mock whose todo `id` answers `status` with `body`.
fn answering(mock: &MockClient, id: u64, status: u16, body: &str) {
    let params = TodoResourceParams { id };
    mock.answer(Fixture::reply(
        &TodoResource::get(),
        params,
        Reply::status(status, body),
    ));
}

/// A mock whose todo `id` is titled `title`.
fn holding(mock: &MockClient, id: u64, title: &str) {
    let todo = crate::common::controller::todo_json(id, title);
    answering(mock, id, 200, &todo);
}

/// Renders `Nested` on a server whose todo 1 answers `status` with `body`
/// and todo 2 with a todo, each asked once; the page it ends with.
async fn nested_with_first(status: u16, body: &str) -> String {
    let mock = MockClient::new();
    answering(&mock, 1, status, body);
    holding(&mock, 2, "eggs");
    let props = AppProps {
        ctrl: mock.controller(),
    };
    let html = rendered(
        ServerRender::<Nested>::new(props.ctrl.clone(), props)
            .hydratable(false)
            .render(),
    )
    .await
    .unwrap();
    assert_eq!(mock.count(Method::Get, "/todos/1"), 1);
    assert_eq!(mock.count(Method::Get, "/todos/2"), 1);
    html
}

#[tokio::test]
async fn a_404_renders_the_nearest_boundarys_fallback_and_the_render_ends() {
    local(async {
        let html = nested_with_first(404, r#"{"detail": "no"}"#).await;
        assert_eq!(
            html,
            r#"<p>header</p><p class="first">first: Some(404)</p><h1>eggs</h1>"#
        );
    })
    .await;
}

#[tokio::test]
async fn a_body_that_does_not_decode_goes_to_the_boundary() {
    local(async {
        let html = nested_with_first(200, "<!doctype html>").await;
        assert_eq!(
            html,
            r#"<p>header</p><p class="first">first: Some(200)</p><h1>eggs</h1>"#
        );
    })
    .await;
}

fn all_soft(_: &Error) -> ErrorPolicy {
    ErrorPolicy::Soft
}

fn all_hard(_: &Error) -> ErrorPolicy {
    ErrorPolicy::Hard
}

/// Todo 1's endpoint, with an error policy of its own or the default.
fn todo_endpoint(policy: Option<ErrorPolicy>) -> Endpoint<TodoResourceParams, Rc<Todo>> {
    match policy {
        None => TodoResource::get(),
        Some(ErrorPolicy::Soft) => TodoResource::get().with_error_policy(all_soft),
        Some(ErrorPolicy::Hard) => TodoResource::get().with_error_policy(all_hard),
    }
}

#[derive(Properties, PartialEq, Clone)]
struct PolicyProps {
    ctrl: Controller,
    policy: Option<ErrorPolicy>,
}

/// A read and the errors beside it: the one reported unasked, and the
/// soft one asked for.
#[component]
fn WithError(props: &PolicyProps) -> HtmlResult {
    let (endpoint, params) = (todo_endpoint(props.policy), TodoResourceParams { id: 1 });
    let todo = use_suspense(&endpoint, params.clone());
    let error = use_error(&endpoint, params.clone());
    let soft = use_soft_error(&endpoint, params.clone());
    let dle = use_dle(&endpoint, params);
    let todo = todo?;
    let status = |e: Option<Error>| e.and_then(|e| e.status());
    Ok(html! {
        <p>{ format!(
            "{} (error {:?}, soft {:?}; dle error {:?}, soft {:?})",
            todo.title,
            status(error),
            status(soft),
            status(dle.error),
            status(dle.soft_error),
        ) }</p>
    })
}

#[component]
fn WithErrorApp(props: &PolicyProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={fallback("failed")}><WithError ..props.clone() /></AsyncBoundary>
        </CacheProvider>
    }
}

fn status_error(ctrl: &Controller, status: u16) -> Error {
    let url = format!("{}/todos/1", ctrl.client().base_url());
    Error::http_status(Method::Get, &url, status, "down")
}

/// Renders `WithErrorApp` with todo 1 cached (when `cached`) and its read
/// failed with `status`, under `policy`.
async fn with_error(cached: bool, status: u16, policy: Option<ErrorPolicy>) -> String {
    let ctrl = MockClient::new().controller();
    let (endpoint, params) = (todo_endpoint(policy), TodoResourceParams { id: 1 });
    if cached {
        ctrl.set_response(&endpoint, &params, Rc::new(todo(1, "milk")))
            .unwrap();
    }
    ctrl.set_error(&endpoint, &params, status_error(&ctrl, status));
    let props = PolicyProps { ctrl, policy };
    rendered(
        ServerRender::<WithErrorApp>::new(props.ctrl.clone(), props)
            .hydratable(false)
            .render(),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_soft_error_keeps_the_data_on_show_and_is_reported_when_asked_for() {
    local(async {
        assert_eq!(
            with_error(true, 503, None).await,
            "<p>milk (error None, soft Some(503); dle error None, soft Some(503))</p>"
        );
    })
    .await;
}

#[tokio::test]
async fn a_soft_error_with_no_data_to_show_goes_to_the_boundary() {
    local(async {
        assert_eq!(
            with_error(false, 503, None).await,
            r#"<p class="failed">failed: Some(503)</p>"#
        );
    })
    .await;
}

#[tokio::test]
async fn an_endpoint_decides_which_errors_are_soft() {
    local(async {
        // By default a 404 is hard: it takes the data's place.
        assert_eq!(
            with_error(true, 404, None).await,
            r#"<p class="failed">failed: Some(404)</p>"#
        );
        // An endpoint that calls every error soft keeps its data.
        assert_eq!(
            with_error(true, 404, Some(ErrorPolicy::Soft)).await,
            "<p>milk (error None, soft Some(404); dle error None, soft Some(404))</p>"
        );
        // One that calls every error hard shows its fallback on a 503.
        assert_eq!(
            with_error(true, 503, Some(ErrorPolicy::Hard)).await,
            r#"<p class="failed">failed: Some(503)</p>"#
        );
    })
    .await;
}

/// The message of a render that panicked.
async fn panic_message(render: impl std::future::Future<Output = String>) -> String {
    let payload = AssertUnwindSafe(render)
        .catch_unwind()
        .await
        .expect_err("the render panics");
    match (
        payload.downcast_ref::<String>(),
        payload.downcast_ref::<&str>(),
    ) {
        (Some(message), _) => message.clone(),
        (None, Some(message)) => (*message).to_owned(),
        (None, None) => "a panic without a message".to_owned(),
    }
}

#[component]
fn NoProvider() -> Html {
    html! {
        <ErrorBoundary fallback={fallback("failed")}>
            <Suspense><Title id={1} /></Suspense>
        </ErrorBoundary>
    }
}

#[component]
fn NoBoundary(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <Suspense><Title id={1} /></Suspense>
        </CacheProvider>
    }
}

#[tokio::test]
async fn a_hook_without_a_provider_or_a_boundary_says_what_to_add() {
    local(async {
        let render = LocalServerRenderer::<NoProvider>::new().render();
        let message = panic_message(render).await;
        assert!(
            message.contains("needs a <CacheProvider> above it"),
            "{message}"
        );

        let props = AppProps {
            ctrl: MockClient::new().controller(),
        };
        let render = LocalServerRenderer::<NoBoundary>::with_props(props).render();
        let message = panic_message(render).await;
        assert!(
            message.contains("needs an error boundary above it"),
            "{message}"
        );
        assert!(message.contains("<AsyncBoundary"), "{message}");
    })
    .await;
}

/// Yew's own renderers cannot show a boundary's fallback: a read whose
/// failure is known as the component first renders ends the render with
/// a panic that says what to use instead.
#[tokio::test]
async fn yews_own_renderer_ends_with_a_message_on_a_known_failure() {
    local(async {
        let ctrl = MockClient::new().controller();
        let params = TodoResourceParams { id: 1 };
        ctrl.set_error(&TodoResource::get(), &params, status_error(&ctrl, 503));
        let props = PolicyProps { ctrl, policy: None };
        let render = LocalServerRenderer::<WithErrorApp>::with_props(props).render();
        let message = rendered(panic_message(render)).await;
        assert!(
            message.contains("render with restcache::yew::ServerRender"),
            "{message}"
        );
        assert!(message.contains("HTTP 503"), "{message}");
    })
    .await;
}

/// A boundary whose fallback holds a boundary of its own (which reads),
/// beside a second failing boundary.
#[component]
fn FallbackWithABoundary(props: &AppProps) -> Html {
    let with_boundary = Callback::from(|_: BoundaryError| {
        html! {
            <div class="first-failed">
                <AsyncBoundary error_fallback={fallback("inner")}><Title id={2} /></AsyncBoundary>
            </div>
        }
    });
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={with_boundary}><Title id={1} /></AsyncBoundary>
            <AsyncBoundary error_fallback={fallback("second")}><Title id={3} /></AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn a_fallback_may_read_and_hold_boundaries_without_taking_anothers_place() {
    local(async {
        let mock = MockClient::new();
        answering(&mock, 1, 404, "{}");
        answering(&mock, 3, 404, "{}");
        holding(&mock, 2, "eggs");
        let props = AppProps {
            ctrl: mock.controller(),
        };
        let render = ServerRender::<FallbackWithABoundary>::new(props.ctrl.clone(), props)
            .hydratable(false)
            .render();
        let html = rendered(render).await.unwrap();
        assert_eq!(
            html,
            r#"<div class="first-failed"><h1>eggs</h1></div><p class="second">second: Some(404)</p>"#
        );
        for path in ["/todos/1", "/todos/2", "/todos/3"] {
            assert_eq!(mock.count(Method::Get, path), 1, "{path}");
        }
    })
    .await;
}

/// A page without failures renders once, exactly as Yew's own renderer
/// renders it: the same tree, so it hydrates.
#[tokio::test]
async fn a_page_without_failures_renders_as_yews_own_renderer_renders_it() {
    local(async {
        let mock = MockClient::new();
        holding(&mock, 1, "milk");
        holding(&mock, 2, "eggs");
        let ctrl = mock.controller();
        let props = AppProps { ctrl: ctrl.clone() };
        let ours = rendered(ServerRender::<Nested>::new(ctrl, props.clone()).render())
            .await
            .unwrap();
        let yews = rendered(LocalServerRenderer::<Nested>::with_props(props).render()).await;
        assert_eq!(ours, yews);
        assert!(
            ours.contains("<!--<[") && ours.contains("<h1>milk</h1>"),
            "{ours}"
        );
    })
    .await;
}

/// A boundary above the provider, as an app that puts its provider deep
/// in the page has it.
#[component]
fn BoundaryOutsideTheProvider(props: &AppProps) -> Html {
    html! {
        <AsyncBoundary error_fallback={fallback("outside")}>
            <CacheProvider controller={props.ctrl.clone()}>
                <Title id={1} />
            </CacheProvider>
        </AsyncBoundary>
    }
}

#[tokio::test]
async fn a_boundary_above_the_provider_shows_a_failure_on_the_server() {
    local(async {
        let mock = MockClient::new();
        answering(&mock, 1, 404, r#"{"detail": "no"}"#);
        let props = AppProps {
            ctrl: mock.controller(),
        };
        let html = rendered(
            ServerRender::<BoundaryOutsideTheProvider>::new(props.ctrl.clone(), props)
                .hydratable(false)
                .render(),
        )
        .await
        .unwrap();
        assert_eq!(html, r#"<p class="outside">outside: Some(404)</p>"#);
    })
    .await;
}

/// Todo 3 read in an outer boundary, todo 1 in a boundary inside it.
#[component]
fn FailingInAndOut(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={fallback("outer")}>
                <Title id={3} />
                <AsyncBoundary error_fallback={fallback("inner")}><Title id={1} /></AsyncBoundary>
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn only_the_fallbacks_the_page_shows_are_handed_to_the_browser() {
    local(async {
        let mock = MockClient::new();
        answering(&mock, 1, 404, r#"{"detail": "no"}"#);
        answering(&mock, 3, 404, r#"{"detail": "no"}"#);
        let ctrl = mock.controller();
        let props = AppProps { ctrl: ctrl.clone() };
        let page = ServerRender::<FailingInAndOut>::new(ctrl.clone(), props).hydratable(false);
        let html = rendered(page.render()).await.unwrap();
        assert_eq!(html, r#"<p class="outer">outer: Some(404)</p>"#);
        // The inner boundary failed in an earlier pass, but the page does
        // not show it: a browser that hydrates the page, and later shows
        // the outer boundary's children again, reads todo 1 afresh.
        let handoff: serde_json::Value = serde_json::from_str(&ctrl.export_handoff()).unwrap();
        let boundaries: Vec<_> = handoff["fallbacks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|fallback| fallback["boundary"].clone())
            .collect();
        assert_eq!(boundaries, [serde_json::json!([0])]);
    })
    .await;
}

/// Todo 1 in a boundary whose error fallback reads todo 3, inside an
/// outer boundary.
#[component]
fn ReadingFallback(props: &AppProps) -> Html {
    let reading = Callback::from(|_: BoundaryError| html! { <Title id={3} /> });
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={fallback("outer")}>
                <p>{"header"}</p>
                <AsyncBoundary error_fallback={reading}><Title id={1} /></AsyncBoundary>
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn a_read_that_fails_in_a_fallback_on_the_server_shows_the_boundary_above() {
    local(async {
        let mock = MockClient::new();
        answering(&mock, 1, 404, r#"{"detail": "no"}"#);
        answering(&mock, 3, 410, r#"{"detail": "gone"}"#);
        let props = AppProps {
            ctrl: mock.controller(),
        };
        let html = rendered(
            ServerRender::<ReadingFallback>::new(props.ctrl.clone(), props)
                .hydratable(false)
                .render(),
        )
        .await
        .unwrap();
        assert_eq!(html, r#"<p class="outer">outer: Some(410)</p>"#);
    })
    .await;
}
