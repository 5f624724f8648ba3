//! One cache for both generations: a record read through a shape and
//! through an endpoint is one stored record, and `use_resource` reads in a
//! server render as `use_suspense` does.

use std::rc::Rc;

use restcache::legacy::{Resource, use_fetcher, use_resource};
use restcache::prelude::*;
use restcache::yew::{AsyncBoundary, BoundaryError, CacheProvider};
use restcache_demo::DemoApi;
use yew::prelude::*;

use super::current_user_shape;
use crate::common::{Birthday, User};
use crate::yew::{local, server_html};

resource!(pub BirthdayResource { path: "/api/birthdays/:id", schema: Birthday });

#[tokio::test]
async fn a_record_read_through_a_shape_and_an_endpoint_is_one_stored_record() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let old = Birthday::detail_shape()
        .call(&ctrl, &"1".to_owned(), None)
        .await
        .unwrap();
    let current = ctrl
        .fetch(
            &BirthdayResource::get(),
            &BirthdayResourceParams { id: "1".into() },
            None,
        )
        .await
        .unwrap();
    assert_eq!(ctrl.with_store(|s| s.entity_count("Birthday")), 1);
    assert_eq!(old.name, current.name);

    // A change through the current API shows in the older read, and back.
    let body = Body::json(&serde_json::json!({"name": "Ada L."})).unwrap();
    ctrl.fetch(
        &BirthdayResource::partial_update(),
        &BirthdayResourceParams { id: "1".into() },
        Some(body),
    )
    .await
    .unwrap();
    let seen = Birthday::detail_shape().read(&ctrl, &"1".to_owned());
    assert_eq!(seen.data.unwrap().name, "Ada L.");
    let body = Body::json(&serde_json::json!({"name": "Ada"})).unwrap();
    let back = Birthday::partial_update_shape()
        .call(&ctrl, &"1".to_owned(), Some(body))
        .await
        .unwrap();
    let seen = ctrl.read(
        &BirthdayResource::get(),
        &BirthdayResourceParams { id: "1".into() },
    );
    assert!(Rc::ptr_eq(&seen.data.unwrap(), &back));
    // Each generation names its reads its own way (the URL; `GET url`),
    // so each made its request; the record they brought is one.
    assert_eq!(api.hits("GET /api/birthdays/1"), 2);
    assert_eq!(api.hits("PATCH /api/birthdays/1"), 2);
}

#[derive(Properties, PartialEq)]
struct NameProps {
    id: Option<String>,
}

#[component]
fn Names(props: &NameProps) -> HtmlResult {
    let birthday = use_resource(&Birthday::detail_shape(), props.id.clone())?;
    let me: Rc<User> = use_resource(&current_user_shape(), restcache::legacy::Query::new())?;
    Ok(html! {
        <p>{ format!("{} / {}", birthday.map(|b| b.name.clone()).unwrap_or_default(), me.username) }</p>
    })
}

#[derive(Properties, PartialEq, Clone)]
struct AppProps {
    ctrl: Controller,
    id: Option<String>,
}

#[component]
fn App(props: &AppProps) -> Html {
    let error_fallback =
        Callback::from(|e: BoundaryError| html! { <p>{ e.error.to_string() }</p> });
    html! {
        <CacheProvider controller={props.ctrl.clone()}>
            <AsyncBoundary {error_fallback}><Names id={props.id.clone()} /></AsyncBoundary>
        </CacheProvider>
    }
}

#[tokio::test]
async fn use_resource_reads_in_a_server_render_and_none_reads_nothing() {
    local(async {
        let api = DemoApi::start().unwrap();
        let ctrl = Controller::new(Client::new(api.url()));
        let props = AppProps {
            ctrl: ctrl.clone(),
            id: Some("2".into()),
        };
        let html = server_html::<App>(props).await;
        assert_eq!(html, "<p>Grace / Bret</p>");
        assert_eq!(api.hits("GET /api/birthdays/2"), 1);
        assert_eq!(api.hits("POST /current_user/"), 1);

        let props = AppProps { ctrl, id: None };
        let html = server_html::<App>(props).await;
        assert_eq!(html, "<p> / Bret</p>");
        assert_eq!(
            api.hits("POST /current_user/"),
            1,
            "a valid read fetches nothing"
        );
    })
    .await;
}

/// Where a render reports how its fetchers compare.
#[derive(Clone, Default)]
struct Seen(Rc<std::cell::Cell<Option<(bool, bool)>>>);

impl PartialEq for Seen {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq)]
struct SeenProps {
    seen: Seen,
}

#[component]
fn Fetchers(props: &SeenProps) -> Html {
    let update = use_fetcher(&Birthday::update_shape());
    let patch = use_fetcher(&Birthday::partial_update_shape());
    let update_again = use_fetcher(&Birthday::update_shape());
    props
        .seen
        .0
        .set(Some((update == patch, update == update_again)));
    html! {}
}

#[component]
fn FetcherApp(props: &SeenProps) -> Html {
    html! {
        <CacheProvider base_url="http://127.0.0.1:9">
            <Fetchers seen={props.seen.clone()} />
        </CacheProvider>
    }
}

#[tokio::test]
async fn fetchers_of_two_shapes_differ_and_of_one_shape_are_equal() {
    let seen = Seen::default();
    let props = SeenProps { seen: seen.clone() };
    local(server_html::<FetcherApp>(props)).await;
    // A component given a fetcher as a prop re-renders when it gets
    // another shape's.
    assert_eq!(seen.0.get(), Some((false, true)));
}
