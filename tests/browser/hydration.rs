//! Hydration: a page rendered on a server (here by Yew's server renderer,
//! in the page) with a cache filled beforehand hydrates without
//! suspending, and then lives like any other.

use std::rc::Rc;
use std::time::Duration;

use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, ServerRender, use_suspense};
use serde_json::json;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;
use yew::{LocalServerRenderer, Renderer};

use crate::harness::*;

#[component]
fn Title() -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: 5 })?;
    Ok(html! { <h1>{ &todo.title }</h1> })
}

#[component]
fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary fallback={html! { <p>{"loading"}</p> }} error_fallback={failed()}>
                <Title />
            </AsyncBoundary>
        </CacheProvider>
    }
}

/// A controller holding todo 5 as the server saw it.
fn filled() -> Controller {
    let ctrl = controller();
    let todo = Todo {
        id: 5,
        title: "as the server rendered it".into(),
        ..Todo::default()
    };
    ctrl.set_response(
        &TodoResource::get(),
        &TodoResourceParams { id: 5 },
        Rc::new(todo),
    )
    .unwrap();
    ctrl
}

#[wasm_bindgen_test]
async fn a_server_rendered_page_hydrates_from_a_filled_cache_without_suspending() {
    reset_demo().await;
    let html = LocalServerRenderer::<App>::with_props(CtrlProps { ctrl: filled() })
        .render()
        .await;
    let root = gloo_document().create_element("div").unwrap();
    gloo_document().body().unwrap().append_child(&root).unwrap();
    root.set_inner_html(&html);

    let ctrl = filled();
    let handle =
        Renderer::<App>::with_root_and_props(root.clone(), CtrlProps { ctrl: ctrl.clone() })
            .hydrate();
    yew::scheduler::flush().await;
    let text = || root.text_content().unwrap_or_default();
    assert_eq!(text(), "as the server rendered it");
    assert_eq!(
        hits("GET /todos/5").await,
        0,
        "a valid cache fetches nothing"
    );

    // Hydrated, it lives: a mutation shows.
    let body = Body::json(&json!({"title": "changed after hydration"})).unwrap();
    ctrl.fetch(
        &TodoResource::partial_update(),
        &TodoResourceParams { id: 5 },
        Some(body),
    )
    .await
    .unwrap();
    until("the mutation", || text() == "changed after hydration").await;
    handle.destroy();
    root.remove();
}

#[component]
fn Missing() -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: 999 })?;
    Ok(html! { <h1>{ &todo.title }</h1> })
}

/// An app whose read fails; its provider takes the render's controller
/// on a server, and builds its own in a browser.
#[component]
fn FailingApp() -> Html {
    html! {
        <CacheProvider base_url="http://browser.invalid">
            <AsyncBoundary fallback={html! { <p>{"loading"}</p> }} error_fallback={failed()}>
                <Missing />
            </AsyncBoundary>
        </CacheProvider>
    }
}

/// A server render is told by its renderer, not by the target: in wasm32
/// (an edge runtime, here the page), `ServerRender` ends a render whose
/// read failed with the boundary's fallback, as it does natively.
#[wasm_bindgen_test]
async fn a_server_render_in_wasm_shows_a_failed_reads_fallback() {
    reset_demo().await;
    let html = ServerRender::<FailingApp>::new(controller(), ())
        .hydratable(false)
        .render()
        .await
        .unwrap();
    assert_eq!(
        html,
        r#"<p class="failed">failed: Some(404)<button>reset</button></p>"#
    );
    assert_eq!(hits("GET /todos/999").await, 1);
}

