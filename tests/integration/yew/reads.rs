//! `use_suspense` and its family, rendered on a server against
//! `restcache::testing`'s mock client and the demo API: Invalid fetches, suspends and renders the data,
//! Valid renders without a request, `None` does nothing, reads take their
//! params from earlier ones, and the reads of one component fetch
//! together.

use std::rc::Rc;
use std::time::Duration;

use restcache::prelude::*;
use restcache::yew::{
    AsyncBoundary, BoundaryError, CacheProvider, use_cache, use_dle, use_prefetch, use_suspense,
};
use restcache_demo::DemoApi;
use yew::LocalServerRenderer;
use yew::prelude::*;

use super::{local, rendered, server_html};
use crate::common::{Todo, TodoDetail, TodoResource, TodoResourceParams, User};
use restcache::testing::{Fixture, MockClient, Reply};

resource!(pub UserResource { path: "/users/:id", schema: User });
endpoint!(pub wrapped_todo { path: "/wrapped/:id", schema: TodoDetail, params: { id: u64 } });

/// Props of the test apps: the controller (so a test can look into its
/// cache) and which todo to show.
#[derive(Properties, PartialEq, Clone)]
struct AppProps {
    ctrl: Controller,
    #[prop_or_default]
    id: Option<u64>,
}

fn error_fallback() -> Callback<BoundaryError, Html> {
    Callback::from(
        |failed: BoundaryError| html! { <p class="error">{ failed.error.to_string() }</p> },
    )
}

#[derive(Properties, PartialEq)]
struct TitleProps {
    id: Option<u64>,
}

#[component]
fn Title(props: &TitleProps) -> HtmlResult {
    let todo = use_suspense(
        &TodoResource::get(),
        props.id.map(|id| TodoResourceParams { id }),
    )?;
    Ok(match todo {
        Some(todo) => html! { <h1>{ &todo.title }</h1> },
        None => html! {},
    })
}

