//! Tabs that agree, natively: two controllers synced under one name (as
//! two windows of an app), against the demo API. What one learns (a
//! read's records, a mutation's, a record written by hand) shows in the
//! other with no request of its own; an invalidation and a reset reach
//! it; an older copy from the other tab does not win; nothing echoes.

use std::cell::Cell;
use std::rc::Rc;

use restcache::prelude::*;
use restcache::tabs::{LocalChannel, TabChannel, TabSync};
use restcache::{Event, ExpiryStatus};
use restcache_demo::DemoApi;
use serde_json::json;

use crate::common::{Todo, TodoResource, TodoResourceParams, until};

/// Counts the requests `ctrl` starts.
fn requests_of(ctrl: &Controller) -> (Rc<Cell<usize>>, restcache::EventListener) {
    let count = Rc::new(Cell::new(0));
    let seen = Rc::clone(&count);
    let listener = ctrl.on_event(move |event, _| {
        if let Event::RequestStarted { .. } = event {
            seen.set(seen.get() + 1);
        }
    });
    (count, listener)
}

/// Counts the messages posted on `channel` by anyone.
fn messages_on(channel: &LocalChannel) -> (Rc<Cell<usize>>, Box<dyn std::any::Any>) {
    let count = Rc::new(Cell::new(0));
    let seen = Rc::clone(&count);
    let listening = channel
        .clone()
        .listen(Rc::new(move |_: &str| seen.set(seen.get() + 1)));
    (count, listening)
}

/// Two tabs syncing todos, with no server.
fn two_tabs() -> (Controller, Controller, [restcache::tabs::TabLink; 2]) {
    two_tabs_on("http://127.0.0.1:9")
}

/// Two tabs syncing todos, on the server at `base`.
fn two_tabs_on(base: &str) -> (Controller, Controller, [restcache::tabs::TabLink; 2]) {
    let channel = LocalChannel::new();
    let sync = TabSync::new("todos").entity::<Todo>();
    let client = || Client::new(base);
    let (one, two) = (Controller::new(client()), Controller::new(client()));
    let links = [
        one.sync_tabs(&sync.clone().over(channel.clone())),
        two.sync_tabs(&sync.over(channel)),
    ];
    (one, two, links)
}

fn title(ctrl: &Controller, index: usize) -> String {
    ctrl.read(&TodoResource::get_list(), &()).data.unwrap()[index]
        .title
        .clone()
}

#[tokio::test]
async fn a_mutation_in_one_tab_shows_in_the_other_with_no_request() {
    let api = DemoApi::start().unwrap();
    let channel = LocalChannel::new();
    let sync = TabSync::new("todos").entity::<Todo>();
    let (one, two) = (
        Controller::new(Client::new(api.url())),
        Controller::new(Client::new(api.url())),
    );
    let _one = one.sync_tabs(&sync.clone().over(channel.clone()));
    let _two = two.sync_tabs(&sync.over(channel.clone()));
    let (messages, _listening) = messages_on(&channel);

    // Tab two reads the list; tab one reads it too: its records travel.
    two.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    let (requests, _counting) = requests_of(&two);
    one.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    let body = Body::json(&json!({"title": "renamed in tab one"})).unwrap();
    one.fetch(
        &TodoResource::partial_update(),
        &TodoResourceParams { id: 1 },
        Some(body),
    )
    .await
    .unwrap();
    assert_eq!(title(&two, 0), "renamed in tab one");
    assert_eq!(requests.get(), 0, "tab two made no request");
    assert_eq!(api.hits("GET /todos"), 2);
    // One message per write that changed records, and each read's
    // request announced and its answer handed on; none came back.
    assert_eq!(
        messages.get(),
        7,
        "two reads (3 each) and a mutation, no echo"
    );
}

#[tokio::test]
async fn an_older_copy_from_another_tab_does_not_win() {
    let (one, two, _links) = two_tabs();
    let older = one.write_time();
    let list = vec![Rc::new(crate::common::todo(1, "fetched"))];
    two.set_response(&TodoResource::get_list(), &(), list)
        .unwrap();
    one.set_entity(crate::common::todo(1, "older news"), older)
        .unwrap();
    assert_eq!(title(&two, 0), "fetched", "its copy is newer");
    one.set_entity(crate::common::todo(1, "news"), one.write_time())
        .unwrap();
    assert_eq!(title(&two, 0), "news");
}

