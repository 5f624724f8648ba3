//! What every browser test uses: the demo API (its address, hits and
//! switches), the records it serves, mounting an app into a fresh element,
//! and waiting for the page to show something.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use restcache::prelude::*;
use restcache::yew::BoundaryError;
use web_sys::Element;
use yew::prelude::*;
use yew::{AppHandle, BaseComponent, Renderer};

/// The demo API's base address: `scripts/test.sh` starts the demo API
/// and passes it in `DEMO_API_URL` when it builds the tests.
pub const DEMO: &str = match option_env!("DEMO_API_URL") {
    Some(url) => url,
    None => "http://demo-api-url-unset.invalid",
};

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Todo {
    pub id: u64,
    pub user_id: u64,
    pub title: String,
    pub completed: bool,
}

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct User {
    pub id: u64,
    pub username: String,
}

resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
resource!(pub UserResource { path: "/users/:id", schema: User });

/// A controller on the demo API.
pub fn controller() -> Controller {
    Controller::new(Client::new(DEMO))
}

/// A controller on the demo API whose time a test moves.
pub fn controller_on(clock: &ManualClock) -> Controller {
    Controller::builder(Client::new(DEMO))
        .clock(clock.clone())
        .build()
}

/// Calls a control route of the demo API.
async fn control(method: Method, path: &str, body: Option<serde_json::Value>) -> String {
    let client = Client::new(DEMO);
    let response = client
        .request(method, &format!("{DEMO}{path}"), body.map(Body::from))
        .await
        .unwrap_or_else(|e| {
            panic!("the demo API at {DEMO} does not answer (scripts/test.sh starts it): {e}")
        });
    response.body
}

/// The demo API back to its seeded records, with no hits and the switches
/// off.
pub async fn reset_demo() {
    control(Method::Post, "/__demo/reset", None).await;
}

/// How many requests `route` (`METHOD /path`) has had.
pub async fn hits(route: &str) -> u64 {
    let text = control(Method::Get, "/__demo/hits", None).await;
    let hits: serde_json::Value = serde_json::from_str(&text).unwrap();
    hits[route].as_u64().unwrap_or(0)
}

/// How many live stream connections the demo API has open.
pub async fn streams_open() -> u64 {
    let text = control(Method::Get, "/__demo/streams", None).await;
    let streams: serde_json::Value = serde_json::from_str(&text).unwrap();
    streams["open"].as_u64().unwrap()
}

/// Changes todo `id`'s title as another user would (another client).
pub async fn rename_elsewhere(id: u64, title: &str) {
    let body = serde_json::json!({ "title": title });
    control(Method::Patch, &format!("/todos/{id}"), Some(body)).await;
}

/// Turns the demo API's outage on or off (every route answers 503).
pub async fn outage(on: bool) {
    control(
        Method::Put,
        "/__demo/switches",
        Some(serde_json::json!({ "outage": on })),
    )
    .await;
}

/// Holds every answer of the demo API back by `ms` milliseconds.
pub async fn set_delay(ms: u64) {
    control(
        Method::Put,
        "/__demo/switches",
        Some(serde_json::json!({ "delayMs": ms })),
    )
    .await;
}

/// The props of a test app: the controller its provider hands out.
#[derive(Properties, PartialEq, Clone)]
pub struct CtrlProps {
    pub ctrl: Controller,
}

/// An app mounted into an element of its own.
pub struct Mounted<C: BaseComponent> {
    pub root: Element,
    pub handle: Option<AppHandle<C>>,
}

impl<C: BaseComponent> Mounted<C> {
    /// The text the page shows.
    pub fn text(&self) -> String {
        self.root.text_content().unwrap_or_default()
    }

    /// The page's first button.
    pub fn button(&self) -> web_sys::HtmlElement {
        use wasm_bindgen::JsCast;
        let button = self.root.query_selector("button").unwrap();
        button.expect("a button on the page").dyn_into().unwrap()
    }

    /// Clicks the page's first button.
    pub fn click(&self) {
        self.button().click();
    }

    /// Unmounts the app and removes its element.
    pub fn unmount(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.destroy();
        }
        self.root.remove();
    }
}

impl<C: BaseComponent> Drop for Mounted<C> {
    fn drop(&mut self) {
        self.unmount();
    }
}

/// Mounts `C` with `props` into a fresh element of the page.
pub fn mount<C: BaseComponent>(props: C::Properties) -> Mounted<C> {
    let document = gloo_document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let handle = Renderer::<C>::with_root_and_props(root.clone(), props).render();
    Mounted {
        root,
        handle: Some(handle),
    }
}

