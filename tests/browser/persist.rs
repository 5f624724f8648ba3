//! A cache that survives a reload, in the browser: an app saves its cache
//! to `localStorage`; the next load (a fresh controller, as after a
//! reload) shows the list at its first render, with no request. The time
//! to the list from the network and from the saved cache is printed.

use restcache::persist::{CacheStorage, LocalStorage, Persist};
use restcache::yew::{AsyncBoundary, CacheProvider, use_persist, use_suspense};
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

const NAME: &str = "restcache-browser-persist";

fn persist() -> Persist {
    Persist::new(NAME).version(1).entity::<Todo>()
}

#[component]
fn Titles() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    let titles: Vec<&str> = todos.iter().map(|todo| todo.title.as_str()).collect();
    Ok(html! { <p class="titles">{ titles.join(", ") }</p> })
}

#[derive(Properties, PartialEq)]
struct SavedProps {
    children: Html,
}

/// Takes the saved cache back before its children read.
#[component]
fn Saved(props: &SavedProps) -> Html {
    use_persist(&persist());
    props.children.clone()
}

#[component]
fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <Saved>
                <AsyncBoundary fallback={html! { <p>{ "loading" }</p> }} error_fallback={failed()}>
                    <Titles />
                </AsyncBoundary>
            </Saved>
        </CacheProvider>
    }
}

/// Mounts the app on a fresh controller and waits for the list: the
/// page and the milliseconds it took.
async fn load() -> (Mounted<App>, f64) {
    let start = now_ms();
    let page = mount::<App>(CtrlProps { ctrl: controller() });
    until("the list", || page.text().contains("delectus aut autem")).await;
    (page, now_ms() - start)
}

#[wasm_bindgen_test]
async fn a_reload_shows_the_saved_list_at_once_with_no_request() {
    reset_demo().await;
    LocalStorage.remove(NAME);
    let (mut first, from_network) = load().await;
    assert_eq!(hits("GET /todos").await, 1);
    first.unmount(); // the page goes: its cache is saved
    until("the cache saved", || LocalStorage.load(NAME).is_some()).await;

    let start = now_ms();
    let second = mount::<App>(CtrlProps { ctrl: controller() });
    // At its first render, with no wait for the network.
    yew::scheduler::flush().await;
    let from_saved = now_ms() - start;
    assert!(
        second.text().contains("delectus aut autem"),
        "{}",
        second.text()
    );
    assert_eq!(hits("GET /todos").await, 1, "no request after the reload");
    web_sys::console::log_1(
        &format!(
            "time to the list: from the network {from_network:.1} ms, from the saved cache {from_saved:.1} ms"
        )
        .into(),
    );
    LocalStorage.remove(NAME);
}
