//! Mutations while offline, in the browser: with the window's `offline`
//! event, two changes show at once and send nothing; with `online`, they
//! go in order and the page keeps the last. Saved in IndexedDB, two
//! changes made offline survive a reload and go in order when back.

use std::rc::Rc;

use futures_util::FutureExt;
use futures_util::future::join;
use restcache::persist::{CacheStorage, IndexedDb, Persist};
use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, use_suspense};
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

#[component]
fn FirstTitle() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    Ok(html! { <p>{ &todos[0].title }</p> })
}

#[component]
fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}>
                <FirstTitle />
            </AsyncBoundary>
        </CacheProvider>
    }
}

fn network(up: bool) {
    let event = web_sys::Event::new(if up { "online" } else { "offline" }).unwrap();
    web_sys::window().unwrap().dispatch_event(&event).unwrap();
}

fn renamed(title: &str) -> Rc<Todo> {
    Rc::new(Todo {
        id: 1,
        user_id: 1,
        title: title.into(),
        completed: false,
    })
}

#[wasm_bindgen_test]
async fn changes_made_offline_show_at_once_and_go_in_order_when_back() {
    reset_demo().await;
    let ctrl = controller();
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    until("the list", || page.text() == "delectus aut autem").await;

    network(false);
    let (update, one) = (TodoResource::partial_update(), TodoResourceParams { id: 1 });
    let body = |title: &str| Some(Body::json(&json!({ "title": title })).unwrap());
    let first = ctrl.fetch_optimistic(&update, &one, body("first"), renamed("first"));
    let second = ctrl.fetch_optimistic(&update, &one, body("second"), renamed("second"));
    let back_online = async {
        until("the last change on show", || page.text() == "second").await;
        sleep(std::time::Duration::from_millis(50)).await;
        assert_eq!(
            hits("PATCH /todos/1").await,
            0,
            "nothing sent while offline"
        );
        assert_eq!(ctrl.queued_mutations(), 2);
        network(true);
    };
    let ((first, second), ()) = join(join(first, second), back_online).await;
    assert_eq!(first.unwrap().title, "first");
    assert_eq!(second.unwrap().title, "second");
    assert_eq!(hits("PATCH /todos/1").await, 2);
    until("the page keeps the last", || page.text() == "second").await;
}

#[wasm_bindgen_test]
async fn changes_made_offline_survive_a_reload_and_go_in_order_when_back() {
    reset_demo().await;
    const NAME: &str = "restcache-browser-offline";
    let update = TodoResource::partial_update();
    let persist = |db: &IndexedDb| {
        Persist::new(NAME)
            .version(1)
            .entity::<Todo>()
            .throttle(std::time::Duration::ZERO)
            .mutation(&update)
            .to(db.clone())
    };
    let one = TodoResourceParams { id: 1 };
    let body = |title: &str| Some(Body::json(&json!({ "title": title })).unwrap());
    let db = IndexedDb::open_database(NAME).await.unwrap();
    db.remove(NAME);
    {
        let ctrl = controller();
        let link = ctrl.persist(&persist(&db));
        ctrl.fetch(&TodoResource::get_list(), &(), None)
            .await
            .unwrap();
        ctrl.set_online(false);
        let mut first = ctrl
            .fetch_optimistic(&update, &one, body("first"), renamed("first"))
            .boxed_local();
        let mut second = ctrl
            .fetch_optimistic(&update, &one, body("second"), renamed("second"))
            .boxed_local();
        assert!((&mut first).now_or_never().is_none());
        assert!((&mut second).now_or_never().is_none());
        assert_eq!(ctrl.queued_mutations(), 2);
        until("the queue saved", || db.written()).await;
        // The tab reloads: nothing of this page runs on.
        drop(link);
        drop((first, second));
    }
    assert_eq!(hits("PATCH /todos/1").await, 0);

    let db = IndexedDb::open_database(NAME).await.unwrap();
    let ctrl = controller();
    ctrl.set_online(false);
    let link = ctrl.persist(&persist(&db));
    assert_eq!(link.restored().mutations, 2);
    let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(
        list[0].title, "second",
        "the change shows at once after the reload"
    );
    sleep(std::time::Duration::from_millis(50)).await;
    assert_eq!(
        hits("PATCH /todos/1").await,
        0,
        "nothing sent while offline"
    );

    ctrl.set_online(true);
    until_hits("PATCH /todos/1", 2).await;
    until("both answered", || ctrl.queued_mutations() == 0).await;
    let on_server = Controller::new(Client::new(DEMO))
        .fetch(&TodoResource::get(), &one, None)
        .await
        .unwrap();
    assert_eq!(on_server.title, "second", "sent in order");
    drop(link);
    db.remove(NAME);
}

