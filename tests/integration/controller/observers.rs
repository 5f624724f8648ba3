//! Read observers: the policy of when a read fetches, without a UI
//! framework. Revalidation when an observer starts watching, on focus and
//! on reconnect; change callbacks for
//! what a write touched (records, results, nested records, envelopes),
//! batched; the older API's shapes through the same observer. Real HTTP
//! to mockito on 127.0.0.1; time moves on a `ManualClock`.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use crate::common::controller::*;
use crate::common::mock::*;
use crate::common::{Todo, TodoDetail, TodoResource, User};
use restcache::legacy::Resource;
use restcache::prelude::*;
use restcache::rest::Read;
use restcache::{Observe, ReadObserver, Subscription};
use tokio::task::LocalSet;

endpoint!(pub todo_detail {
    path: "/detail/:id",
    schema: TodoDetail,
});

/// Lets the controller's background work run until it is at rest.
pub(super) async fn settle(ctrl: &Controller) {
    loop {
        tokio::task::yield_now().await;
        if ctrl.is_idle() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// A counter and a callback that bumps it.
pub(super) fn counter() -> (Rc<Cell<u32>>, impl Fn() + 'static) {
    let count = Rc::new(Cell::new(0));
    let bump = Rc::clone(&count);
    (count, move || bump.set(bump.get() + 1))
}

/// Stores todo `id` titled `title`, fetched now.
pub(super) fn store_todo(ctrl: &Controller, id: u64, title: &str) {
    let todo = Rc::new(crate::common::todo(id, title));
    ctrl.set_response(&TodoResource::get(), &one(id), todo)
        .unwrap();
}

/// What a list shows.
type Shown = Rc<Vec<Rc<Todo>>>;

/// Stores todos 1 ("one") and 2 ("two") as the list, and watches it: what
/// it shows, how many times it was told of a change, and the watch.
fn watched_list(ctrl: &Controller) -> (Shown, Rc<Cell<u32>>, Subscription) {
    let list = TodoResource::get_list();
    let todos = vec![
        Rc::new(crate::common::todo(1, "one")),
        Rc::new(crate::common::todo(2, "two")),
    ];
    ctrl.set_response(&list, &(), todos).unwrap();
    let shown = ctrl.read(&list, &()).data.unwrap();
    let (told, tell) = counter();
    (shown, told, ctrl.subscribe(&list, &(), tell))
}

#[tokio::test]
async fn an_observer_revalidates_a_stale_read_when_it_starts_watching_it() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let refetch = once(server.mock("GET", "/todos/1"), 200, &todo_json(1, "new")).await;
            store_todo(&ctrl, 1, "old");
            clock.advance(Duration::from_secs(61));

            let mut observer = ReadObserver::new(&ctrl, Observe::new().changes().revalidate());
            observer.set(&TodoResource::get(), &one(1));
            assert_eq!(observer.read().unwrap().status, ExpiryStatus::Stale);
            let (renders, render) = counter();
            observer.subscribe(render);
            // A second view of the same read shares the request.
            let mut twin = ReadObserver::new(&ctrl, Observe::new().revalidate());
            twin.set(&TodoResource::get(), &one(1));
            twin.subscribe(|| {});
            settle(&ctrl).await;

            refetch.assert_async().await;
            assert_eq!(renders.get(), 1, "the refetched copy re-renders once");
            let cached = observer.read().unwrap();
            assert_eq!(cached.data.unwrap().title, "new");
            assert_eq!(cached.status, ExpiryStatus::Valid);
        })
        .await;
}

