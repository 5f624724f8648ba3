//! A cache that survives a reload, in the browser: an app saves its cache
//! to `localStorage`; the next load (a fresh controller, as after a
//! reload) shows the list at its first render, with no request. The time
//! to the list from the network and from the saved cache is printed.
//! The same through IndexedDB, read back over a new connection, where
//! another schema version discards the save.

use restcache::ExpiryStatus;
use restcache::persist::{CacheStorage, IndexedDb, LocalStorage, Persist};
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

const DATABASE: &str = "restcache-browser-tests";

fn persist_in(db: &IndexedDb, version: u32) -> Persist {
    Persist::new(NAME)
        .version(version)
        .entity::<Todo>()
        .to(db.clone())
}

/// The database as the next load sees it: a connection of its own, which
/// reads what was committed.
async fn reopened() -> IndexedDb {
    IndexedDb::open_database(DATABASE).await.unwrap()
}

#[wasm_bindgen_test]
async fn indexeddb_keeps_the_cache_for_the_next_load_and_another_version_discards_it() {
    reset_demo().await;
    let db = reopened().await;
    db.remove(NAME);
    let ctrl = controller();
    let link = ctrl.persist(&persist_in(&db, 1));
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    drop(link); // the page goes: its cache is saved
    until("the save committed", || db.written()).await;
    assert_eq!(db.last_error(), None);

    let db = reopened().await;
    assert!(
        db.load(NAME)
            .is_some_and(|text| text.contains("delectus aut autem"))
    );
    let ctrl = controller();
    let link = ctrl.persist(&persist_in(&db, 1));
    assert_eq!(link.restored().records, 5);
    let list = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(list.status, ExpiryStatus::Valid);
    assert_eq!(list.data.unwrap().len(), 5);
    assert_eq!(hits("GET /todos").await, 1, "no request after the reload");
    drop(link);
    until("the save committed", || db.written()).await;

    // The app's records changed shape: version 2 discards the save.
    let db = reopened().await;
    let ctrl = controller();
    let link = ctrl.persist(&persist_in(&db, 2));
    assert!(link.restored().discarded);
    assert_eq!(link.restored().records, 0);
    let list = ctrl.read(&TodoResource::get_list(), &());
    assert_eq!(list.status, ExpiryStatus::Invalid, "nothing old shows");
    drop(link);
    until("the removal committed", || db.written()).await;
    let db = reopened().await;
    let left = db.load(NAME);
    assert!(
        !left.is_some_and(|text| text.contains("delectus")),
        "the old save is gone"
    );
    db.remove(NAME);
}
