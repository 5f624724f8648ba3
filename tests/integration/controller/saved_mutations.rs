//! Mutations made offline survive a reload: the saved queue holds them,
//! the next load sends them again, in order, once; one given up, or one
//! that no longer fits its endpoint, is not sent (the second counted).
//! Saves run on the controller's spawner: each test runs in a `LocalSet`.

use std::rc::Rc;

use restcache::http::Body;
use restcache::persist::{CacheStorage, MemoryStorage};
use restcache::prelude::*;
use restcache_demo::DemoApi;
use serde_json::json;
use tokio::task::LocalSet;

use super::persist::persist;
use crate::common::{Todo, TodoResource, TodoResourceParams};

#[tokio::test]
async fn mutations_made_offline_survive_a_reload_and_go_in_order_when_back() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let update = TodoResource::partial_update();
            let saving = persist(&storage)
                .throttle(std::time::Duration::ZERO)
                .mutation(&update);
            let rename = |title: &str| Some(Body::json(&json!({ "title": title })).unwrap());
            let renamed = |title: &str| {
                Rc::new(Todo {
                    title: title.into(),
                    ..crate::common::todo(1, "")
                })
            };
            let one = TodoResourceParams { id: 1 };
            {
                let ctrl = Controller::new(Client::new(api.url()));
                let link = ctrl.persist(&saving);
                ctrl.fetch(&TodoResource::get_list(), &(), None)
                    .await
                    .unwrap();
                ctrl.set_online(false);
                let mut first = Box::pin(ctrl.fetch_optimistic(
                    &update,
                    &one,
                    rename("first"),
                    renamed("first"),
                ));
                let mut second = Box::pin(ctrl.fetch_optimistic(
                    &update,
                    &one,
                    rename("second"),
                    renamed("second"),
                ));
                assert!(futures_util::poll!(&mut first).is_pending());
                assert!(futures_util::poll!(&mut second).is_pending());
                assert_eq!(ctrl.queued_mutations(), 2);
                // The page goes before the network is back: nothing runs on.
                drop(link);
                drop((first, second));
            }
            assert_eq!(api.hits("PATCH /todos/1"), 0);

            let reloaded = Controller::new(Client::new(api.url()));
            reloaded.set_online(false);
            let link = reloaded.persist(&saving);
            assert_eq!(link.restored().mutations, 2);
            let list = reloaded.read(&TodoResource::get_list(), &()).data.unwrap();
            assert_eq!(
                list[0].title, "second",
                "the optimistic value shows at once"
            );
            tokio::task::yield_now().await;
            assert_eq!(reloaded.queued_mutations(), 2);
            assert_eq!(api.hits("PATCH /todos/1"), 0, "nothing sent while offline");

            reloaded.set_online(true);
            for _ in 0..500 {
                if reloaded.queued_mutations() == 0 && reloaded.is_idle() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
            assert_eq!(api.hits("PATCH /todos/1"), 2);
            assert_eq!(api.records("todos")[0]["title"], "second", "sent in order");
            assert_eq!(api.hits("GET /todos"), 1, "the list came from the save");
            drop(link);
            let third = Controller::new(Client::new(api.url()));
            let link = third.persist(&saving);
            assert_eq!(link.restored().mutations, 0, "answered: no longer saved");
        })
        .await;
}

#[tokio::test]
async fn a_second_link_on_one_controller_sends_no_saved_mutation_again() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let update = TodoResource::partial_update();
            // A long throttle: the queue saves at once all the same.
            let saving = persist(&storage)
                .throttle(std::time::Duration::from_secs(3600))
                .mutation(&update);
            let ctrl = Controller::new(Client::new(api.url()));
            let first = ctrl.persist(&saving);
            ctrl.set_entity(crate::common::todo(1, "milk"), ctrl.write_time())
                .unwrap();
            ctrl.set_online(false);
            let body = Some(Body::json(&json!({"title": "renamed"})).unwrap());
            let renaming = ctrl.fetch(&update, &TodoResourceParams { id: 1 }, body);
            let mut renaming = Box::pin(renaming);
            assert!(futures_util::poll!(&mut renaming).is_pending());
            assert!(
                storage.load("todos").unwrap().contains("renamed"),
                "saved at once"
            );

            // The component holding the link mounts again on this controller.
            drop(first);
            let second = ctrl.persist(&saving);
            assert_eq!(second.restored().mutations, 0, "its queue holds it already");
            assert_eq!(ctrl.queued_mutations(), 1);
            ctrl.set_online(true);
            renaming.await.unwrap();
            assert_eq!(api.hits("PATCH /todos/1"), 1);
            let saved = storage.load("todos").unwrap();
            assert!(
                saved.contains(r#""mutations":[]"#),
                "answered: gone: {saved}"
            );
        })
        .await;
}

