//! Optimistic values are layers over the confirmed data: real responses
//! land beneath them by their own ordering rules, and removing a layer
//! (its request ended) reveals what is confirmed, never something older.

use std::rc::Rc;
use std::time::Duration;

use restcache::prelude::*;

use crate::common::controller::{LIST, one, setup, titles, todo_json};
use crate::common::mock::{once, once_after, slowly};
use crate::common::{Todo, TodoResource};

pub(super) fn todo(id: u64, title: &str) -> Todo {
    Todo {
        id,
        user_id: 1,
        title: title.into(),
        completed: false,
    }
}

/// A mock server, a controller on it, and todo 1 ("milk") fetched.
pub(super) async fn with_milk() -> (mockito::ServerGuard, Controller, ManualClock) {
    let (mut server, ctrl, clock) = setup().await;
    let _get = once(server.mock("GET", "/todos/1"), 200, &todo_json(1, "milk")).await;
    ctrl.fetch(&TodoResource::get(), &one(1), None)
        .await
        .unwrap();
    (server, ctrl, clock)
}

fn failing(mock: mockito::Mock, delay: Duration) -> mockito::Mock {
    slowly(mock, delay, "upstream down")
        .with_status(500)
        .expect(1)
}

#[tokio::test]
async fn a_failed_optimistic_write_reveals_the_response_that_landed_beneath_it() {
    let (mut server, ctrl, clock) = with_milk().await;
    let patch = once_after(
        server.mock("PATCH", "/todos/1"),
        Duration::from_millis(50),
        todo_json(1, "patched"),
    )
    .await;
    let put = failing(server.mock("PUT", "/todos/1"), Duration::from_millis(200))
        .create_async()
        .await;

    // The PATCH starts, then an optimistic PUT; the PATCH's answer lands
    // while the PUT's value is on show, then the PUT fails.
    let patch_body = Body::json(&serde_json::json!({"title": "patched"})).unwrap();
    let guess = todo(1, "guess");
    let put_body = Body::json(&guess).unwrap();
    let (partial_update, update, params) = (
        TodoResource::partial_update(),
        TodoResource::update(),
        one(1),
    );
    let (patched, put_outcome) = tokio::join!(
        ctrl.fetch(&partial_update, &params, Some(patch_body)),
        async {
            clock.advance(Duration::from_millis(1)); // the PUT starts a tick later
            let request = ctrl.fetch_optimistic(&update, &params, Some(put_body), Rc::new(guess));
            request.await
        }
    );
    assert_eq!(
        patched.unwrap().title,
        "patched",
        "the PATCH's caller gets its answer"
    );
    assert_eq!(put_outcome.unwrap_err().status(), Some(500));

    let shown = ctrl.read(&TodoResource::get(), &one(1));
    assert_eq!(
        shown.data.unwrap().title,
        "patched",
        "the server's last word"
    );
    assert_eq!(shown.status, ExpiryStatus::Valid);
    patch.assert_async().await;
    put.assert_async().await;
}

#[tokio::test]
async fn optimistic_writes_compose_and_each_leaves_on_its_own_answer() {
    let (mut server, ctrl, _clock) = with_milk().await;
    // The first write answers last; the second fails first.
    let first = once_after(
        server
            .mock("PUT", "/todos/1")
            .match_body(mockito::Matcher::Regex("first".into())),
        Duration::from_millis(200),
        todo_json(1, "first, saved"),
    )
    .await;
    let second = failing(
        server
            .mock("PUT", "/todos/1")
            .match_body(mockito::Matcher::Regex("second".into())),
        Duration::from_millis(50),
    )
    .create_async()
    .await;

    let (update, params) = (TodoResource::update(), one(1));
    let (a, b) = (todo(1, "first"), todo(1, "second"));
    let (a_body, b_body) = (Body::json(&a).unwrap(), Body::json(&b).unwrap());
    let first_request = ctrl.fetch_optimistic(&update, &params, Some(a_body), Rc::new(a));
    let second_request = ctrl.fetch_optimistic(&update, &params, Some(b_body), Rc::new(b));
    let title = || {
        ctrl.read(&TodoResource::get(), &one(1))
            .data
            .unwrap()
            .title
            .clone()
    };
    assert_eq!(title(), "second", "the later write is on top");

    // The first on its way, the second's failure is taken first, though
    // a slow machine brings both answers at once.
    let mut first_request = Box::pin(first_request);
    assert!(futures_util::poll!(&mut first_request).is_pending());
    let failed = second_request.await;
    let after_failure = title();
    let saved = first_request.await;
    assert!(failed.is_err());
    assert_eq!(after_failure, "first", "the earlier write shows again");
    assert_eq!(saved.unwrap().title, "first, saved");
    assert_eq!(title(), "first, saved");
    first.assert_async().await;
    second.assert_async().await;
}

