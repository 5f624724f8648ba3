//! Mutations while offline, against the demo API: they wait with their
//! optimistic values on show and no request, go in order once the
//! network is back, a hard error on replay takes its value back with an
//! error the app can show, and one given up leaves the queue.

use std::rc::Rc;

use futures_util::future::join;
use restcache::Event;
use restcache::http::ErrorKind;
use restcache::prelude::*;
use restcache_demo::DemoApi;
use serde_json::json;
use tokio::task::LocalSet;

use crate::common::{Todo, TodoResource, TodoResourceParams, reading_todos, until};

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

#[tokio::test]
async fn a_queued_mutation_that_finds_no_server_stays_queued_and_goes_once_it_is_back() {
    LocalSet::new()
        .run_until(async {
            let (api, ctrl) = reading_todos().await;
            let port: u16 = api.url().rsplit(':').next().unwrap().parse().unwrap();
            let storage = restcache::persist::MemoryStorage::new();
            let update = TodoResource::partial_update();
            let saving = restcache::persist::Persist::new("todos")
                .entity::<Todo>()
                .throttle(std::time::Duration::ZERO)
                .mutation(&update)
                .to(storage.clone());
            let link = ctrl.persist(&saving);
            let unsent = Rc::new(std::cell::RefCell::new(Vec::new()));
            let seen = Rc::clone(&unsent);
            let _listener = ctrl.on_event(move |event, _| {
                if let Event::MutationUnsent { key, error } = event {
                    seen.borrow_mut().push((key.clone(), error.kind().clone()));
                }
            });
            // The server goes away: the browser still says online.
            drop(api);

            ctrl.set_online(false);
            let one = TodoResourceParams { id: 1 };
            let three = TodoResourceParams { id: 3 };
            let first = ctrl.fetch_optimistic(&update, &one, rename("kept"), renamed(1, "kept"));
            let second = ctrl.fetch_optimistic(&update, &three, rename("next"), renamed(3, "next"));
            let server_back = async {
                tokio::task::yield_now().await;
                ctrl.set_online(true);
                until(|| !unsent.borrow().is_empty()).await;
                let (key, kind) = unsent.borrow()[0].clone();
                assert!(key.starts_with("PATCH "), "{key}");
                assert!(matches!(kind, ErrorKind::Network(_)), "{kind:?}");
                assert_eq!(title(&ctrl, 1), "kept", "still on show");
                assert_eq!(title(&ctrl, 3), "next");
                assert_eq!(ctrl.queued_mutations(), 2, "both still queued");

                // A reload now would still send both: both are saved.
                // (Another tab that loads now leaves them to this one,
                // which holds them.)
                use restcache::persist::CacheStorage;
                let saved: serde_json::Value =
                    serde_json::from_str(&storage.load("todos").unwrap()).unwrap();
                assert_eq!(
                    saved["mutations"].as_array().unwrap().len(),
                    2,
                    "still saved"
                );
                let other_tab = Controller::new(Client::new("http://127.0.0.1:9"));
                other_tab.set_online(false);
                let other_link = other_tab.persist(&saving);
                assert_eq!(other_link.restored().mutations, 0, "held by this tab");
                drop(other_link);

                DemoApi::start_on(port).unwrap()
            };
            let ((first, second), api) = join(join(first, second), server_back).await;
            assert_eq!(first.unwrap().title, "kept");
            assert_eq!(second.unwrap().title, "next");
            assert_eq!(api.hits("PATCH /todos/1"), 1);
            assert_eq!(api.hits("PATCH /todos/3"), 1);
            assert_eq!(api.records("todos")[0]["title"], "kept");
            assert_eq!(api.records("todos")[2]["title"], "next");
            assert_eq!(ctrl.queued_mutations(), 0);
            drop(link);
        })
        .await;
}

#[tokio::test]
async fn a_mutation_sent_online_that_finds_no_server_fails_at_once() {
    LocalSet::new()
        .run_until(async {
            let (api, ctrl) = reading_todos().await;
            drop(api);
            let update = TodoResource::partial_update();
            let one = TodoResourceParams { id: 1 };
            let error = ctrl
                .fetch_optimistic(&update, &one, rename("lost"), renamed(1, "lost"))
                .await
                .unwrap_err();
            assert!(matches!(error.kind(), ErrorKind::Network(_)), "{error}");
            assert_eq!(
                title(&ctrl, 1),
                "delectus aut autem",
                "its optimistic value is taken back"
            );
            assert_eq!(ctrl.queued_mutations(), 0);
        })
        .await;
}

#[tokio::test]
async fn a_reset_while_a_mutation_finds_no_server_ends_it_unsent() {
    LocalSet::new()
        .run_until(async {
            let (api, ctrl) = reading_todos().await;
            let port: u16 = api.url().rsplit(':').next().unwrap().parse().unwrap();
            drop(api);
            let unsent = Rc::new(std::cell::Cell::new(0));
            let seen = Rc::clone(&unsent);
            let _listener = ctrl.on_event(move |event, _| {
                if let Event::MutationUnsent { .. } = event {
                    seen.set(seen.get() + 1);
                }
            });
            ctrl.set_online(false);
            let update = TodoResource::partial_update();
            let one = TodoResourceParams { id: 1 };
            let renaming = ctrl.fetch_optimistic(&update, &one, rename("mine"), renamed(1, "mine"));
            let log_out = async {
                tokio::task::yield_now().await;
                ctrl.set_online(true);
                until(|| unsent.get() > 0).await;
                let api = DemoApi::start_on(port).unwrap();
                // The user logs out before the server is back in reach.
                ctrl.reset();
                api
            };
            let (renaming, api) = join(renaming, log_out).await;
            assert_eq!(renaming.unwrap_err().kind(), &ErrorKind::Reset);
            assert_eq!(api.hits("PATCH /todos/1"), 0, "not sent after the log-out");
            assert_eq!(unsent.get(), 1);
            assert_eq!(ctrl.queued_mutations(), 0);
        })
        .await;
}