#[tokio::test]
async fn a_mutation_given_up_offline_is_not_sent_after_a_reload() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let update = TodoResource::partial_update();
            let saving = persist(&storage).mutation(&update);
            let one = TodoResourceParams { id: 1 };
            {
                let ctrl = Controller::new(Client::new(api.url()));
                let _link = ctrl.persist(&saving);
                ctrl.set_online(false);
                let body = Some(Body::json(&json!({ "title": "never mind" })).unwrap());
                let mut rename = Box::pin(ctrl.fetch(&update, &one, body));
                assert!(futures_util::poll!(&mut rename).is_pending());
                assert_eq!(ctrl.queued_mutations(), 1);
                // The user cancels it, the page still open.
                drop(rename);
                assert_eq!(ctrl.queued_mutations(), 0);
            }
            let reloaded = Controller::new(Client::new(api.url()));
            let link = reloaded.persist(&saving);
            assert_eq!(link.restored().mutations, 0);
            tokio::task::yield_now().await;
            assert_eq!(api.hits("PATCH /todos/1"), 0);
        })
        .await;
}

#[tokio::test]
async fn a_saved_mutation_that_no_longer_fits_is_dropped_and_counted() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let update = TodoResource::partial_update();
            let saving = persist(&storage).mutation(&update);
            {
                let ctrl = Controller::new(Client::new(api.url()));
                let link = ctrl.persist(&saving);
                ctrl.set_online(false);
                let (one, two) = (TodoResourceParams { id: 1 }, TodoResourceParams { id: 2 });
                let rename = |params| {
                    let body = Some(Body::json(&json!({ "title": "renamed" })).unwrap());
                    Box::pin(ctrl.fetch(&update, params, body))
                };
                let (mut first, mut second) = (rename(&one), rename(&two));
                assert!(futures_util::poll!(&mut first).is_pending());
                assert!(futures_util::poll!(&mut second).is_pending());
                // The page goes before the network is back.
                drop(link);
                drop((first, second));
            }
            // The app changed its params since: the first no longer reads.
            let mut saved: serde_json::Value =
                serde_json::from_str(&storage.load("todos").unwrap()).unwrap();
            assert_eq!(saved["mutations"].as_array().unwrap().len(), 2);
            saved["mutations"][0]["params"] = json!({ "id": "one" });
            storage.save("todos", &saved.to_string()).unwrap();

            let reloaded = Controller::new(Client::new(api.url()));
            let link = reloaded.persist(&saving);
            assert_eq!(link.restored().mutations, 1);
            assert_eq!(link.restored().dropped_mutations, 1);
            crate::common::until(|| api.hits("PATCH /todos/2") == 1).await;
            assert_eq!(api.hits("PATCH /todos/1"), 0);
        })
        .await;
}

/// A storage with a quota: it refuses a text longer than `limit` bytes,
/// as a browser's full storage does.
#[derive(Clone)]
struct Quota {
    inner: MemoryStorage,
    limit: Rc<std::cell::Cell<usize>>,
}

impl CacheStorage for Quota {
    fn load(&self, name: &str) -> Option<String> {
        self.inner.load(name)
    }

    fn save(&self, name: &str, text: &str) -> Result<(), String> {
        match text.len() <= self.limit.get() {
            true => self.inner.save(name, text),
            false => Err("QuotaExceededError".into()),
        }
    }

    fn remove(&self, name: &str) {
        self.inner.remove(name);
    }
}

