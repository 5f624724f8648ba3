//! Live streams against the demo API's real server-sent events and
//! websocket routes: a record pushed over either shows in a cached list
//! with no request; a dropped connection comes back, resumes, and loses
//! nothing; the last holder to let go closes the connection; a message
//! older than what is stored does not win; offline pauses and coming
//! back catches up.

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use restcache::http::Method;
use restcache::live::{Live, StreamStatus};
use restcache::prelude::*;
use restcache::{Event, Timestamp};
use restcache_demo::DemoApi;
use serde_json::json;
use tokio::task::LocalSet;

use crate::common::{Todo, TodoResource, reading_todos};

/// A wait long enough for anything on loopback; only a broken stream
/// reaches it.
const PATIENCE: Duration = Duration::from_secs(20);

/// Waits until `done` holds, checking as the loopback answers.
pub(super) async fn eventually(what: &str, done: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !done() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

pub(super) fn sse() -> Live {
    Live::sse("/events")
        .entity::<Todo>()
        .retry(Duration::from_millis(100), Duration::from_secs(1))
}

/// The demo's websocket subscribes with `{"since": id}`.
pub(super) fn websocket() -> Live {
    Live::websocket("/socket")
        .entity::<Todo>()
        .on_open(|last_id| Some(json!({ "since": last_id }).to_string()))
        .retry(Duration::from_millis(100), Duration::from_secs(1))
}

/// Changes todo `id`'s title from another client, as another user would.
async fn rename_elsewhere(api: &DemoApi, id: u64, title: &str) {
    let body = Body::json(&json!({ "title": title })).unwrap();
    let url = format!("/todos/{id}");
    Client::new(api.url())
        .request(Method::Patch, &url, Some(body))
        .await
        .unwrap();
}

/// Renames todo `id` elsewhere and waits until `ctrl`'s list shows it,
/// pushed.
async fn see_pushed(api: &DemoApi, ctrl: &Controller, id: u64, title: &str) {
    rename_elsewhere(api, id, title).await;
    eventually("the pushed title shows", || {
        title_of(ctrl, id).as_deref() == Some(title)
    })
    .await;
}

fn title_of(ctrl: &Controller, id: u64) -> Option<String> {
    let list = ctrl.read(&TodoResource::get_list(), &()).data?;
    let todo = list.iter().find(|todo| todo.id == id)?;
    Some(todo.title.clone())
}

pub(super) async fn in_local_set<F: Future>(test: F) -> F::Output {
    LocalSet::new().run_until(test).await
}

/// The attempts of every `Retrying` status `ctrl`'s streams report, as
/// they come, while the listener lives.
fn retry_attempts(ctrl: &Controller) -> (Rc<RefCell<Vec<u32>>>, restcache::EventListener) {
    let attempts = Rc::new(RefCell::new(Vec::new()));
    let heard = Rc::clone(&attempts);
    let listener = ctrl.on_event(move |event, _| {
        if let Event::StreamChanged {
            status: StreamStatus::Retrying { attempt },
            ..
        } = event
        {
            heard.borrow_mut().push(*attempt);
        }
    });
    (attempts, listener)
}

pub(super) async fn open_and_wait(ctrl: &Controller, live: &Live) -> restcache::live::StreamHold {
    let hold = ctrl.open_stream(live);
    eventually("the stream opens", || {
        ctrl.stream_status(live) == Some(StreamStatus::Open)
    })
    .await;
    hold
}

async fn pushed_records_show_with_no_request(live: Live) {
    let (api, ctrl) = reading_todos().await;
    let _hold = open_and_wait(&ctrl, &live).await;
    eventually("the server has it subscribed", || api.streams_open() == 1).await;

    see_pushed(&api, &ctrl, 3, "pushed").await;
    Client::new(api.url())
        .request(Method::Delete, "/todos/2", None)
        .await
        .unwrap();
    eventually("the pushed delete shows", || title_of(&ctrl, 2).is_none()).await;
    assert_eq!(api.hits("GET /todos"), 1, "no request but the first");
}

#[tokio::test]
async fn a_record_pushed_over_server_sent_events_shows_in_a_cached_list() {
    in_local_set(pushed_records_show_with_no_request(sse())).await;
}

#[tokio::test]
async fn a_record_pushed_over_a_websocket_shows_in_a_cached_list() {
    in_local_set(pushed_records_show_with_no_request(websocket())).await;
}

#[tokio::test]
async fn server_sent_events_with_an_opening_message_still_connect() {
    // An app that shares one stream declaration between both protocols:
    // events read no opening message (they resume by `Last-Event-ID`).
    let live = sse().on_open(|last_id| Some(json!({ "since": last_id }).to_string()));
    in_local_set(pushed_records_show_with_no_request(live)).await;
}

async fn drops_reconnect_and_lose_nothing(live: Live) {
    let live = live.retry(Duration::from_millis(300), Duration::from_secs(1));
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let statuses = Rc::new(RefCell::new(Vec::new()));
    let heard = Rc::clone(&statuses);
    let _listener = ctrl.on_event(move |event, _| {
        if let Event::StreamChanged { status, .. } = event {
            heard.borrow_mut().push(*status);
        }
    });
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    let _hold = open_and_wait(&ctrl, &live).await;
    eventually("the server has it subscribed", || api.streams_open() == 1).await;
    // A message first, so that the stream has an id to resume from.
    see_pushed(&api, &ctrl, 1, "before the drop").await;

    api.drop_streams();
    eventually("the client sees the drop", || {
        ctrl.stream_status(&live) == Some(StreamStatus::Retrying { attempt: 1 })
    })
    .await;
    // Made while the client waits to reconnect (at least 150 ms).
    see_pushed(&api, &ctrl, 4, "during the drop").await;
    assert_eq!(api.streams_resumed(), 1, "it resumed from its last id");
    eventually("one connection again", || api.streams_open() == 1).await;
    assert_eq!(api.hits("GET /todos"), 1, "resumed, not refetched");
    let statuses = statuses.borrow();
    assert!(
        statuses.ends_with(&[
            StreamStatus::Retrying { attempt: 1 },
            StreamStatus::Connecting,
            StreamStatus::Open
        ]),
        "{statuses:?}"
    );
}

#[tokio::test]
async fn a_dropped_event_stream_reconnects_resumes_and_loses_nothing() {
    in_local_set(drops_reconnect_and_lose_nothing(sse())).await;
}

#[tokio::test]
async fn a_dropped_websocket_reconnects_resumes_and_loses_nothing() {
    in_local_set(drops_reconnect_and_lose_nothing(websocket())).await;
}

#[tokio::test]
async fn holders_share_one_connection_and_the_last_to_leave_closes_it() {
    in_local_set(async {
        let api = DemoApi::start().unwrap();
        let ctrl = Controller::new(Client::new(api.url()));
        let live = sse();
        let first = open_and_wait(&ctrl, &live).await;
        let second = ctrl.open_stream(&live);
        let ws = open_and_wait(&ctrl, &websocket()).await;
        eventually("one connection per stream", || api.streams_open() == 2).await;
        drop(first);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(api.streams_open(), 2, "a holder is left");
        assert_eq!(ctrl.stream_status(&live), Some(StreamStatus::Open));
        drop(second);
        drop(ws);
        assert_eq!(ctrl.stream_status(&live), None);
        eventually("the server sees both closed", || api.streams_open() == 0).await;
    })
    .await;
}

#[tokio::test]
async fn a_message_older_than_the_stored_record_does_not_win() {
    in_local_set(async {
        let api = DemoApi::start().unwrap();
        let ctrl = Controller::new(Client::new(api.url()));
        let before = Timestamp::now();
        ctrl.fetch(&TodoResource::get_list(), &(), None)
            .await
            .unwrap();
        let _hold = open_and_wait(&ctrl, &sse()).await;
        let millis = |at: Timestamp| at.as_micros() as f64 / 1_000.0;
        // Made before the list was fetched (replayed late, say): it loses.
        api.publish(json!({
            "entity": "Todo", "op": "set", "at": millis(before) - 1_000.0,
            "data": {"id": 1, "userId": 1, "title": "old news", "completed": false},
        }));
        // Then a newer one about another todo, to know the first was read.
        api.publish(json!({
            "entity": "Todo", "op": "set", "at": millis(Timestamp::now()),
            "data": {"id": 2, "userId": 1, "title": "news", "completed": false},
        }));
        eventually("the newer message shows", || {
            title_of(&ctrl, 2).as_deref() == Some("news")
        })
        .await;
        assert_eq!(title_of(&ctrl, 1).as_deref(), Some("delectus aut autem"));
    })
    .await;
}

#[tokio::test]
async fn a_quiet_stream_the_server_closes_now_and_then_reconnects_at_once_each_time() {
    in_local_set(async {
        // Closed after a while with no message, as a proxy closes an idle
        // connection: each time it is the first retry again.
        let live = sse().retry(Duration::from_millis(50), Duration::from_millis(200));
        let api = DemoApi::start().unwrap();
        let ctrl = Controller::new(Client::new(api.url()));
        let (statuses, _listener) = retry_attempts(&ctrl);
        let _hold = open_and_wait(&ctrl, &live).await;
        for round in 1..=3 {
            eventually("the server has it", || api.streams_open() == 1).await;
            // Open longer than the longest wait between attempts.
            tokio::time::sleep(Duration::from_millis(300)).await;
            api.drop_streams();
            eventually("the client sees the drop", || {
                statuses.borrow().len() == round
            })
            .await;
        }
        assert_eq!(*statuses.borrow(), [1, 1, 1]);
    })
    .await;
}

#[tokio::test]
async fn a_message_with_some_fields_merges_into_the_stored_record() {
    in_local_set(async {
        let api = DemoApi::start().unwrap();
        let ctrl = Controller::new(Client::new(api.url()));
        ctrl.fetch(&TodoResource::get_list(), &(), None)
            .await
            .unwrap();
        let _hold = open_and_wait(&ctrl, &sse()).await;
        // The server pushes what changed, as a PATCH answer may.
        api.publish(json!({"entity": "Todo", "op": "set", "data": {"id": 4, "title": "renamed"}}));
        eventually("the push shows", || {
            title_of(&ctrl, 4).as_deref() == Some("renamed")
        })
        .await;
        let four = ctrl.with_store(|store| store.get_entity::<Todo>(4u64).value().cloned());
        let four = four.unwrap();
        assert_eq!((four.user_id, four.completed), (2, true), "kept: {four:?}");
    })
    .await;
}

#[tokio::test]
async fn a_message_not_understood_is_reported_and_the_stream_goes_on() {
    in_local_set(async {
        let (api, ctrl) = reading_todos().await;
        let errors = Rc::new(RefCell::new(Vec::new()));
        let heard = Rc::clone(&errors);
        let _listener = ctrl.on_event(move |event, _| {
            if let Event::StreamError { message, .. } = event {
                heard.borrow_mut().push(message.clone());
            }
        });
        let _hold = open_and_wait(&ctrl, &sse()).await;
        api.publish(json!({"entity": "Todo", "op": "set", "data": {"id": "seven"}}));
        see_pushed(&api, &ctrl, 3, "after the bad one").await;
        let errors = errors.borrow();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("a `set` of Todo"), "{}", errors[0]);
    })
    .await;
}

