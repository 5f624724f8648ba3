//! Watched reads of records that nest others: a read whose nested record
//! went hears when it comes back, and a read answered from a record that
//! nests others follows the expiry a list refetch gives it. Real HTTP to
//! mockito on 127.0.0.1; time moves on a `ManualClock`.

use std::rc::Rc;
use std::time::Duration;

use super::observers::{TodoDetailParams, counter, settle, todo_detail};
use crate::common::controller::*;
use crate::common::{Todo, TodoDetail};
use restcache::prelude::*;
use restcache::{Observe, ReadObserver};
use tokio::task::LocalSet;

#[tokio::test]
async fn a_read_whose_nested_record_went_hears_when_it_comes_back() {
    let (_server, ctrl, _clock) = setup().await;
    let params = TodoDetailParams { id: "2".into() };
    let detail = TodoDetail {
        data: Rc::new(crate::common::todo(2, "two")),
    };
    ctrl.set_response(&todo_detail(), &params, detail).unwrap();
    let (calls, on_change) = counter();
    let _detail = ctrl.subscribe(&todo_detail(), &params, on_change);

    assert!(ctrl.delete_entity::<Todo>(2u64, ctrl.write_time()));
    assert_eq!(calls.get(), 1, "the envelope lost the record it nests");
    assert!(ctrl.read(&todo_detail(), &params).data.is_none());

    ctrl.set_entity(crate::common::todo(2, "back"), ctrl.write_time())
        .unwrap();
    let shown = ctrl.read(&todo_detail(), &params).data;
    assert_eq!(
        shown.map(|detail| detail.data.title.clone()).as_deref(),
        Some("back")
    );
    assert_eq!(
        calls.get(),
        2,
        "the record came back: the envelope shows again"
    );
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Author {
    pub id: u64,
    pub name: String,
}

/// A post nests its author.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Post {
    pub id: u64,
    pub title: String,
    #[entity(nested)]
    pub author: Rc<Author>,
}

resource!(pub PostResource { path: "/posts/:id", schema: Post });

#[tokio::test]
async fn a_record_read_that_nests_others_revalidates_at_the_expiry_a_list_refetch_gave_it() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let body = r#"[{"id": 1, "title": "hello", "author": {"id": 7, "name": "ada"}}]"#;
            let listed = server
                .mock("GET", "/posts")
                .with_body(body)
                .expect(2)
                .create_async()
                .await;
            let detail = server
                .mock("GET", "/posts/1")
                .with_body(r#"{"id": 1, "title": "hello", "author": {"id": 7, "name": "ada"}}"#)
                .expect(1)
                .create_async()
                .await;
            ctrl.fetch(&PostResource::get_list(), &(), None)
                .await
                .unwrap();
            // The detail view shows post 1 from the list's copy, fresh for
            // 60 s, with no request of its own.
            let mut view = ReadObserver::new(&ctrl, Observe::new().changes().revalidate());
            view.set(&PostResource::get(), &PostResourceParams { id: 1 });
            assert_eq!(view.read().unwrap().data.unwrap().author.name, "ada");
            let (renders, render) = counter();
            view.subscribe(render);

            // 30 s on, the list comes again unchanged: post 1 is fresh
            // until 90 s.
            clock.advance(Duration::from_secs(30));
            ctrl.fetch(&PostResource::get_list(), &(), None)
                .await
                .unwrap();
            clock.advance(Duration::from_secs(31)); // past the first expiry
            settle(&ctrl).await;
            clock.advance(Duration::from_secs(30)); // past the second
            settle(&ctrl).await;
            listed.assert_async().await;
            detail.assert_async().await;
            assert_eq!(renders.get(), 0, "the refetched copies are the same");
        })
        .await;
}
