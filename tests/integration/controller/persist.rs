//! A cache that survives a reload, natively: a controller saves, a new
//! one (the next load) takes it back and reads with no request; another schema
//! version discards the saved cache, a record or response that no longer
//! fits is dropped alone; a reset forgets it; the size limit holds; a
//! file survives a crash mid-write. Saves run on the controller's
//! spawner: each test runs in a `LocalSet`.

use std::rc::Rc;

use restcache::persist::{CacheStorage, FileStorage, MemoryStorage, Persist, PersistLink};
use restcache::prelude::*;
use restcache::{ExpiryStatus, ManualClock, Timestamp};
use restcache_demo::DemoApi;
use serde_json::json;
use tokio::task::LocalSet;

use crate::common::{Todo, TodoResource, TodoResourceParams};

/// A storage a controller saved todo 1 ("milk") into.
fn saved_with_one_todo() -> MemoryStorage {
    let storage = MemoryStorage::new();
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    let link = ctrl.persist(&persist(&storage));
    ctrl.set_entity(crate::common::todo(1, "milk"), ctrl.write_time())
        .unwrap();
    drop(link);
    storage
}

pub(super) fn persist(storage: &MemoryStorage) -> Persist {
    Persist::new("todos")
        .version(1)
        .entity::<Todo>()
        .to(storage.clone())
}

/// A page load: a controller on `api` that saves to `storage`, and its link.
fn page_load(api: &DemoApi, storage: &MemoryStorage) -> (Controller, PersistLink) {
    let ctrl = Controller::new(Client::new(api.url()));
    let link = ctrl.persist(&persist(storage));
    (ctrl, link)
}