#[tokio::test]
async fn offline_closes_the_stream_and_coming_back_resumes_and_catches_up() {
    in_local_set(async {
        let (api, ctrl) = reading_todos().await;
        let live = sse();
        let _hold = open_and_wait(&ctrl, &live).await;
        see_pushed(&api, &ctrl, 1, "seen live").await;

        ctrl.set_online(false);
        eventually("the stream pauses", || {
            ctrl.stream_status(&live) == Some(StreamStatus::Paused)
        })
        .await;
        eventually("the server sees it closed", || api.streams_open() == 0).await;
        rename_elsewhere(&api, 5, "while offline").await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(
            title_of(&ctrl, 5).as_deref(),
            Some("laboriosam mollitia et enim quasi")
        );

        ctrl.set_online(true);
        eventually("the change made while offline shows", || {
            title_of(&ctrl, 5).as_deref() == Some("while offline")
        })
        .await;
        assert_eq!(api.streams_resumed(), 1);
        assert_eq!(ctrl.stream_status(&live), Some(StreamStatus::Open));
    })
    .await;
}

#[tokio::test]
async fn a_server_that_cannot_resume_has_what_views_show_refetched() {
    in_local_set(async {
        let api = DemoApi::start().unwrap();
        let ctrl = Controller::new(Client::new(api.url()));
        // Subscribes from now on each connect: nothing is replayed.
        let live = Live::websocket("/socket")
            .entity::<Todo>()
            .on_open(|_| Some(json!({ "since": null }).to_string()))
            .expire_on_reconnect(|key| key.ends_with("/todos"))
            .retry(Duration::from_millis(100), Duration::from_secs(1));
        let mut view =
            restcache::ReadObserver::new(&ctrl, restcache::Observe::new().changes().revalidate());
        view.set(&TodoResource::get_list(), &());
        view.subscribe(|| {});
        ctrl.fetch(&TodoResource::get_list(), &(), None)
            .await
            .unwrap();
        let _hold = open_and_wait(&ctrl, &live).await;
        eventually("the server has it subscribed", || api.streams_open() == 1).await;
        ctrl.set_online(false);
        eventually("the server sees it closed", || api.streams_open() == 0).await;
        rename_elsewhere(&api, 5, "while offline").await;
        ctrl.set_online(true);
        eventually("the view's list is refetched", || {
            title_of(&ctrl, 5).as_deref() == Some("while offline")
        })
        .await;
        assert_eq!(api.hits("GET /todos"), 2);
    })
    .await;
}