#[tokio::test]
async fn invalidations_and_a_reset_reach_the_other_tab() {
    let (one, two, _links) = two_tabs();
    let list = || vec![Rc::new(crate::common::todo(1, "milk"))];
    one.set_response(&TodoResource::get_list(), &(), list())
        .unwrap();
    two.set_response(&TodoResource::get_list(), &(), list())
        .unwrap();
    one.invalidate(&TodoResource::get_list(), &());
    assert_eq!(
        two.read(&TodoResource::get_list(), &()).status,
        ExpiryStatus::Invalid
    );
    two.set_response(&TodoResource::get_list(), &(), list())
        .unwrap();
    one.reset(); // a log-out
    assert!(two.read(&TodoResource::get_list(), &()).data.is_none());
    // A record dropped in one tab is fetched again in the other.
    one.set_response(&TodoResource::get_list(), &(), list())
        .unwrap();
    one.invalidate_entity::<Todo>(1u64);
    assert_eq!(
        two.read(&TodoResource::get_list(), &()).status,
        ExpiryStatus::Invalid
    );
}

#[tokio::test]
async fn a_dropped_link_stops_the_sync_and_unknown_types_stay_home() {
    let channel = LocalChannel::new();
    let client = || Client::new("http://127.0.0.1:9");
    let (one, two) = (Controller::new(client()), Controller::new(client()));
    // Tab two syncs no type: records do not travel to it.
    let one_link = one.sync_tabs(&TabSync::new("t").entity::<Todo>().over(channel.clone()));
    let _two = two.sync_tabs(&TabSync::new("t").over(channel));
    let list = vec![Rc::new(crate::common::todo(1, "milk"))];
    two.set_response(&TodoResource::get_list(), &(), list)
        .unwrap();
    one.set_entity(crate::common::todo(1, "oat milk"), one.write_time())
        .unwrap();
    assert_eq!(title(&two, 0), "milk");
    drop(one_link);
    one.reset();
    assert!(two.read(&TodoResource::get_list(), &()).data.is_some());
}

#[tokio::test]
async fn two_links_on_one_controller_do_not_echo_and_other_versions_are_ignored() {
    let channel = LocalChannel::new();
    let (messages, _listening) = messages_on(&channel);
    let sync = TabSync::new("todos").entity::<Todo>();
    let client = || Client::new("http://127.0.0.1:9");
    let (one, two, old) = (
        Controller::new(client()),
        Controller::new(client()),
        Controller::new(client()),
    );
    // Two components of one tab both sync it.
    let _first = one.sync_tabs(&sync.clone().over(channel.clone()));
    let _second = one.sync_tabs(&sync.clone().over(channel.clone()));
    let _two = two.sync_tabs(&sync.clone().over(channel.clone()));
    // A tab opened before a deploy.
    let _old = old.sync_tabs(&sync.version(7).over(channel.clone()));
    let list = || vec![Rc::new(crate::common::todo(1, "milk"))];
    two.set_response(&TodoResource::get_list(), &(), list())
        .unwrap();
    old.set_response(&TodoResource::get_list(), &(), list())
        .unwrap();
    let sent = messages.get();
    one.set_entity(crate::common::todo(1, "oat milk"), one.write_time())
        .unwrap();
    assert_eq!(title(&two, 0), "oat milk");
    assert_eq!(title(&old, 0), "milk", "another version's records stay out");
    assert!(
        messages.get() - sent <= 3,
        "no echo: {} messages",
        messages.get() - sent
    );
    // A log-out in the new version empties the old tab too (and tab
    // one's two links, which once echoed a reset to each other without
    // end, each apply it once).
    let sent = messages.get();
    two.reset();
    assert!(
        messages.get() - sent <= 2,
        "{} messages",
        messages.get() - sent
    );
    assert!(
        old.read(&TodoResource::get_list(), &()).data.is_none(),
        "another version's tab hears a reset"
    );
    // A reset in the tab of two links: each posts it once, and neither
    // takes the other's.
    let sent = messages.get();
    one.reset();
    assert!(
        messages.get() - sent <= 2,
        "{} messages",
        messages.get() - sent
    );
}