#[component]
fn TitleApp(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={error_fallback()}>
                <Title id={props.id} />
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn an_invalid_read_fetches_suspends_and_renders_the_data() {
    local(async {
        let mock = MockClient::new();
        let milk = crate::common::controller::todo_json(1, "milk");
        let params = TodoResourceParams { id: 1 };
        mock.answer(Fixture::reply(
            &TodoResource::get(),
            params,
            Reply::status(200, milk),
        ));
        let ctrl = mock.controller();
        let props = AppProps {
            ctrl: ctrl.clone(),
            id: Some(1),
        };
        let html = server_html::<TitleApp>(props).await;
        assert_eq!(html, "<h1>milk</h1>");
        assert_eq!(mock.count(Method::Get, "/todos/1"), 1);
        let cached = ctrl.read(&TodoResource::get(), &TodoResourceParams { id: 1 });
        assert_eq!(cached.status, ExpiryStatus::Valid);
    })
    .await;
}

#[tokio::test]
async fn a_valid_read_renders_without_a_request() {
    local(async {
        let mock = MockClient::new();
        let ctrl = mock.controller();
        let params = TodoResourceParams { id: 1 };
        ctrl.set_response(
            &TodoResource::get(),
            &params,
            Rc::new(crate::common::todo(1, "cached")),
        )
        .unwrap();
        let props = AppProps { ctrl, id: Some(1) };
        let html = server_html::<TitleApp>(props).await;
        assert_eq!(html, "<h1>cached</h1>");
        assert!(mock.requests().is_empty(), "{:?}", mock.requests());
    })
    .await;
}

#[tokio::test]
async fn a_detail_of_a_listed_record_renders_from_the_list_without_a_request() {
    local(async {
        let mock = MockClient::new();
        let ctrl = mock.controller();
        let list = vec![
            Rc::new(crate::common::todo(1, "milk")),
            Rc::new(crate::common::todo(2, "eggs")),
        ];
        ctrl.set_response(&TodoResource::get_list(), &(), list)
            .unwrap();
        let props = AppProps { ctrl, id: Some(2) };
        let html = server_html::<TitleApp>(props).await;
        assert_eq!(html, "<h1>eggs</h1>");
        assert!(mock.requests().is_empty(), "{:?}", mock.requests());
    })
    .await;
}

#[tokio::test]
async fn none_params_render_nothing_and_request_nothing() {
    local(async {
        let mock = MockClient::new();
        let ctrl = mock.controller();
        let props = AppProps {
            ctrl: ctrl.clone(),
            id: None,
        };
        let html = server_html::<TitleApp>(props).await;
        assert_eq!(html, "");
        assert!(mock.requests().is_empty(), "{:?}", mock.requests());
        assert_eq!(ctrl.subscriber_count(), 0);
        assert_eq!(ctrl.with_store(|store| store.result_count()), 0);
    })
    .await;
}

/// A list read hands out the list of `Rc` records; an envelope read the
/// envelope; plain params hand out the value, not an `Option`.
#[component]
fn Shapes() -> HtmlResult {
    let list: Rc<Vec<Rc<Todo>>> = use_suspense(&TodoResource::get_list(), ())?;
    let wrapped: Rc<TodoDetail> = use_suspense(&wrapped_todo(), WrappedTodoParams { id: 2 })?;
    Ok(html! {
        <p>{ format!("{} todos; wrapped: {}", list.len(), wrapped.data.title) }</p>
    })
}

#[component]
fn ShapesApp(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={error_fallback()}><Shapes /></AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn a_list_read_hands_out_the_list_and_an_envelope_read_the_envelope() {
    local(async {
        let mock = MockClient::new();
        let list = Reply::status(200, crate::common::controller::LIST);
        mock.answer(Fixture::reply(&TodoResource::get_list(), (), list));
        let wrapped =
            r#"{"data": {"id": 2, "userId": 1, "title": "eggs, wrapped", "completed": false}}"#;
        let params = WrappedTodoParams { id: 2 };
        mock.answer(Fixture::reply(
            &wrapped_todo(),
            params,
            Reply::status(200, wrapped),
        ));
        let props = AppProps {
            ctrl: mock.controller(),
            id: None,
        };
        let html = server_html::<ShapesApp>(props).await;
        assert_eq!(html, "<p>2 todos; wrapped: eggs, wrapped</p>");
        assert_eq!(mock.count(Method::Get, "/todos"), 1);
        assert_eq!(mock.count(Method::Get, "/wrapped/2"), 1);
    })
    .await;
}

/// A todo and its author: the second read's params come from the first.
#[component]
fn TodoWithAuthor() -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: 4 })?;
    let author = use_suspense(
        &UserResource::get(),
        UserResourceParams { id: todo.user_id },
    )?;
    Ok(html! { <p>{ format!("{} by {}", todo.title, author.username) }</p> })
}

#[component]
fn AuthorApp(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={error_fallback()}><TodoWithAuthor /></AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn a_read_takes_its_params_from_an_earlier_one() {
    local(async {
        let api = DemoApi::start().unwrap();
        let props = AppProps {
            ctrl: Controller::new(Client::new(api.url())),
            id: None,
        };
        let html = server_html::<AuthorApp>(props).await;
        assert_eq!(html, "<p>et porro tempora by Antonette</p>");
        assert_eq!(api.hits("GET /todos/4"), 1);
        assert_eq!(api.hits("GET /users/2"), 1);
    })
    .await;
}

/// Two reads, every hook called before the first `?`.
#[component]
fn TwoReads() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ());
    let user = use_suspense(&UserResource::get(), UserResourceParams { id: 1 });
    let (todos, user) = (todos?, user?);
    Ok(html! { <p>{ format!("{} todos for {}", todos.len(), user.username) }</p> })
}

