//! Garbage collection and a memory bound: what nothing uses goes once it
//! has been unused for longer than its expiry allows, the bounds evict the
//! least recently used unreferenced results first, and an invalidated
//! result's values are freed at once.

use std::rc::{Rc, Weak};
use std::time::Duration;

use restcache::http::Client;
use restcache::prelude::*;
use restcache::rest::Options;
use restcache::{Collected, Retention};

use crate::common::heap::held_bytes;
use crate::common::{Todo, TodoResource, TodoResourceParams};

fn controller(retention: Retention) -> (Controller, ManualClock) {
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    let ctrl = Controller::builder(Client::new("http://127.0.0.1:9"))
        .clock(clock.clone())
        .data_expiry(Duration::from_secs(10))
        .retention(retention)
        .build();
    (ctrl, clock)
}

fn store_todo(ctrl: &Controller, id: u64) -> Rc<Todo> {
    let todo = Todo {
        id,
        title: format!("todo {id}"),
        ..Todo::default()
    };
    let params = TodoResourceParams { id };
    ctrl.set_response(&TodoResource::get(), &params, Rc::new(todo))
        .unwrap()
}

fn counts(ctrl: &Controller) -> (usize, usize) {
    ctrl.with_store(|store| (store.result_count(), store.entity_count("Todo")))
}

#[test]
fn what_nothing_uses_goes_once_unused_for_longer_than_its_expiry_allows() {
    let (ctrl, clock) = controller(Retention::default());
    for id in 0..100 {
        store_todo(&ctrl, id);
    }
    let held: Vec<_> = (0..10)
        .map(|id| ctrl.subscribe(&TodoResource::get(), &TodoResourceParams { id }, || {}))
        .collect();

    clock.advance(Duration::from_secs(119));
    assert_eq!(
        ctrl.collect_garbage(),
        Collected::default(),
        "kept for 2 minutes"
    );
    assert_eq!(counts(&ctrl), (100, 100));

    clock.advance(Duration::from_secs(30));
    store_todo(&ctrl, 1000); // a write sweeps when a sweep is due
    assert_eq!(counts(&ctrl), (11, 11), "the held ten and the new one stay");
    for id in 0..10 {
        let params = TodoResourceParams { id };
        assert!(ctrl.read(&TodoResource::get(), &params).data.is_some());
    }
    drop(held);
}

#[test]
fn a_long_expiry_keeps_an_unused_result_for_twice_that_long() {
    let (ctrl, clock) = controller(Retention::default());
    let params = TodoResourceParams { id: 1 };
    let hourly = TodoResource::get().with_options(Options {
        data_expiry: Some(Duration::from_secs(3600)),
        ..Options::default()
    });
    let todo = Todo {
        id: 1,
        ..Todo::default()
    };
    ctrl.set_response(&hourly, &params, Rc::new(todo)).unwrap();
    clock.advance(Duration::from_secs(3 * 60));
    ctrl.collect_garbage();
    assert_eq!(counts(&ctrl), (1, 1), "two hours, not two minutes");
    clock.advance(Duration::from_secs(2 * 3600));
    assert_eq!(
        ctrl.collect_garbage(),
        Collected {
            results: 1,
            records: 1
        }
    );
    assert_eq!(counts(&ctrl), (0, 0));
}

#[test]
fn reading_a_result_counts_as_using_it() {
    let (ctrl, clock) = controller(Retention::default());
    store_todo(&ctrl, 1);
    store_todo(&ctrl, 2);
    for _ in 0..3 {
        clock.advance(Duration::from_secs(100));
        ctrl.read(&TodoResource::get(), &TodoResourceParams { id: 1 });
        ctrl.collect_garbage();
    }
    let params = TodoResourceParams { id: 1 };
    assert!(
        ctrl.read(&TodoResource::get(), &params).data.is_some(),
        "read every 100 s"
    );
    let params = TodoResourceParams { id: 2 };
    assert!(
        ctrl.read(&TodoResource::get(), &params).data.is_none(),
        "never read"
    );
}