#[tokio::test]
async fn another_versions_tab_hears_an_invalidation() {
    let channel = LocalChannel::new();
    let client = || Client::new("http://127.0.0.1:9");
    let (new, old) = (Controller::new(client()), Controller::new(client()));
    let _new = new.sync_tabs(
        &TabSync::new("todos")
            .version(2)
            .entity::<Todo>()
            .over(channel.clone()),
    );
    let _old = old.sync_tabs(
        &TabSync::new("todos")
            .version(1)
            .entity::<Todo>()
            .over(channel),
    );
    let list = || vec![Rc::new(crate::common::todo(1, "milk"))];
    for ctrl in [&new, &old] {
        ctrl.set_response(&TodoResource::get_list(), &(), list())
            .unwrap();
    }
    new.invalidate(&TodoResource::get_list(), &());
    assert_eq!(
        old.read(&TodoResource::get_list(), &()).status,
        ExpiryStatus::Invalid,
        "its key names the same read in either version"
    );
}

#[tokio::test]
async fn a_record_deleted_in_one_tab_stays_out_of_an_older_answer_in_another() {
    tokio::task::LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let (one, two, _links) = two_tabs_on(api.url());
            // Tab two asks for the list; the answer is held back.
            let held = api.hold();
            let endpoint = TodoResource::get_list();
            let list = two.fetch(&endpoint, &(), None);
            let deleted_meanwhile = async {
                while api.hits("GET /todos") == 0 {
                    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
                }
                // Tab one, which never held todo 3, learns it was deleted.
                one.delete_entity::<Todo>(3u64, one.write_time());
                drop(held);
            };
            let (list, ()) = futures_util::join!(list, deleted_meanwhile);
            let ids: Vec<u64> = list.unwrap().iter().map(|todo| todo.id).collect();
            assert_eq!(ids, [1, 2, 4, 5], "the answer started before the delete");
            let cached = two.read(&TodoResource::get_list(), &()).data.unwrap();
            assert!(cached.iter().all(|todo| todo.id != 3));
        })
        .await;
}

fn renamed(id: u64, title: &str) -> Rc<Todo> {
    Rc::new(Todo {
        title: title.into(),
        ..crate::common::todo(id, "")
    })
}

fn rename(title: &str) -> Option<Body> {
    Some(Body::json(&json!({ "title": title })).unwrap())
}

#[tokio::test]
async fn an_optimistic_value_shows_in_the_other_tab_until_its_answer() {
    let api = DemoApi::start().unwrap();
    let (one, two, _links) = two_tabs_on(api.url());
    two.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    let (requests, _counting) = requests_of(&two);
    let update = TodoResource::partial_update();
    let one_id = TodoResourceParams { id: 1 };

    let held = api.hold();
    let renaming = one.fetch_optimistic(&update, &one_id, rename("soon"), renamed(1, "soon"));
    let meanwhile = async {
        until(|| api.hits("PATCH /todos/1") == 1).await;
        assert_eq!(title(&two, 0), "soon", "on show in the other tab at once");
        drop(held);
    };
    let (renamed_now, ()) = futures_util::join!(renaming, meanwhile);
    assert_eq!(renamed_now.unwrap().title, "soon");
    assert_eq!(
        title(&two, 0),
        "soon",
        "the confirmed copy, after the layer"
    );
    assert_eq!(requests.get(), 0, "tab two made no request");
    // No layer is left over it: a newer confirmed copy shows.
    two.set_entity(crate::common::todo(1, "later"), two.write_time())
        .unwrap();
    assert_eq!(title(&two, 0), "later");
}

#[tokio::test]
async fn an_optimistic_value_that_fails_goes_back_in_every_tab() {
    let api = DemoApi::start().unwrap();
    let (one, two, _links) = two_tabs_on(api.url());
    two.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    // Deleted on the server by someone else: the rename will 404.
    Client::new(api.url())
        .request(restcache::http::Method::Delete, "/todos/2", None)
        .await
        .unwrap();
    let update = TodoResource::partial_update();
    let two_id = TodoResourceParams { id: 2 };
    let before = title(&two, 1);

    let held = api.hold();
    let renaming = one.fetch_optimistic(&update, &two_id, rename("lost"), renamed(2, "lost"));
    let meanwhile = async {
        until(|| api.hits("PATCH /todos/2") == 1).await;
        assert_eq!(title(&two, 1), "lost", "on show in the other tab");
        drop(held);
    };
    let (failed, ()) = futures_util::join!(renaming, meanwhile);
    assert_eq!(failed.unwrap_err().status(), Some(404));
    assert_eq!(title(&two, 1), before, "taken back in the other tab too");
}

