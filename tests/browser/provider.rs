//! The provider keeps its first controller: a parent that builds a new
//! `Controller` in its render (the natural way to write it) does not give
//! its subtree an empty cache on every render; a `key` swaps it on
//! purpose.

use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, CacheProvider, use_suspense};
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;

use crate::harness::*;

#[component]
fn Title() -> HtmlResult {
    let todo = use_suspense(&TodoResource::get(), TodoResourceParams { id: 1 })?;
    Ok(html! { <span>{ &todo.title }</span> })
}

#[derive(Properties, PartialEq)]
struct ParentProps {
    /// Swaps the provider (and its cache) when it changes.
    #[prop_or_default]
    key_by_round: bool,
}

#[component]
fn Parent(props: &ParentProps) -> Html {
    let round = use_state(|| 0_u32);
    let next = {
        let round = round.clone();
        Callback::from(move |_| round.set(*round + 1))
    };
    // A new controller on every render of the parent.
    let ctrl = Controller::new(Client::new(DEMO));
    let key = if props.key_by_round { *round } else { 0 };
    html! {
        <>
            <button onclick={next}>{ "again" }</button>
            <b>{ *round }</b>
            <CacheProvider key={key} controller={ctrl}>
                <AsyncBoundary fallback={html! {"loading"}} error_fallback={failed()}>
                    <Title />
                </AsyncBoundary>
            </CacheProvider>
        </>
    }
}

#[wasm_bindgen_test]
async fn a_parent_render_with_a_new_controller_keeps_the_first_cache() {
    reset_demo().await;
    let page = mount::<Parent>(ParentProps {
        key_by_round: false,
    });
    until("the todo", || page.text() == "again0delectus aut autem").await;
    for round in 1..=3 {
        page.click();
        until("the parent re-rendered", || {
            page.text() == format!("again{round}delectus aut autem")
        })
        .await;
    }
    sleep(std::time::Duration::from_millis(50)).await;
    assert_eq!(hits("GET /todos/1").await, 1, "one cache all along");
}

#[wasm_bindgen_test]
async fn a_key_swaps_the_provider_and_its_cache_on_purpose() {
    reset_demo().await;
    let page = mount::<Parent>(ParentProps { key_by_round: true });
    until("the todo", || page.text() == "again0delectus aut autem").await;
    page.click();
    until("the new provider's todo", || {
        page.text() == "again1delectus aut autem"
    })
    .await;
    until_hits("GET /todos/1", 2).await;
}