#[test]
fn a_result_bound_evicts_the_least_recently_used_unreferenced_first() {
    let bound = Retention {
        max_results: Some(50),
        ..Retention::default()
    };
    let (ctrl, clock) = controller(bound);
    let _held = ctrl.subscribe(&TodoResource::get(), &TodoResourceParams { id: 0 }, || {});
    for id in 0..200 {
        clock.advance(Duration::from_millis(10));
        store_todo(&ctrl, id);
        assert!(counts(&ctrl).0 <= 50, "never above the bound");
    }
    let (results, records) = counts(&ctrl);
    assert!(
        results >= 40,
        "evicts down to 90% of the bound, then refills: {results}"
    );
    assert_eq!(results, records, "each record goes with its result");
    let present = |id| {
        let params = TodoResourceParams { id };
        ctrl.read(&TodoResource::get(), &params).data.is_some()
    };
    assert!(present(0), "the referenced one stays");
    assert!(present(199) && present(198), "the most recent stay");
    assert!(!present(1) && !present(100), "the least recently used went");
}

#[test]
fn an_entity_bound_evicts_the_results_that_hold_the_oldest_records() {
    let bound = Retention {
        max_entities: Some(30),
        ..Retention::default()
    };
    let (ctrl, clock) = controller(bound);
    for id in 0..100 {
        clock.advance(Duration::from_millis(10));
        store_todo(&ctrl, id);
        assert!(counts(&ctrl).1 <= 30, "never above the bound");
    }
    let params = TodoResourceParams { id: 99 };
    assert!(ctrl.read(&TodoResource::get(), &params).data.is_some());
}

#[test]
fn an_invalidated_result_frees_its_values_at_once() {
    let (ctrl, _clock) = controller(Retention::default());
    let list: Vec<Rc<Todo>> = (0..3)
        .map(|id| {
            Rc::new(Todo {
                id,
                ..Todo::default()
            })
        })
        .collect();
    ctrl.set_response(&TodoResource::get_list(), &(), list)
        .unwrap();
    let read = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    let weak: Weak<Vec<Rc<Todo>>> = Rc::downgrade(&read);
    drop(read);
    assert!(
        weak.upgrade().is_some(),
        "the cache holds the list it handed out"
    );
    ctrl.invalidate(&TodoResource::get_list(), &());
    assert!(weak.upgrade().is_none(), "freed when invalidated");
}

#[test]
fn collected_values_are_freed_with_their_records() {
    let (ctrl, clock) = controller(Retention::default());
    let stored = store_todo(&ctrl, 7);
    let read = ctrl.read(&TodoResource::get(), &TodoResourceParams { id: 7 });
    let weak = Rc::downgrade(&read.data.unwrap());
    drop(stored);
    clock.advance(Duration::from_secs(121));
    assert_eq!(
        ctrl.collect_garbage(),
        Collected {
            results: 1,
            records: 1
        }
    );
    assert!(
        weak.upgrade().is_none(),
        "no copy left in the store or the memo"
    );
}

#[test]
fn an_entity_subscription_holds_its_record() {
    let (ctrl, clock) = controller(Retention::default());
    store_todo(&ctrl, 1);
    store_todo(&ctrl, 2);
    let _held = ctrl.subscribe_entity::<Todo>(1u64, || {});
    clock.advance(Duration::from_secs(121));
    assert_eq!(
        ctrl.collect_garbage(),
        Collected {
            results: 2,
            records: 1
        }
    );
    let one = ctrl.with_store(|store| store.get_entity::<Todo>(1u64).into_value());
    assert_eq!(one.unwrap().id, 1);
}

#[test]
fn a_watched_read_of_every_record_holds_them_all() {
    restcache::endpoint!(every_todo { path: "/todos\\?all=1", schema: restcache::All<Todo> });
    let (ctrl, clock) = controller(Retention::default());
    let first = Rc::new(Todo {
        id: 4,
        ..Todo::default()
    });
    ctrl.set_response(&every_todo(), &(), restcache::All::from(vec![first]))
        .unwrap();
    store_todo(&ctrl, 1);
    let _shown = ctrl.subscribe(&every_todo(), &(), || {});
    clock.advance(Duration::from_secs(121));
    // Todo 1's own read goes; the view of them all still shows it.
    assert_eq!(ctrl.collect_garbage().records, 0);
    let every = ctrl.read(&every_todo(), &()).data.unwrap();
    let mut ids: Vec<u64> = every.iter().map(|todo| todo.id).collect();
    ids.sort();
    assert_eq!(ids, [1, 4]);
}