#[tokio::test]
async fn a_tab_that_goes_takes_its_optimistic_values_with_it() {
    let (one, two, [first, _second]) = two_tabs();
    let list: Vec<Rc<Todo>> = (1..=2)
        .map(|id| crate::common::todo(id, "milk").into())
        .collect();
    two.set_response(&TodoResource::get_list(), &(), list.clone())
        .unwrap();
    one.set_response(&TodoResource::get_list(), &(), list)
        .unwrap();
    one.set_online(false);
    let update = TodoResource::partial_update();
    let mut queued = Box::pin(one.fetch_optimistic(
        &update,
        &TodoResourceParams { id: 1 },
        rename("queued"),
        renamed(1, "queued"),
    ));
    assert!(futures_util::poll!(&mut queued).is_pending());
    assert_eq!(title(&two, 0), "queued", "on show in the other tab");
    // Tab one closes with its mutation still queued.
    drop(first);
    assert_eq!(
        title(&two, 0),
        "milk",
        "the other tab shows the confirmed copy"
    );
    drop(queued);
}

#[tokio::test]
async fn a_read_another_tab_is_fetching_waits_for_its_answer() {
    let api = DemoApi::start().unwrap();
    let (one, two, _links) = two_tabs_on(api.url());
    let list = TodoResource::get_list();
    let held = api.hold();
    let first = one.fetch(&list, &(), None);
    let second = async {
        until(|| api.hits("GET /todos") == 1).await;
        let read = two.fetch(&list, &(), None);
        let release = async {
            until(|| two.in_flight() == 1).await;
            tokio::task::yield_now().await;
            drop(held);
        };
        futures_util::join!(read, release).0
    };
    let (first, second) = futures_util::join!(first, second);
    assert_eq!(first.unwrap().len(), 5);
    assert_eq!(second.unwrap().len(), 5);
    assert_eq!(api.hits("GET /todos"), 1, "one request answered both tabs");
    assert_eq!(
        two.read(&list, &()).status,
        ExpiryStatus::Valid,
        "stored as tab two's own response"
    );
}

#[tokio::test]
async fn a_read_whose_other_tabs_answer_is_turned_down_fetches_for_itself() {
    let api = DemoApi::start().unwrap();
    let (one, two, _links) = two_tabs_on(api.url());
    let list = TodoResource::get_list();
    one.fetch(&list, &(), None).await.unwrap();
    let held = api.hold();
    let first = one.fetch(&list, &(), None);
    let second = async {
        until(|| api.hits("GET /todos") == 2).await;
        let read = two.fetch(&list, &(), None);
        let steer = async {
            until(|| two.in_flight() == 1).await;
            tokio::task::yield_now().await;
            // Tab one's list changes after its request started: the
            // answer, older, is turned down there.
            one.invalidate(&list, &());
            drop(held);
        };
        futures_util::join!(read, steer).0
    };
    let both = futures_util::future::join(first, second);
    let (first, second) = tokio::time::timeout(std::time::Duration::from_secs(10), both)
        .await
        .expect("tab two stops waiting for an answer tab one turned down");
    first.unwrap();
    assert_eq!(second.unwrap().len(), 5);
    assert_eq!(api.hits("GET /todos"), 3, "tab two fetched for itself");
}

#[tokio::test]
async fn a_read_whose_other_tab_gives_up_fetches_for_itself() {
    let api = DemoApi::start().unwrap();
    let (one, two, _links) = two_tabs_on(api.url());
    let list = TodoResource::get_list();
    let held = api.hold();
    let (give_up, given_up) = tokio::sync::oneshot::channel::<()>();
    let first = async {
        // Tab one's read, dropped once tab two waits for it.
        futures_util::future::select(Box::pin(one.fetch(&list, &(), None)), given_up).await;
    };
    let second = async {
        until(|| api.hits("GET /todos") == 1).await;
        let read = two.fetch(&list, &(), None);
        let steer = async {
            until(|| two.in_flight() == 1).await;
            tokio::task::yield_now().await;
            assert_eq!(api.hits("GET /todos"), 1, "tab two waits for tab one");
            give_up.send(()).unwrap();
            until(|| api.hits("GET /todos") == 2).await;
            drop(held);
        };
        futures_util::join!(read, steer).0
    };
    let ((), second) = futures_util::join!(first, second);
    assert_eq!(second.unwrap().len(), 5, "tab two sent its own request");
    assert_eq!(api.hits("GET /todos"), 2);
}