#[tokio::test]
async fn an_optimistic_create_stays_in_a_list_refetched_before_it_ends() {
    let (mut server, ctrl, _clock) = setup().await;
    let _list = once(server.mock("GET", "/todos"), 200, LIST).await;
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    let refetch = once_after(
        server.mock("GET", "/todos"),
        Duration::ZERO,
        format!("[{}, {}]", todo_json(1, "milk"), todo_json(3, "tea")),
    )
    .await;
    let create = failing(server.mock("POST", "/todos"), Duration::from_millis(200))
        .create_async()
        .await;

    let draft = todo(99, "bread");
    let body = Body::json(&draft).unwrap();
    let create_endpoint = TodoResource::create();
    let request = ctrl.fetch_optimistic(&create_endpoint, &(), Some(body), Rc::new(draft));
    let list = || ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(titles(&list()), ["milk", "eggs", "bread"]);

    let mut request = Box::pin(request);
    assert!(futures_util::poll!(&mut request).is_pending());
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    let during = titles(&list()).join(",");
    let created = request.await;
    assert_eq!(
        during, "milk,tea,bread",
        "the refetched list, the draft on top"
    );
    assert!(created.is_err());
    assert_eq!(
        titles(&list()),
        ["milk", "tea"],
        "the draft leaves with its request"
    );
    refetch.assert_async().await;
    create.assert_async().await;
}

use crate::common::TodoResourceForUserParams as ForUser;

/// The todos of users 1 (milk and eggs) and 2 (none), fetched.
async fn lists_of_two_users(server: &mut mockito::ServerGuard, ctrl: &Controller) -> [ForUser; 2] {
    let _one = once(server.mock("GET", "/todos?userId=1"), 200, LIST).await;
    let _two = once(server.mock("GET", "/todos?userId=2"), 200, "[]").await;
    let users = [ForUser { user_id: 1 }, ForUser { user_id: 2 }];
    for params in &users {
        ctrl.fetch(&TodoResource::for_user(), params, None)
            .await
            .unwrap();
    }
    users
}

/// The titles of the todos of a user, as `ctrl` shows them.
fn listed(ctrl: &Controller, user: &ForUser) -> String {
    let read = ctrl.read(&TodoResource::for_user(), user);
    assert_eq!(read.status, ExpiryStatus::Valid);
    titles(&read.data.unwrap()).join(",")
}

/// Milk, moved optimistically to user 2 by a `PATCH` that fails after
/// `delay`.
fn move_milk_to_user_two(
    ctrl: &Controller,
) -> impl std::future::Future<Output = Result<Rc<Todo>, restcache::http::Error>> + '_ {
    let moved = Todo {
        user_id: 2,
        ..todo(1, "milk")
    };
    let body = Body::json(&serde_json::json!({"userId": 2})).unwrap();
    let (endpoint, id) = (TodoResource::partial_update(), one(1));
    async move {
        ctrl.fetch_optimistic(&endpoint, &id, Some(body), Rc::new(moved))
            .await
    }
}

#[tokio::test]
async fn an_optimistic_update_moves_a_record_between_filtered_lists_until_it_fails() {
    let (mut server, ctrl, _clock) = setup().await;
    let [first, second] = lists_of_two_users(&mut server, &ctrl).await;
    let patch = failing(server.mock("PATCH", "/todos/1"), Duration::from_millis(100))
        .create_async()
        .await;

    let mut request = Box::pin(move_milk_to_user_two(&ctrl));
    assert!(futures_util::poll!(&mut request).is_pending());
    let list = |params| listed(&ctrl, params);
    assert_eq!(
        (list(&first), list(&second)),
        ("eggs".into(), "milk".into())
    );
    assert!(request.await.is_err());
    assert_eq!(
        (list(&first), list(&second)),
        ("milk,eggs".into(), String::new()),
        "back where it was when the update fails"
    );
    patch.assert_async().await;
}

