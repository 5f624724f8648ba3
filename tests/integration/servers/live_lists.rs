//! Records a live stream pushes that the cache did not hold: created
//! elsewhere, they join the cached lists their create names, as the
//! create's own answer would, with no request.

use std::rc::Rc;

use restcache::http::Method;
use restcache::live::{Live, Message};
use restcache::prelude::*;
use serde_json::json;

use super::live::{eventually, in_local_set, open_and_wait, sse};
use crate::common::{
    Todo, TodoResource, TodoResourceForUserParams, TodoResourcePagesParams, reading_todos,
};

fn ids(list: &[Rc<Todo>]) -> Vec<u64> {
    list.iter().map(|todo| todo.id).collect()
}

/// Creates a todo of user 2 as another client would; its id.
async fn create_elsewhere(api: &restcache_demo::DemoApi) -> u64 {
    let fields = json!({"userId": 2, "title": "pushed", "completed": false});
    let created = Client::new(api.url())
        .request(Method::Post, "/todos", Some(Body::json(&fields).unwrap()))
        .await
        .unwrap();
    serde_json::from_str::<Todo>(&created.body).unwrap().id
}

fn for_user(ctrl: &Controller, user_id: u64) -> Vec<u64> {
    let params = TodoResourceForUserParams { user_id };
    ids(&ctrl.read(&TodoResource::for_user(), &params).data.unwrap())
}

#[tokio::test]
async fn a_record_created_elsewhere_joins_the_lists_its_create_names() {
    in_local_set(async {
        let (api, ctrl) = reading_todos().await;
        for user_id in [1, 2] {
            let params = TodoResourceForUserParams { user_id };
            ctrl.fetch(&TodoResource::for_user(), &params, None)
                .await
                .unwrap();
        }
        let (all, ones, twos) = (
            ids(&ctrl.read(&TodoResource::get_list(), &()).data.unwrap()),
            for_user(&ctrl, 1),
            for_user(&ctrl, 2),
        );
        let live = sse().new_records_join(&TodoResource::create(), |_: &Todo| ());
        let _hold = open_and_wait(&ctrl, &live).await;
        eventually("the server has it subscribed", || api.streams_open() == 1).await;

        let id = create_elsewhere(&api).await;
        eventually("the pushed record joins the list", || {
            ids(&ctrl.read(&TodoResource::get_list(), &()).data.unwrap()).contains(&id)
        })
        .await;
        let mut all_now = all.clone();
        all_now.push(id);
        assert_eq!(
            ids(&ctrl.read(&TodoResource::get_list(), &()).data.unwrap()),
            all_now
        );
        let mut twos_now = twos.clone();
        twos_now.push(id);
        assert_eq!(for_user(&ctrl, 2), twos_now, "its user's list");
        assert_eq!(for_user(&ctrl, 1), ones, "not another user's");
        assert_eq!(api.hits("GET /todos"), 3, "no request but the first three");

        // A change to it later, pushed too, is no new record: it joins
        // nothing twice.
        let body = Body::json(&json!({"title": "renamed"})).unwrap();
        let url = format!("/todos/{id}");
        Client::new(api.url())
            .request(Method::Patch, &url, Some(body))
            .await
            .unwrap();
        eventually("the pushed rename shows", || {
            let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
            list.iter().any(|todo| todo.title == "renamed")
        })
        .await;
        assert_eq!(
            ids(&ctrl.read(&TodoResource::get_list(), &()).data.unwrap()),
            all_now
        );
    })
    .await;
}

#[tokio::test]
async fn without_a_create_a_pushed_record_joins_no_list() {
    in_local_set(async {
        let (api, ctrl) = reading_todos().await;
        let before = ids(&ctrl.read(&TodoResource::get_list(), &()).data.unwrap());
        let live: Live = sse();
        let _hold = open_and_wait(&ctrl, &live).await;
        eventually("the server has it subscribed", || api.streams_open() == 1).await;
        let id = create_elsewhere(&api).await;
        eventually("the pushed record is stored", || {
            ctrl.with_store(|store| store.get_entity::<Todo>(id).value().is_some())
        })
        .await;
        assert_eq!(
            ids(&ctrl.read(&TodoResource::get_list(), &()).data.unwrap()),
            before
        );
    })
    .await;
}