#[tokio::test]
async fn a_new_read_given_while_subscribed_is_watched_in_place_of_the_old() {
    LocalSet::new()
        .run_until(async {
            let (_server, ctrl, _clock) = setup().await;
            store_todo(&ctrl, 1, "one");
            store_todo(&ctrl, 2, "two");
            let mut observer = ReadObserver::new(&ctrl, Observe::new().changes());
            observer.set(&TodoResource::get(), &one(1));
            observer.read();
            let (renders, render) = counter();
            observer.subscribe(render);
            observer.set(&TodoResource::get(), &one(2));
            observer.read();
            assert_eq!(ctrl.subscriber_count(), 1);

            store_todo(&ctrl, 1, "one again");
            assert_eq!(renders.get(), 0, "todo 1 is no longer watched");
            store_todo(&ctrl, 2, "two again");
            assert_eq!(renders.get(), 1);
            drop(observer);
            assert_eq!(ctrl.subscriber_count(), 0);
        })
        .await;
}

#[tokio::test]
async fn focus_and_reconnect_refetch_only_the_stale_reads_that_revalidate() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let stale = server
                .mock("GET", "/todos/1")
                .with_body(todo_json(1, "again"))
                .expect(2)
                .create_async()
                .await;
            let fresh = server
                .mock("GET", "/todos/2")
                .expect(0)
                .create_async()
                .await;
            let unwatched = server
                .mock("GET", "/todos/3")
                .expect(0)
                .create_async()
                .await;
            store_todo(&ctrl, 1, "one");
            store_todo(&ctrl, 3, "three");
            clock.advance(Duration::from_secs(61));
            store_todo(&ctrl, 2, "two");

            let observe = |id: u64, options: Observe| {
                let mut observer = ReadObserver::new(&ctrl, options);
                observer.set(&TodoResource::get(), &one(id));
                observer.subscribe(|| {});
                observer
            };
            let mut stale_view = observe(1, Observe::new().changes());
            let _fresh_view = observe(2, Observe::new().revalidate());
            let _cache_only = observe(3, Observe::new().changes());
            settle(&ctrl).await;

            // Told of focus coming back: the stale read that revalidates
            // refetches once, nothing else.
            stale_view.unsubscribe();
            stale_view = ReadObserver::new(&ctrl, Observe::new().revalidate());
            stale_view.set(&TodoResource::get(), &one(1));
            stale_view.subscribe(|| {}); // fetches once: it is stale
            settle(&ctrl).await;
            clock.advance(Duration::from_secs(61));
            store_todo(&ctrl, 2, "two"); // fresh again
            ctrl.set_focused(false);
            ctrl.set_focused(true);
            settle(&ctrl).await;

            // Telling it again changes nothing: it never left.
            ctrl.set_focused(true);
            ctrl.set_online(true);
            settle(&ctrl).await;
            stale.assert_async().await;
            fresh.assert_async().await;
            unwatched.assert_async().await;
        })
        .await;
}

#[tokio::test]
async fn going_online_again_refetches_a_stale_observed_read() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let refetch = once(server.mock("GET", "/todos/1"), 200, &todo_json(1, "back")).await;
            store_todo(&ctrl, 1, "one");
            let mut observer = ReadObserver::new(&ctrl, Observe::new().revalidate());
            observer.set(&TodoResource::get(), &one(1));
            observer.subscribe(|| {});
            ctrl.set_online(false);
            clock.advance(Duration::from_secs(61));
            ctrl.set_online(true);
            settle(&ctrl).await;
            refetch.assert_async().await;
            assert!(ctrl.is_online());
        })
        .await;
}

