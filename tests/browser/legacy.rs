//! One cache for both API generations, in a browser: a mutation through
//! the older API's `use_fetcher` re-renders a `use_suspense` view of the
//! record, and a mutation through the current API re-renders a
//! `use_resource` view.

use restcache::legacy::{Resource, use_fetcher, use_resource};
use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, use_suspense};
use serde_json::json;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Birthday {
    pub id: Option<String>,
    pub name: String,
}

impl Resource for Birthday {
    const URL_ROOT: &'static str = "/api/birthdays/";
}

resource!(pub BirthdayResource { path: "/api/birthdays/:id", schema: Birthday });

/// The current API's view of birthday 1.
#[component]
fn Current() -> HtmlResult {
    let params = BirthdayResourceParams { id: "1".into() };
    let birthday = use_suspense(&BirthdayResource::get(), params)?;
    Ok(html! { <p class="current">{ &birthday.name }</p> })
}

/// The older API's view of birthday 1, with a rename button.
#[component]
fn Older() -> HtmlResult {
    let birthday = use_resource(&Birthday::detail_shape(), "1".to_owned())?;
    let rename = use_fetcher(&Birthday::partial_update_shape());
    let onclick = Callback::from(move |_| {
        let rename = rename.clone();
        yew::platform::spawn_local(async move {
            let body = Body::json(&json!({"name": "renamed by the older API"})).unwrap();
            rename.fetch("1".to_owned(), Some(body)).await.unwrap();
        });
    });
    Ok(html! {
        <p class="older">{ &birthday.name }<button {onclick}>{"rename"}</button></p>
    })
}

#[component]
fn App(props: &CtrlProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}><Current /><Older /></AsyncBoundary>
        </CacheProvider>
    }
}

fn text_of(page: &Mounted<App>, selector: &str) -> String {
    page.root
        .query_selector(selector)
        .ok()
        .flatten()
        .and_then(|e| e.text_content())
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn a_mutation_through_either_generation_shows_in_both_views() {
    reset_demo().await;
    let ctrl = controller();
    let page = mount::<App>(CtrlProps { ctrl: ctrl.clone() });
    until("both views", || text_of(&page, ".current") == "Ada").await;
    assert_eq!(text_of(&page, ".older"), "Adarename");

    // The older API's use_fetcher: the current API's view shows it.
    page.click();
    until("the older rename in the current view", || {
        text_of(&page, ".current") == "renamed by the older API"
    })
    .await;

    // The current API's mutation: the older API's view shows it.
    let body = Body::json(&json!({"name": "renamed by the current API"})).unwrap();
    let params = BirthdayResourceParams { id: "1".into() };
    ctrl.fetch(&BirthdayResource::partial_update(), &params, Some(body))
        .await
        .unwrap();
    until("the current rename in the older view", || {
        text_of(&page, ".older") == "renamed by the current APIrename"
    })
    .await;
    assert_eq!(hits("PATCH /api/birthdays/1").await, 2);
}