#[tokio::test]
async fn an_answer_landing_beneath_an_optimistic_move_does_not_list_the_record_twice() {
    let (mut server, ctrl, _clock) = setup().await;
    let [first, second] = lists_of_two_users(&mut server, &ctrl).await;
    let moving = failing(
        server
            .mock("PATCH", "/todos/1")
            .match_body(mockito::Matcher::PartialJson(
                serde_json::json!({"userId": 2}),
            )),
        Duration::from_millis(100),
    )
    .create_async()
    .await;
    let completing = server
        .mock("PATCH", "/todos/1")
        .match_body(mockito::Matcher::PartialJson(
            serde_json::json!({"completed": true}),
        ))
        .with_body(todo_json(1, "milk"))
        .expect(1)
        .create_async()
        .await;

    let mut moved = Box::pin(move_milk_to_user_two(&ctrl));
    assert!(futures_util::poll!(&mut moved).is_pending());
    // Another change to milk answers while the move is on show: milk,
    // still user 1's beneath it, stays where it is there.
    let body = Body::json(&serde_json::json!({"completed": true})).unwrap();
    ctrl.fetch(&TodoResource::partial_update(), &one(1), Some(body))
        .await
        .unwrap();
    assert_eq!(listed(&ctrl, &first), "eggs");
    assert!(moved.await.is_err());
    assert_eq!(
        (listed(&ctrl, &first), listed(&ctrl, &second)),
        ("milk,eggs".into(), String::new()),
        "once the move fails, milk shows once, where the server has it"
    );
    moving.assert_async().await;
    completing.assert_async().await;
}

/// Milk moved optimistically to user `to` by a `PATCH` the server
/// answers after `delay`.
async fn move_milk(
    server: &mut mockito::ServerGuard,
    ctrl: &Controller,
    to: u64,
    delay: Duration,
) -> (
    mockito::Mock,
    impl std::future::Future<Output = Result<Rc<Todo>, restcache::http::Error>> + use<>,
) {
    let moved = Todo {
        user_id: to,
        ..todo(1, "milk")
    };
    let answer = serde_json::to_string(&moved).unwrap();
    let mock = slowly(
        server
            .mock("PATCH", "/todos/1")
            .match_body(mockito::Matcher::PartialJson(
                serde_json::json!({"userId": to}),
            )),
        delay,
        answer,
    )
    .expect(1)
    .create_async()
    .await;
    let body = Body::json(&serde_json::json!({"userId": to})).unwrap();
    let (ctrl, endpoint, id) = (ctrl.clone(), TodoResource::partial_update(), one(1));
    let request = async move {
        ctrl.fetch_optimistic(&endpoint, &id, Some(body), Rc::new(moved))
            .await
    };
    (mock, request)
}

#[tokio::test]
async fn a_record_moved_and_moved_back_at_once_shows_in_one_list_once() {
    let (mut server, ctrl, _clock) = setup().await;
    let [first, second] = lists_of_two_users(&mut server, &ctrl).await;
    let (there, to_two) = move_milk(&mut server, &ctrl, 2, Duration::from_millis(100)).await;
    let (back, to_one) = move_milk(&mut server, &ctrl, 1, Duration::from_millis(250)).await;
    let (mut to_two, mut to_one) = (Box::pin(to_two), Box::pin(to_one));
    assert!(futures_util::poll!(&mut to_two).is_pending());
    assert!(futures_util::poll!(&mut to_one).is_pending());
    let lists = |ctrl: &Controller| (listed(ctrl, &first), listed(ctrl, &second));
    assert_eq!(
        lists(&ctrl),
        ("eggs,milk".into(), String::new()),
        "moved there and back (a double click): user 1's, once"
    );
    to_two.await.unwrap();
    assert_eq!(
        lists(&ctrl),
        ("eggs,milk".into(), String::new()),
        "the first answer lands beneath the second move"
    );
    to_one.await.unwrap();
    assert_eq!(lists(&ctrl), ("eggs,milk".into(), String::new()));
    there.assert_async().await;
    back.assert_async().await;
}

