//! The cache crosses from server to browser: a server render's reads go
//! into one text for the page, and a controller that takes it back reads
//! them with no request, as old as they were on the server, whatever its
//! clock says. The text cannot break out of its script, and a bad one is
//! refused.

use std::rc::Rc;
use std::time::Duration;

use restcache::http::Client;
use restcache::prelude::*;
use restcache::yew::{
    AsyncBoundary, BoundaryError, CacheProvider, ServerRender, use_dle, use_suspense,
};
use restcache::{HANDOFF_SCRIPT_ID, HandoffError, MAX_HANDOFF_BYTES, handoff_script};
use yew::prelude::*;

use super::{local, rendered};
use crate::common::{TodoResource, TodoResourceParams};

#[component]
fn Todos() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    let first = use_suspense(&TodoResource::get(), TodoResourceParams { id: 1 })?;
    Ok(html! {
        <>
            <h1>{ &first.title }</h1>
            <ul>{ for todos.iter().map(|t| html! { <li>{ &t.title }</li> }) }</ul>
        </>
    })
}

#[component]
fn App() -> Html {
    let error_fallback =
        Callback::from(|e: BoundaryError| html! { <p>{ e.error.to_string() }</p> });
    html! {
        <CacheProvider base_url="http://browser.invalid">
            <AsyncBoundary {error_fallback}><Todos /></AsyncBoundary>
        </CacheProvider>
    }
}

const LIST: &str = r#"[{"id": 1, "userId": 1, "title": "</script><!-- milk & <b>eggs</b>", "completed": false},
                       {"id": 2, "userId": 1, "title": "tea \u2028 line", "completed": true}]"#;