#[test]
fn a_watched_query_holds_the_records_it_lists() {
    let (ctrl, clock) = controller(Retention::default());
    store_todo(&ctrl, 1);
    let titles = restcache::Query::new(|q| {
        let todos = q.all::<Todo>();
        todos
            .iter()
            .map(|todo| todo.title.clone())
            .collect::<Vec<_>>()
    });
    let _shown = ctrl.subscribe_query(&titles, || {});
    clock.advance(Duration::from_secs(121));
    // Todo 1's own read goes; the view that lists every todo still shows it.
    assert_eq!(ctrl.collect_garbage().records, 0);
    assert_eq!(*ctrl.query(&titles), ["todo 1"]);
}

#[test]
fn a_watched_query_holds_the_records_it_reads_by_pk() {
    let (ctrl, clock) = controller(Retention::default());
    store_todo(&ctrl, 1);
    store_todo(&ctrl, 2);
    let title = restcache::Query::new(|q| q.entity::<Todo>(2u64).map(|todo| todo.title.clone()));
    let _shown = ctrl.subscribe_query(&title, || {});
    clock.advance(Duration::from_secs(121));
    // Both reads go, and todo 1 with its own; the view of todo 2 still
    // shows it.
    assert_eq!(
        ctrl.collect_garbage(),
        Collected {
            results: 2,
            records: 1
        }
    );
    assert_eq!(ctrl.query(&title).as_deref(), Some("todo 2"));
}

