//! Revalidation: the page coming back into view (`visibilitychange`) or
//! the browser back online (`online`) refetches every mounted read that
//! is stale, and only those; a mounted read refetches when it goes stale
//! on the clock.

use std::time::Duration;

use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, use_suspense};
use wasm_bindgen_test::wasm_bindgen_test;
use web_sys::Event;
use yew::prelude::*;

use crate::harness::*;

#[derive(Properties, PartialEq)]
struct TitleProps {
    id: u64,
}

#[component]
fn Title(props: &TitleProps) -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: props.id })?;
    Ok(html! { <li>{ &todo.title }</li> })
}

#[component]
fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}>
                <ul><Title id={3} /><Title id={4} /></ul>
            </AsyncBoundary>
        </CacheProvider>
    }
}

async fn revalidates_on(event: &str, on_window: bool) {
    reset_demo().await;
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    let ctrl = controller_on(&clock);
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    until("both todos", || {
        page.text() == "fugiat veniam minuset porro tempora"
    })
    .await;

    // The page is away (hidden, or offline) while todo 3 goes stale, so
    // its expiry does not refetch it; todo 4 is written again, fresh.
    if on_window {
        ctrl.set_online(false);
    } else {
        ctrl.set_focused(false);
    }
    clock.advance(Duration::from_secs(120));
    // Written fresh with no request: offline, a fetch would wait.
    let four = Todo {
        id: 4,
        user_id: 2,
        title: "et porro tempora".into(),
        completed: true,
    };
    ctrl.set_response(
        &TodoResource::get(),
        &TodoResourceParams { id: 4 },
        std::rc::Rc::new(four),
    )
    .unwrap();
    sleep(Duration::from_millis(50)).await;
    assert_eq!(hits("GET /todos/3").await, 1, "nothing refetches by itself");

    let event = Event::new(event).unwrap();
    if on_window {
        web_sys::window().unwrap().dispatch_event(&event).unwrap();
    } else {
        gloo_document().dispatch_event(&event).unwrap();
    }
    until_hits("GET /todos/3", 2).await;
    sleep(Duration::from_millis(50)).await;
    assert_eq!(
        hits("GET /todos/3").await,
        2,
        "the stale read refetched once"
    );
    assert_eq!(hits("GET /todos/4").await, 1, "the fresh one did not");
}

#[wasm_bindgen_test]
async fn a_visibilitychange_refetches_every_stale_mounted_read() {
    assert_eq!(
        gloo_document().visibility_state(),
        web_sys::VisibilityState::Visible
    );
    revalidates_on("visibilitychange", false).await;
}

#[wasm_bindgen_test]
async fn coming_back_online_refetches_every_stale_mounted_read() {
    revalidates_on("online", true).await;
}

/// A provider on the same controller that does not listen, keeping
/// todo 4 mounted.
#[component]
fn Quiet(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()} revalidate_on_focus={false} revalidate_on_reconnect={false}>
            <AsyncBoundary error_fallback={failed()}>
                <ul><Title id={4} /></ul>
            </AsyncBoundary>
        </CacheProvider>
    }
}

/// A provider that listens, showing todo 3.
#[component]
fn Listening(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}>
                <ul><Title id={3} /></ul>
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn the_listeners_leave_with_the_provider() {
    reset_demo().await;
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    let ctrl = controller_on(&clock);
    let mut listening = mount::<Listening>(CtrlProps { ctrl: ctrl.clone() });
    let quiet = mount::<Quiet>(CtrlProps { ctrl: ctrl.clone() });
    until("both todos", || {
        listening.text() == "fugiat veniam minus" && quiet.text() == "et porro tempora"
    })
    .await;
    let visible = || {
        let event = Event::new("visibilitychange").unwrap();
        gloo_document().dispatch_event(&event).unwrap();
    };

    // While the listening provider is mounted, its listener revalidates
    // every stale read of the controller, the quiet provider's too. (The
    // page is away while the reads go stale: their expiry alone does not
    // refetch them.)
    ctrl.set_focused(false);
    clock.advance(Duration::from_secs(120));
    sleep(Duration::from_millis(20)).await; // the expiry timer fires while away
    visible();
    until_hits("GET /todos/4", 2).await;

    listening.unmount();
    yew::scheduler::flush().await; // Yew destroys components on its next turn
    ctrl.set_focused(false);
    clock.advance(Duration::from_secs(120));
    sleep(Duration::from_millis(20)).await; // the expiry timer fires while away
    visible();
    sleep(Duration::from_millis(100)).await;
    assert_eq!(
        hits("GET /todos/4").await,
        2,
        "nothing revalidates any more, though a stale read is still mounted"
    );
    assert_eq!(quiet.text(), "et porro tempora");
}

#[wasm_bindgen_test]
async fn a_mounted_read_refetches_when_it_goes_stale_on_the_clock() {
    reset_demo().await;
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    let ctrl = controller_on(&clock);
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    until("both todos", || {
        page.text() == "fugiat veniam minuset porro tempora"
    })
    .await;
    clock.advance(Duration::from_secs(59));
    sleep(Duration::from_millis(50)).await;
    assert_eq!(hits("GET /todos/3").await, 1, "still fresh");

    clock.advance(Duration::from_secs(2)); // both past their expiry
    until_hits("GET /todos/3", 2).await;
    until_hits("GET /todos/4", 2).await;
    assert_eq!(
        page.text(),
        "fugiat veniam minuset porro tempora",
        "the data stayed on show"
    );
}

/// A provider that revalidates on neither focus nor reconnect, showing
/// todo 3.
#[component]
fn NoRevalidation(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()} revalidate_on_focus={false} revalidate_on_reconnect={false}>
            <AsyncBoundary error_fallback={failed()}>
                <ul><Title id={3} /></ul>
            </AsyncBoundary>
        </CacheProvider>
    }
}

/// With no revalidation on focus, the page's visibility is not followed:
/// a read expires and refetches in a hidden page as in a shown one. With
/// none on reconnect, the network still is: a read whose expiry comes
/// offline waits, and fetches when the network is back.
#[wasm_bindgen_test]
async fn without_revalidation_expiries_still_refetch_hidden_and_back_online() {
    reset_demo().await;
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    let ctrl = controller_on(&clock);
    let page = mount::<NoRevalidation>(CtrlProps { ctrl: ctrl.clone() });
    until("todo 3", || page.text() == "fugiat veniam minus").await;
    let on_window = |event: &str| {
        let event = Event::new(event).unwrap();
        web_sys::window().unwrap().dispatch_event(&event).unwrap();
    };

    let hidden = Pretend::document("hidden", true);
    let event = Event::new("visibilitychange").unwrap();
    gloo_document().dispatch_event(&event).unwrap();
    assert!(ctrl.is_focused(), "visibility is not followed");
    clock.advance(Duration::from_secs(120));
    until_hits("GET /todos/3", 2).await;
    drop(hidden);

    on_window("offline");
    assert!(!ctrl.is_online(), "the network is followed");
    clock.advance(Duration::from_secs(120));
    sleep(Duration::from_millis(50)).await;
    assert_eq!(hits("GET /todos/3").await, 2, "no fetch offline");
    on_window("online");
    until_hits("GET /todos/3", 3).await;
}
