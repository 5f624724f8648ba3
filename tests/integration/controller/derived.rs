//! Every record of a type (`All`) and derived views (`Query`), against
//! the demo API: they follow creates, updates and deletes with no
//! request, and keep their identity while what they read is unchanged.

use std::rc::Rc;

use restcache::prelude::*;
use restcache::All;
use restcache_demo::DemoApi;
use serde_json::json;
use tokio::task::LocalSet;

use crate::common::{Todo, TodoResource, TodoResourceParams};

// The todos of user 2, read as every todo the cache holds.
endpoint!(every_todo { path: "/todos\\?userId=2", schema: All<Todo> });

fn ids(all: &All<Todo>) -> Vec<u64> {
    all.iter().map(|todo| todo.id).collect()
}

#[tokio::test]
async fn every_record_of_a_type_follows_reads_creates_and_deletes_with_no_request() {
    LocalSet::new()
        .run_until(async {
            let api = DemoApi::start().unwrap();
            let ctrl = Controller::new(Client::new(api.url()));
            let all = ctrl.fetch(&every_todo(), &(), None).await.unwrap();
            assert_eq!(ids(&all), [4, 5]);

            // Another read brings todo 1: every todo lists it.
            ctrl.fetch(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
                .await
                .unwrap();
            let told = Rc::new(std::cell::Cell::new(0));
            let seen = Rc::clone(&told);
            let _subscription =
                ctrl.subscribe(&every_todo(), &(), move || seen.set(seen.get() + 1));
            let read = ctrl.read(&every_todo(), &()).data.unwrap();
            assert_eq!(ids(&read), [4, 5, 1]);

            // A create joins it, a delete leaves it, and its view is told.
            let body = json!({"userId": 1, "title": "new", "completed": false});
            let made = ctrl
                .fetch(&TodoResource::create(), &(), Some(Body::json(&body).unwrap()))
                .await
                .unwrap();
            assert_eq!(ids(&ctrl.read(&every_todo(), &()).data.unwrap()), [4, 5, 1, made.id]);
            ctrl.fetch(&TodoResource::delete(), &TodoResourceParams { id: 4 }, None)
                .await
                .unwrap();
            let after = ctrl.read(&every_todo(), &()).data.unwrap();
            assert_eq!(ids(&after), [5, 1, made.id]);
            assert!(told.get() >= 2, "the view was told of both");
            assert_eq!(api.hits("GET /todos"), 1, "no request for the list again");

            // Nothing of it changed: the same value.
            assert!(Rc::ptr_eq(&after, &ctrl.read(&every_todo(), &()).data.unwrap()));
        })
        .await;
}
