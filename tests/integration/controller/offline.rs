//! Mutations while offline, against the demo API: they wait with their
//! optimistic values on show and no request, go in order once the
//! network is back, a hard error on replay takes its value back with an
//! error the app can show, and one given up leaves the queue.

use std::rc::Rc;

use futures_util::future::join;
use restcache::Event;
use restcache::http::ErrorKind;
use restcache::prelude::*;
use serde_json::json;
use tokio::task::LocalSet;

use crate::common::{Todo, TodoResource, TodoResourceParams, reading_todos};

fn rename(title: &str) -> Option<Body> {
    Some(Body::json(&json!({ "title": title })).unwrap())
}

fn renamed(id: u64, title: &str) -> Rc<Todo> {
    Rc::new(Todo {
        id,
        user_id: 1,
        title: title.into(),
        completed: false,
    })
}

fn title(ctrl: &Controller, id: u64) -> String {
    let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    list.iter()
        .find(|todo| todo.id == id)
        .unwrap()
        .title
        .clone()
}

#[tokio::test]
async fn mutations_made_offline_show_at_once_and_go_in_order_when_back() {
    LocalSet::new()
        .run_until(async {
            let (api, ctrl) = reading_todos().await;
            let queued = Rc::new(std::cell::Cell::new(0));
            let seen = Rc::clone(&queued);
            let _listener = ctrl.on_event(move |event, _| {
                if let Event::MutationQueued { .. } = event {
                    seen.set(seen.get() + 1);
                }
            });

            ctrl.set_online(false);
            let (update, one) = (TodoResource::partial_update(), TodoResourceParams { id: 1 });
            let first = ctrl.fetch_optimistic(&update, &one, rename("first"), renamed(1, "first"));
            let second =
                ctrl.fetch_optimistic(&update, &one, rename("second"), renamed(1, "second"));
            let back_online = async {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                assert_eq!(title(&ctrl, 1), "second", "on show while offline");
                assert_eq!(ctrl.queued_mutations(), 2);
                assert_eq!(queued.get(), 2);
                assert_eq!(api.hits("PATCH /todos/1"), 0, "nothing sent");
                ctrl.set_online(true);
            };
            let ((first, second), ()) = join(join(first, second), back_online).await;
            assert_eq!(first.unwrap().title, "first");
            assert_eq!(second.unwrap().title, "second");
            assert_eq!(api.hits("PATCH /todos/1"), 2);
            assert_eq!(api.records("todos")[0]["title"], "second", "sent in order");
            assert_eq!(title(&ctrl, 1), "second");
            assert_eq!(ctrl.queued_mutations(), 0);
        })
        .await;
}

#[tokio::test]
async fn a_hard_error_on_replay_takes_the_value_back_and_says_why() {
    LocalSet::new()
        .run_until(async {
            let (api, ctrl) = reading_todos().await;
            ctrl.set_online(false);
            // Deleted on the server meanwhile, by someone else.
            Client::new(api.url())
                .request(restcache::http::Method::Delete, "/todos/2", None)
                .await
                .unwrap();
            let update = TodoResource::partial_update();
            let (two, three) = (TodoResourceParams { id: 2 }, TodoResourceParams { id: 3 });
            let renaming =
                ctrl.fetch_optimistic(&update, &two, rename("too late"), renamed(2, "too late"));
            let after = ctrl.fetch_optimistic(
                &update,
                &three,
                rename("still saved"),
                renamed(3, "still saved"),
            );
            let back_online = async {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                assert_eq!(title(&ctrl, 2), "too late");
                ctrl.set_online(true);
            };
            let ((renaming, after), ()) = join(join(renaming, after), back_online).await;
            let error = renaming.unwrap_err();
            assert_eq!(error.status(), Some(404));
            assert!(matches!(error.kind(), ErrorKind::Status));
            assert!(!error.is_soft(), "hard: the app shows it");
            assert_eq!(
                title(&ctrl, 2),
                "quis ut nam facilis et officia qui",
                "taken back"
            );
            assert_eq!(after.unwrap().title, "still saved", "the next one went");
        })
        .await;
}

#[tokio::test]
async fn a_queued_mutation_given_up_leaves_the_queue() {
    LocalSet::new()
        .run_until(async {
            let (api, ctrl) = reading_todos().await;
            ctrl.set_online(false);
            let update = TodoResource::partial_update();
            let (one, three) = (TodoResourceParams { id: 1 }, TodoResourceParams { id: 3 });
            let given_up = ctrl.fetch(&update, &one, rename("given up"));
            let waited = tokio::time::timeout(std::time::Duration::from_millis(20), given_up).await;
            assert!(waited.is_err(), "it waited for the network");
            assert_eq!(
                ctrl.queued_mutations(),
                0,
                "and left the queue when dropped"
            );

            let kept = ctrl.fetch(&update, &three, rename("kept"));
            let back_online = async {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                assert_eq!(ctrl.queued_mutations(), 1);
                ctrl.set_online(true);
            };
            let (kept, ()) = join(kept, back_online).await;
            assert_eq!(kept.unwrap().title, "kept");
            assert_eq!(api.hits("PATCH /todos/1"), 0);
        })
        .await;
}

#[tokio::test]
async fn a_read_made_offline_waits_for_the_network_instead_of_failing() {
    LocalSet::new()
        .run_until(async {
            let (api, ctrl) = reading_todos().await;
            ctrl.set_online(false);
            let detail = TodoResource::get();
            let three = TodoResourceParams { id: 3 };
            let read = ctrl.fetch(&detail, &three, None);
            let back_online = async {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                assert_eq!(api.hits("GET /todos/3"), 0, "nothing sent while offline");
                assert!(
                    ctrl.read(&TodoResource::get_list(), &()).data.is_some(),
                    "the cache stays on show"
                );
                ctrl.set_online(true);
            };
            let (read, ()) = join(read, back_online).await;
            assert_eq!(read.unwrap().title, "fugiat veniam minus");
            assert_eq!(api.hits("GET /todos/3"), 1);
        })
        .await;
}
