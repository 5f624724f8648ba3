//! Images that suspend: the boundary's fallback shows until the browser
//! has the image, and the `<img>` appears already loaded.

use restcache::yew::{AsyncBoundary, Img};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::wasm_bindgen_test;
use yew::prelude::*;
use yew::{LocalServerRenderer, Renderer};

use crate::harness::*;

#[derive(Properties, PartialEq, Clone)]
struct PictureProps {
    src: AttrValue,
}

#[component]
fn Picture(props: &PictureProps) -> Html {
    html! {
        <AsyncBoundary fallback={html! { <p class="loading">{ "loading" }</p> }} error_fallback={failed()}>
            <Img src={props.src.clone()} alt="orange" />
        </AsyncBoundary>
    }
}

fn image_of(page: &Mounted<Picture>) -> Option<web_sys::HtmlImageElement> {
    let element = page.root.query_selector("img").unwrap()?;
    element.dyn_into().ok()
}

#[wasm_bindgen_test]
async fn an_image_suspends_until_loaded_and_shows_complete() {
    reset_demo().await;
    set_delay(300).await;
    // A name no other test loads: the page has not seen this image.
    let path = format!("/images/suspends-{}.png", now_ms() as u64);
    let src = format!("{DEMO}{path}");
    let page = mount::<Picture>(PictureProps { src: src.into() });
    yew::scheduler::flush().await;
    assert_eq!(page.text(), "loading");
    assert!(image_of(&page).is_none());
    until("the image shows", || image_of(&page).is_some()).await;
    let image = image_of(&page).unwrap();
    assert!(image.complete(), "shown only once loaded");
    assert_eq!(image.natural_width(), 2);
    assert_eq!(image.alt(), "orange");
    set_delay(0).await;
    assert_eq!(
        hits(&format!("GET {path}")).await,
        1,
        "shown from the load it waited for"
    );
}

#[wasm_bindgen_test]
async fn a_broken_image_does_not_hold_the_page() {
    reset_demo().await;
    let src = format!("{}/no-such-route/broken.png", DEMO);
    let page = mount::<Picture>(PictureProps { src: src.into() });
    until("the img shows", || image_of(&page).is_some()).await;
    assert_eq!(image_of(&page).unwrap().natural_width(), 0);
}

#[derive(Properties, PartialEq, Clone)]
struct AvatarProps {
    src: AttrValue,
}

/// Its own `<img>`, after `use_image`.
#[component]
fn Avatar(props: &AvatarProps) -> HtmlResult {
    restcache::yew::use_image(&props.src)?;
    Ok(html! { <img class="avatar" src={props.src.clone()} /> })
}

#[component]
fn Avatars(props: &AvatarProps) -> Html {
    html! {
        <AsyncBoundary fallback={html! { <p class="loading">{ "loading" }</p> }} error_fallback={failed()}>
            <Avatar src={props.src.clone()} />
            <Avatar src={props.src.clone()} />
        </AsyncBoundary>
    }
}

#[wasm_bindgen_test]
async fn use_image_suspends_until_loaded_and_loads_once() {
    reset_demo().await;
    set_delay(300).await;
    let path = format!("/images/hook-{}.png", now_ms() as u64);
    let page = mount::<Avatars>(AvatarProps {
        src: format!("{DEMO}{path}").into(),
    });
    yew::scheduler::flush().await;
    assert_eq!(page.text(), "loading");
    until("the avatars show", || {
        page.root.query_selector_all("img.avatar").unwrap().length() == 2
    })
    .await;
    set_delay(0).await;
    until("the avatars decode", || {
        let first = page.root.query_selector("img.avatar").unwrap().unwrap();
        first
            .dyn_into::<web_sys::HtmlImageElement>()
            .unwrap()
            .natural_width()
            == 2
    })
    .await;
    assert!(
        hits(&format!("GET {path}")).await <= 2,
        "one load for both, and the <img> from the browser's cache at most"
    );
}

#[wasm_bindgen_test]
async fn an_img_the_server_rendered_hydrates_with_its_image_loaded_once() {
    reset_demo().await;
    let path = format!("/images/hydrates-{}.png", now_ms() as u64);
    let src: AttrValue = format!("{DEMO}{path}").into();
    let props = PictureProps { src };
    let html = LocalServerRenderer::<Picture>::with_props(props.clone())
        .render()
        .await;
    let root = gloo_document().create_element("div").unwrap();
    gloo_document().body().unwrap().append_child(&root).unwrap();
    root.set_inner_html(&html);
    let shown = || -> Option<web_sys::HtmlImageElement> {
        root.query_selector("img").unwrap()?.dyn_into().ok()
    };
    assert_eq!(
        shown().expect("the server rendered the img").alt(),
        "orange"
    );

    let handle = Renderer::<Picture>::with_root_and_props(root.clone(), props).hydrate();
    // Once loaded, the component renders again, hydrating what the
    // server sent (Yew puts its copy of the boundary's nodes in place).
    until("the image loads", || {
        shown().is_some_and(|img| img.complete())
    })
    .await;
    sleep(std::time::Duration::from_millis(100)).await;
    yew::scheduler::flush().await;
    assert_eq!(root.query_selector_all("img").unwrap().length(), 1);
    let image = shown().unwrap();
    assert!(image.complete());
    assert_eq!((image.alt(), image.natural_width()), ("orange".into(), 2));
    assert_eq!(hits(&format!("GET {path}")).await, 1, "loaded once");
    handle.destroy();
    root.remove();
}

#[derive(Properties, PartialEq, Clone)]
struct GalleryProps {
    /// The images' addresses, each loaded through `use_image`.
    srcs: Vec<AttrValue>,
}

#[component]
fn Gallery(props: &GalleryProps) -> Html {
    let avatars = props
        .srcs
        .iter()
        .map(|src| html! { <Avatar src={src.clone()} /> });
    html! {
        <AsyncBoundary fallback={html! { <p class="loading">{ "loading" }</p> }} error_fallback={failed()}>
            { for avatars }
        </AsyncBoundary>
    }
}

#[wasm_bindgen_test]
async fn images_use_image_waited_for_are_not_held_once_loaded() {
    reset_demo().await;
    const COUNT: u32 = 40;
    let stamp = now_ms() as u64;
    let srcs: Vec<AttrValue> = (0..COUNT)
        .map(|i| format!("{DEMO}/images/gallery-{stamp}-{i}.png").into())
        .collect();
    sleep(std::time::Duration::from_millis(50)).await;
    let held_before = wasm_bindgen::externref_heap_live_count();
    let mut page = mount::<Gallery>(GalleryProps { srcs });
    until("the gallery shows", || {
        page.root.query_selector_all("img.avatar").unwrap().length() == COUNT
    })
    .await;
    page.unmount();
    yew::scheduler::flush().await;
    sleep(std::time::Duration::from_millis(50)).await;
    let held_after = wasm_bindgen::externref_heap_live_count();
    // Each image kept alive (its loading element and two listeners) would
    // hold three more; what is left is the page's own bookkeeping.
    assert!(
        held_after < held_before + COUNT,
        "{held_before} browser objects held before, {held_after} after {COUNT} images"
    );
}