#[tokio::test]
async fn a_write_tells_only_the_observers_of_what_it_touched() {
    let (_server, ctrl, _clock) = setup().await;
    store_todo(&ctrl, 1, "one");
    store_todo(&ctrl, 2, "two");
    let list = vec![Rc::new(crate::common::todo(1, "one"))];
    ctrl.set_response(&TodoResource::get_list(), &(), list)
        .unwrap();
    let detail = TodoDetail {
        data: Rc::new(crate::common::todo(2, "two")),
    };
    ctrl.set_response(&todo_detail(), &TodoDetailParams { id: "2".into() }, detail)
        .unwrap();

    let (list_calls, on_list) = counter();
    let (one_calls, on_one) = counter();
    let (detail_calls, on_detail) = counter();
    let (later_calls, on_later) = counter();
    let _list = ctrl.subscribe(&TodoResource::get_list(), &(), on_list);
    let _one = ctrl.subscribe_entity::<Todo>(1u64, on_one);
    let _detail = ctrl.subscribe(
        &todo_detail(),
        &TodoDetailParams { id: "2".into() },
        on_detail,
    );
    let _later = ctrl.subscribe_entity::<Todo>(9u64, on_later);

    store_todo(&ctrl, 2, "two, renamed");
    assert_eq!(
        (list_calls.get(), one_calls.get(), detail_calls.get()),
        (0, 0, 1),
        "the envelope nests todo 2; the list and todo 1 do not hold it"
    );
    store_todo(&ctrl, 1, "one, renamed");
    assert_eq!(
        (list_calls.get(), one_calls.get(), detail_calls.get()),
        (1, 1, 1)
    );
    assert_eq!(later_calls.get(), 0);
    store_todo(&ctrl, 9, "nine"); // a record not stored when subscribed
    assert_eq!(later_calls.get(), 1);

    ctrl.reset();
    assert_eq!(
        (
            list_calls.get(),
            one_calls.get(),
            detail_calls.get(),
            later_calls.get()
        ),
        (2, 2, 2, 2),
        "a reset empties every read"
    );
}

#[tokio::test]
async fn a_batch_of_writes_tells_each_observer_once() {
    let (_server, ctrl, _clock) = setup().await;
    let mut observer = ReadObserver::new(&ctrl, Observe::new().changes());
    observer.set(&TodoResource::get(), &one(1));
    observer.read();
    let (renders, render) = counter();
    observer.subscribe(render);
    ctrl.batch(|| {
        store_todo(&ctrl, 1, "a");
        ctrl.batch(|| store_todo(&ctrl, 1, "b"));
        assert_eq!(renders.get(), 0, "nobody is told inside a batch");
        store_todo(&ctrl, 1, "c");
    });
    assert_eq!(renders.get(), 1);
    assert_eq!(observer.read().unwrap().data.unwrap().title, "c");
}

#[tokio::test]
async fn an_older_api_shape_is_observed_as_an_endpoint_is() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let body = r#"{"id": 7, "username": "ada", "email": "", "isManager": false}"#;
            let fetched = once(server.mock("GET", "/users/7"), 200, body).await;
            let shape = User::detail_shape();
            let mut observer = ReadObserver::new(&ctrl, Observe::new().changes().revalidate());
            observer.set(&shape.endpoint::<Read>(), &7u64);
            observer.wait().unwrap().await;
            assert_eq!(observer.read().unwrap().data.unwrap().username, "ada");
            fetched.assert_async().await;
            fetched.remove_async().await;
            let renamed = body.replace("ada", "ada.l");
            let refetched = once(server.mock("GET", "/users/7"), 200, &renamed).await;
            let (renders, render) = counter();
            observer.subscribe(render);
            clock.advance(Duration::from_secs(61));
            ctrl.set_focused(false);
            ctrl.set_focused(true);
            settle(&ctrl).await;
            refetched.assert_async().await;
            assert_eq!(renders.get(), 1, "the refetched copy differs");
            assert_eq!(observer.read().unwrap().data.unwrap().username, "ada.l");
        })
        .await;
}