/// The server's cache crosses into the page: rendered by `ServerRender`
/// (here in the page, as an edge runtime would), exported into a script
/// element, taken back by the browser's controller, hydrated with no
/// request.
#[wasm_bindgen_test]
async fn a_server_renders_cache_crosses_into_the_page_and_hydration_makes_no_request() {
    reset_demo().await;
    let on_server = controller();
    let props = CtrlProps {
        ctrl: on_server.clone(),
    };
    let html = ServerRender::<App>::new(on_server.clone(), props)
        .render()
        .await
        .unwrap();
    let script = restcache::handoff_script(&on_server.export_handoff());
    assert_eq!(hits("GET /todos/5").await, 1, "the server fetched it");

    let page = gloo_document().create_element("div").unwrap();
    page.set_inner_html(&format!(r#"<div id="app">{html}</div>{script}"#));
    gloo_document().body().unwrap().append_child(&page).unwrap();
    let handed = gloo_document()
        .get_element_by_id(restcache::HANDOFF_SCRIPT_ID)
        .and_then(|script| script.text_content())
        .unwrap();
    let in_browser = controller();
    assert_eq!(in_browser.import_handoff(&handed), Ok(1));
    let root = gloo_document().get_element_by_id("app").unwrap();
    let _handle =
        Renderer::<App>::with_root_and_props(root.clone(), CtrlProps { ctrl: in_browser })
            .hydrate();
    yew::scheduler::flush().await;
    sleep(Duration::from_millis(50)).await;
    let todo5 = root.text_content().unwrap_or_default();
    assert!(!todo5.is_empty() && todo5 != "loading", "{todo5}");
    assert_eq!(hits("GET /todos/5").await, 1, "hydration made no request");
}

#[component]
fn FailingAndFound(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <p>{"todos"}</p>
            <AsyncBoundary fallback={html! { <p>{"loading"}</p> }} error_fallback={failed()}>
                <Missing />
            </AsyncBoundary>
        </CacheProvider>
    }
}

/// A page whose server render showed a boundary's fallback hydrates with
/// that fallback (Yew sees the very tree the server rendered: no
/// mismatch, no panic), with no request; its retry fetches again.
/// (One boundary: a server render inside a page numbers sibling
/// boundaries in the order the page's scheduler creates them, which is
/// not the order a native server and the hydration share.)
#[wasm_bindgen_test]
async fn a_fallback_the_server_showed_hydrates_as_shown_and_retries_on_reset() {
    reset_demo().await;
    let on_server = controller();
    let props = CtrlProps {
        ctrl: on_server.clone(),
    };
    let html = ServerRender::<FailingAndFound>::new(on_server.clone(), props)
        .render()
        .await
        .unwrap();
    assert!(html.contains("failed: Some(404)"), "{html}");
    let text = on_server.export_handoff();
    assert!(text.contains(r#""fallbacks":[{"boundary":[0]"#), "{text}");
    let script = restcache::handoff_script(&text);
    let missing = hits("GET /todos/999").await;

    let page = gloo_document().create_element("div").unwrap();
    page.set_inner_html(&format!(r#"<div id="failing-app">{html}</div>{script}"#));
    gloo_document().body().unwrap().append_child(&page).unwrap();
    let handed = page
        .query_selector(&format!("#{}", restcache::HANDOFF_SCRIPT_ID))
        .unwrap()
        .and_then(|script| script.text_content())
        .unwrap();
    let in_browser = controller();
    in_browser.import_handoff(&handed).unwrap();
    let root = gloo_document().get_element_by_id("failing-app").unwrap();
    let _handle = Renderer::<FailingAndFound>::with_root_and_props(
        root.clone(),
        CtrlProps { ctrl: in_browser },
    )
    .hydrate();
    yew::scheduler::flush().await;
    sleep(Duration::from_millis(50)).await;
    let text = root.text_content().unwrap_or_default();
    assert!(text.contains("failed: Some(404)"), "{text}");
    assert!(!text.contains("loading"), "{text}");
    assert_eq!(hits("GET /todos/999").await, missing, "no request");

    // Its retry fetches again (and fails again: the todo is missing).
    let button = root.query_selector("button").unwrap().unwrap();
    button.unchecked_into::<web_sys::HtmlElement>().click();
    until_hits("GET /todos/999", missing + 1).await;
}

/// The app as a browser builds it: its provider makes its controller
/// from the API's address (and on a server takes the render's).
#[component]
fn ByAddress() -> Html {
    html! {
        <CacheProvider base_url={DEMO}>
            <AsyncBoundary fallback={html! { <p>{"loading"}</p> }} error_fallback={failed()}>
                <Title />
            </AsyncBoundary>
        </CacheProvider>
    }
}

/// A provider that builds its controller from `base_url` takes the cache
/// the page holds before its first render: hydration makes no request,
/// and the page's script is taken once.
#[wasm_bindgen_test]
async fn a_provider_takes_the_pages_cache_by_itself() {
    reset_demo().await;
    // The pages of earlier tests hold handoffs of their own.
    while let Some(stale) = gloo_document().get_element_by_id(restcache::HANDOFF_SCRIPT_ID) {
        stale.remove();
    }
    let on_server = controller();
    let html = ServerRender::<ByAddress>::new(on_server.clone(), ())
        .render()
        .await
        .unwrap();
    let script = restcache::handoff_script(&on_server.export_handoff());
    assert_eq!(hits("GET /todos/5").await, 1);

    let page = gloo_document().create_element("div").unwrap();
    page.set_inner_html(&format!(r#"<div id="by-address">{html}</div>{script}"#));
    gloo_document().body().unwrap().append_child(&page).unwrap();
    let root = gloo_document().get_element_by_id("by-address").unwrap();
    let _handle = Renderer::<ByAddress>::with_root(root.clone()).hydrate();
    yew::scheduler::flush().await;
    sleep(Duration::from_millis(50)).await;
    let text = root.text_content().unwrap_or_default();
    assert!(!text.is_empty() && text != "loading", "{text}");
    assert_eq!(hits("GET /todos/5").await, 1, "hydration made no request");
    assert!(
        gloo_document()
            .get_element_by_id(restcache::HANDOFF_SCRIPT_ID)
            .is_none(),
        "taken once"
    );
}

#[component]
fn TodoList() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    Ok(html! { <p>{ format!("{} todos", todos.len()) }</p> })
}

/// A sidebar that never suspends, showing todo 2 once it is there.
#[component]
fn Sidebar() -> Html {
    let todo = restcache::yew::use_dle(&TodoResource::get(), TodoResourceParams { id: 2 });
    match todo.data {
        Some(todo) => html! { <ul><li>{ &todo.title }</li></ul> },
        None => html! { <p>{ "sidebar loading" }</p> },
    }
}

/// The list, then a sidebar whose todo the list brings.
#[component]
fn ListAndSidebar(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary fallback={html! { <p>{"loading"}</p> }} error_fallback={failed()}>
                <TodoList />
            </AsyncBoundary>
            <Sidebar />
        </CacheProvider>
    }
}

/// A read that never waits and showed "loading" on the server (the list
/// that brings its todo came after it rendered) hydrates as "loading",
/// though the handoff holds its todo by then (a list, where the server
/// showed a paragraph, would break hydration), and shows the todo next,
/// with no request of its own; with a saved cache too (which records
/// the responses the page reads).
async fn a_read_that_showed_loading_hydrates_loading_then_shows(saved: bool) {
    reset_demo().await;
    let on_server = controller();
    let props = CtrlProps {
        ctrl: on_server.clone(),
    };
    let html = ServerRender::<ListAndSidebar>::new(on_server.clone(), props)
        .render()
        .await
        .unwrap();
    assert!(html.contains("sidebar loading"), "{html}");
    let root = gloo_document().create_element("div").unwrap();
    gloo_document().body().unwrap().append_child(&root).unwrap();
    root.set_inner_html(&html);

    let in_browser = controller();
    in_browser
        .import_handoff(&on_server.export_handoff())
        .unwrap();
    let _saved = saved.then(|| {
        let storage = restcache::persist::MemoryStorage::new();
        in_browser.persist(&restcache::persist::Persist::new("hydration").to(storage))
    });
    let on_the_server = hits("GET /todos/2").await;
    let _handle = Renderer::<ListAndSidebar>::with_root_and_props(
        root.clone(),
        CtrlProps { ctrl: in_browser },
    )
    .hydrate();
    let text = || root.text_content().unwrap_or_default();
    until("the sidebar's todo", || {
        text().ends_with("quis ut nam facilis et officia qui")
    })
    .await;
    assert_eq!(
        hits("GET /todos/2").await,
        on_the_server,
        "the list's record: no request of its own"
    );
}

#[wasm_bindgen_test]
async fn a_read_that_showed_loading_on_the_server_hydrates_loading_then_shows() {
    a_read_that_showed_loading_hydrates_loading_then_shows(false).await;
}

#[wasm_bindgen_test]
async fn a_read_that_showed_loading_hydrates_so_beside_a_saved_cache() {
    a_read_that_showed_loading_hydrates_loading_then_shows(true).await;
}

/// The boundary above the provider: the layout of an app whose whole
/// page is one boundary.
#[component]
fn FailingUnderTheBoundary(props: &CtrlProps) -> Html {
    html! {
        <AsyncBoundary fallback={html! { <p>{"loading"}</p> }} error_fallback={failed()}>
            <CacheProvider controller={props.ctrl.clone()}>
                <p>{"todos"}</p>
                <Missing />
            </CacheProvider>
        </AsyncBoundary>
    }
}

/// A fallback a server showed in a boundary above the provider hydrates
/// as shown too: the boundary takes it from the controller that imported
/// the handoff, though no provider is above it; its retry fetches again.
#[wasm_bindgen_test]
async fn a_fallback_shown_above_the_provider_hydrates_as_shown() {
    reset_demo().await;
    let on_server = controller();
    let html = server_rendered::<FailingUnderTheBoundary>(&on_server).await;
    assert!(html.contains("failed: Some(404)"), "{html}");
    let missing = hits("GET /todos/999").await;

    let root = page_holding(&html);
    let handle = hydrated::<FailingUnderTheBoundary>(&root, &on_server.export_handoff());
    yew::scheduler::flush().await;
    sleep(Duration::from_millis(50)).await;
    let text = root.text_content().unwrap_or_default();
    assert!(text.contains("failed: Some(404)"), "{text}");
    assert_eq!(hits("GET /todos/999").await, missing, "no request");

    let button = root.query_selector("button").unwrap().unwrap();
    button.unchecked_into::<web_sys::HtmlElement>().click();
    until_hits("GET /todos/999", missing + 1).await;
    handle.destroy();
    root.remove();
}

/// A header in a boundary of its own, then the page's boundary above the
/// provider: the server numbered both with one count.
#[component]
fn HeaderThenFailing(props: &CtrlProps) -> Html {
    html! {
        <>
            <AsyncBoundary fallback={html! { <p>{"loading"}</p> }} error_fallback={failed()}>
                <header>{"restcache"}</header>
            </AsyncBoundary>
            <FailingUnderTheBoundary ctrl={props.ctrl.clone()} />
        </>
    }
}

/// Every boundary above the provider shares what the first one took: the
/// second one's fallback hydrates as the server showed it.
#[wasm_bindgen_test]
async fn a_second_boundary_above_the_provider_hydrates_its_fallback_too() {
    reset_demo().await;
    let on_server = controller();
    let html = server_rendered::<HeaderThenFailing>(&on_server).await;
    assert!(html.contains("failed: Some(404)"), "{html}");
    let text = on_server.export_handoff();
    assert!(text.contains(r#""fallbacks":[{"boundary":[1]"#), "{text}");

    let root = page_holding(&html);
    let handle = hydrated::<HeaderThenFailing>(&root, &text);
    yew::scheduler::flush().await;
    sleep(Duration::from_millis(50)).await;
    let shown = root.text_content().unwrap_or_default();
    assert!(shown.starts_with("restcache"), "{shown}");
    assert!(shown.contains("failed: Some(404)"), "{shown}");
    handle.destroy();
    root.remove();
}
