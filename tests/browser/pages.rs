//! An infinite list: `use_next_page` behind a "more" button appends the
//! next page to the list a `use_suspense` view shows, without suspending,
//! one request a page, until the last page hides the button.

use restcache::prelude::*;
use restcache::rest::Page;
use restcache::yew::{AsyncBoundary, CacheProvider, NextPageLoader, use_next_page, use_suspense};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::HtmlElement;
use yew::prelude::*;

use crate::harness::*;

endpoint!(pub todo_pages {
    path: "/todos",
    schema: Page<Todo>,
    params: {
        #[serde(rename = "_page")]
        page: u32,
        #[serde(rename = "_limit")]
        limit: u32,
    },
    decode: Page::from_headers,
    paginated_by: "_page",
    page_size: "_limit",
});

const FIRST: TodoPagesParams = TodoPagesParams { page: 1, limit: 2 };

#[component]
fn List() -> HtmlResult {
    let todos = use_suspense(&todo_pages(), FIRST)?;
    Ok(html! {
        <ul>{ for todos.items.iter().map(|t| html! { <li key={t.id}>{ t.id }</li> }) }</ul>
    })
}

/// A button of its own: it reads the list only through `use_next_page`.
#[component]
fn More() -> Html {
    let NextPageLoader {
        load,
        more,
        loading,
        error,
    } = use_next_page(&todo_pages(), FIRST);
    html! {
        <>
            if more {
                <button disabled={loading} onclick={move |_| load.emit(())}>{ "more" }</button>
            }
            if let Some(error) = error {
                <p>{ format!("error {:?}", error.status()) }</p>
            }
        </>
    }
}

#[component]
fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary fallback={html! { <p>{ "loading" }</p> }} error_fallback={failed()}>
                <List />
            </AsyncBoundary>
            <More />
            <More />
        </CacheProvider>
    }
}

fn items(page: &Mounted<App>) -> u32 {
    page.root.query_selector_all("li").unwrap().length()
}

fn buttons(page: &Mounted<App>) -> Vec<HtmlElement> {
    let found = page.root.query_selector_all("button").unwrap();
    (0..found.length())
        .map(|i| found.item(i).unwrap().dyn_into().unwrap())
        .collect()
}

#[wasm_bindgen_test]
async fn more_appends_the_next_page_without_suspending_until_the_last() {
    reset_demo().await;
    let ctrl = controller();
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    until("the first page and two buttons", || {
        items(&page) == 2 && buttons(&page).len() == 2
    })
    .await;
    assert_eq!(page.text(), "12moremore");

    outage(true).await;
    buttons(&page)[0].click();
    until("the error", || page.text() == "12moreerror Some(503)more").await;
    outage(false).await;

    let before = hits("GET /todos").await;
    set_delay(300).await;
    buttons(&page)[0].click();
    buttons(&page)[1].click();
    until("both buttons disabled", || {
        buttons(&page).iter().all(|b| b.has_attribute("disabled"))
    })
    .await;
    assert_eq!(
        page.text(),
        "12moremore",
        "the list stays on show while its next page loads; the error went"
    );
    until("the second page", || items(&page) == 4).await;
    set_delay(0).await;
    until("the buttons enabled", || {
        buttons(&page).iter().all(|b| !b.has_attribute("disabled"))
    })
    .await;
    assert_eq!(page.text(), "1234moremore");
    assert_eq!(
        hits("GET /todos").await,
        before + 1,
        "two clicks on one list, one page"
    );

    // The last page, loaded from outside: the buttons follow the list.
    assert!(!ctrl.fetch_next_page(&todo_pages(), &FIRST).await.unwrap());
    until("the last page, without buttons", || page.text() == "12345").await;
}

/// A "more" button over one of two lists, switched by a second button.
#[component]
fn Switching() -> Html {
    let limit = use_state(|| 2_u32);
    let NextPageLoader {
        load,
        loading,
        error,
        ..
    } = use_next_page(
        &todo_pages(),
        TodoPagesParams {
            page: 1,
            limit: *limit,
        },
    );
    let switch = {
        let limit = limit.clone();
        move |_| limit.set(3)
    };
    html! {
        <>
            <button disabled={loading} onclick={move |_| load.emit(())}>{ "more" }</button>
            <button onclick={switch}>{ "switch" }</button>
            <p>{ format!("loading {loading}, error {:?}", error.map(|e| e.status())) }</p>
        </>
    }
}

#[component]
fn SwitchingApp(props: &CtrlProps) -> Html {
    html! { <CacheProvider controller={props.ctrl.clone()}><Switching /></CacheProvider> }
}

/// What the switching button says of its loading and error.
fn state_of(page: &Mounted<SwitchingApp>) -> String {
    let state = page.root.query_selector("p").unwrap().unwrap();
    state.text_content().unwrap()
}

/// The `at`th button: "more", then "switch".
fn button_of(page: &Mounted<SwitchingApp>, at: u32) -> HtmlElement {
    let found = page.root.query_selector_all("button").unwrap();
    found.item(at).unwrap().dyn_into().unwrap()
}

