//! A server that renders pages keeps nothing behind: each page's
//! controller (its cache, its client's connections) is freed when its
//! render ends, whether the page had a failed read, rendered fully, or was
//! dropped half-way; what is left of a stopped page never renders again.

use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, BoundaryError, CacheProvider, ServerRender, use_suspense};
use yew::prelude::*;

use super::{local, rendered};
use crate::common::controller::todo_json;
use crate::common::mock::slowly;
use crate::common::{TodoResource, TodoResourceParams};

/// A clock that counts the controllers alive: each controller holds its
/// own until it is freed.
struct Counted(Rc<Cell<i64>>);

impl Counted {
    fn new(live: &Rc<Cell<i64>>) -> Self {
        live.set(live.get() + 1);
        Counted(Rc::clone(live))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.set(self.0.get() - 1);
    }
}

impl restcache::Clock for Counted {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

#[derive(Properties, PartialEq)]
struct TitleProps {
    id: u64,
}

thread_local! {
    /// The `Title` components alive on this thread.
    static TITLES: Cell<i64> = const { Cell::new(0) };
}

/// Held by each `Title` while Yew keeps it.
struct Alive;

impl Alive {
    fn new() -> Self {
        TITLES.with(|titles| titles.set(titles.get() + 1));
        Alive
    }
}

impl Drop for Alive {
    fn drop(&mut self) {
        TITLES.with(|titles| titles.set(titles.get() - 1));
    }
}

#[component]
fn Title(props: &TitleProps) -> HtmlResult {
    let _alive = use_memo((), |()| Alive::new());
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: props.id })?;
    Ok(html! { <h1>{ &todo.title }</h1> })
}

#[derive(Properties, PartialEq, Clone)]
struct PageProps {
    id: u64,
}

/// One todo in a boundary. The provider takes the render's controller:
/// the props hold none.
#[component]
fn Page(props: &PageProps) -> Html {
    let error_fallback =
        Callback::from(|e: BoundaryError| html! { <p>{ format!("{:?}", e.error.status()) }</p> });
    html! {
        <CacheProvider base_url="http://browser.invalid">
            <AsyncBoundary {error_fallback}><Title id={props.id} /></AsyncBoundary>
        </CacheProvider>
    }
}

/// The file descriptors this process has open (sockets among them).
fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |dir| dir.count())
}

/// Polls `future` once, then drops it: a render abandoned half-way (the
/// client went away).
fn poll_once_and_drop(future: impl Future) {
    let mut future = Box::pin(future);
    let waker = std::task::Waker::noop();
    assert!(matches!(
        future.as_mut().poll(&mut Context::from_waker(waker)),
        Poll::Pending
    ));
}

#[tokio::test]
async fn pages_keep_no_controller_nor_connection_once_rendered_stopped_or_dropped() {
    local(async {
        let mut server = mockito::Server::new_async().await;
        let _found = server
            .mock("GET", "/todos/1")
            .with_header("content-type", "application/json")
            .with_body(todo_json(1, "milk"))
            .create_async()
            .await;
        let _missing = server
            .mock("GET", "/todos/404")
            .with_status(404)
            .create_async()
            .await;
        let _slow = slowly(
            server.mock("GET", "/todos/7"),
            Duration::from_millis(50),
            todo_json(7, "slow"),
        )
        .create_async()
        .await;
        let live = Rc::new(Cell::new(0_i64));
        // Each page with a client of its own: its connections are the
        // page's to close.
        let page = |id: u64| {
            let client = restcache::http::Client::new(server.url());
            let ctrl = Controller::builder(client)
                .clock(Counted::new(&live))
                .build();
            ServerRender::<Page>::new(ctrl, PageProps { id }).hydratable(false)
        };
        // Warm up (the runtime's and the mock server's own descriptors).
        rendered(page(1).render()).await.unwrap();
        let before = open_descriptors();

        for round in 0..50 {
            assert_eq!(rendered(page(1).render()).await.unwrap(), "<h1>milk</h1>");
            assert_eq!(
                rendered(page(404).render()).await.unwrap(),
                "<p>Some(404)</p>"
            );
            // Dropped while its read is on its way.
            poll_once_and_drop(page(7).render());
            // Dropped after its read failed, while its pass waits to stop.
            let stopped = page(404).render();
            let dropped = tokio::time::timeout(Duration::from_millis(round % 5), stopped).await;
            if let Ok(html) = &dropped {
                assert_eq!(html.as_deref().unwrap(), "<p>Some(404)</p>");
            }
        }
        tokio::task::yield_now().await;
        assert_eq!(live.get(), 0, "every page freed its controller and cache");
        assert_eq!(
            TITLES.with(Cell::get),
            0,
            "Yew tore every page's components down, stopped or dropped"
        );

        // The renders left nothing that runs: the next page renders as
        // the first did.
        assert_eq!(rendered(page(1).render()).await.unwrap(), "<h1>milk</h1>");
        assert_eq!(live.get(), 0);
        // The server side closes the connections the pages' clients
        // closed; give it a moment to notice.
        let mut after = open_descriptors();
        for _ in 0..100 {
            if after <= before + 4 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            after = open_descriptors();
        }
        assert!(
            after <= before + 4,
            "open descriptors went from {before} to {after} over 200 pages"
        );
    })
    .await;
}