/// A page load that fetches the todo list, then goes.
async fn list_saved(api: &DemoApi, storage: &MemoryStorage) {
    let (ctrl, _link) = page_load(api, storage);
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_reload_shows_the_saved_data_with_no_request_mutations_included() {
    LocalSet::new()
        .run_until(a_reload_shows_the_saved_data_with_no_request_mutations_included_here())
        .await;
}

async fn a_reload_shows_the_saved_data_with_no_request_mutations_included_here() {
    let api = DemoApi::start().unwrap();
    let storage = MemoryStorage::new();
    {
        let (ctrl, _link) = page_load(&api, &storage);
        ctrl.fetch(&TodoResource::get_list(), &(), None)
            .await
            .unwrap();
        let body = Body::json(&json!({"title": "changed before the reload"})).unwrap();
        ctrl.fetch(
            &TodoResource::partial_update(),
            &TodoResourceParams { id: 1 },
            Some(body),
        )
        .await
        .unwrap();
    } // the page goes away: the link saves

    let (reloaded, link) = page_load(&api, &storage);
    assert_eq!(link.restored().records, 5);
    assert_eq!(link.restored().responses, 1);
    let cached = reloaded.read(&TodoResource::get_list(), &());
    assert_eq!(cached.status, ExpiryStatus::Valid);
    let list = cached.data.unwrap();
    assert_eq!(list[0].title, "changed before the reload");
    assert_eq!(list.len(), 5);
    assert_eq!(api.hits("GET /todos"), 1, "no request after the reload");
}

#[tokio::test]
async fn saved_data_past_its_expiry_shows_stale_and_a_changed_list_refetches() {
    LocalSet::new()
        .run_until(saved_data_past_its_expiry_shows_stale_and_a_changed_list_refetches_here())
        .await;
}

async fn saved_data_past_its_expiry_shows_stale_and_a_changed_list_refetches_here() {
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    let storage = MemoryStorage::new();
    let build = || {
        Controller::builder(Client::new("http://127.0.0.1:9"))
            .clock(clock.clone())
            .build()
    };
    {
        let ctrl = build();
        let _link = ctrl.persist(&persist(&storage));
        let todos = vec![Rc::new(crate::common::todo(1, "milk"))];
        ctrl.set_response(&TodoResource::get_list(), &(), todos)
            .unwrap();
        let one = TodoResourceParams { id: 1 };
        ctrl.set_response(
            &TodoResource::get(),
            &one,
            Rc::new(crate::common::todo(1, "milk")),
        )
        .unwrap();
    }
    // Set by hand: no response to save, only the records.
    let reloaded = build();
    let link = reloaded.persist(&persist(&storage));
    assert_eq!(link.restored().records, 1);
    assert_eq!(link.restored().responses, 0);
    drop(link);

    // Responses come from requests: save one, then move past its expiry.
    let api = DemoApi::start().unwrap();
    let storage = MemoryStorage::new();
    let build = || {
        Controller::builder(Client::new(api.url()))
            .clock(clock.clone())
            .build()
    };
    {
        let ctrl = build();
        let _link = ctrl.persist(&persist(&storage));
        ctrl.fetch(&TodoResource::get_list(), &(), None)
            .await
            .unwrap();
        // A record leaves the list after its response: saved as changed.
        ctrl.fetch(&TodoResource::delete(), &TodoResourceParams { id: 5 }, None)
            .await
            .unwrap();
    }
    let reloaded = build();
    let _link = reloaded.persist(&persist(&storage));
    let cached = reloaded.read(&TodoResource::get_list(), &());
    assert_eq!(
        cached.status,
        ExpiryStatus::Stale,
        "changed after its response"
    );
    assert!(cached.data.is_some(), "shown meanwhile");

    clock.advance(std::time::Duration::from_secs(120));
    let later = build();
    let _link = later.persist(&persist(&storage));
    assert_eq!(
        later.read(&TodoResource::get_list(), &()).status,
        ExpiryStatus::Stale,
        "past its expiry: shown, and refetched"
    );
    assert_eq!(
        later
            .read(&TodoResource::get(), &TodoResourceParams { id: 1 })
            .status,
        ExpiryStatus::Stale,
        "a detail answered from the saved record is no fresher"
    );
}

#[tokio::test]
async fn another_schema_version_discards_the_saved_cache() {
    LocalSet::new()
        .run_until(another_schema_version_discards_the_saved_cache_here())
        .await;
}

async fn another_schema_version_discards_the_saved_cache_here() {
    let storage = saved_with_one_todo();
    assert!(storage.load("todos").is_some());

    let reloaded = Controller::new(Client::new("http://127.0.0.1:9"));
    let link = reloaded.persist(&persist(&storage).version(2));
    assert!(link.restored().discarded);
    assert_eq!(link.restored().records, 0);
    assert!(storage.load("todos").is_none(), "forgotten");
    assert!(
        reloaded
            .with_store(|store| store.get_entity::<Todo>(1u64).value().cloned())
            .is_none()
    );
}

/// Todo as a later version of the app reads it: a field it must have.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[entity(key = "Todo")]
struct TodoWithPriority {
    id: u64,
    title: String,
    priority: u8,
}

#[tokio::test]
async fn a_record_that_no_longer_fits_is_dropped_alone() {
    LocalSet::new()
        .run_until(a_record_that_no_longer_fits_is_dropped_alone_here())
        .await;
}

async fn a_record_that_no_longer_fits_is_dropped_alone_here() {
    let storage = saved_with_one_todo();
    // Records of the new shape saved beside the old one.
    let saved: serde_json::Value = serde_json::from_str(&storage.load("todos").unwrap()).unwrap();
    let mut saved = saved;
    saved["records"].as_array_mut().unwrap().push(json!({
        "entity": "Todo", "pk": "2", "at": Timestamp::now().as_micros(),
        "data": {"id": 2, "title": "tea", "priority": 3},
    }));
    storage.save("todos", &saved.to_string()).unwrap();

    let reloaded = Controller::new(Client::new("http://127.0.0.1:9"));
    let link = reloaded.persist(
        &Persist::new("todos")
            .version(1)
            .entity::<TodoWithPriority>()
            .to(storage.clone()),
    );
    assert_eq!(link.restored().records, 1);
    assert_eq!(link.restored().dropped_records, 1);
    let kept =
        reloaded.with_store(|store| store.get_entity::<TodoWithPriority>(2u64).value().cloned());
    assert_eq!(kept.unwrap().priority, 3);
}

#[tokio::test]
async fn a_reset_forgets_the_saved_cache_and_the_size_limit_holds() {
    LocalSet::new()
        .run_until(a_reset_forgets_the_saved_cache_and_the_size_limit_holds_here())
        .await;
}

async fn a_reset_forgets_the_saved_cache_and_the_size_limit_holds_here() {
    let storage = MemoryStorage::new();
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    let link = ctrl.persist(&persist(&storage).max_bytes(2_000));
    for id in 1..=100 {
        ctrl.set_entity(
            crate::common::todo(id, "a todo of some length"),
            ctrl.write_time(),
        )
        .unwrap();
    }
    link.save_now();
    let text = storage.load("todos").unwrap();
    assert!(text.len() <= 2_000, "{} bytes", text.len());
    let saved: serde_json::Value = serde_json::from_str(&text).unwrap();
    let records = saved["records"].as_array().unwrap();
    assert!(!records.is_empty());
    assert_eq!(records.last().unwrap()["pk"], "100", "the newest kept");

    ctrl.reset(); // a log-out
    assert!(storage.load("todos").is_none());
    drop(link);
    assert!(storage.load("todos").is_none(), "nothing left to save");
}

#[tokio::test]
async fn a_file_keeps_the_cache_across_runs_and_a_crash_mid_write_leaves_it_whole() {
    LocalSet::new()
        .run_until(a_file_keeps_the_cache_across_runs_and_a_crash_mid_write_leaves_it_whole_here())
        .await;
}

async fn a_file_keeps_the_cache_across_runs_and_a_crash_mid_write_leaves_it_whole_here() {
    let dir = std::env::temp_dir().join(format!("restcache-persist-{}", std::process::id()));
    let storage = FileStorage::new(&dir);
    let persist = Persist::new("cli").entity::<Todo>().to(storage.clone());
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    let link = ctrl.persist(&persist);
    ctrl.set_entity(crate::common::todo(1, "milk"), ctrl.write_time())
        .unwrap();
    drop(link);
    // A crash while writing the next save leaves a partial file beside
    // the last whole one.
    std::fs::write(
        dir.join("restcache-cli.1-0.partial"),
        "{\"restcache_saved\": 1, \"vers",
    )
    .unwrap();

    let next_run = Controller::new(Client::new("http://127.0.0.1:9"));
    let link = next_run.persist(&persist);
    assert_eq!(link.restored().records, 1);
    let todo = next_run.with_store(|store| store.get_entity::<Todo>(1u64).value().cloned());
    assert_eq!(todo.unwrap().title, "milk");
    drop(link);
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn a_response_holding_a_record_gone_since_comes_back_stale() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            {
                let (ctrl, _link) = page_load(&api, &storage);
                ctrl.fetch(&TodoResource::get(), &TodoResourceParams { id: 5 }, None)
                    .await
                    .unwrap();
                // Deleted from outside a request (a stream, another tab).
                ctrl.delete_entity::<Todo>(5u64, ctrl.write_time());
            }
            let (reloaded, _link) = page_load(&api, &storage);
            let cached = reloaded.read(&TodoResource::get(), &TodoResourceParams { id: 5 });
            assert_ne!(cached.status, ExpiryStatus::Valid, "never shown as fresh");
        })
        .await;
}