/// A list's next page still on its way (then failing) says nothing about
/// the list the button is for after a switch.
#[wasm_bindgen_test]
async fn a_switch_to_another_list_leaves_the_last_ones_loading_and_error_behind() {
    reset_demo().await;
    let ctrl = controller();
    for limit in [2, 3] {
        let first = TodoPagesParams { page: 1, limit };
        ctrl.fetch(&todo_pages(), &first, None).await.unwrap();
    }
    let page = mount::<SwitchingApp>(CtrlProps { ctrl: ctrl.clone() });
    let (shown, button) = (|| state_of(&page), |at| button_of(&page, at));
    until("mounted", || shown() == "loading false, error None").await;
    outage(true).await;
    set_delay(200).await;
    button(0).click();
    until("the page of the first list loading", || {
        shown() == "loading true, error None"
    })
    .await;
    button(1).click();
    until("the other list", || shown() == "loading false, error None").await;
    sleep(std::time::Duration::from_millis(400)).await; // the first list's page fails
    let after = shown();
    set_delay(0).await;
    outage(false).await;
    assert_eq!(
        after, "loading false, error None",
        "the first list's failure stays with it"
    );
}

/// After a switch, the button's loading is the new list's own: it ends
/// when the new list's page lands, though the last list's is still on its
/// way.
#[wasm_bindgen_test]
async fn after_a_switch_loading_ends_with_the_new_lists_page() {
    reset_demo().await;
    let ctrl = controller();
    let list = |limit| TodoPagesParams { page: 1, limit };
    for limit in [2, 3] {
        ctrl.fetch(&todo_pages(), &list(limit), None).await.unwrap();
    }
    let held = |limit| {
        ctrl.read(&todo_pages(), &list(limit))
            .data
            .unwrap()
            .items
            .len()
    };
    let page = mount::<SwitchingApp>(CtrlProps { ctrl: ctrl.clone() });
    let (shown, button) = (|| state_of(&page), |at| button_of(&page, at));
    until("mounted", || shown() == "loading false, error None").await;
    set_delay(1500).await;
    let before = hits("GET /todos").await;
    button(0).click(); // the first list's next page, slow
    until("loading", || shown() == "loading true, error None").await;
    // On the server, under the long delay, before it goes.
    until_hits("GET /todos", before + 1).await;
    button(1).click();
    set_delay(0).await;
    until("the other list", || shown() == "loading false, error None").await;
    button(0).click(); // the other list's next page, at once
    until("its page", || held(3) == 5).await;
    until("done loading", || shown() == "loading false, error None").await;
    assert_eq!(held(2), 2, "the first list's page is still on its way");
    until("the first list's page", || held(2) == 4).await;
}

/// A page the server rendered before the list came (its "more" buttons
/// showed nothing there) hydrates with no button, as the server sent it,
/// though the handoff holds a list with more pages; the buttons come
/// just after.
#[wasm_bindgen_test]
async fn more_buttons_the_server_did_not_show_hydrate_absent_then_show() {
    reset_demo().await;
    let on_server = controller();
    let html = server_rendered::<App>(&on_server).await;
    assert!(!html.contains("<button"), "{html}");
    let root = page_holding(&html);
    let handle = hydrated::<App>(&root, &on_server.export_handoff());
    until("the more buttons", || {
        root.query_selector_all("button").unwrap().length() == 2
    })
    .await;
    assert_eq!(root.query_selector_all("li").unwrap().length(), 2);
    handle.destroy();
    root.remove();
}

/// A client on the page's own origin (`/api`, behind the same host) whose
/// server names its next page by an absolute `Link` (as json-server,
/// Django REST and Laravel do): the page's origin is the list's.
#[wasm_bindgen_test]
async fn an_absolute_next_link_on_the_pages_origin_is_followed_from_a_path_base() {
    use restcache::testing::{MockClient, Reply};
    let origin = web_sys::window().unwrap().location().origin().unwrap();
    let mock = MockClient::at("/api");
    let next = format!(r#"<{origin}/api/todos?_page=2&_limit=2>; rel="next""#);
    mock.intercept(move |request| {
        let page = |ids: [u64; 2]| {
            let todos: Vec<_> = ids
                .iter()
                .map(|&id| serde_json::json!({ "id": id }))
                .collect();
            Reply::json(&todos)
        };
        assert!(request.url.starts_with("/api/todos?"), "{}", request.url);
        match request.query_all("_page").as_slice() {
            [first] if first == "1" => Some(page([1, 2]).with_header("link", &next)),
            [second] if second == "2" => Some(page([3, 4])),
            _ => None,
        }
    });
    let ctrl = mock.controller();
    ctrl.fetch(&todo_pages(), &FIRST, None).await.unwrap();
    let more = ctrl.fetch_next_page(&todo_pages(), &FIRST).await.unwrap();
    assert!(!more, "page 2 is the last");
    let shown = ctrl.read(&todo_pages(), &FIRST).data.unwrap();
    let ids: Vec<u64> = shown.items.iter().map(|todo| todo.id).collect();
    assert_eq!(ids, [1, 2, 3, 4]);
    // A link to another origin is still refused.
    let foreign = MockClient::at("/api");
    foreign.intercept(|request| {
        (request.query_all("_page") == ["1"]).then(|| {
            Reply::json(&[serde_json::json!({ "id": 1 })]).with_header(
                "link",
                r#"<//elsewhere.example/api/todos?_page=2>; rel="next""#,
            )
        })
    });
    let ctrl = foreign.controller();
    ctrl.fetch(&todo_pages(), &FIRST, None).await.unwrap();
    let refused = ctrl
        .fetch_next_page(&todo_pages(), &FIRST)
        .await
        .unwrap_err();
    assert!(
        matches!(
            refused.kind(),
            restcache::http::ErrorKind::ForeignNextPage { .. }
        ),
        "{refused:?}"
    );
}