#[tokio::test]
async fn a_graphql_mutation_elsewhere_reaches_a_cached_rest_list_over_a_websocket() {
    in_local_set(async {
        let (api, ctrl) = reading_todos().await;
        let _hold = open_and_wait(&ctrl, &websocket()).await;
        eventually("the server has it subscribed", || api.streams_open() == 1).await;
        // Another user, through GraphQL.
        let mutation = json!({
            "query": "mutation { updateTodo(id: 2, title: \"through GraphQL\") { id } }",
        });
        Client::new(api.url())
            .request(Method::Post, "/graphql", Some(Body::from(mutation)))
            .await
            .unwrap();
        eventually("the REST list shows it", || {
            title_of(&ctrl, 2).as_deref() == Some("through GraphQL")
        })
        .await;
        assert_eq!(api.hits("GET /todos"), 1);
    })
    .await;
}

#[tokio::test]
async fn a_stream_opened_again_resumes_where_it_stopped() {
    in_local_set(async {
        let (api, ctrl) = reading_todos().await;
        let live = sse();
        let hold = open_and_wait(&ctrl, &live).await;
        see_pushed(&api, &ctrl, 1, "seen live").await;
        // The last view leaves (a route change), and another comes.
        drop(hold);
        eventually("the server sees it closed", || api.streams_open() == 0).await;
        rename_elsewhere(&api, 2, "while no one listened").await;
        let _hold = open_and_wait(&ctrl, &live).await;
        eventually("the change made meanwhile shows", || {
            title_of(&ctrl, 2).as_deref() == Some("while no one listened")
        })
        .await;
        assert_eq!(api.streams_resumed(), 1);
        assert_eq!(api.hits("GET /todos"), 1, "resumed, not refetched");
    })
    .await;
}