#[tokio::test]
async fn a_tab_that_announced_a_read_and_vanished_is_waited_for_no_longer_than_a_request() {
    let (api, clock, ctrl, tab) = a_tab_on_a_manual_clock();
    // Another tab says it fetches the list, then is never heard from.
    let key = format!("GET {}/todos", api.url());
    tab.say(json!({"fetching": {"tab": 7, "key": key}}));
    let list = TodoResource::get_list();
    let read = ctrl.fetch(&list, &(), None);
    let later = async {
        until(|| ctrl.in_flight() == 1).await;
        tokio::task::yield_now().await;
        assert_eq!(api.hits("GET /todos"), 0, "waiting for the other tab");
        clock.advance(std::time::Duration::from_secs(11));
    };
    let (read, ()) = futures_util::join!(read, later);
    assert_eq!(read.unwrap().len(), 5);
    assert_eq!(api.hits("GET /todos"), 1, "then fetched for itself");
    // The vanished tab is not waited for again: the next read fetches at
    // once, with the clock standing still.
    ctrl.invalidate(&list, &());
    ctrl.fetch(&list, &(), None).await.unwrap();
    assert_eq!(api.hits("GET /todos"), 2);
}

#[tokio::test]
async fn a_claimed_refetch_once_on_its_way_is_waited_for_past_the_short_wait() {
    let (api, clock, ctrl, tab) = a_tab_on_a_manual_clock();
    let key = format!("GET {}/todos", api.url());
    // Another tab invalidated the list, and a view there refetches it.
    tab.say(json!({"invalidate": {"key": key, "tab": 7, "refetching": true, "at": 0}}));
    let list = TodoResource::get_list();
    let read = ctrl.fetch(&list, &(), None);
    let later = async {
        until(|| ctrl.in_flight() == 1).await;
        // Its request is on its way: the short wait no longer ends it.
        tab.say(json!({"fetching": {"tab": 7, "key": key}}));
        clock.advance(std::time::Duration::from_secs(3));
        tokio::task::yield_now().await;
        // Then its answer comes, and this read takes it.
        let body = r#"[{"id": 1, "userId": 1, "title": "from tab 7", "completed": false}]"#;
        let response = json!({"status": 200, "headers": [], "body": body});
        tab.say(json!({"fetched": {"tab": 7, "key": key, "response": response, "started": 0}}));
    };
    let (read, ()) = futures_util::join!(read, later);
    let read = read.unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].title, "from tab 7", "tab 7's answer");
    assert_eq!(api.hits("GET /todos"), 0, "no request of its own");
}

/// A tab synced over a channel of the test's own, on a manual clock, with
/// a 10 s time limit for requests; what the test says on the channel
/// comes from another tab.
struct TabUnderTest {
    channel: LocalChannel,
    _link: restcache::tabs::TabLink,
}

impl TabUnderTest {
    /// Posts `message` as another tab of version 0.
    fn say(&self, message: serde_json::Value) {
        self.channel
            .clone()
            .post(&json!({"version": 0, "message": message}).to_string());
    }
}

fn a_tab_on_a_manual_clock() -> (DemoApi, restcache::ManualClock, Controller, TabUnderTest) {
    let api = DemoApi::start().unwrap();
    let clock = restcache::ManualClock::at(restcache::Timestamp::from_millis(1_000_000));
    let client = Client::new(api.url()).with_timeout(std::time::Duration::from_secs(10));
    let ctrl = Controller::builder(client).clock(clock.clone()).build();
    let channel = LocalChannel::new();
    let link = ctrl.sync_tabs(&TabSync::new("todos").entity::<Todo>().over(channel.clone()));
    let tab = TabUnderTest {
        channel,
        _link: link,
    };
    (api, clock, ctrl, tab)
}

