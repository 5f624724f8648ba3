//! Filtered lists follow creates and deletes: a created record joins every
//! cached list of its resource whose filters its fields match (and only
//! those), where the create says; a list whose filter cannot be judged is
//! fetched again; a delete leaves every list.

use std::rc::Rc;

use restcache::http::Client;
use restcache::prelude::*;
use restcache::rest::JoinAt;
use restcache_demo::DemoApi;
use serde_json::json;

use crate::common::{Todo, TodoResource, TodoResourceParams};

endpoint!(pub TodoResource::for_user {
    path: "/todos",
    schema: Vec<Rc<Todo>>,
    params: #[serde(rename_all = "camelCase")] { user_id: u64 },
});

endpoint!(pub TodoResource::full_text { path: "/todos", schema: Vec<Rc<Todo>>, params: { q: String } });

fn ids(list: &[Rc<Todo>]) -> Vec<u64> {
    list.iter().map(|t| t.id).collect()
}

#[tokio::test]
async fn a_created_record_joins_the_lists_whose_filters_it_matches() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let (two, one) = (
        TodoResourceForUserParams { user_id: 2 },
        TodoResourceForUserParams { user_id: 1 },
    );
    let search = TodoResourceFullTextParams { q: "tea".into() };
    ctrl.fetch(&TodoResource::get_list(), &(), None)
        .await
        .unwrap();
    let before_two = ctrl
        .fetch(&TodoResource::for_user(), &two, None)
        .await
        .unwrap();
    let before_one = ctrl
        .fetch(&TodoResource::for_user(), &one, None)
        .await
        .unwrap();
    ctrl.fetch(&TodoResource::full_text(), &search, None)
        .await
        .unwrap();
    let gets = api.hits("GET /todos");

    let body = Body::json(&json!({"userId": 2, "title": "tea", "completed": false})).unwrap();
    let tea = ctrl
        .fetch(&TodoResource::create(), &(), Some(body))
        .await
        .unwrap();

    let all = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert_eq!(
        all.last().unwrap().id,
        tea.id,
        "the unfiltered list, at its end"
    );
    let now_two = ctrl.read(&TodoResource::for_user(), &two);
    let mut expected = ids(&before_two);
    expected.push(tea.id);
    assert_eq!(ids(&now_two.data.unwrap()), expected, "userId=2 takes it");
    assert_eq!(now_two.status, ExpiryStatus::Valid);
    let now_one = ctrl.read(&TodoResource::for_user(), &one).data.unwrap();
    assert_eq!(ids(&now_one), ids(&before_one), "userId=1 does not");
    let searched = ctrl.read(&TodoResource::full_text(), &search);
    assert_eq!(
        searched.status,
        ExpiryStatus::Invalid,
        "`q` cannot be judged: fetch again"
    );
    assert_eq!(
        api.hits("GET /todos"),
        gets,
        "no list was fetched again to learn it"
    );

    // A delete leaves every list.
    let params = TodoResourceParams { id: tea.id };
    ctrl.fetch(&TodoResource::delete(), &params, None)
        .await
        .unwrap();
    let all = ctrl.read(&TodoResource::get_list(), &()).data.unwrap();
    assert!(!ids(&all).contains(&tea.id));
    let now_two = ctrl.read(&TodoResource::for_user(), &two).data.unwrap();
    assert_eq!(ids(&now_two), ids(&before_two));
}

#[tokio::test]
async fn a_create_may_join_its_lists_at_their_start() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let two = TodoResourceForUserParams { user_id: 2 };
    ctrl.fetch(&TodoResource::for_user(), &two, None)
        .await
        .unwrap();
    let newest_first = TodoResource::create().join_at(JoinAt::Start);
    let body = Body::json(&json!({"userId": 2, "title": "first"})).unwrap();
    let created = ctrl.fetch(&newest_first, &(), Some(body)).await.unwrap();
    let list = ctrl.read(&TodoResource::for_user(), &two).data.unwrap();
    assert_eq!(list[0].id, created.id);
}