#[tokio::test]
async fn expire_all_makes_every_watched_read_revalidate_without_losing_its_data() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, _clock) = setup().await;
            let refetch = once(server.mock("GET", "/todos/1"), 200, &todo_json(1, "new")).await;
            let untouched = server
                .mock("GET", "/todos/2")
                .expect(0)
                .create_async()
                .await;
            store_todo(&ctrl, 1, "old");
            store_todo(&ctrl, 2, "two");
            let mut view = ReadObserver::new(&ctrl, Observe::new().changes().revalidate());
            view.set(&TodoResource::get(), &one(1));
            view.read();
            let (renders, render) = counter();
            view.subscribe(render);
            let mut cache_only = ReadObserver::new(&ctrl, Observe::new().changes());
            cache_only.set(&TodoResource::get(), &one(2));
            cache_only.subscribe(|| {});
            settle(&ctrl).await;
            assert_eq!(renders.get(), 0, "fresh: nothing to do");

            assert_eq!(ctrl.expire_all(|_| true), 2);
            let stale = view.read().unwrap();
            assert_eq!(stale.status, ExpiryStatus::Stale);
            assert_eq!(stale.data.unwrap().title, "old", "still on show");
            settle(&ctrl).await;
            refetch.assert_async().await;
            untouched.assert_async().await;
            assert_eq!(renders.get(), 1);
            assert_eq!(view.read().unwrap().data.unwrap().title, "new");
        })
        .await;
}

#[tokio::test]
async fn a_watched_read_revalidates_when_it_goes_stale_on_the_clock() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let refetch = server
                .mock("GET", "/todos/1")
                .with_body(todo_json(1, "again"))
                .expect(2)
                .create_async()
                .await;
            store_todo(&ctrl, 1, "first"); // fresh for 60 s
            let mut view = ReadObserver::new(&ctrl, Observe::new().changes().revalidate());
            view.set(&TodoResource::get(), &one(1));
            view.read();
            let (renders, render) = counter();
            view.subscribe(render);
            clock.advance(Duration::from_secs(59));
            settle(&ctrl).await;
            clock.advance(Duration::from_secs(2)); // past its expiry
            settle(&ctrl).await;
            assert_eq!(renders.get(), 1, "the refetched copy");
            clock.advance(Duration::from_secs(61)); // the new copy's expiry
            settle(&ctrl).await;
            refetch.assert_async().await;
            drop(view);
            clock.advance(Duration::from_secs(600)); // nobody watches
            settle(&ctrl).await;
        })
        .await;
}

#[tokio::test]
async fn focus_coming_back_retries_a_watched_read_whose_error_expired() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let down = server
                .mock("GET", "/todos/1")
                .with_status(503)
                .expect(1)
                .create_async()
                .await;
            let mut view = ReadObserver::new(&ctrl, Observe::new().changes().revalidate());
            view.set(&TodoResource::get(), &one(1));
            view.subscribe(|| {});
            let failed = ctrl.fetch(&TodoResource::get(), &one(1), None).await;
            assert!(failed.is_err());
            down.assert_async().await;
            down.remove_async().await;
            let back = server
                .mock("GET", "/todos/1")
                .with_body(todo_json(1, "back"))
                .expect(1)
                .create_async()
                .await;
            // While its error stands, focus changes nothing.
            ctrl.set_focused(false);
            ctrl.set_focused(true);
            settle(&ctrl).await;
            assert!(view.read().unwrap().error.is_some());
            // Once it expired, focus coming back tries again.
            clock.advance(Duration::from_secs(61));
            ctrl.set_focused(false);
            ctrl.set_focused(true);
            settle(&ctrl).await;
            back.assert_async().await;
            assert_eq!(view.read().unwrap().data.unwrap().title, "back");
        })
        .await;
}

resource!(StrictTodoResource {
    path: "/strict/:id",
    schema: Todo,
    invalid_if_stale: true,
});

#[tokio::test]
async fn a_watched_read_that_must_not_show_stale_data_is_told_when_it_expires() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let refetch = server
                .mock("GET", "/strict/1")
                .with_body(todo_json(1, "again"))
                .expect(1)
                .create_async()
                .await;
            let params = StrictTodoResourceParams { id: 1 };
            let first = Rc::new(crate::common::todo(1, "first")); // fresh for 60 s
            ctrl.set_response(&StrictTodoResource::get(), &params, first)
                .unwrap();
            let mut view = ReadObserver::new(&ctrl, Observe::new().changes().revalidate());
            view.set(&StrictTodoResource::get(), &params);
            assert_eq!(view.read().unwrap().data.unwrap().title, "first");
            let (renders, render) = counter();
            view.subscribe(render);
            clock.advance(Duration::from_secs(61)); // past its expiry
            settle(&ctrl).await;
            // Told once as its data went, once as the new copy came.
            assert_eq!(renders.get(), 2);
            assert_eq!(view.read().unwrap().data.unwrap().title, "again");
            refetch.assert_async().await;
        })
        .await;
}