/// `C` rendered as a server renders it, its provider on `on_server`.
pub async fn server_rendered<C>(on_server: &Controller) -> String
where
    C: BaseComponent<Properties = CtrlProps>,
{
    let props = CtrlProps {
        ctrl: on_server.clone(),
    };
    restcache::yew::ServerRender::<C>::new(on_server.clone(), props)
        .render()
        .await
        .unwrap()
}

/// A fresh element of the page holding `html`, as a server sent it.
pub fn page_holding(html: &str) -> Element {
    let root = gloo_document().create_element("div").unwrap();
    gloo_document().body().unwrap().append_child(&root).unwrap();
    root.set_inner_html(html);
    root
}

/// `C` hydrating `root`, its provider on a browser's controller that
/// took `handoff`.
pub fn hydrated<C>(root: &Element, handoff: &str) -> AppHandle<C>
where
    C: BaseComponent<Properties = CtrlProps>,
{
    let in_browser = controller();
    in_browser.import_handoff(handoff).unwrap();
    Renderer::<C>::with_root_and_props(root.clone(), CtrlProps { ctrl: in_browser }).hydrate()
}

pub fn gloo_document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// Waits until `holds` holds, checking after each turn of Yew's
/// scheduler; a test that waits more than ten seconds fails, naming what
/// it waited for.
pub async fn until(what: &str, holds: impl Fn() -> bool) {
    let start = now_ms();
    loop {
        yew::scheduler::flush().await;
        if holds() {
            return;
        }
        assert!(now_ms() - start < 10_000.0, "waited 10 s for {what}");
        sleep(Duration::from_millis(10)).await;
    }
}

/// Waits until `route` has had at least `count` requests; a test that
/// waits more than ten seconds fails.
pub async fn until_hits(route: &str, count: u64) {
    let start = now_ms();
    loop {
        let seen = hits(route).await;
        if seen >= count {
            return;
        }
        assert!(
            now_ms() - start < 10_000.0,
            "waited 10 s for {count} requests to {route}, saw {seen}"
        );
        sleep(Duration::from_millis(10)).await;
    }
}

/// Lets the page run for `time`.
pub async fn sleep(time: Duration) {
    yew::platform::time::sleep(time).await;
}

/// The page's clock, in milliseconds.
pub fn now_ms() -> f64 {
    web_sys::window().unwrap().performance().unwrap().now()
}

/// Counts the renders of a component.
#[derive(Clone, Default)]
pub struct Renders(Rc<Cell<u32>>);

impl Renders {
    pub fn bump(&self) {
        self.0.set(self.0.get() + 1);
    }

    pub fn count(&self) -> u32 {
        self.0.get()
    }
}

impl PartialEq for Renders {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// A boundary fallback that shows the status and a reset button.
pub fn failed() -> Callback<BoundaryError, Html> {
    Callback::from(|failed: BoundaryError| {
        let reset = failed.reset.clone();
        html! {
            <p class="failed">
                { format!("failed: {:?}", failed.error.status()) }
                <button onclick={move |_| reset.emit(())}>{"reset"}</button>
            </p>
        }
    })
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Reflect, js_name = defineProperty)]
    fn define_property(
        target: &wasm_bindgen::JsValue,
        key: &str,
        attributes: &wasm_bindgen::JsValue,
    ) -> bool;
    #[wasm_bindgen(js_namespace = Reflect, js_name = deleteProperty)]
    fn delete_property(target: &wasm_bindgen::JsValue, key: &str) -> bool;
    #[wasm_bindgen(js_namespace = Reflect, js_name = get)]
    fn property(target: &wasm_bindgen::JsValue, key: &str) -> wasm_bindgen::JsValue;
    #[wasm_bindgen(js_namespace = JSON, js_name = parse)]
    fn json(text: &str) -> wasm_bindgen::JsValue;
}

/// The browser saying otherwise than it would (`navigator.onLine` false,
/// `document.hidden` true), until dropped.
pub struct Pretend {
    target: wasm_bindgen::JsValue,
    key: &'static str,
}

impl Pretend {
    /// `navigator.<key>` reads `value`.
    pub fn navigator(key: &'static str, value: bool) -> Pretend {
        let window: wasm_bindgen::JsValue = web_sys::window().unwrap().into();
        Pretend::on(property(&window, "navigator"), key, value)
    }

    /// `document.<key>` reads `value`.
    pub fn document(key: &'static str, value: bool) -> Pretend {
        Pretend::on(gloo_document().into(), key, value)
    }

    fn on(target: wasm_bindgen::JsValue, key: &'static str, value: bool) -> Pretend {
        let fixed = json(&format!(r#"{{"value": {value}, "configurable": true}}"#));
        assert!(define_property(&target, key, &fixed));
        Pretend { target, key }
    }
}

impl Drop for Pretend {
    fn drop(&mut self) {
        delete_property(&self.target, self.key);
    }
}