#[tokio::test]
async fn a_mutation_answered_while_the_storage_is_full_is_not_sent_again_after_a_reload() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let quota = Quota {
                inner: MemoryStorage::new(),
                limit: Rc::new(std::cell::Cell::new(usize::MAX)),
            };
            let update = TodoResource::partial_update();
            let saving = restcache::persist::Persist::new("todos")
                .version(1)
                .entity::<Todo>()
                .to(quota.clone())
                .throttle(std::time::Duration::ZERO)
                .mutation(&update);
            let one = TodoResourceParams { id: 1 };
            {
                let ctrl = Controller::new(Client::new(api.url()));
                let link = ctrl.persist(&saving);
                ctrl.fetch(&TodoResource::get_list(), &(), None)
                    .await
                    .unwrap();
                ctrl.set_online(false);
                let body = Some(Body::json(&json!({ "title": "tea" })).unwrap());
                let renamed = Rc::new(Todo {
                    title: "tea".into(),
                    ..crate::common::todo(1, "")
                });
                let mut renaming = Box::pin(ctrl.fetch_optimistic(&update, &one, body, renamed));
                assert!(futures_util::poll!(&mut renaming).is_pending());
                assert_eq!(ctrl.queued_mutations(), 1);
                // The storage fills up: the cache no longer fits, the
                // queue alone does.
                quota.limit.set(1_000);
                ctrl.set_online(true);
                renaming.await.unwrap();
                assert_eq!(ctrl.queued_mutations(), 0);
                drop(link);
            }
            assert_eq!(api.hits("PATCH /todos/1"), 1);
            let reloaded = Controller::new(Client::new(api.url()));
            reloaded.set_online(false);
            let link = reloaded.persist(&saving);
            assert_eq!(
                link.restored().mutations,
                0,
                "answered before the reload: the saved queue says so"
            );
        })
        .await;
}

#[tokio::test]
async fn a_new_schema_version_still_sends_the_mutations_saved_before_it() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let update = TodoResource::partial_update();
            let one = TodoResourceParams { id: 1 };
            {
                let ctrl = Controller::new(Client::new(api.url()));
                let link = ctrl.persist(&persist(&storage).mutation(&update));
                ctrl.fetch(&TodoResource::get_list(), &(), None)
                    .await
                    .unwrap();
                ctrl.set_online(false);
                let body = Some(Body::json(&json!({ "title": "made offline" })).unwrap());
                let optimistic = Rc::new(Todo {
                    title: "made offline".into(),
                    ..crate::common::todo(1, "")
                });
                let mut rename = Box::pin(ctrl.fetch_optimistic(&update, &one, body, optimistic));
                assert!(futures_util::poll!(&mut rename).is_pending());
                // The page goes before the network is back; the app is
                // deployed again, with a new schema version, meanwhile.
                drop(link);
                drop(rename);
            }
            // An optimistic value the new version can no longer read.
            let mut saved: serde_json::Value =
                serde_json::from_str(&storage.load("todos").unwrap()).unwrap();
            saved["mutations"][0]["optimistic"] = json!({ "id": 1, "title": 7 });
            storage.save("todos", &saved.to_string()).unwrap();

            let reloaded = Controller::new(Client::new(api.url()));
            let link = reloaded.persist(&persist(&storage).version(2).mutation(&update));
            assert!(link.restored().discarded, "the records and responses go");
            assert_eq!(link.restored().records, 0);
            assert_eq!(
                (link.restored().mutations, link.restored().dropped_mutations),
                (1, 0),
                "the user's own change is kept, its optimistic value left out"
            );
            assert!(
                storage.load("todos").unwrap().contains("made offline"),
                "saved again under the new version, before it is sent"
            );
            crate::common::until(|| api.hits("PATCH /todos/1") == 1).await;
            assert_eq!(api.records("todos")[0]["title"], "made offline");
        })
        .await;
}

/// Renames todo `id` through `ctrl` while offline: the call, pending.
fn rename_offline<'c>(
    ctrl: &'c Controller,
    update: &'c Endpoint<TodoResourceParams, Rc<Todo>, restcache::rest::Mutate>,
    id: u64,
    title: &str,
) -> std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Rc<Todo>, restcache::http::Error>> + 'c>,
> {
    let body = Some(Body::json(&json!({ "title": title })).unwrap());
    Box::pin(async move { ctrl.fetch(update, &TodoResourceParams { id }, body).await })
}