#[tokio::test]
async fn a_record_deleted_after_a_reload_stays_gone_after_the_next() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            list_saved(&api, &storage).await;
            {
                // The list's page is not shown this time; todo 5 is
                // deleted (by a stream, another tab).
                let (ctrl, _link) = page_load(&api, &storage);
                ctrl.delete_entity::<Todo>(5u64, ctrl.write_time());
            }
            let (ctrl, _link) = page_load(&api, &storage);
            let list = ctrl.read(&TodoResource::get_list(), &());
            let ids: Vec<u64> = list.data.unwrap().iter().map(|todo| todo.id).collect();
            assert!(!ids.contains(&5), "{ids:?}");
            assert_eq!(api.hits("GET /todos"), 1);
        })
        .await;
}

/// A page load on `clock`: a controller on `api` that saves to
/// `storage`, and its link.
fn page_load_at(
    api: &DemoApi,
    storage: &MemoryStorage,
    clock: &ManualClock,
) -> (Controller, PersistLink) {
    let ctrl = Controller::builder(Client::new(api.url()))
        .clock(clock.clone())
        .build();
    let link = ctrl.persist(&persist(storage));
    (ctrl, link)
}

#[tokio::test]
async fn what_a_reload_restores_outlives_the_first_collection() {
    // Restored records and deletion marks stay while a restored response
    // that may meet them waits to be read.
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
            {
                let (ctrl, _link) = page_load_at(&api, &storage, &clock);
                ctrl.fetch(&TodoResource::get_list(), &(), None)
                    .await
                    .unwrap();
            }
            clock.advance(std::time::Duration::from_secs(1));
            {
                // The list is not shown this time; todo 5 is deleted (by a
                // stream, another tab), and todo 1 renamed.
                let (ctrl, _link) = page_load_at(&api, &storage, &clock);
                ctrl.delete_entity::<Todo>(5u64, ctrl.write_time());
                ctrl.set_entity(crate::common::todo(1, "oat milk"), ctrl.write_time())
                    .unwrap();
            }
            // Past how long a deletion's marker waits for a late answer,
            // and how long a record nothing holds is kept.
            clock.advance(std::time::Duration::from_secs(180));
            let (ctrl, _link) = page_load_at(&api, &storage, &clock);
            let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
            let ids: Vec<u64> = list.iter().map(|todo| todo.id).collect();
            assert!(!ids.contains(&5), "{ids:?}");
            assert_eq!(list[0].title, "oat milk", "the newer copy");
            assert_eq!(api.hits("GET /todos"), 1);
        })
        .await;
}