#[tokio::test]
async fn a_view_follows_the_key_not_the_path() {
    let (_server, ctrl, _clock) = setup().await;
    // Two reads of one path and equal params, told apart by their keys.
    let mine = TodoResource::get().with_key(|request| format!("mine {}", request.url));
    let theirs = TodoResource::get().with_key(|request| format!("theirs {}", request.url));
    ctrl.set_response(&mine, &one(1), Rc::new(crate::common::todo(1, "mine")))
        .unwrap();
    ctrl.set_response(&theirs, &one(1), Rc::new(crate::common::todo(1, "theirs")))
        .unwrap();
    let mut view = ReadObserver::new(&ctrl, Observe::new().changes());
    assert!(view.set(&mine, &one(1)));
    assert!(view.key().unwrap().starts_with("mine "));
    assert!(view.set(&theirs, &one(1)), "another key: another read");
    assert!(view.key().unwrap().starts_with("theirs "));
    assert!(!view.set(&theirs, &one(1)));

    // Two older-API shapes with equal params and their own URLs.
    let first = User::detail_shape();
    let other = restcache::legacy::FetchShape {
        get_fetch_key: |id: &u64| format!("/people/{id}"),
        ..User::detail_shape()
    };
    let mut shapes = ReadObserver::new(&ctrl, Observe::new());
    shapes.set(&first.endpoint::<Read>(), &7);
    let first_key = shapes.key().unwrap().to_owned();
    assert!(shapes.set(&other.endpoint::<Read>(), &7));
    assert_ne!(shapes.key().unwrap(), first_key);
    assert!(shapes.key().unwrap().ends_with("/people/7"));
}

#[test]
fn a_record_written_back_as_it_is_refreshes_its_expiry_and_tells_no_one() {
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    let ctrl = Controller::builder(Client::new("http://127.0.0.1:9"))
        .clock(clock.clone())
        .build();
    let list = TodoResource::get_list();
    let (shown, told, _watching) = watched_list(&ctrl);
    clock.advance(Duration::from_secs(61));
    let cached = ctrl.read(&TodoResource::get(), &one(1));
    assert_eq!(cached.status, ExpiryStatus::Stale);

    // An app writes back the record it read, as a save with no edit does.
    ctrl.set_response(&TodoResource::update(), &one(1), cached.data.unwrap())
        .unwrap();

    let refreshed = ctrl.read(&TodoResource::get(), &one(1));
    assert_eq!(refreshed.status, ExpiryStatus::Valid, "fetched again now");
    assert_eq!(told.get(), 0, "no view shows anything new");
    assert!(Rc::ptr_eq(&shown, &ctrl.read(&list, &()).data.unwrap()));
}