/// A standard `set` of todo `id` titled `title`, made at `at_ms`.
fn pushed_set(id: u64, title: &str, at_ms: u64) -> String {
    json!({
        "entity": "Todo",
        "op": "set",
        "at": at_ms,
        "data": {"id": id, "userId": 2, "title": title, "completed": false},
    })
    .to_string()
}

#[test]
fn a_record_deleted_since_the_message_was_made_joins_no_list() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    let milk = Rc::new(crate::common::todo(1, "milk"));
    ctrl.set_response(&TodoResource::get_list(), &(), vec![milk])
        .unwrap();
    let live = sse().new_records_join(&TodoResource::create(), |_: &Todo| ());
    let made = ctrl.write_time();
    // Deleted here after the change the message tells of was made.
    ctrl.delete_entity::<Todo>(5u64, ctrl.write_time());
    let late = Message::new(pushed_set(5, "late", made.as_millis()), ctrl.write_time());
    live.apply(&ctrl, &late).unwrap();
    let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(ids(&list), [1], "the deletion stands");
}

#[test]
fn a_record_that_joined_a_list_takes_a_later_change_made_before_its_arrival() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    ctrl.set_response(&TodoResource::get_list(), &(), Vec::new())
        .unwrap();
    let live = sse().new_records_join(&TodoResource::create(), |_: &Todo| ());
    let (first, second) = (ctrl.write_time(), ctrl.write_time());
    // Both arrive now; each was made at its own time, in order.
    let created = Message::new(pushed_set(5, "made", first.as_millis()), ctrl.write_time());
    live.apply(&ctrl, &created).unwrap();
    let renamed = Message::new(
        pushed_set(5, "renamed", second.as_millis()),
        ctrl.write_time(),
    );
    live.apply(&ctrl, &renamed).unwrap();
    let list = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(list[0].title, "renamed", "the later change is not lost");
}

#[tokio::test]
async fn a_paged_list_a_pushed_record_would_join_goes_stale_instead() {
    in_local_set(async {
        let api = restcache_demo::DemoApi::start().unwrap();
        let ctrl = Controller::new(Client::new(api.url()));
        let (pages, params) = (
            TodoResource::pages(),
            TodoResourcePagesParams { page: 1, limit: 2 },
        );
        ctrl.fetch(&pages, &params, None).await.unwrap();
        let before = ctrl.read(&pages, &params).data.unwrap();
        let live = sse().new_records_join(&TodoResource::create(), |_: &Todo| ());
        let _hold = open_and_wait(&ctrl, &live).await;
        eventually("the server has it subscribed", || api.streams_open() == 1).await;
        create_elsewhere(&api).await;
        // It may be one of a page not loaded: the list is fetched again,
        // not counted on.
        eventually("the paged list goes stale", || {
            ctrl.read(&pages, &params).status == ExpiryStatus::Stale
        })
        .await;
        let after = ctrl.read(&pages, &params).data.unwrap();
        assert_eq!(after.total, before.total);
        assert_eq!(ids(&after.items), ids(&before.items));
    })
    .await;
}

// A user's own list of todos, and the create that joins it.
restcache::endpoint!(user_todos {
    path: "/users/:user_id/todos",
    schema: Vec<Rc<Todo>>,
    params: { user_id: u64 },
});
restcache::endpoint!(create_user_todo {
    method: POST,
    path: "/users/:user_id/todos",
    schema: Rc<Todo>,
    params: { user_id: u64 },
});

#[test]
fn a_pushed_record_joins_the_lists_of_each_create_named() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    ctrl.set_response(&TodoResource::get_list(), &(), Vec::new())
        .unwrap();
    for user_id in [1, 2] {
        ctrl.set_response(&user_todos(), &UserTodosParams { user_id }, Vec::new())
            .unwrap();
    }
    let by_user = create_user_todo().with_effect::<restcache::rest::Create>();
    let live = sse()
        .new_records_join(&TodoResource::create(), |_: &Todo| ())
        .new_records_join(&by_user, |todo: &Todo| CreateUserTodoParams {
            user_id: todo.user_id,
        });
    let pushed = pushed_set(5, "pushed", ctrl.write_time().as_millis());
    live.apply(&ctrl, &Message::new(pushed, ctrl.write_time()))
        .unwrap();
    let list = |user_id| {
        let list = ctrl.read(&user_todos(), &UserTodosParams { user_id });
        ids(&list.data.unwrap())
    };
    let all = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(ids(&all), [5]);
    assert_eq!(list(2), [5], "its user's list, by the second create");
    assert!(list(1).is_empty());
}