#[tokio::test]
async fn a_record_moved_back_while_its_first_move_fails_is_listed_once() {
    let (mut server, ctrl, _clock) = setup().await;
    let [first, second] = lists_of_two_users(&mut server, &ctrl).await;
    let there = failing(
        server
            .mock("PATCH", "/todos/1")
            .match_body(mockito::Matcher::PartialJson(
                serde_json::json!({"userId": 2}),
            )),
        Duration::from_millis(100),
    )
    .create_async()
    .await;
    let mut to_two = Box::pin(move_milk_to_user_two(&ctrl));
    assert!(futures_util::poll!(&mut to_two).is_pending());
    let (back, to_one) = move_milk(&mut server, &ctrl, 1, Duration::from_millis(250)).await;
    let mut to_one = Box::pin(to_one);
    assert!(futures_util::poll!(&mut to_one).is_pending());
    assert!(to_two.await.is_err());
    assert_eq!(
        (listed(&ctrl, &first), listed(&ctrl, &second)),
        ("milk,eggs".into(), String::new()),
        "the move back is made again over a list that holds milk: once"
    );
    to_one.await.unwrap();
    assert_eq!(
        (listed(&ctrl, &first), listed(&ctrl, &second)),
        ("milk,eggs".into(), String::new())
    );
    there.assert_async().await;
    back.assert_async().await;
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Note {
    id: String,
    text: String,
}

resource!(NoteResource {
    path: "/notes/:id",
    schema: Note
});

#[tokio::test]
async fn a_bad_response_under_a_layer_changes_nothing_beneath_it() {
    let (mut server, ctrl, _clock) = setup().await;
    let _list = once(
        server.mock("GET", "/notes"),
        200,
        r#"[{"id": "a", "text": "milk"}]"#,
    )
    .await;
    let get_list = NoteResource::get_list();
    ctrl.fetch(&get_list, &(), None).await.unwrap();
    // A refetch whose first record is fine and whose second has an empty
    // pk: the write stops halfway and is rolled back.
    let bad = once(
        server.mock("GET", "/notes"),
        200,
        r#"[{"id": "a", "text": "from a bad response"}, {"id": "", "text": "no pk"}]"#,
    )
    .await;
    let put = failing(server.mock("PUT", "/notes/a"), Duration::from_millis(100))
        .create_async()
        .await;

    let (update, params) = (
        NoteResource::update(),
        NoteResourceParams { id: "a".into() },
    );
    let guess = Note {
        id: "a".into(),
        text: "guess".into(),
    };
    let body = Body::json(&guess).unwrap();
    let request = ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(guess));
    let (failed, refetched) = tokio::join!(request, ctrl.fetch(&get_list, &(), None));
    assert!(
        refetched.is_err(),
        "the response has a record without its pk"
    );
    assert!(failed.is_err());
    let list = ctrl.read(&get_list, &()).data.unwrap();
    assert_eq!(list[0].text, "milk", "the confirmed copy is untouched");
    bad.assert_async().await;
    put.assert_async().await;
}

#[tokio::test]
async fn an_optimistic_write_dropped_before_its_end_takes_its_value_away() {
    let (_server, ctrl, _clock) = with_milk().await;
    let (update, params, guess) = (TodoResource::update(), one(1), todo(1, "guess"));
    let body = Body::json(&guess).unwrap();
    let request = ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(guess));
    let title = || {
        ctrl.read(&TodoResource::get(), &one(1))
            .data
            .unwrap()
            .title
            .clone()
    };
    assert_eq!(title(), "guess");
    drop(request); // never awaited: no request is made
    assert_eq!(title(), "milk", "no optimistic value outlives its request");
}

#[tokio::test]
async fn an_optimistic_write_dropped_while_the_cache_is_in_use_still_takes_its_value_away() {
    let (_server, ctrl, clock) = with_milk().await;
    let (update, params, guess) = (TodoResource::update(), one(1), todo(1, "guess"));
    let body = Body::json(&guess).unwrap();
    let request = ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(guess));
    // Dropped by code that runs while the store is borrowed.
    ctrl.with_store(move |_| drop(request));
    let title = ctrl.read(&TodoResource::get(), &one(1)).data.unwrap();
    assert_eq!(
        title.title, "milk",
        "no optimistic value outlives its request"
    );

    // Nothing holds todo 1 any more: collection is not blocked by a layer.
    clock.advance(Duration::from_secs(3600));
    assert_eq!(ctrl.collect_garbage().records, 1);
}