#[tokio::test]
async fn a_response_that_repeats_a_record_unchanged_keeps_the_list_that_shows_it() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let list_json = format!("[{},{}]", todo_json(1, "one"), todo_json(2, "two"));
            let listed = once(server.mock("GET", "/todos"), 200, &list_json).await;
            let list = TodoResource::get_list();
            let shown = ctrl.fetch(&list, &(), None).await.unwrap();
            let (told, tell) = counter();
            let _watching = ctrl.subscribe(&list, &(), tell);
            let expired_at = ctrl.read(&TodoResource::get(), &one(1)).expires_at;

            // The detail page fetches a record the list holds: the same
            // fields, parsed again into a copy of its own.
            clock.advance(Duration::from_secs(5));
            let detail = once(server.mock("GET", "/todos/1"), 200, &todo_json(1, "one")).await;
            let one_again = ctrl
                .fetch(&TodoResource::get(), &one(1), None)
                .await
                .unwrap();
            listed.assert_async().await;
            detail.assert_async().await;
            assert_eq!(told.get(), 0, "the list shows nothing new");
            let list_now = ctrl.read(&list, &()).data.unwrap();
            assert!(Rc::ptr_eq(&shown, &list_now), "the list keeps its value");
            assert!(Rc::ptr_eq(&one_again, &shown[0]), "one copy of the record");
            let expires_at = ctrl.read(&TodoResource::get(), &one(1)).expires_at;
            assert_eq!(
                expires_at.as_millis() - expired_at.as_millis(),
                5_000,
                "the record counts as fetched again"
            );

            // A copy with one field changed is a change.
            let changed = Rc::new(crate::common::todo(1, "one, edited"));
            ctrl.set_response(&TodoResource::update(), &one(1), changed)
                .unwrap();
            assert_eq!(told.get(), 1);
            assert_eq!(
                titles(&ctrl.read(&list, &()).data.unwrap()),
                ["one, edited", "two"]
            );
        })
        .await;
}

#[test]
fn a_nested_copy_equal_to_the_stored_record_keeps_the_reads_that_nest_it() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    let list = TodoResource::get_list();
    let (shown, told, _watching) = watched_list(&ctrl);

    let wrapped = TodoDetail {
        data: Rc::new(crate::common::todo(2, "two")),
    };
    ctrl.set_response(
        &todo_detail(),
        &TodoDetailParams { id: "2".into() },
        wrapped,
    )
    .unwrap();

    assert_eq!(told.get(), 0);
    assert!(Rc::ptr_eq(&shown, &ctrl.read(&list, &()).data.unwrap()));
}

#[test]
fn a_controller_that_shares_no_copies_takes_each_as_it_comes() {
    let ctrl = Controller::builder(Client::new("http://127.0.0.1:9"))
        .share_equal_copies(false)
        .build();
    let list = TodoResource::get_list();
    let (shown, told, _watching) = watched_list(&ctrl);

    let copy = Rc::new(crate::common::todo(1, "one"));
    ctrl.set_response(&TodoResource::update(), &one(1), copy)
        .unwrap();

    assert_eq!(told.get(), 1, "an equal copy is a new record");
    assert!(!Rc::ptr_eq(&shown, &ctrl.read(&list, &()).data.unwrap()));
}

#[test]
fn a_reset_cache_still_keeps_equal_copies() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    ctrl.reset();
    let list = TodoResource::get_list();
    let (shown, _, _watching) = watched_list(&ctrl);

    let copy = Rc::new(crate::common::todo(1, "one"));
    ctrl.set_response(&TodoResource::update(), &one(1), copy)
        .unwrap();

    assert!(Rc::ptr_eq(&shown, &ctrl.read(&list, &()).data.unwrap()));
}

#[test]
fn a_view_that_subscribes_after_its_render_is_told_only_of_what_changed_since() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    store_todo(&ctrl, 1, "one");
    store_todo(&ctrl, 2, "two");
    let subscribe_after_render = |between: &dyn Fn()| {
        let mut view = ReadObserver::new(&ctrl, Observe::new().changes());
        view.set(&TodoResource::get(), &one(1));
        assert_eq!(view.read().and_then(|c| c.data).unwrap().title, "one");
        between();
        let (told, tell) = counter();
        view.subscribe(tell);
        told.get()
    };
    // Nothing written between the render and the subscription.
    assert_eq!(subscribe_after_render(&|| {}), 0);
    // Another record written: the view's read is as it rendered it.
    assert_eq!(subscribe_after_render(&|| store_todo(&ctrl, 2, "TWO")), 0);
    // Its own record written: the view renders again.
    assert_eq!(subscribe_after_render(&|| store_todo(&ctrl, 1, "ONE")), 1);
}
