//! The embedded demo API (the restcache-demo crate) through the
//! controller: every resource and custom route of the docs' examples,
//! with real create, update and delete.

use std::rc::Rc;

use crate::common::{
    Comment, Found, PostPageParams, Profile, TodoResource, TodoResourceParams, User, current_user,
    post_page, upcoming_birthdays,
};
use restcache::prelude::*;
use restcache_demo::DemoApi;
use serde_json::json;

resource!(pub CommentResource { path: "/comments/:id", schema: Comment });
resource!(pub ProfileResource { path: "/profiles/:id", schema: Profile });
resource!(pub UserResource { path: "/users/:id", schema: User });
endpoint!(pub make_manager { method: POST, path: "/users/:id/make_manager", schema: Rc<User>, params: { id: u64 } });

fn start() -> (DemoApi, Controller) {
    let api = DemoApi::start().expect("the demo API starts on 127.0.0.1");
    // No retry: the outage test counts one request per read.
    let ctrl = Controller::builder(Client::new(api.url()))
        .retry(restcache::Retry::NONE)
        .build();
    (api, ctrl)
}

#[tokio::test]
async fn the_demo_api_serves_every_resource_of_the_docs() {
    let (api, ctrl) = start();
    let todos = ctrl
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    assert_eq!(todos.len(), 5);
    let comments = ctrl
        .fetch(&CommentResource::get_list(), &(), None)
        .await
        .unwrap();
    assert!(
        comments.iter().any(|c| c.body.contains('\n')),
        "bodies with newlines"
    );
    let profile = ctrl
        .fetch(
            &ProfileResource::get(),
            &ProfileResourceParams { id: 2 },
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        (profile.id, profile.full_name.as_str()),
        (Some(2), "Grace Hopper")
    );
    let me = ctrl.fetch(&current_user(), &(), None).await.unwrap();
    assert_eq!(me.id, 1);

    let upcoming = ctrl.fetch(&upcoming_birthdays(), &(), None).await.unwrap();
    assert_eq!(upcoming.within_seven_days.len(), 2);
    assert_eq!(upcoming.within_thirty_days.len(), 2);

    let page = |page: &str| PostPageParams { page: page.into() };
    let first = ctrl.fetch(&post_page(), &page("1"), None).await.unwrap();
    assert_eq!(
        (
            first.results.len(),
            first.next_page.as_str(),
            first.last_page.as_str()
        ),
        (10, "2", "3")
    );
    let last = ctrl.fetch(&post_page(), &page("3"), None).await.unwrap();
    assert_eq!((last.results.len(), last.next_page.as_str()), (5, ""));
    assert_eq!(api.hits("GET /post"), 2);
}

#[tokio::test]
async fn creates_updates_and_deletes_change_the_server_and_the_cache() {
    let (api, ctrl) = start();
    let list = TodoResource::get_list();
    ctrl.fetch(&list, &(), None).await.unwrap();

    let body = Body::json(&json!({"userId": 2, "title": "new", "completed": false})).unwrap();
    let created = ctrl
        .fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();
    assert_eq!(created.id, 6);
    let body = Body::json(&json!({"completed": true})).unwrap();
    let params = TodoResourceParams { id: 6 };
    ctrl.fetch(&TodoResource::partial_update(), &params, Some(body))
        .await
        .unwrap();
    ctrl.fetch(&TodoResource::delete(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap();

    let server: Vec<(u64, bool)> = api
        .records("todos")
        .iter()
        .map(|t| (t["id"].as_u64().unwrap(), t["completed"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        server,
        [(2, false), (3, true), (4, true), (5, false), (6, true)]
    );
    let cached = ctrl.read(&list, &()).data.unwrap();
    let cached: Vec<(u64, bool)> = cached.iter().map(|t| (t.id, t.completed)).collect();
    assert_eq!(
        cached, server,
        "the cache agrees with the server, with one GET"
    );
    assert_eq!(api.hits("GET /todos"), 1);

    let manager = ctrl
        .fetch(&make_manager(), &MakeManagerParams { id: 3 }, None)
        .await
        .unwrap();
    assert!(manager.is_manager);
    let user = ctrl.read(&UserResource::get(), &UserResourceParams { id: 3 });
    assert!(
        user.data.is_some_and(|user| user.is_manager),
        "never read, and answered from the record the RPC stored"
    );
    let stored = ctrl.with_store(|s| s.get_entity::<User>(3u64).found());
    assert!(
        stored.is_manager,
        "the RPC's record is merged into the store"
    );
}

#[tokio::test]
async fn the_outage_switch_makes_every_route_answer_503_until_it_is_off() {
    let (api, ctrl) = start();
    api.set_outage(true);
    let errors = [
        ctrl.fetch(&TodoResource::get_list(), &(), None)
            .await
            .map(drop),
        ctrl.fetch(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
            .await
            .map(drop),
        ctrl.fetch(&current_user(), &(), None).await.map(drop),
        ctrl.fetch(&post_page(), &PostPageParams { page: "1".into() }, None)
            .await
            .map(drop),
    ];
    for error in errors {
        let error = error.unwrap_err();
        assert_eq!(error.status(), Some(503), "{error}");
        assert!(error.is_soft(), "{error}");
    }
    assert_eq!(api.hits("GET /todos"), 1);
    assert_eq!(api.hits("POST /current_user/"), 1);

    api.set_outage(false);
    let todos = ctrl
        .fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    assert_eq!(todos.len(), 5);
    ctrl.fetch(&current_user(), &(), None).await.unwrap();
}

#[tokio::test]
async fn the_delay_switch_holds_every_route_back_until_it_is_off() {
    let (api, ctrl) = start();
    api.set_delay(std::time::Duration::from_secs(1));
    // Each request reaches the server (it counts it) and gets no answer
    // while the delay holds it.
    let (get_list, me) = (TodoResource::get_list(), current_user());
    let list = ctrl.fetch(&get_list, &(), None);
    let me = ctrl.fetch(&me, &(), None);
    let arrived = async {
        while api.hits("GET /todos") + api.hits("POST /current_user/") < 2 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::select! {
        _ = list => panic!("the list was answered while the delay held it"),
        _ = me => panic!("the current user was answered while the delay held it"),
        () = arrived => {}
    }

    api.set_delay(std::time::Duration::ZERO);
    let todos = ctrl
        .fetch(&TodoResource::get(), &TodoResourceParams { id: 2 }, None)
        .await
        .unwrap();
    assert_eq!(todos.id, 2);
}

#[tokio::test]
async fn a_missing_record_is_a_404_and_a_text_body_where_json_is_due_a_415() {
    let (_api, ctrl) = start();
    let error = ctrl
        .fetch(&TodoResource::get(), &TodoResourceParams { id: 99 }, None)
        .await
        .unwrap_err();
    assert_eq!(error.status(), Some(404));
    assert!(error.is_hard());
    let body = Body::text("not json");
    let error = ctrl
        .fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap_err();
    assert!(error.is_hard(), "{error}");
    assert_eq!(error.status(), Some(415), "{error}");
}