/// The script's content, as a browser hands it to the page's code.
fn script_text(script: &str) -> &str {
    let open = format!(r#"<script type="application/json" id="{HANDOFF_SCRIPT_ID}">"#);
    script
        .strip_prefix(open.as_str())
        .and_then(|rest| rest.strip_suffix("</script>"))
        .expect("one script element")
}

#[tokio::test]
async fn a_server_renders_cache_crosses_to_the_browser_with_no_request() {
    local(async {
        let mut server = mockito::Server::new_async().await;
        let list = server
            .mock("GET", "/todos")
            .with_header("content-type", "application/json")
            .with_header("set-cookie", "session=secret")
            .with_body(LIST)
            .expect(1)
            .create_async()
            .await;
        let one = server
            .mock("GET", "/todos/1")
            .with_header("content-type", "application/json")
            .with_body(r#"{"id": 1, "userId": 1, "title": "</script><!-- milk & <b>eggs</b>", "completed": false}"#)
            .expect(0) // answered from the list's record

            .create_async()
            .await;

        // On the server: render, then export what the page read.
        let on_server = Controller::new(Client::new(server.url()));
        let page = ServerRender::<App>::new(on_server.clone(), ())
            .hydratable(false)
            .render();
        let html = rendered(page).await.unwrap();
        assert!(html.contains("<li>tea \u{2028} line</li>"), "{html}");
        let script = handoff_script(&on_server.export_handoff());
        assert_eq!(script.matches("</script>").count(), 1, "{script}");
        assert!(!script.contains("<!--") && !script.contains("<b>"), "{script}");
        assert!(!script.contains("secret"), "the server's cookie stays home");

        // In the browser: take it back, read with no request.
        let in_browser = Controller::new(Client::new(server.url()));
        assert_eq!(in_browser.import_handoff(script_text(&script)), Ok(1));
        let todos = in_browser.read(&TodoResource::get_list(), &());
        assert_eq!(todos.status, ExpiryStatus::Valid);
        let todos = todos.data.unwrap();
        assert_eq!(todos[0].title, "</script><!-- milk & <b>eggs</b>");
        let again = ServerRender::<App>::new(in_browser.clone(), ())
            .hydratable(false)
            .render();
        assert_eq!(rendered(again).await.unwrap(), html, "what the server rendered");
        list.assert_async().await;
        one.assert_async().await;
        // One copy of each record: the detail is the list's record.
        let first = in_browser.read(&TodoResource::get(), &TodoResourceParams { id: 1 });
        assert!(Rc::ptr_eq(&first.data.unwrap(), &todos[0]));
    })
    .await;
}

/// A sidebar that never suspends: it shows "loading" until its todo is
/// there (here, from the list's record).
#[component]
fn Sidebar() -> Html {
    let todo = use_dle(&TodoResource::get(), TodoResourceParams { id: 2 });
    match todo.data {
        Some(todo) => html! { <ul><li>{ &todo.title }</li></ul> },
        None => html! { <p>{ "loading" }</p> },
    }
}

/// The list, then a sidebar after it.
#[component]
fn WithSidebar() -> Html {
    let error_fallback =
        Callback::from(|e: BoundaryError| html! { <p>{ e.error.to_string() }</p> });
    html! {
        <CacheProvider base_url="http://browser.invalid">
            <AsyncBoundary {error_fallback}><Todos /></AsyncBoundary>
            <Sidebar />
        </CacheProvider>
    }
}

#[tokio::test]
async fn a_read_that_never_waits_and_showed_nothing_is_named_in_the_handoff() {
    local(async {
        let mut server = mockito::Server::new_async().await;
        let _list = server
            .mock("GET", "/todos")
            .with_header("content-type", "application/json")
            .with_body(LIST)
            .create_async()
            .await;
        let on_server = Controller::new(Client::new(server.url()));
        let page = ServerRender::<WithSidebar>::new(on_server.clone(), ())
            .hydratable(false)
            .render();
        let html = rendered(page).await.unwrap();
        // The list suspended: the sidebar rendered before it came, though
        // the list brings its todo.
        assert!(html.ends_with("<p>loading</p>"), "{html}");
        let text = on_server.export_handoff();
        let sidebar = format!(r#""shown_empty":["GET {}/todos/2"]"#, server.url());
        assert!(text.contains(&sidebar), "{text}");
    })
    .await;
}

/// The list, and a todo read without waiting before the list's `?`.
#[component]
fn ListFirst() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ());
    let second = use_dle(&TodoResource::get(), TodoResourceParams { id: 2 });
    let todos = todos?;
    Ok(html! {
        <p>{ format!("{} todos; the second: {:?}", todos.len(), second.data.map(|t| t.id)) }</p>
    })
}

#[component]
fn ListFirstApp() -> Html {
    html! {
        <CacheProvider base_url="http://browser.invalid">
            <AsyncBoundary error_fallback={Callback::from(|_| Html::default())}>
                <ListFirst />
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn a_read_that_showed_its_data_by_the_last_render_is_not_named_empty() {
    local(async {
        let mut server = mockito::Server::new_async().await;
        let _list = server
            .mock("GET", "/todos")
            .with_header("content-type", "application/json")
            .with_body(LIST)
            .create_async()
            .await;
        let on_server = Controller::new(Client::new(server.url()));
        let page = ServerRender::<ListFirstApp>::new(on_server.clone(), ())
            .hydratable(false)
            .render();
        let html = rendered(page).await.unwrap();
        assert_eq!(html, "<p>2 todos; the second: Some(2)</p>");
        let text = on_server.export_handoff();
        assert!(!text.contains("shown_empty"), "{text}");
    })
    .await;
}

#[tokio::test]
async fn expiry_crosses_as_age_whatever_each_clock_says() {
    let mut server = mockito::Server::new_async().await;
    let _one = server
        .mock("GET", "/todos/1")
        .with_header("content-type", "application/json")
        .with_body(r#"{"id": 1, "title": "milk"}"#)
        .create_async()
        .await;
    let controller = |at_ms: u64| {
        let clock = ManualClock::at(Timestamp::from_millis(at_ms));
        let ctrl = Controller::builder(Client::new(server.url()))
            .clock(clock.clone())
            .data_expiry(Duration::from_secs(60))
            .build();
        (ctrl, clock)
    };
    let params = TodoResourceParams { id: 1 };
    let (on_server, server_clock) = controller(1_700_000_000_000);
    on_server.record_for_handoff();
    on_server
        .fetch(&TodoResource::get(), &params, None)
        .await
        .unwrap();
    server_clock.advance(Duration::from_secs(10));
    let text = on_server.export_handoff();

    // A browser whose clock is hours behind: 50 s of freshness are left.
    let (in_browser, browser_clock) = controller(1_699_990_000_000);
    assert_eq!(in_browser.import_handoff(&text), Ok(1));
    let read = || in_browser.read(&TodoResource::get(), &params).status;
    assert_eq!(read(), ExpiryStatus::Valid);
    browser_clock.advance(Duration::from_secs(49));
    assert_eq!(read(), ExpiryStatus::Valid);
    browser_clock.advance(Duration::from_secs(2));
    assert_eq!(read(), ExpiryStatus::Stale, "as stale as on the server");
}

#[test]
fn a_corrupt_foreign_or_oversized_text_is_refused_and_takes_nothing() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    let params = TodoResourceParams { id: 1 };
    let entry = r#"{"key":"GET http://127.0.0.1:9/todos/1","status":200,"headers":[],"body":"{\"id\":1}","age_ms":0}"#;
    let refused = [
        "<html>".to_owned(),
        format!(r#"{{"restcache_handoff":1,"entries":[{entry}"#),
        format!(r#"{{"restcache_handoff":2,"entries":[{entry}]}}"#),
        r#"{"entries":[]}"#.to_owned(),
    ];
    for text in &refused {
        let error = ctrl.import_handoff(text).unwrap_err();
        assert!(matches!(error, HandoffError::Foreign(_)), "{error}");
        assert!(error.to_string().starts_with("not a cache handoff"));
    }
    let huge = " ".repeat(MAX_HANDOFF_BYTES + 1);
    assert!(matches!(
        ctrl.import_handoff(&huge),
        Err(HandoffError::TooLarge { .. })
    ));
    assert_eq!(
        ctrl.read(&TodoResource::get(), &params).status,
        ExpiryStatus::Invalid,
        "nothing taken"
    );
    // A response its endpoint cannot decode is dropped: the read fetches.
    let text = r#"{"restcache_handoff":1,"entries":[{"key":"GET http://127.0.0.1:9/todos/1","status":200,"headers":[],"body":"not json","age_ms":0}]}"#;
    assert_eq!(ctrl.import_handoff(text), Ok(1));
    assert_eq!(
        ctrl.read(&TodoResource::get(), &params).status,
        ExpiryStatus::Invalid
    );
}

#[component]
fn Missing() -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: 999 })?;
    Ok(html! { <p>{ &todo.title }</p> })
}

#[component]
fn FoundAndMissing() -> Html {
    let error_fallback =
        Callback::from(|e: BoundaryError| html! { <p>{ format!("{:?}", e.error.status()) }</p> });
    html! {
        <CacheProvider base_url="http://browser.invalid">
            <AsyncBoundary error_fallback={error_fallback.clone()}><Todos /></AsyncBoundary>
            <AsyncBoundary {error_fallback}><Missing /></AsyncBoundary>
        </CacheProvider>
    }
}

/// The boundaries that showed their fallback cross with the cache: each
/// by its place (as the hydration numbers them: the second boundary at
/// the root is `[1]`), with its error and its failed read's key.
#[tokio::test]
async fn a_fallback_the_server_showed_crosses_with_its_place_error_and_key() {
    local(async {
        let mut server = mockito::Server::new_async().await;
        let _list = server
            .mock("GET", "/todos")
            .with_header("content-type", "application/json")
            .with_body(LIST)
            .create_async()
            .await;
        let _missing = server
            .mock("GET", "/todos/999")
            .with_status(404)
            .with_body("gone")
            .create_async()
            .await;
        let on_server = Controller::new(Client::new(server.url()));
        let page = ServerRender::<FoundAndMissing>::new(on_server.clone(), ()).hydratable(false);
        let html = rendered(page.render()).await.unwrap();
        assert!(html.ends_with("<p>Some(404)</p>"), "{html}");
        let text = on_server.export_handoff();
        let expected = format!(
            r#""fallbacks":[{{"boundary":[1],"method":"GET","url":"{url}/todos/999","status":404,"text":"gone","keys":["GET {url}/todos/999"]}}]"#,
            url = server.url()
        );
        assert!(text.contains(&expected), "{text}");
    })
    .await;
}

restcache::endpoint!(missing_by_graphql {
    graphql: "query Todo($id: Int!) { todo(id: $id) { id title } }",
    path: "/graphql",
    schema: serde_json::Value,
    params: { id: u64 },
});

#[component]
fn MissingByGraphQl() -> HtmlResult {
    let todo = use_suspense(&missing_by_graphql(), MissingByGraphqlParams { id: 99 })?;
    Ok(html! { <p>{ todo.to_string() }</p> })
}

#[component]
fn GraphQlApp() -> Html {
    let error_fallback =
        Callback::from(|e: BoundaryError| html! { <p>{ e.error.to_string() }</p> });
    html! {
        <CacheProvider base_url="http://browser.invalid">
            <AsyncBoundary {error_fallback}><MissingByGraphQl /></AsyncBoundary>
        </CacheProvider>
    }
}

/// A GraphQL answer's errors cross as themselves, so that the browser
/// shows the fallback the server showed.
#[tokio::test]
async fn a_graphql_failure_the_server_showed_crosses_with_its_errors() {
    use restcache::testing::{Fixture, MockClient, Reply};
    local(async {
        let mock = MockClient::new();
        let errors = serde_json::json!({"data": null, "errors": [{"message": "no todos/99", "path": ["todo"]}]});
        let params = MissingByGraphqlParams { id: 99 };
        mock.answer(Fixture::reply(&missing_by_graphql(), params, Reply::json(&errors)));
        let on_server = mock.controller();
        let page = ServerRender::<GraphQlApp>::new(on_server.clone(), ()).hydratable(false);
        let html = rendered(page.render()).await.unwrap();
        let shown = "POST http://restcache.test/graphql: GraphQL: no todos/99 (at todo)";
        assert_eq!(html, format!("<p>{shown}</p>"));
        let text = on_server.export_handoff();
        assert!(text.contains(r#""graphql":[["no todos/99",["todo"]]]"#), "{text}");
    })
    .await;
}