#[wasm_bindgen_test]
async fn a_reloaded_tab_takes_back_its_queue_and_a_copy_of_a_live_tab_does_not() {
    use restcache::persist::LocalStorage;
    reset_demo().await;
    const NAME: &str = "restcache-browser-tab-queues";
    let update = TodoResource::partial_update();
    let persist = Persist::new(NAME)
        .version(1)
        .entity::<Todo>()
        .throttle(std::time::Duration::ZERO)
        .mutation(&update)
        .to(LocalStorage);
    LocalStorage.remove(NAME);
    let one = TodoResourceParams { id: 1 };
    let body = Some(Body::json(&json!({ "title": "made offline" })).unwrap());

    let page = controller();
    let link = page.persist(&persist);
    page.set_online(false);
    let mut rename = page.fetch(&update, &one, body).boxed_local();
    assert!((&mut rename).now_or_never().is_none());
    // A copy of this tab (it copies the tab's sessionStorage, and so its
    // mark) leaves the queue to this live tab.
    let copy = controller();
    copy.set_online(false);
    let copy_link = copy.persist(&persist);
    assert_eq!(copy_link.restored().mutations, 0, "held by the live tab");
    drop(copy_link);

    // The page goes (a reload): the next page of this tab takes it back.
    let gone = web_sys::Event::new("pagehide").unwrap();
    web_sys::window().unwrap().dispatch_event(&gone).unwrap();
    drop(link);
    drop(rename);
    let reloaded = controller();
    let link = reloaded.persist(&persist);
    assert_eq!(link.restored().mutations, 1, "the reloaded page sends it");
    until_hits("PATCH /todos/1", 1).await;
    until("answered", || reloaded.queued_mutations() == 0).await;
    drop(link);
    LocalStorage.remove(NAME);
}

#[wasm_bindgen_test]
async fn a_page_that_starts_offline_queues_its_changes_until_online() {
    reset_demo().await;
    let ctrl = controller();
    ctrl.set_response(
        &TodoResource::get_list(),
        &(),
        vec![renamed("saved before")],
    )
    .unwrap();
    // What a page loaded with no network, in a tab in the background,
    // hears from the browser.
    let away = (
        Pretend::navigator("onLine", false),
        Pretend::document("hidden", true),
    );
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    until("the saved list", || page.text() == "saved before").await;
    assert!(!ctrl.is_online(), "the provider asked the browser");
    assert!(!ctrl.is_focused(), "the page starts in the background");

    let (update, one) = (TodoResource::partial_update(), TodoResourceParams { id: 1 });
    let body = Some(Body::json(&json!({ "title": "offline" })).unwrap());
    let change = ctrl.fetch_optimistic(&update, &one, body, renamed("offline"));
    let back_online = async {
        until("the change on show", || page.text() == "offline").await;
        sleep(std::time::Duration::from_millis(50)).await;
        assert_eq!(hits("PATCH /todos/1").await, 0, "queued, not failed");
        assert_eq!(ctrl.queued_mutations(), 1);
        drop(away);
        network(true);
    };
    let (change, ()) = join(change, back_online).await;
    assert_eq!(change.unwrap().title, "offline");
    assert_eq!(hits("PATCH /todos/1").await, 1);
}

#[component]
fn NoRevalidation(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()} revalidate_on_focus={false} revalidate_on_reconnect={false}>
            <AsyncBoundary error_fallback={failed()}>
                <FirstTitle />
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn a_provider_that_does_not_revalidate_still_follows_the_network() {
    reset_demo().await;
    let ctrl = controller();
    let page = mount::<NoRevalidation>(CtrlProps { ctrl: ctrl.clone() });
    until("the list", || page.text() == "delectus aut autem").await;
    network(false);
    assert!(!ctrl.is_online(), "changes made now wait in the queue");
    network(true);
    assert!(ctrl.is_online());
}
