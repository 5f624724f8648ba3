//! Reads that must not show stale data (`invalid_if_stale`) whose answers
//! are stale as soon as they land (an expiry of zero, or one shorter than
//! the time between an answer and the render that shows it): the view
//! that waited shows the answer it waited for, rather than wait for
//! another forever; a view that did not wait shows nothing stale.

use std::time::Duration;

use restcache::prelude::*;
use restcache::{Observe, ReadObserver};
use tokio::task::LocalSet;

use super::observers::{counter, settle};
use crate::common::Todo;
use crate::common::controller::*;

resource!(InstantTodoResource {
    path: "/instant/:id",
    schema: Todo,
    data_expiry: Duration::ZERO,
    invalid_if_stale: true,
});

fn params() -> InstantTodoResourceParams {
    InstantTodoResourceParams { id: 1 }
}

#[tokio::test]
async fn a_view_shows_the_answer_it_waited_for_though_stale_on_arrival() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let get = server
                .mock("GET", "/instant/1")
                .with_body(todo_json(1, "fetched"))
                .expect(1)
                .create_async()
                .await;
            let mut view = ReadObserver::new(&ctrl, Observe::new().changes().revalidate());
            view.set(&InstantTodoResource::get(), &params());
            assert!(view.read().unwrap().data.is_none());
            view.wait().unwrap().await;
            // The render after the answer comes a moment later.
            clock.advance(Duration::from_millis(1));
            let shown = view.read().unwrap();
            assert_eq!(shown.data.unwrap().title, "fetched");
            assert_eq!(shown.status, ExpiryStatus::Stale);

            // Watching it neither hides it nor fetches it again.
            let (renders, render) = counter();
            view.subscribe(render);
            settle(&ctrl).await;
            clock.advance(Duration::from_secs(60));
            settle(&ctrl).await;
            assert_eq!(renders.get(), 0);
            assert_eq!(view.read().unwrap().data.unwrap().title, "fetched");
            get.assert_async().await;

            // A view that did not wait for it shows nothing stale.
            let mut other = ReadObserver::new(&ctrl, Observe::new());
            other.set(&InstantTodoResource::get(), &params());
            assert!(other.read().unwrap().data.is_none());

            // Invalidated, it goes from the view that waited too.
            ctrl.invalidate(&InstantTodoResource::get(), &params());
            settle(&ctrl).await;
            assert_eq!(renders.get(), 1);
            assert!(view.read().unwrap().data.is_none());
        })
        .await;
}

resource!(MinuteTodoResource {
    path: "/minute/:id",
    schema: Todo,
    data_expiry: Duration::from_secs(60),
    invalid_if_stale: true,
});

#[tokio::test]
async fn an_answer_fresh_when_shown_goes_once_stale_from_the_view_that_waited() {
    LocalSet::new()
        .run_until(async {
            let (mut server, ctrl, clock) = setup().await;
            let _get = server
                .mock("GET", "/minute/1")
                .with_body(todo_json(1, "fetched"))
                .create_async()
                .await;
            let params = MinuteTodoResourceParams { id: 1 };
            let mut view = ReadObserver::new(&ctrl, Observe::new());
            view.set(&MinuteTodoResource::get(), &params);
            view.wait().unwrap().await;
            assert_eq!(view.read().unwrap().data.unwrap().title, "fetched");
            clock.advance(Duration::from_secs(61));
            assert!(view.read().unwrap().data.is_none(), "stale: not shown");
        })
        .await;
}