#[tokio::test]
async fn a_restored_response_never_read_goes_as_an_unused_result_does() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
            {
                let (ctrl, _link) = page_load_at(&api, &storage, &clock);
                ctrl.fetch(&TodoResource::get_list(), &(), None)
                    .await
                    .unwrap();
            }
            let (ctrl, link) = page_load_at(&api, &storage, &clock);
            assert_eq!(link.restored().responses, 1);
            clock.advance(std::time::Duration::from_secs(180)); // never read
            ctrl.collect_garbage();
            assert!(ctrl.read(&TodoResource::get_list(), &()).data.is_none());
            // The next save writes what the cache still holds.
            ctrl.set_entity(crate::common::todo(9, "tea"), ctrl.write_time())
                .unwrap();
            drop((ctrl, link));
            let (_ctrl, link) = page_load_at(&api, &storage, &clock);
            assert_eq!(link.restored().responses, 0, "nor saved again");
        })
        .await;
}

#[tokio::test]
async fn a_restored_response_older_than_what_the_read_holds_is_not_saved_as_it() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            // A read whose value is no record: its answer is all there is.
            endpoint!(raw_todo { path: "/todos/:id\\?raw=1", schema: serde_json::Value, params: { id: u64 } });
            let one = RawTodoParams { id: 1 };
            {
                let (ctrl, _link) = page_load(&api, &storage);
                ctrl.fetch(&raw_todo(), &one, None).await.unwrap();
            }
            {
                // Written before the restored answer is read: it wins.
                let (ctrl, _link) = page_load(&api, &storage);
                ctrl.set_response(&raw_todo(), &one, json!({"title": "newer"}))
                    .unwrap();
                let shown = ctrl.read(&raw_todo(), &one).data.unwrap();
                assert_eq!(shown["title"], "newer");
            }
            let (ctrl, _link) = page_load(&api, &storage);
            let shown = ctrl.read(&raw_todo(), &one);
            assert_ne!(
                (shown.data.map(|value| value["title"].clone()), shown.status),
                (Some(json!("delectus aut autem")), ExpiryStatus::Valid),
                "not the older answer, saved as new"
            );
        })
        .await;
}

#[tokio::test]
async fn a_read_expired_by_hand_comes_back_stale() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            {
                let (ctrl, _link) = page_load(&api, &storage);
                ctrl.fetch(&TodoResource::get_list(), &(), None)
                    .await
                    .unwrap();
                // As a stream that reconnects expires what it may have missed.
                assert_eq!(ctrl.expire_all(|_| true), 1);
            }
            let (reloaded, _link) = page_load(&api, &storage);
            let cached = reloaded.read(&TodoResource::get_list(), &());
            assert!(cached.data.is_some(), "on show");
            assert_eq!(cached.status, ExpiryStatus::Stale, "and refetched");
        })
        .await;
}

#[tokio::test]
async fn a_restored_read_invalidated_or_expired_before_its_first_read_is_not_fresh() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            list_saved(&api, &storage).await;
            let list = TodoResource::get_list();
            let reloaded = || page_load(&api, &storage);
            // Expired (a stream reconnected) before any view read it.
            let (ctrl, _link) = reloaded();
            assert_eq!(ctrl.expire_all(|_| true), 1);
            let cached = ctrl.read(&list, &());
            assert_eq!(
                (cached.data.is_some(), cached.status),
                (true, ExpiryStatus::Stale)
            );
            drop((ctrl, _link));
            // Invalidated (another tab changed it) before any view read it.
            let (ctrl, link) = reloaded();
            assert!(ctrl.invalidate(&list, &()));
            assert_eq!(ctrl.read(&list, &()).status, ExpiryStatus::Invalid);
            drop(link);
            // And it stays so across the next reload.
            let (ctrl, _link) = reloaded();
            assert_ne!(ctrl.read(&list, &()).status, ExpiryStatus::Valid);
            assert_eq!(api.hits("GET /todos"), 1);
        })
        .await;
}