#[test]
fn keep_all_collects_nothing() {
    let (ctrl, clock) = controller(Retention::KEEP_ALL);
    store_todo(&ctrl, 1);
    clock.advance(Duration::from_secs(24 * 3600));
    assert_eq!(ctrl.collect_garbage(), Collected::default());
    assert_eq!(counts(&ctrl), (1, 1));
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Author {
    id: u64,
    name: String,
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Post {
    id: u64,
    #[entity(nested)]
    author: Rc<Author>,
}

endpoint!(posts { path: "/posts\\?page=:page", schema: Vec<Rc<Post>>, params: { page: u32 } });

fn post(id: u64, author: u64) -> Rc<Post> {
    let name = format!("author {author}");
    Rc::new(Post {
        id,
        author: Rc::new(Author { id: author, name }),
    })
}

#[test]
fn records_left_after_a_collection_keep_their_nested_records() {
    let (ctrl, clock) = controller(Retention::default());
    let first = PostsParams { page: 1 };
    let second = PostsParams { page: 2 };
    ctrl.set_response(&posts(), &first, vec![post(1, 7), post(2, 8)])
        .unwrap();
    ctrl.set_response(&posts(), &second, vec![post(3, 9), post(4, 8)])
        .unwrap();
    let _held = ctrl.subscribe(&posts(), &second, || {});
    clock.advance(Duration::from_secs(121));
    // Page 1 goes, with post 1, 2 and author 7; author 8 stays for post 4.
    assert_eq!(
        ctrl.collect_garbage(),
        Collected {
            results: 1,
            records: 3
        }
    );
    let page = ctrl.read(&posts(), &second).data.unwrap();
    assert_eq!(*page, vec![post(3, 9), post(4, 8)]);

    // Slots moved: later writes and reads still find every record.
    ctrl.set_response(&posts(), &first, vec![post(1, 9)])
        .unwrap();
    let page = ctrl.read(&posts(), &second).data.unwrap();
    assert_eq!(page[0].author.name, "author 9");
    let author = ctrl.with_store(|store| store.get_entity::<Author>(8u64).into_value());
    assert_eq!(author.unwrap().name, "author 8");
}

endpoint!(save_post { method: PUT, path: "/posts/:id", schema: Rc<Post>, params: { id: u64 } });

endpoint!(save_author { method: PUT, path: "/authors/:id", schema: Rc<Author>, params: { id: u64 } });

#[test]
fn a_record_a_bound_keeps_keeps_what_it_points_at() {
    let bound = Retention {
        max_entities: Some(3),
        ..Retention::default()
    };
    let (ctrl, _clock) = controller(bound);
    // Mutations' answers: records no result holds. The author table comes
    // first, so the least recently fetched records are an author, then
    // post 1's author, then post 1.
    let author = Rc::new(Author {
        id: 9,
        name: "author 9".into(),
    });
    ctrl.set_response(&save_author(), &SaveAuthorParams { id: 9 }, author)
        .unwrap();
    ctrl.set_response(&save_post(), &SavePostParams { id: 1 }, post(1, 7))
        .unwrap();
    ctrl.set_response(&save_post(), &SavePostParams { id: 2 }, post(2, 8))
        .unwrap();
    let post = |id: u64| ctrl.with_store(|store| store.get_entity::<Post>(id).into_value());
    assert_eq!(
        post(1).unwrap().author.name,
        "author 7",
        "post 1 stays with its author"
    );
    assert_eq!(post(2).unwrap().author.name, "author 8");
    let author = ctrl.with_store(|store| store.get_entity::<Author>(9u64).into_value());
    assert!(author.is_none(), "the oldest record nothing points at went");
    ctrl.collect_garbage(); // and a second collection finds every reference sound
}

#[test]
fn a_memo_outside_the_controller_follows_renumbered_slots() {
    let (ctrl, clock) = controller(Retention::default());
    let page = PostsParams { page: 1 };
    ctrl.set_response(&posts(), &page, vec![post(1, 7), post(2, 8)])
        .unwrap();
    let mut memo = Memo::new();
    ctrl.with_store(|store| {
        assert_eq!(memo.entity::<Post>(store, 1u64).into_value().unwrap().id, 1);
        assert_eq!(memo.entity::<Post>(store, 2u64).into_value().unwrap().id, 2);
    });
    let _held = ctrl.subscribe_entity::<Post>(2u64, || {});
    clock.advance(Duration::from_secs(121));
    assert_eq!(
        ctrl.collect_garbage(),
        Collected {
            results: 1,
            records: 2
        }
    );
    let two = ctrl.with_store(|store| memo.entity::<Post>(store, 2u64).into_value());
    assert_eq!(
        two.unwrap().id,
        2,
        "post 2, not what its old slot number held"
    );
}

#[test]
fn a_result_just_stored_is_not_evicted_by_the_bound_it_passes() {
    let bound = Retention {
        max_results: Some(2),
        ..Retention::default()
    };
    let (ctrl, clock) = controller(bound);
    for id in 0..3 {
        store_todo(&ctrl, id); // one moment: each was used just now
    }
    assert_eq!(
        counts(&ctrl).0,
        3,
        "over the bound, but nothing is old enough to go"
    );
    clock.advance(Duration::from_millis(10));
    store_todo(&ctrl, 3);
    let present = |id| {
        let params = TodoResourceParams { id };
        ctrl.read(&TodoResource::get(), &params).data.is_some()
    };
    assert!(present(3), "the newest stays");
    assert!(counts(&ctrl).0 <= 2);
}

/// The ids of the list `GET /todos` (todos 1 and 5, answered after
/// `answer_after`) read with `options` through a controller that keeps
/// one record (its client's timeout `client_timeout`, if given), while
/// todo 5 is deleted and, `wait` later, two records no result holds push
/// the cache over its bound.
async fn list_read_across_a_deletion(
    client_timeout: Option<Duration>,
    options: Options,
    answer_after: Duration,
    wait: Duration,
) -> Vec<u64> {
    let mut server = mockito::Server::new_async().await;
    let bound = Retention {
        max_entities: Some(1),
        ..Retention::default()
    };
    let mut client = Client::new(server.url());
    if let Some(limit) = client_timeout {
        client = client.with_timeout(limit);
    }
    let ctrl = Controller::builder(client)
        .retry(restcache::Retry::NONE)
        .retention(bound)
        .build();
    let list = crate::common::mock::once_after(
        server.mock("GET", "/todos"),
        answer_after,
        crate::common::controller::LIST.replace("\"id\": 2", "\"id\": 5"),
    )
    .await;
    let _delete = server
        .mock("DELETE", "/todos/5")
        .with_status(204)
        .create_async()
        .await;
    let get_list = TodoResource::get_list().with_options(options);
    let (listed, ()) = tokio::join!(ctrl.fetch(&get_list, &(), None), async {
        let five = TodoResourceParams { id: 5 };
        ctrl.fetch(&TodoResource::delete(), &five, None)
            .await
            .unwrap();
        tokio::time::sleep(wait).await;
        for id in [7, 8] {
            let todo = Todo {
                id,
                ..Todo::default()
            };
            let params = TodoResourceParams { id };
            ctrl.set_response(&TodoResource::update(), &params, Rc::new(todo))
                .unwrap();
        }
    });
    list.assert_async().await;
    listed.unwrap().iter().map(|t| t.id).collect()
}

#[tokio::test]
async fn a_deletion_marker_outlives_the_requests_that_started_before_it() {
    let ids = list_read_across_a_deletion(
        None,
        Options::default(),
        Duration::from_millis(200),
        Duration::ZERO,
    )
    .await;
    assert_eq!(ids, [1], "todo 5 was deleted after the list started");
}

#[tokio::test]
async fn a_deletion_marker_outlives_a_request_allowed_longer_than_the_clients_timeout() {
    // The list may take 2 s, longer than the client's own limit; the
    // marker is older than that limit when the cache goes over its
    // bound, the list still on its way.
    let slow = Options {
        timeout: Some(Duration::from_secs(2)),
        ..Options::default()
    };
    let ids = list_read_across_a_deletion(
        Some(Duration::from_millis(100)),
        slow,
        Duration::from_millis(400),
        Duration::from_millis(200),
    )
    .await;
    assert_eq!(ids, [1], "todo 5 was deleted after the list started");
}

#[test]
fn an_optimistic_write_under_way_pauses_record_collection_not_the_cache() {
    let bound = Retention {
        max_entities: Some(5),
        ..Retention::default()
    };
    let (ctrl, clock) = controller(bound);
    for id in 0..5 {
        clock.advance(Duration::from_millis(10));
        store_todo(&ctrl, id);
    }
    let (update, params) = (TodoResource::update(), TodoResourceParams { id: 0 });
    let guess = Rc::new(Todo {
        id: 0,
        title: "guess".into(),
        ..Todo::default()
    });
    let pending = ctrl.fetch_optimistic(&update, &params, None, guess);
    for id in 5..8 {
        clock.advance(Duration::from_millis(10));
        store_todo(&ctrl, id);
    }
    assert!(
        counts(&ctrl).0 >= 5,
        "results stay while records cannot be collected"
    );
    drop(pending);
    clock.advance(Duration::from_millis(10));
    store_todo(&ctrl, 8);
    assert!(
        counts(&ctrl).1 <= 5,
        "the bound holds again once the layer is gone"
    );
}

#[test]
fn an_entity_query_stops_answering_for_a_record_collection_dropped() {
    let (ctrl, clock) = controller(Retention::default());
    store_todo(&ctrl, 1);
    let mut query = EntityQuery::<Todo>::new(1u64);
    let found = ctrl.with_store(|store| query.read(store));
    assert!(matches!(found, Lookup::Found(..)), "{found:?}");

    clock.advance(Duration::from_secs(121));
    assert_eq!(
        ctrl.collect_garbage(),
        Collected {
            results: 1,
            records: 1
        }
    );
    let gone = ctrl.with_store(|store| query.read(store));
    assert!(matches!(gone, Lookup::Absent), "{gone:?}");
}

#[test]
fn an_entity_query_follows_its_record_to_the_slot_a_collection_moved_it_to() {
    let (ctrl, clock) = controller(Retention::default());
    store_todo(&ctrl, 1);
    clock.advance(Duration::from_secs(100));
    store_todo(&ctrl, 2);
    let mut query = EntityQuery::<Todo>::new(2u64);
    let read = |query: &mut EntityQuery<Todo>| {
        ctrl.with_store(|store| query.read(store).into_value())
            .expect("todo 2 is stored")
    };
    let first = read(&mut query);

    // Todo 1 goes; todo 2 moves down to the slot it left.
    clock.advance(Duration::from_secs(21));
    assert_eq!(ctrl.collect_garbage().records, 1);
    assert!(Rc::ptr_eq(&first, &read(&mut query)));
    let title = |todo: Rc<Todo>| todo.title.clone();
    ctrl.set_response(
        &TodoResource::get(),
        &TodoResourceParams { id: 2 },
        Rc::new(Todo {
            id: 2,
            title: "moved".into(),
            ..Todo::default()
        }),
    )
    .unwrap();
    assert_eq!(title(read(&mut query)), "moved");
}

#[test]
fn a_collection_gives_back_the_memory_of_what_it_collected() {
    let (ctrl, clock) = controller(Retention::default());
    // The controller's own structures, at their size for one key.
    store_todo(&ctrl, 0);
    clock.advance(Duration::from_secs(300));
    ctrl.collect_garbage();
    let before = held_bytes();

    let keys = 10_000;
    for id in 1..=keys {
        store_todo(&ctrl, id);
    }
    clock.advance(Duration::from_secs(300));
    let collected = ctrl.collect_garbage();
    assert_eq!(
        collected,
        Collected {
            results: keys as usize,
            records: keys as usize
        }
    );
    assert_eq!(counts(&ctrl), (0, 0));
    let kept = (held_bytes() - before) / keys as isize;
    assert!(
        kept < 16,
        "{kept} bytes a collected key stay with no result or record left"
    );
}

#[test]
fn a_record_a_collection_moved_still_changes_the_lists_that_hold_it() {
    let (ctrl, clock) = controller(Retention::default());
    for id in 0..100 {
        store_todo(&ctrl, id);
    }
    let kept: Vec<Rc<Todo>> = (90..100)
        .map(|id| {
            Rc::new(Todo {
                id,
                title: format!("todo {id}"),
                ..Todo::default()
            })
        })
        .collect();
    let list = TodoResource::get_list();
    ctrl.set_response(&list, &(), kept).unwrap();
    let _held = ctrl.subscribe(&list, &(), || {});
    let before = ctrl.read(&list, &()).data.expect("the list is stored");

    clock.advance(Duration::from_secs(150));
    store_todo(&ctrl, 1000); // the sweep drops todos 0 to 89: the rest move
    assert_eq!(counts(&ctrl).1, 11);
    let after = ctrl.read(&list, &()).data.expect("the list stays");
    assert!(
        Rc::ptr_eq(&before, &after),
        "the same records, the same list"
    );

    for id in 90..100 {
        let params = TodoResourceParams { id };
        let renamed = Todo {
            id,
            title: format!("renamed {id}"),
            ..Todo::default()
        };
        ctrl.set_response(&TodoResource::update(), &params, Rc::new(renamed))
            .unwrap();
        let shown = ctrl.read(&list, &()).data.expect("the list stays");
        assert_eq!(shown[(id - 90) as usize].title, format!("renamed {id}"));
    }
}

#[test]
fn a_record_written_again_and_again_holds_its_memory_steady() {
    let (ctrl, clock) = controller(Retention::KEEP_ALL);
    for id in 0..1_000 {
        store_todo(&ctrl, id);
    }
    let before = held_bytes();
    // A poll: the same record again, each time from a response of its own.
    for _ in 0..10_000 {
        clock.advance(Duration::from_millis(10));
        store_todo(&ctrl, 7);
    }
    let grown = held_bytes() - before;
    assert!(
        grown < 8 * 1024,
        "10,000 writes of one record grew the heap by {grown} bytes"
    );
}