#[tokio::test]
async fn two_tabs_offline_keep_both_queues_and_the_next_load_sends_each_once() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let update = TodoResource::partial_update();
            let saving = persist(&storage).mutation(&update);
            let (one, two) = (
                Controller::new(Client::new(api.url())),
                Controller::new(Client::new(api.url())),
            );
            let (link_one, link_two) = (one.persist(&saving), two.persist(&saving));
            one.set_online(false);
            two.set_online(false);
            let mut first = rename_offline(&one, &update, 1, "from tab one");
            let mut second = rename_offline(&two, &update, 2, "from tab two");
            assert!(futures_util::poll!(&mut first).is_pending());
            assert!(futures_util::poll!(&mut second).is_pending());
            let saved = storage.load("todos").unwrap();
            assert!(
                saved.contains("from tab one") && saved.contains("from tab two"),
                "one save holds both tabs' queues: {saved}"
            );
            // A third tab opened meanwhile sends neither: their tabs hold them.
            let third = Controller::new(Client::new(api.url()));
            third.set_online(false);
            assert_eq!(third.persist(&saving).restored().mutations, 0);

            // Both tabs close before the network is back.
            drop((link_one, link_two));
            drop((first, second));
            let next = Controller::new(Client::new(api.url()));
            let link = next.persist(&saving);
            assert_eq!(link.restored().mutations, 2, "each tab's change, once");
            let after = Controller::new(Client::new(api.url()));
            after.set_online(false);
            assert_eq!(
                after.persist(&saving).restored().mutations,
                0,
                "the load that took them holds them now"
            );
            crate::common::until(|| {
                api.hits("PATCH /todos/1") == 1 && api.hits("PATCH /todos/2") == 1
            })
            .await;
            drop(link);
        })
        .await;
}

#[tokio::test]
async fn a_crashed_tabs_queue_is_sent_once_its_lease_runs_out() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let update = TodoResource::partial_update();
            let saving = persist(&storage).mutation(&update);
            let clock = restcache::ManualClock::at(restcache::Timestamp::from_millis(1_000_000));
            let tab = |clock: &restcache::ManualClock| {
                Controller::builder(Client::new(api.url()))
                    .clock(clock.clone())
                    .build()
            };
            let crashed = tab(&clock);
            let link = crashed.persist(&saving);
            crashed.set_online(false);
            let mut rename = rename_offline(&crashed, &update, 1, "before the crash");
            assert!(futures_util::poll!(&mut rename).is_pending());
            // The tab dies without a word: its lease is never let go.
            std::mem::forget(link);
            std::mem::forget(rename);

            let soon = tab(&clock);
            soon.set_online(false);
            assert_eq!(
                soon.persist(&saving).restored().mutations,
                0,
                "maybe still alive"
            );
            clock.advance(std::time::Duration::from_secs(6 * 60));
            let later = tab(&clock);
            let link = later.persist(&saving);
            assert_eq!(link.restored().mutations, 1, "its lease ran out");
            crate::common::until(|| api.hits("PATCH /todos/1") == 1).await;
            drop(link);
        })
        .await;
}

#[tokio::test]
async fn a_link_that_goes_while_another_of_its_cache_lives_keeps_the_queue_held() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let update = TodoResource::partial_update();
            let saving = persist(&storage).mutation(&update);
            let tab = Controller::new(Client::new(api.url()));
            let first = tab.persist(&saving);
            tab.set_online(false);
            let mut rename = rename_offline(&tab, &update, 1, "still held");
            assert!(futures_util::poll!(&mut rename).is_pending());
            // Its component mounts again: the new link comes, the old goes.
            let second = tab.persist(&saving);
            drop(first);
            let other = Controller::new(Client::new(api.url()));
            other.set_online(false);
            assert_eq!(
                other.persist(&saving).restored().mutations,
                0,
                "the tab still holds its queue"
            );
            drop(second);
            drop(rename);
        })
        .await;
}

#[tokio::test]
async fn a_saved_mutation_the_server_refuses_after_a_reload_is_told_to_the_app() {
    LocalSet::new()
        .run_until(async {
            use std::cell::RefCell;
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let update = TodoResource::partial_update();
            let refused = Rc::new(RefCell::new(Vec::new()));
            let told = Rc::clone(&refused);
            let saving = persist(&storage)
                .throttle(std::time::Duration::ZERO)
                .mutation(&update)
                .on_replay_failure(move |error| {
                    told.borrow_mut()
                        .push((error.method().as_str().to_owned(), error.status()));
                });
            {
                let ctrl = Controller::new(Client::new(api.url()));
                let link = ctrl.persist(&saving);
                let mut rename = rename_offline(&ctrl, &update, 1, "offline");
                ctrl.set_online(false);
                assert!(futures_util::poll!(&mut rename).is_pending());
                // The page goes before the network is back.
                drop(link);
                drop(rename);
            }
            // The next load sends it; the server refuses it.
            api.set_outage(true);
            let reloaded = Controller::new(Client::new(api.url()));
            let link = reloaded.persist(&saving);
            assert_eq!(link.restored().mutations, 1);
            for _ in 0..500 {
                if !refused.borrow().is_empty() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
            assert_eq!(*refused.borrow(), [("PATCH".to_owned(), Some(503))]);
            api.set_outage(false);
        })
        .await;
}
