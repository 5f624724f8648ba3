//! `use_next_page` in a server render: it says whether the list a view
//! shows has a page after the ones it holds, and `None` params give
//! `None`. (Loading pages on a click is a browser test.)

use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, BoundaryError, CacheProvider, use_next_page, use_suspense};
use restcache_demo::DemoApi;
use yew::prelude::*;

use super::{local, server_html};
use crate::common::{TodoResource, TodoResourcePagesParams};

const FIRST: TodoResourcePagesParams = TodoResourcePagesParams { page: 1, limit: 2 };

#[derive(Properties, PartialEq)]
struct FeedProps {
    ctrl: Controller,
    #[prop_or(true)]
    pages: bool,
}

#[component]
fn Items() -> HtmlResult {
    let todos = use_suspense(&TodoResource::pages(), FIRST)?;
    Ok(html! { <p>{ format!("{} of {:?}", todos.items.len(), todos.total) }</p> })
}

#[component]
fn More(props: &FeedProps) -> Html {
    let loader = use_next_page(&TodoResource::pages(), props.pages.then_some(FIRST));
    match loader {
        Some(loader) if loader.more => html! { <button>{ "more" }</button> },
        Some(_) => html! { <span>{ "all" }</span> },
        None => html! { <span>{ "no list" }</span> },
    }
}

#[component]
fn Feed(props: &FeedProps) -> Html {
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary error_fallback={failed()}><Items /></AsyncBoundary>
            <More ctrl={props.ctrl.clone()} pages={props.pages} />
        </CacheProvider>
    }
}

fn failed() -> Callback<BoundaryError, Html> {
    Callback::from(|failed: BoundaryError| html! { <p>{ failed.error.to_string() }</p> })
}

async fn render(ctrl: &Controller, pages: bool) -> String {
    let props = FeedProps {
        ctrl: ctrl.clone(),
        pages,
    };
    server_html::<Feed>(props).await
}

#[tokio::test]
async fn use_next_page_says_whether_a_page_follows() {
    local(async {
        let api = DemoApi::start().unwrap();
        let ctrl = Controller::new(Client::new(api.url()));
        ctrl.fetch(&TodoResource::pages(), &FIRST, None)
            .await
            .unwrap();
        assert_eq!(
            render(&ctrl, true).await,
            "<p>2 of Some(5)</p><button>more</button>"
        );
        assert_eq!(
            render(&ctrl, false).await,
            "<p>2 of Some(5)</p><span>no list</span>"
        );

        while ctrl
            .fetch_next_page(&TodoResource::pages(), &FIRST)
            .await
            .unwrap()
        {}
        assert_eq!(
            render(&ctrl, true).await,
            "<p>5 of Some(5)</p><span>all</span>"
        );
        assert_eq!(api.hits("GET /todos"), 3, "the renders fetched nothing");
    })
    .await;
}
