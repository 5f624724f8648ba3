//! Reads in a browser: ten components on one key make one request, stale
//! data shows at once and then the refetched data, polling stops with its
//! last subscriber, and a read is cancelled when the last component that
//! waits on it goes.

use std::rc::Rc;
use std::time::Duration;

use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, use_live, use_suspense};
use wasm_bindgen_test::wasm_bindgen_test;
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

#[derive(Properties, PartialEq)]
struct AppProps {
    ctrl: Controller,
    #[prop_or(1)]
    copies: usize,
}

#[component]
fn Titles(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary fallback={html! { <p>{"loading"}</p> }} error_fallback={failed()}>
                <ul>{ for (0..props.copies).map(|_| html! { <Title id={1} /> }) }</ul>
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn ten_components_reading_one_endpoint_make_one_request() {
    reset_demo().await;
    let page = mount::<Titles>(AppProps {
        ctrl: controller(),
        copies: 10,
    });
    until("ten titles", || {
        page.text().matches("delectus aut autem").count() == 10
    })
    .await;
    assert_eq!(hits("GET /todos/1").await, 1);
}

#[wasm_bindgen_test]
async fn stale_data_shows_at_once_then_the_refetched_data() {
    reset_demo().await;
    let clock = ManualClock::at(Timestamp::from_millis(1_000_000));
    let ctrl = controller_on(&clock);
    let params = TodoResourceParams { id: 1 };
    let old = Todo {
        id: 1,
        title: "cached long ago".into(),
        ..Todo::default()
    };
    ctrl.set_response(&TodoResource::get(), &params, Rc::new(old))
        .unwrap();
    clock.advance(Duration::from_secs(120));
    assert_eq!(
        ctrl.read(&TodoResource::get(), &params).status,
        ExpiryStatus::Stale
    );

    let page = mount::<Titles>(AppProps { ctrl, copies: 1 });
    yew::scheduler::flush().await;
    assert_eq!(page.text(), "cached long ago", "stale data shows at once");
    until("the refetched title", || {
        page.text() == "delectus aut autem"
    })
    .await;
    assert_eq!(hits("GET /todos/1").await, 1);
}

resource!(pub LiveTodo {
    path: "/todos/:id",
    schema: Todo,
    poll_frequency: Duration::from_millis(40),
});

#[component]
fn Live() -> HtmlResult {
    let todo = use_live(&LiveTodo::get(), LiveTodoParams { id: 2 })?;
    Ok(html! { <p>{ &todo.title }</p> })
}

#[component]
fn LiveApp(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}><Live /></AsyncBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn polling_runs_while_mounted_and_stops_after_unmount() {
    reset_demo().await;
    let mut page = mount::<LiveApp>(AppProps {
        ctrl: controller(),
        copies: 1,
    });
    until_hits("GET /todos/2", 4).await;
    page.unmount();
    let at_unmount = hits("GET /todos/2").await;
    // Ten polling periods with nobody subscribed.
    sleep(Duration::from_millis(400)).await;
    assert_eq!(hits("GET /todos/2").await, at_unmount);
}

#[wasm_bindgen_test]
async fn a_read_is_cancelled_when_the_last_component_waiting_on_it_goes() {
    reset_demo().await;
    // Far longer than the test takes to the cancel: it is never answered.
    set_delay(5000).await;
    let ctrl = controller();
    let cancelled = Rc::new(std::cell::Cell::new(0));
    let seen = Rc::clone(&cancelled);
    let _listener = ctrl.on_event(move |event, _| {
        if let restcache::Event::RequestCancelled { .. } = event {
            seen.set(seen.get() + 1);
        }
    });
    let mut first = mount::<Titles>(AppProps {
        ctrl: ctrl.clone(),
        copies: 1,
    });
    let mut second = mount::<Titles>(AppProps {
        ctrl: ctrl.clone(),
        copies: 2,
    });
    until("loading", || {
        first.text() == "loading" && second.text() == "loading"
    })
    .await;
    assert_eq!(ctrl.in_flight(), 1, "one request for the three");

    first.unmount();
    sleep(Duration::from_millis(50)).await;
    assert_eq!(cancelled.get(), 0, "the other page still waits on it");
    assert_eq!(ctrl.in_flight(), 1);

    second.unmount();
    until("the read cancelled", || cancelled.get() == 1).await;
    assert_eq!(ctrl.in_flight(), 0);
    set_delay(0).await;
}

/// Todo `id`, then todo 2 once its button is clicked.
#[component]
fn Switching(props: &AppProps) -> Html {
    let id = use_state(|| 1);
    let next = {
        let id = id.clone();
        Callback::from(move |_| id.set(2))
    };
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <button onclick={next}>{"next"}</button>
            <AsyncBoundary fallback={html! { <p>{"loading"}</p> }} error_fallback={failed()}>
                <ul><Title id={*id} /></ul>
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[wasm_bindgen_test]
async fn a_read_left_for_other_params_while_on_its_way_is_cancelled() {
    reset_demo().await;
    // Long enough that todo 1 is still on its way at the click on a slow
    // machine.
    set_delay(1500).await;
    let ctrl = controller();
    let cancelled = Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen = Rc::clone(&cancelled);
    let _listener = ctrl.on_event(move |event, _| {
        if let restcache::Event::RequestCancelled { key } = event {
            seen.borrow_mut().push(key.clone());
        }
    });
    let page = mount::<Switching>(AppProps {
        ctrl: ctrl.clone(),
        copies: 1,
    });
    until("loading", || page.text() == "nextloading").await;
    assert_eq!(ctrl.in_flight(), 1);

    page.click(); // todo 2, while todo 1 is on its way
    until("todo 1's read cancelled", || cancelled.borrow().len() == 1).await;
    assert!(
        cancelled.borrow()[0].ends_with("/todos/1"),
        "{:?}",
        cancelled.borrow()
    );
    assert_eq!(ctrl.in_flight(), 1, "todo 2's read alone");
    until("todo 2", || {
        page.text() == "nextquis ut nam facilis et officia qui"
    })
    .await;
    set_delay(0).await;
}

#[wasm_bindgen_test]
async fn a_base_address_on_the_pages_own_origin_reads_from_it() {
    use restcache::http::{Client, Incoming, Outgoing};
    use std::cell::RefCell;

    // A transport of one's own sees the path once.
    let sent = Rc::new(RefCell::new(Vec::new()));
    let seen = Rc::clone(&sent);
    let client = Client::new("/api").with_transport(move |request: Outgoing| {
        seen.borrow_mut().push(request.url.clone());
        async {
            Ok(Incoming::new(
                200,
                r#"{"id": 1, "userId": 1, "title": "milk", "completed": false}"#,
            ))
        }
    });
    let todo = client
        .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap();
    assert_eq!(todo.title, "milk");
    assert_eq!(*sent.borrow(), ["/api/todos/1"]);

    // The network asks the page's own server, which has no such API: an
    // answer (404), not a URL the browser could not read.
    let failed = Client::new("/no-such-api")
        .call(&TodoResource::get(), &TodoResourceParams { id: 1 }, None)
        .await
        .unwrap_err();
    assert_eq!(failed.status(), Some(404), "{failed}");
}