#[tokio::test]
async fn a_server_renders_handoff_wins_over_an_older_save() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            list_saved(&api, &storage).await;
            Client::new(api.url())
                .request(
                    restcache::http::Method::Patch,
                    "/todos/1",
                    Some(Body::json(&json!({"title": "rendered by the server"})).unwrap()),
                )
                .await
                .unwrap();
            let server = Controller::new(Client::new(api.url()));
            server.record_for_handoff();
            server
                .fetch(&TodoResource::get_list(), &(), None)
                .await
                .unwrap();
            let handoff = server.export_handoff();

            let page = Controller::new(Client::new(api.url()));
            page.import_handoff(&handoff).unwrap();
            let _link = page.persist(&persist(&storage));
            let list = page.read(&TodoResource::get_list(), &()).data.unwrap();
            assert_eq!(list[0].title, "rendered by the server");
        })
        .await;
}

#[tokio::test]
async fn a_private_read_leaves_its_records_and_every_response_holding_them_unsaved() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let private = TodoResource::get().private();
            {
                let (ctrl, _link) = page_load(&api, &storage);
                ctrl.fetch(&TodoResource::get_list(), &(), None)
                    .await
                    .unwrap();
                ctrl.fetch(&private, &TodoResourceParams { id: 1 }, None)
                    .await
                    .unwrap();
                ctrl.fetch(&TodoResource::get(), &TodoResourceParams { id: 2 }, None)
                    .await
                    .unwrap();
            }
            let saved = storage.load("todos").unwrap();
            assert!(!saved.contains("delectus aut autem"), "{saved}");
            assert!(saved.contains("quis ut nam facilis"), "{saved}");

            let (reloaded, link) = page_load(&api, &storage);
            // Todos 2 to 5, and the public read of todo 2; the list held
            // todo 1, so it is not saved either.
            assert_eq!(link.restored().records, 4);
            assert_eq!(link.restored().responses, 1);
            let two = reloaded.read(&TodoResource::get(), &TodoResourceParams { id: 2 });
            assert_eq!(two.status, ExpiryStatus::Valid);
            let one = reloaded.read(&private, &TodoResourceParams { id: 1 });
            assert_eq!(one.status, ExpiryStatus::Invalid);
            let list = reloaded.read(&TodoResource::get_list(), &());
            assert_eq!(list.status, ExpiryStatus::Invalid);
            assert_eq!(api.hits("GET /todos"), 1);
            assert_eq!(api.hits("GET /todos/1"), 1);
        })
        .await;
}

#[tokio::test]
async fn a_private_answer_stays_unsaved_after_its_read_is_invalidated() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = MemoryStorage::new();
            let (ctrl, link) = page_load(&api, &storage);
            ctrl.fetch(
                &TodoResource::get().private(),
                &TodoResourceParams { id: 1 },
                None,
            )
            .await
            .unwrap();
            ctrl.fetch(&TodoResource::get_list(), &(), None)
                .await
                .unwrap();
            // The private read goes; the list still holds todo 1.
            ctrl.invalidate(
                &TodoResource::get().private(),
                &TodoResourceParams { id: 1 },
            );
            link.save_now();
            let saved = storage.load("todos").unwrap();
            assert!(!saved.contains("delectus aut autem"), "{saved}");
            assert!(saved.contains("quis ut nam facilis"), "{saved}");
        })
        .await;
}

/// Storage whose saves fail while `full` is set (a browser's quota).
#[derive(Clone, Default)]
struct FullStorage {
    saved: MemoryStorage,
    full: Rc<std::cell::Cell<bool>>,
}

impl CacheStorage for FullStorage {
    fn load(&self, name: &str) -> Option<String> {
        self.saved.load(name)
    }

    fn save(&self, name: &str, text: &str) -> Result<(), String> {
        match self.full.get() {
            true => Err("QuotaExceededError".into()),
            false => self.saved.save(name, text),
        }
    }

    fn remove(&self, name: &str) {
        self.saved.remove(name)
    }
}

#[tokio::test]
async fn a_save_the_storage_refuses_is_reported_and_made_again() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let storage = FullStorage::default();
            storage.full.set(true);
            let ctrl = Controller::new(Client::new(api.url()));
            let link = ctrl.persist(&Persist::new("todos").to(storage.clone()));
            ctrl.fetch(&TodoResource::get_list(), &(), None)
                .await
                .unwrap();
            assert_eq!(link.last_error().as_deref(), Some("QuotaExceededError"));
            assert!(storage.load("todos").is_none());

            // Room again: what the refused save held goes with the next.
            storage.full.set(false);
            drop(link);
            let saved = storage.load("todos").expect("saved as the link goes");
            assert!(saved.contains("delectus aut autem"), "{saved}");
        })
        .await;
}