#[tokio::test]
async fn an_optimistic_write_dropped_after_its_request_went_out_sends_its_record_to_fetch_again() {
    let (mut server, ctrl, _clock) = with_milk().await;
    let _slow = slowly(
        server.mock("PUT", "/todos/1"),
        Duration::from_millis(500),
        todo_json(1, "guess"),
    )
    .create_async()
    .await;
    let events = Rc::new(std::cell::RefCell::new(Vec::new()));
    let heard = Rc::clone(&events);
    let _listening = ctrl.on_event(move |event, _| {
        let name = match event {
            restcache::Event::RequestStarted { .. } => "started",
            restcache::Event::RequestCancelled { .. } => "cancelled",
            restcache::Event::RequestFailed { .. } => "failed",
            _ => return,
        };
        heard.borrow_mut().push(name);
    });
    let (update, params, guess) = (TodoResource::update(), one(1), todo(1, "guess"));
    let body = Body::json(&guess).unwrap();
    let request = ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(guess));
    // Given up (a time limit of the app's own) once the request went out:
    // the server may apply it.
    let gave_up = tokio::time::timeout(Duration::from_millis(100), request).await;
    assert!(gave_up.is_err());
    let cached = ctrl.read(&TodoResource::get(), &one(1));
    assert_eq!(
        cached.status,
        ExpiryStatus::Invalid,
        "fetched again before shown"
    );
    assert_eq!(*events.borrow(), ["started", "cancelled"]);
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Author {
    id: u64,
    name: String,
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Article {
    id: u64,
    title: String,
    #[entity(nested)]
    author: Rc<Author>,
}

resource!(ArticleResource {
    path: "/articles/:id",
    schema: Article
});

#[tokio::test]
async fn an_optimistic_value_does_not_hide_news_of_a_nested_record_it_left_as_is() {
    let (mut server, ctrl, _clock) = setup().await;
    let _get = once(
        server.mock("GET", "/articles/1"),
        200,
        r#"{"id": 1, "title": "a", "author": {"id": 9, "name": "Ada"}}"#,
    )
    .await;
    let params = ArticleResourceParams { id: 1 };
    let article = ctrl
        .fetch(&ArticleResource::get(), &params, None)
        .await
        .unwrap();
    let _put = once_after(
        server.mock("PUT", "/articles/1"),
        Duration::from_millis(50),
        r#"{"id": 1, "title": "b", "author": {"id": 9, "name": "Ada L."}}"#.to_owned(),
    )
    .await;
    let renamed = Article {
        title: "b".into(),
        ..(*article).clone()
    };
    let body = Body::json(&renamed).unwrap();
    let update = ArticleResource::update();
    let request = ctrl.fetch_optimistic(&update, &params, Some(body), Rc::new(renamed));
    let shown = ctrl.read(&ArticleResource::get(), &params).data.unwrap();
    assert_eq!(shown.title, "b", "the optimistic value is on show");

    // News of the author comes while the PUT is on its way.
    let news = Author {
        id: 9,
        name: "Ada L.".into(),
    };
    ctrl.set_entity(news, ctrl.write_time()).unwrap();
    let author = ctrl
        .with_store(|store| store.get_entity::<Author>(9u64).into_value())
        .unwrap();
    assert_eq!(
        author.name, "Ada L.",
        "the optimistic value left the author as is"
    );
    let shown = ctrl.read(&ArticleResource::get(), &params).data.unwrap();
    assert_eq!(
        (shown.title.as_str(), shown.author.name.as_str()),
        ("b", "Ada L.")
    );
    request.await.unwrap();
}

#[tokio::test]
async fn a_second_optimistic_write_of_the_same_value_stays_when_the_first_fails() {
    let (mut server, ctrl, _clock) = with_milk().await;
    // A double save: the same value twice; the first fails, the second
    // answers later.
    let first = failing(
        server
            .mock("PUT", "/todos/1")
            .match_body(mockito::Matcher::Regex("\"save\":1".into())),
        Duration::from_millis(50),
    )
    .create_async()
    .await;
    let second = once_after(
        server
            .mock("PUT", "/todos/1")
            .match_body(mockito::Matcher::Regex("\"save\":2".into())),
        Duration::from_millis(200),
        todo_json(1, "twice, saved"),
    )
    .await;
    let (update, params) = (TodoResource::update(), one(1));
    let body =
        |save: u32| Body::json(&serde_json::json!({"title": "twice", "save": save})).unwrap();
    let first_request =
        ctrl.fetch_optimistic(&update, &params, Some(body(1)), Rc::new(todo(1, "twice")));
    let second_request =
        ctrl.fetch_optimistic(&update, &params, Some(body(2)), Rc::new(todo(1, "twice")));
    let title = || {
        ctrl.read(&TodoResource::get(), &one(1))
            .data
            .unwrap()
            .title
            .clone()
    };
    let mut second_request = Box::pin(second_request);
    assert!(futures_util::poll!(&mut second_request).is_pending());
    let failed = first_request.await;
    let after_failure = title();
    let saved = second_request.await;
    assert!(failed.is_err());
    assert_eq!(
        after_failure, "twice",
        "the second write is still on its way"
    );
    assert_eq!(saved.unwrap().title, "twice, saved");
    first.assert_async().await;
    second.assert_async().await;
}