#[component]
fn TwoReadsApp(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={error_fallback()}><TwoReads /></AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn the_reads_of_one_component_fetch_together() {
    local(async {
        let api = DemoApi::start().unwrap();
        let props = AppProps {
            ctrl: Controller::new(Client::new(api.url())),
            id: None,
        };
        // Answers wait: a component that fetched its reads one after the
        // other would never send the second while the first is held.
        let held = api.hold();
        let render = LocalServerRenderer::<TwoReadsApp>::with_props(props)
            .hydratable(false)
            .render();
        let both_on_the_server = async {
            while api.hits("GET /todos") + api.hits("GET /users/1") < 2 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            drop(held);
        };
        let (html, ()) = rendered(async { tokio::join!(render, both_on_the_server) }).await;
        assert_eq!(html, "<p>5 todos for Bret</p>");
    })
    .await;
}

/// Reads without suspense: `use_cache` shows what is cached, `use_dle`
/// fetches and reports loading.
#[component]
fn Quiet() -> Html {
    let cached = use_cache(&TodoResource::get_list(), ());
    let dle = use_dle(&TodoResource::get(), TodoResourceParams { id: 3 });
    html! {
        <p>{ format!("cached: {:?}; loading: {}; data: {:?}",
            cached.map(|todos| todos.len()), dle.loading, dle.data.map(|t| t.id)) }</p>
    }
}

#[component]
fn QuietApp(props: &AppProps) -> Html {
    html! { <CacheProvider controller={props.ctrl.clone()}><Quiet /></CacheProvider> }
}

#[tokio::test]
async fn use_cache_reads_without_fetching_and_use_dle_fetches_without_suspending() {
    local(async {
        let api = DemoApi::start().unwrap();
        let ctrl = Controller::new(Client::new(api.url()));
        let props = AppProps {
            ctrl: ctrl.clone(),
            id: None,
        };
        let held = api.hold();
        let html = server_html::<QuietApp>(props.clone()).await;
        assert_eq!(html, "<p>cached: None; loading: true; data: None</p>");
        assert_eq!(api.hits("GET /todos"), 0, "use_cache never fetches");
        // A server render keeps nothing behind: use_dle's request, if it
        // started, ends with the render.
        rendered(async {
            while ctrl.in_flight() > 0 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await;
        drop(held);
        let three = TodoResourceParams { id: 3 };
        assert!(ctrl.read(&TodoResource::get(), &three).data.is_none());

        ctrl.fetch(&TodoResource::get(), &three, None)
            .await
            .unwrap();
        let html = server_html::<QuietApp>(props).await;
        assert_eq!(html, "<p>cached: None; loading: false; data: Some(3)</p>");
    })
    .await;
}

/// Starts the list's request without reading it.
#[component]
fn Prefetch() -> Html {
    use_prefetch(&TodoResource::get_list(), ());
    use_prefetch(&TodoResource::get(), None::<TodoResourceParams>);
    html! { <p>{"prefetching"}</p> }
}

/// Reads the list its parent prefetched.
#[component]
fn Counted() -> HtmlResult {
    let todos = use_suspense(&TodoResource::get_list(), ())?;
    Ok(html! { <p>{ todos.len() }</p> })
}

#[component]
fn PrefetchApp(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <Prefetch />
            <AsyncBoundary error_fallback={error_fallback()}><Counted /></AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn use_prefetch_starts_the_request_its_children_read() {
    local(async {
        let api = DemoApi::start().unwrap();
        let ctrl = Controller::new(Client::new(api.url()));
        let props = AppProps {
            ctrl: ctrl.clone(),
            id: None,
        };
        let html = server_html::<PrefetchApp>(props).await;
        assert_eq!(html, "<p>prefetching</p><p>5</p>");
        assert_eq!(api.hits("GET /todos"), 1, "one request for both");
        assert_eq!(
            ctrl.with_store(|store| store.result_count()),
            1,
            "None fetched nothing"
        );
    })
    .await;
}

#[derive(Properties, PartialEq, Clone)]
struct TwoCaches {
    outer: Controller,
    inner: Controller,
}

#[component]
fn Nested(props: &TwoCaches) -> Html {
    html! {
        <CacheProvider controller={props.outer.clone()}>
            <AsyncBoundary error_fallback={error_fallback()}>
                <Title id={Some(1)} />
                <CacheProvider controller={props.inner.clone()}>
                    <AsyncBoundary error_fallback={error_fallback()}><Title id={Some(2)} /></AsyncBoundary>
                </CacheProvider>
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn a_nested_provider_gives_its_subtree_a_cache_of_its_own() {
    local(async {
        let api = DemoApi::start().unwrap();
        let props = TwoCaches {
            outer: Controller::new(Client::new(api.url())),
            inner: Controller::new(Client::new(api.url())),
        };
        let html = server_html::<Nested>(props.clone()).await;
        assert_eq!(
            html,
            "<h1>delectus aut autem</h1><h1>quis ut nam facilis et officia qui</h1>"
        );
        let keys = |ctrl: &Controller| {
            ctrl.with_store(|store| store.result_keys().map(str::to_owned).collect::<Vec<_>>())
        };
        assert_eq!(keys(&props.outer), [format!("GET {}/todos/1", api.url())]);
        assert_eq!(keys(&props.inner), [format!("GET {}/todos/2", api.url())]);
    })
    .await;
}

resource!(InstantTodoResource {
    path: "/instant/:id",
    schema: Todo,
    data_expiry: Duration::ZERO,
    invalid_if_stale: true,
});

/// A clock that moves a millisecond each time it is read: every answer is
/// stale by the render that shows it.
struct Ticking(std::cell::Cell<u64>);

impl restcache::Clock for Ticking {
    fn now(&self) -> restcache::Timestamp {
        self.0.set(self.0.get() + 1);
        restcache::Timestamp::from_millis(self.0.get())
    }
}

#[component]
fn InstantTitle() -> HtmlResult {
    let todo = use_suspense(
        &InstantTodoResource::get(),
        Some(InstantTodoResourceParams { id: 1 }),
    )?;
    Ok(html! { <h1>{ todo.map(|todo| todo.title.clone()) }</h1> })
}

/// A mock whose instant todo 1 is `milk`, and a controller on it whose
/// clock ticks each time it is read.
fn instant_milk() -> (MockClient, Controller) {
    let mock = MockClient::new();
    let milk = crate::common::controller::todo_json(1, "milk");
    mock.answer(Fixture::reply(
        &InstantTodoResource::get(),
        InstantTodoResourceParams { id: 1 },
        Reply::status(200, milk),
    ));
    let ctrl = Controller::builder(mock.client())
        .clock(Ticking(std::cell::Cell::new(1_000_000)))
        .build();
    (mock, ctrl)
}

#[component]
fn InstantApp(props: &AppProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={error_fallback()}>
                <InstantTitle />
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn a_read_stale_on_arrival_renders_the_answer_it_waited_for() {
    local(async {
        let (mock, ctrl) = instant_milk();
        let props = AppProps { ctrl, id: None };
        let html = server_html::<InstantApp>(props).await;
        assert_eq!(html, "<h1>milk</h1>");
        assert_eq!(mock.count(Method::Get, "/instant/1"), 1);
    })
    .await;
}

#[component]
fn InstantPage() -> Html {
    html! {
        <CacheProvider base_url="http://browser.invalid">
            <AsyncBoundary error_fallback={error_fallback()}>
                <InstantTitle />
            </AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn a_server_render_pass_renders_the_answer_it_waited_for() {
    local(async {
        let (mock, ctrl) = instant_milk();
        let render = restcache::yew::ServerRender::<InstantPage>::new(ctrl, ()).hydratable(false);
        let html = rendered(render.render()).await.unwrap();
        assert_eq!(html, "<h1>milk</h1>");
        assert_eq!(mock.count(Method::Get, "/instant/1"), 1);
    })
    .await;
}