#[test]
fn standard_messages_go_to_the_cache_and_the_rest_to_the_handler() {
    use std::cell::Cell;

    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    ctrl.set_response(&TodoResource::get_list(), &(), vec![])
        .unwrap();
    let handled = Rc::new(Cell::new(0));
    let seen = Rc::clone(&handled);
    let live = sse().on_message(move |message, _| {
        seen.set(seen.get() + 1);
        match message.data().starts_with("{\"ping\"") {
            true => Ok(()),
            false => Err("not a ping".into()),
        }
    });
    let message = |text: &str| restcache::live::Message::new(text, ctrl.write_time());
    let set = r#"{"entity": "Todo", "op": "set", "data": {"id": 9, "userId": 1, "title": "nine", "completed": false}}"#;
    assert_eq!(live.apply(&ctrl, &message(set)), Ok(()));
    assert_eq!(handled.get(), 0, "a standard message is not the handler's");
    assert_eq!(live.apply(&ctrl, &message(r#"{"ping": 1}"#)), Ok(()));
    assert_eq!(
        live.apply(&ctrl, &message("hello")),
        Err("not a ping".into())
    );
    let other = r#"{"entity": "User", "op": "delete", "pk": 1}"#;
    assert_eq!(live.apply(&ctrl, &message(other)), Err("not a ping".into()));
    assert_eq!(handled.get(), 3);
    let refused = r#"{"entity": "Todo", "op": "set", "data": {"id": "nine"}}"#;
    assert!(live.apply(&ctrl, &message(refused)).is_err());
    assert_eq!(
        handled.get(),
        3,
        "a refused standard message is reported, not handed on"
    );

    let without_handler = sse();
    assert!(without_handler.apply(&ctrl, &message("hello")).is_err());
    assert_eq!(without_handler.apply(&ctrl, &message(other)), Ok(()));
}

#[derive(yew::Properties, PartialEq, Clone)]
struct NoProps {}

/// A server-rendered view that keeps a stream open.
#[yew::component]
fn LiveTitles(_: &NoProps) -> yew::HtmlResult {
    let status = restcache::yew::use_stream(&sse());
    let todos = restcache::yew::use_suspense(&TodoResource::get_list(), ())?;
    Ok(yew::html! {
        <p>{ format!("{status:?}: {}", todos[0].title) }</p>
    })
}

#[tokio::test]
async fn a_server_render_opens_no_stream() {
    in_local_set(async {
        let api = DemoApi::start().unwrap();
        let ctrl = Controller::new(Client::new(api.url()));
        let html = restcache::testing::render::<LiveTitles>(&ctrl, NoProps {})
            .await
            .unwrap();
        assert_eq!(html, "<p>Connecting: delectus aut autem</p>");
        assert_eq!(ctrl.stream_status(&sse()), None);
        assert_eq!(api.hits("GET /events"), 0);
    })
    .await;
}

#[tokio::test]
async fn an_answer_that_is_no_event_stream_is_no_open_stream() {
    in_local_set(async {
        let (mut server, client) = crate::common::mock::server().await;
        let no_content = server
            .mock("GET", "/events")
            .with_status(204)
            .expect_at_least(2)
            .create_async()
            .await;
        let ctrl = Controller::new(client);
        let seen = Rc::new(RefCell::new(Vec::new()));
        let heard = Rc::clone(&seen);
        let _listener = ctrl.on_event(move |event, _| match event {
            Event::StreamChanged { status, .. } => heard.borrow_mut().push(format!("{status:?}")),
            Event::StreamError { message, .. } => heard.borrow_mut().push(message.clone()),
            _ => {}
        });
        let live = sse().retry(Duration::from_millis(20), Duration::from_millis(40));
        let _hold = ctrl.open_stream(&live);
        eventually("a second try", || {
            seen.borrow().iter().any(|s| s.contains("attempt: 2"))
        })
        .await;
        let seen = seen.borrow().clone();
        assert!(!seen.iter().any(|s| s == "Open"), "{seen:?}");
        assert!(seen.iter().any(|s| s.contains("204")), "{seen:?}");
        no_content.assert_async().await;
    })
    .await;
}

#[tokio::test]
async fn a_connection_that_worked_starts_the_waits_over_after_a_pause() {
    in_local_set(async {
        let api = DemoApi::start().unwrap();
        let ctrl = Controller::new(restcache::http::Client::new(api.url()));
        let (attempts, _listener) = retry_attempts(&ctrl);
        let live = sse().retry(Duration::from_millis(10), Duration::from_millis(20));
        // An outage: the waits grow with each failed attempt.
        api.set_outage(true);
        let _hold = ctrl.open_stream(&live);
        eventually("three failed attempts", || attempts.borrow().len() >= 3).await;
        api.set_outage(false);
        eventually("open", || {
            ctrl.stream_status(&live) == Some(StreamStatus::Open)
        })
        .await;
        // Open longer than the longest wait: it worked.
        tokio::time::sleep(Duration::from_millis(60)).await;

        // It worked; the page goes offline and comes back to a server
        // that fails once more.
        ctrl.set_online(false);
        eventually("paused", || {
            ctrl.stream_status(&live) == Some(StreamStatus::Paused)
        })
        .await;
        api.set_outage(true);
        attempts.borrow_mut().clear();
        ctrl.set_online(true);
        eventually("a failed attempt", || !attempts.borrow().is_empty()).await;
        assert_eq!(
            attempts.borrow()[0],
            1,
            "the first wait again, not the outage's"
        );
        api.set_outage(false);
    })
    .await;
}

#[tokio::test]
async fn a_message_with_some_fields_of_a_record_not_held_waits_for_a_fetch() {
    let (mut server, client) = crate::common::mock::server().await;
    // The list was answered before todo 1 was completed elsewhere.
    let list = crate::common::mock::slowly(
        server.mock("GET", "/todos"),
        Duration::from_millis(150),
        r#"[{"id": 1, "userId": 1, "title": "milk", "completed": false}]"#,
    )
    .expect(1)
    .create_async()
    .await;
    let ctrl = Controller::new(client);
    let all = TodoResource::get_list();
    let mut loading = Box::pin(ctrl.fetch(&all, &(), None));
    assert!(futures_util::poll!(&mut loading).is_pending());
    let pushed = r#"{"entity": "Todo", "op": "set", "data": {"id": 1, "completed": true}}"#;
    let message = restcache::live::Message::new(pushed, ctrl.write_time());
    assert_eq!(sse().apply(&ctrl, &message), Ok(()));
    loading.await.unwrap();
    let shown = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(
        shown[0].title, "milk",
        "no record of blank fields: the message had nothing to fill them from"
    );
    list.assert_async().await;
}

/// A log-out (a reset) ends the stream's connection, made in the last
/// session's name: it connects again, afresh (not resuming from the last
/// session's place), and what it pushes then shows.
async fn a_reset_reconnects_afresh(live: Live, route: &str) {
    let (api, ctrl) = reading_todos().await;
    let _hold = open_and_wait(&ctrl, &live).await;
    eventually("the server has it subscribed", || api.streams_open() == 1).await;
    see_pushed(&api, &ctrl, 1, "before the log-out").await;
    let connections = api.hits(route);
    ctrl.reset();
    eventually("a connection in the new session's name", || {
        api.hits(route) == connections + 1 && api.streams_open() == 1
    })
    .await;
    assert_eq!(
        api.streams_resumed(),
        0,
        "not from the last session's place"
    );
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    see_pushed(&api, &ctrl, 2, "after the log-in").await;
}

#[tokio::test]
async fn a_reset_reconnects_server_sent_events_afresh() {
    in_local_set(a_reset_reconnects_afresh(sse(), "GET /events")).await;
}

#[tokio::test]
async fn a_reset_reconnects_a_websocket_afresh() {
    in_local_set(a_reset_reconnects_afresh(websocket(), "GET /socket")).await;
}

/// A server on 127.0.0.1 that answers every connection with one message
/// no stream here understands, then closes it; its base URL.
async fn one_refusal_a_connection() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut request = [0_u8; 4096];
            let _ = socket.read(&mut request).await;
            let answer = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                          connection: close\r\n\r\ndata: {\"error\": \"signed out\"}\n\n";
            let _ = socket.write_all(answer.as_bytes()).await;
        }
    });
    url
}

#[tokio::test]
async fn a_stream_whose_every_connection_fails_its_message_waits_longer_each_time() {
    in_local_set(async {
        let live = sse().retry(Duration::from_millis(20), Duration::from_secs(1));
        let ctrl = Controller::new(Client::new(one_refusal_a_connection().await));
        let (attempts, _listener) = retry_attempts(&ctrl);
        let _hold = ctrl.open_stream(&live);
        eventually("three retries", || attempts.borrow().len() >= 3).await;
        assert_eq!(attempts.borrow()[..3], [1, 2, 3], "the waits grow");
    })
    .await;
}
