//! An infinite list: `use_next_page` behind a "more" button appends the
//! next page to the list a `use_suspense` view shows, without suspending,
//! one request a page, until the last page hides the button.

use restcache::Page;
use restcache::prelude::*;
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

#[component]
fn Feed() -> HtmlResult {
    let first = TodoPagesParams { page: 1, limit: 2 };
    let todos = use_suspense(&todo_pages(), first.clone())?;
    let NextPageLoader {
        load,
        more,
        loading,
        error,
    } = use_next_page(&todo_pages(), first);
    Ok(html! {
        <>
            <ul>{ for todos.items.iter().map(|t| html! { <li key={t.id}>{ t.id }</li> }) }</ul>
            if more {
                <button disabled={loading} onclick={move |_| load.emit(())}>{ "more" }</button>
            }
            if let Some(error) = error {
                <p>{ format!("error {:?}", error.status()) }</p>
            }
        </>
    })
}

#[derive(Properties, PartialEq)]
struct AppProps {
    ctrl: Controller,
}

#[component]
fn App(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary fallback={html! { <p>{ "loading" }</p> }} error_fallback={failed()}>
                <Feed />
            </AsyncBoundary>
        </CacheProvider>
    }
}

fn items(page: &Mounted<App>) -> u32 {
    page.root.query_selector_all("li").unwrap().length()
}

fn button(page: &Mounted<App>) -> Option<HtmlElement> {
    let found = page.root.query_selector("button").unwrap()?;
    Some(found.dyn_into().unwrap())
}

#[wasm_bindgen_test]
async fn more_appends_the_next_page_without_suspending_until_the_last() {
    reset_demo().await;
    let page = mount::<App>(AppProps { ctrl: controller() });
    until("the first page and a button", || {
        items(&page) == 2 && button(&page).is_some()
    })
    .await;
    assert_eq!(page.text(), "12more");

    set_delay(300).await;
    button(&page).unwrap().click();
    until("the button disabled", || {
        button(&page).is_some_and(|b| b.has_attribute("disabled"))
    })
    .await;
    assert_eq!(
        page.text(),
        "12more",
        "the list stays on show while its next page loads"
    );
    until("the second page", || items(&page) == 4).await;
    set_delay(0).await;
    assert_eq!(page.text(), "1234more");
    assert_eq!(hits("GET /todos").await, 2, "one request a page");

    outage(true).await;
    button(&page).unwrap().click();
    until("the error", || page.text().ends_with("error Some(503)")).await;
    assert_eq!(items(&page), 4, "a failed page keeps the pages shown");
    outage(false).await;

    button(&page).unwrap().click();
    until("the last page, without a button", || {
        items(&page) == 5 && button(&page).is_none()
    })
    .await;
    assert_eq!(page.text(), "12345", "no error once a load succeeds");
}