#[tokio::test]
async fn a_private_reads_records_show_in_another_tab_but_stay_out_of_its_save() {
    use restcache::persist::{CacheStorage, MemoryStorage, Persist};
    tokio::task::LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let (one, two, _links) = two_tabs_on(api.url());
            let storage = MemoryStorage::new();
            let saving = two.persist(
                &Persist::new("todos")
                    .version(1)
                    .entity::<Todo>()
                    .to(storage.clone()),
            );
            let private = TodoResource::get().private();
            one.fetch(&private, &TodoResourceParams { id: 1 }, None)
                .await
                .unwrap();
            one.fetch(&TodoResource::get(), &TodoResourceParams { id: 2 }, None)
                .await
                .unwrap();
            let shown = |pk: u64| {
                two.with_store(|store| {
                    store
                        .get_entity::<Todo>(pk)
                        .value()
                        .map(|t| t.title.clone())
                })
            };
            assert_eq!(shown(1).as_deref(), Some("delectus aut autem"));
            assert_eq!(
                shown(2).as_deref(),
                Some("quis ut nam facilis et officia qui")
            );
            saving.save_now();
            let saved = storage.load("todos").unwrap();
            assert!(saved.contains("quis ut nam facilis"), "{saved}");
            assert!(!saved.contains("delectus aut autem"), "{saved}");
        })
        .await;
}

#[tokio::test]
async fn news_another_tab_sent_from_before_a_reset_is_not_taken_after_it() {
    let (api, clock, ctrl, tab) = a_tab_on_a_manual_clock();
    let before = ctrl.now().as_micros();
    clock.advance(std::time::Duration::from_millis(10));
    ctrl.reset(); // a log-out here, while another tab still sends the old user's data
    let record = |id: u64, title: &str, at: u64| {
        let data = json!({"id": id, "userId": 1, "title": title, "completed": false});
        json!({"entity": "Todo", "pk": id.to_string(), "data": data, "at": at})
    };
    tab.say(json!({"records": {"records": [record(1, "the old user's", before)]}}));
    let held = |pk: u64| ctrl.with_store(|store| store.get_entity::<Todo>(pk).value().is_some());
    assert!(!held(1), "a record from before the reset stays out");
    clock.advance(std::time::Duration::from_millis(10));
    let after = ctrl.now().as_micros();
    tab.say(json!({"records": {"records": [record(2, "the new user's", after)]}}));
    assert!(held(2), "a record from after the reset is taken");

    // An answer to a request the other tab sent before the reset is not
    // taken either: the read waiting for it fetches for itself.
    let key = format!("GET {}/todos", api.url());
    tab.say(json!({"fetching": {"tab": 7, "key": key}}));
    let list = TodoResource::get_list();
    let read = ctrl.fetch(&list, &(), None);
    let later = async {
        until(|| ctrl.in_flight() == 1).await;
        tokio::task::yield_now().await;
        let body = r#"[{"id": 1, "userId": 1, "title": "the old user's", "completed": false}]"#;
        let response = json!({"status": 200, "headers": [], "body": body});
        tab.say(
            json!({"fetched": {"tab": 7, "key": key, "response": response, "started": before}}),
        );
    };
    let (read, ()) = futures_util::join!(read, later);
    assert_eq!(read.unwrap().len(), 5, "its own answer, from the server");
    assert_eq!(api.hits("GET /todos"), 1);
}

#[tokio::test]
async fn a_reset_heard_late_takes_what_its_tab_wrote_after_it() {
    let (_api, clock, ctrl, tab) = a_tab_on_a_manual_clock();
    let reset_there = ctrl.now().as_micros() + 5_000;
    let written_there = ctrl.now().as_micros() + 10_000;
    // This tab hears of the other's reset 20 ms after it was made.
    clock.advance(std::time::Duration::from_millis(20));
    tab.channel
        .clone()
        .post(&json!({"version": 0, "at": reset_there, "message": "reset"}).to_string());
    let data = json!({"id": 3, "userId": 1, "title": "the new user's", "completed": false});
    let record = json!({"entity": "Todo", "pk": "3", "data": data, "at": written_there});
    tab.say(json!({"records": {"records": [record]}}));
    let held = ctrl.with_store(|store| store.get_entity::<Todo>(3u64).value().is_some());
    assert!(held, "written after the other tab's reset: taken");
}