/// A record with no `Default`: no stand-in for it.
#[derive(Entity, Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Note {
    id: u64,
    text: String,
}

resource!(NoteResource {
    path: "/notes/:id",
    schema: Note
});

#[component]
fn NoteText() -> HtmlResult {
    let note = use_suspense(&NoteResource::get(), NoteResourceParams { id: 1 })?;
    Ok(html! { <p>{ &note.text }</p> })
}

#[component]
fn NotePage() -> Html {
    let error_fallback =
        Callback::from(|e: BoundaryError| html! { <p>{ format!("{:?}", e.error.status()) }</p> });
    html! {
        <CacheProvider base_url="http://browser.invalid">
            <AsyncBoundary {error_fallback}><NoteText /></AsyncBoundary>
        </CacheProvider>
    }
}

/// A page whose failed read has no stand-in keeps its stopped components
/// asleep (Yew cannot tear them down), and still no controller.
#[tokio::test]
async fn a_failed_read_without_a_stand_in_still_frees_its_controller() {
    local(async {
        let mut server = mockito::Server::new_async().await;
        let _missing = server
            .mock("GET", "/notes/1")
            .with_status(404)
            .create_async()
            .await;
        let live = Rc::new(Cell::new(0_i64));
        for _ in 0..20 {
            let client = restcache::http::Client::new(server.url());
            let ctrl = Controller::builder(client)
                .clock(Counted::new(&live))
                .build();
            let render = ServerRender::<NotePage>::new(ctrl, ()).hydratable(false);
            assert_eq!(rendered(render.render()).await.unwrap(), "<p>Some(404)</p>");
        }
        assert_eq!(live.get(), 0);
    })
    .await;
}

#[component]
fn Panics() -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: 1 })?;
    panic!("a component fails on {}", todo.title);
}

#[component]
fn PanickingPage() -> Html {
    html! {
        <CacheProvider base_url="http://browser.invalid">
            <AsyncBoundary error_fallback={Callback::from(|_: BoundaryError| Html::default())}>
                <Panics />
            </AsyncBoundary>
        </CacheProvider>
    }
}

/// A component that panics ends its render with the panic; the page keeps
/// no controller, and the next page renders as if nothing happened.
#[tokio::test]
async fn a_component_that_panics_leaves_no_controller_and_no_pass_behind() {
    use futures_util::FutureExt;
    local(async {
        let mut server = mockito::Server::new_async().await;
        let _found = server
            .mock("GET", "/todos/1")
            .with_header("content-type", "application/json")
            .with_body(todo_json(1, "milk"))
            .create_async()
            .await;
        let live = Rc::new(Cell::new(0_i64));
        let controller = || {
            let client = restcache::http::Client::new(server.url());
            Controller::builder(client)
                .clock(Counted::new(&live))
                .build()
        };
        let render = ServerRender::<PanickingPage>::new(controller(), ()).render();
        let panicked = std::panic::AssertUnwindSafe(render).catch_unwind().await;
        assert!(panicked.is_err(), "the panic ends the render");
        assert_eq!(live.get(), 0);
        let page = ServerRender::<Page>::new(controller(), PageProps { id: 1 });
        let html = rendered(page.hydratable(false).render()).await.unwrap();
        assert_eq!(html, "<h1>milk</h1>");
        assert_eq!(live.get(), 0);
    })
    .await;
}

/// Names the API its provider's controller reads.
#[component]
fn ApiName() -> Html {
    let ctrl = restcache::yew::use_controller();
    html! { <p>{ ctrl.client().base_url().to_owned() }</p> }
}

/// A page of its own API, rendered by Yew's renderer.
#[component]
fn OtherApp() -> Html {
    html! { <CacheProvider base_url="http://other.invalid"><ApiName /></CacheProvider> }
}

#[tokio::test]
async fn a_page_rendered_beside_a_server_render_keeps_its_own_cache() {
    local(async {
        let mut server = mockito::Server::new_async().await;
        let _slow = slowly(
            server.mock("GET", "/todos/7"),
            Duration::from_millis(200),
            todo_json(7, "slow"),
        )
        .create_async()
        .await;
        let ctrl = Controller::new(Client::new(server.url()));
        // Another request's page, rendered on the same thread while the
        // first one waits on its read.
        let other = async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            rendered(
                yew::LocalServerRenderer::<OtherApp>::new()
                    .hydratable(false)
                    .render(),
            )
            .await
        };
        let page = ServerRender::<Page>::new(ctrl, PageProps { id: 7 }).hydratable(false);
        let (page, other) = tokio::join!(rendered(page.render()), other);
        assert_eq!(page.unwrap(), "<h1>slow</h1>");
        assert_eq!(other, "<p>http://other.invalid</p>");
    })
    .await;
}