#[tokio::test]
async fn a_queued_create_given_up_after_it_found_no_server_leaves_its_list_as_it_was() {
    LocalSet::new()
        .run_until(async {
            let (api, ctrl) = reading_todos().await;
            drop(api); // the server goes out of reach
            let heard = Rc::new(std::cell::RefCell::new(Vec::new()));
            let log = Rc::clone(&heard);
            let _listener = ctrl.on_event(move |event, _| match event {
                Event::MutationUnsent { .. } => log.borrow_mut().push("unsent"),
                Event::RequestCancelled { .. } => log.borrow_mut().push("cancelled"),
                _ => {}
            });
            ctrl.set_online(false);
            let body = Some(Body::json(&json!({ "title": "eggs", "userId": 1 })).unwrap());
            let create = TodoResource::create();
            let mut creating = Box::pin(ctrl.fetch(&create, &(), body));
            assert!(futures_util::poll!(&mut creating).is_pending());
            ctrl.set_online(true);
            while heard.borrow().is_empty() {
                assert!(futures_util::poll!(&mut creating).is_pending());
                tokio::task::yield_now().await;
            }
            // The user gives up while it waits to be sent again.
            drop(creating);
            assert_eq!(
                *heard.borrow(),
                ["unsent"],
                "nothing more: nothing was sent"
            );
            assert_eq!(
                ctrl.read(&TodoResource::get_list(), &()).status,
                ExpiryStatus::Valid,
                "the server never saw it: the list stands"
            );
        })
        .await;
}

#[tokio::test]
async fn a_reset_ends_the_mutations_queued_offline_unsent() {
    LocalSet::new()
        .run_until(async {
            let (api, ctrl) = reading_todos().await;
            ctrl.set_online(false);
            // Its caller waits in a task of its own (as an app's does).
            let waiting = {
                let ctrl = ctrl.clone();
                tokio::task::spawn_local(async move {
                    let update = TodoResource::partial_update();
                    let one = TodoResourceParams { id: 1 };
                    ctrl.fetch_optimistic(&update, &one, rename("mine"), renamed(1, "mine"))
                        .await
                })
            };
            until(|| ctrl.queued_mutations() == 1).await;
            // The user logs out while offline: the task is woken.
            ctrl.reset();
            let ended = tokio::time::timeout(std::time::Duration::from_secs(10), waiting)
                .await
                .expect("ended by the reset, not left waiting")
                .unwrap()
                .unwrap_err();
            assert_eq!(ended.kind(), &ErrorKind::Reset, "{ended}");
            assert!(ended.is_hard());
            assert_eq!(ctrl.queued_mutations(), 0);
            ctrl.set_online(true);
            tokio::task::yield_now().await;
            assert_eq!(api.hits("PATCH /todos/1"), 0, "never sent");
        })
        .await;
}

#[tokio::test]
async fn a_mutation_made_offline_before_a_reset_and_awaited_after_it_is_never_sent() {
    LocalSet::new()
        .run_until(async {
            let (api, ctrl) = reading_todos().await;
            ctrl.set_online(false);
            let update = TodoResource::partial_update();
            let one = TodoResourceParams { id: 1 };
            // Made before the log-out, its future first awaited after it.
            let renaming = ctrl.fetch_optimistic(&update, &one, rename("mine"), renamed(1, "mine"));
            ctrl.reset();
            ctrl.set_online(true);
            let ended = renaming.await.unwrap_err();
            assert_eq!(ended.kind(), &ErrorKind::Reset, "{ended}");
            assert_eq!(
                api.hits("PATCH /todos/1"),
                0,
                "not sent in the next session's name"
            );
        })
        .await;
}

#[tokio::test]
async fn a_queued_mutation_whose_answer_broke_off_is_not_sent_again() {
    LocalSet::new()
        .run_until(async {
            use restcache::http::{Outgoing, TransportError};
            let sent = Rc::new(std::cell::Cell::new(0));
            let counted = Rc::clone(&sent);
            let client = Client::new("http://api.test").with_transport(move |_: Outgoing| {
                counted.set(counted.get() + 1);
                async { Err(TransportError::broken_off(200, "connection reset")) }
            });
            let ctrl = Controller::new(client);
            ctrl.set_online(false);
            let update = TodoResource::partial_update();
            let one = TodoResourceParams { id: 1 };
            let renaming = ctrl.fetch(&update, &one, rename("maybe"));
            let back = async {
                tokio::task::yield_now().await;
                ctrl.set_online(true);
            };
            let both = join(renaming, back);
            let (failed, ()) = tokio::time::timeout(std::time::Duration::from_secs(10), both)
                .await
                .expect("failed, not sent again and again");
            let failed = failed.unwrap_err();
            assert_eq!(failed.status(), Some(200), "{failed}");
            assert!(matches!(failed.kind(), ErrorKind::Network(_)));
            assert_eq!(sent.get(), 1, "the server had it: not sent twice");
            assert_eq!(ctrl.queued_mutations(), 0);
        })
        .await;
}
