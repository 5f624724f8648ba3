//! Images that suspend until the browser has them: `use_image` and
//! `Img`, so a page never shows a layout that jumps as its images come
//! in.

use yew::prelude::*;
use yew::suspense::SuspensionResult;

/// Suspends the component until the browser has loaded the image at
/// `src` (or given up on it: a broken image does not hold the page back),
/// so that the nearest [`AsyncBoundary`](super::AsyncBoundary) shows its
/// fallback meanwhile. An image loads once per page: a later render, in
/// this component or another, does not suspend for it again. The `<img>`
/// the component renders then shows it from the browser's cache, so serve
/// images cacheable (`Cache-Control: max-age=..`), as image servers do.
/// Once an image has loaded, only its address is kept, not the image: a
/// page that shows thousands of them holds none alive. On the server it
/// does nothing (there is no image to wait for).
///
/// ```
/// use restcache::yew::{AsyncBoundary, use_image};
/// use yew::prelude::*;
///
/// #[derive(Properties, PartialEq)]
/// struct AvatarProps { url: AttrValue }
///
/// #[component]
/// fn Avatar(props: &AvatarProps) -> HtmlResult {
///     use_image(&props.url)?;
///     Ok(html! { <img class="avatar" src={props.url.clone()} /> })
/// }
///
/// # let _ = html! {
/// <AsyncBoundary fallback={html! { <p>{ "Loading…" }</p> }} error_fallback={Callback::from(|_| html! { <p>{ "Failed" }</p> })}>
///     <Avatar url="/images/ada.png" />
/// </AsyncBoundary>
/// # };
/// ```
#[hook]
pub fn use_image(src: &str) -> SuspensionResult<()> {
    loading::wait_for(src)
}

/// The props of [`Img`].
///
/// ```
/// use restcache::yew::ImgProps;
/// let props = ImgProps { src: "/a.png".into(), alt: "A".into(), class: Default::default() };
/// assert_eq!(props.src, "/a.png");
/// ```
#[derive(Properties, PartialEq, Clone, Debug)]
pub struct ImgProps {
    /// The image's address.
    pub src: AttrValue,
    /// Its text alternative.
    #[prop_or_default]
    pub alt: AttrValue,
    /// Its classes.
    #[prop_or_default]
    pub class: Classes,
}

/// An `<img>` that suspends until its image has loaded, and then renders
/// it: the browser shows it from the load it waited for, complete at its
/// first paint. On the server it renders the same `<img>`, so a page
/// the server rendered hydrates it.
///
/// ```
/// use restcache::yew::{AsyncBoundary, Img};
/// use yew::prelude::*;
///
/// # let _ = html! {
/// <AsyncBoundary fallback={html! { <p>{ "Loading…" }</p> }} error_fallback={Callback::from(|_| html! { <p>{ "Failed" }</p> })}>
///     <Img src="/images/beach.png" alt="The beach" />
/// </AsyncBoundary>
/// # };
/// ```
#[component]
pub fn Img(props: &ImgProps) -> HtmlResult {
    loading::use_img(props)
}

/// The `<img>` that `Img` renders, on the server and in the browser
/// alike, so that a page the server rendered hydrates it.
fn plain(props: &ImgProps) -> Html {
    html! {
        <img src={props.src.clone()} alt={props.alt.clone()} class={props.class.clone()} />
    }
}

#[cfg(target_arch = "wasm32")]
mod loading {
    use std::cell::{Cell, RefCell};
    use std::collections::HashMap;
    use std::rc::Rc;

    use gloo_events::EventListener;
    use yew::prelude::*;
    use yew::suspense::{Suspension, SuspensionResult};

    use super::ImgProps;

    /// An image being loaded by an element of ours.
    struct Requested {
        suspension: Suspension,
        loaded: Rc<Cell<bool>>,
        // Kept so that the browser keeps loading it and tells us.
        _image: web_sys::HtmlImageElement,
        _listeners: [EventListener; 2],
    }

    impl Requested {
        /// Starts loading `src`, and calls `settled` once the browser has
        /// it or gave up on it; `None` outside a page.
        fn start(src: &str, settled: impl Fn() + Clone + 'static) -> Option<Requested> {
            let image = web_sys::HtmlImageElement::new().ok()?;
            let (suspension, handle) = Suspension::new();
            let loaded = Rc::new(Cell::new(false));
            let handle = Rc::new(RefCell::new(Some(handle)));
            let listen = |event: &'static str| {
                let (loaded, handle) = (Rc::clone(&loaded), Rc::clone(&handle));
                let settled = settled.clone();
                EventListener::once(&image, event, move |_| {
                    loaded.set(true);
                    if let Some(handle) = handle.borrow_mut().take() {
                        handle.resume();
                        settled();
                    }
                })
            };
            let listeners = [listen("load"), listen("error")];
            image.set_src(src);
            Some(Requested {
                suspension,
                loaded,
                _image: image,
                _listeners: listeners,
            })
        }

        fn wait(&self) -> SuspensionResult<()> {
            match self.loaded.get() {
                true => Ok(()),
                false => Err(self.suspension.clone()),
            }
        }
    }

    /// `Img`: each one loads its image with an element of its own (kept
    /// while the component shows that address), then renders the plain
    /// `<img>`, which the browser shows from that load. Outside a page
    /// (a server render in wasm) there is nothing to wait for.
    #[hook]
    pub fn use_img(props: &ImgProps) -> HtmlResult {
        let requested = use_memo(props.src.clone(), |src| Requested::start(src, || {}));
        if let Some(requested) = requested.as_ref() {
            requested.wait()?;
        }
        Ok(super::plain(props))
    }

    /// An image `use_image` waited for: loading, with what loads it, or
    /// loaded, when only its address is kept (the browser holds the image).
    enum Image {
        Loading(Requested),
        Loaded,
    }

    thread_local! {
        static IMAGES: RefCell<HashMap<String, Image>> = RefCell::default();
    }

    pub fn wait_for(src: &str) -> SuspensionResult<()> {
        IMAGES.with(|images| {
            if let Some(image) = images.borrow().get(src) {
                return match image {
                    Image::Loading(requested) => requested.wait(),
                    Image::Loaded => Ok(()),
                };
            }
            let address = src.to_owned();
            // Once loaded, the element that loaded it and its listeners go
            // (after the listener that tells it has returned): a page that
            // shows many images keeps none of them alive.
            let settled = move || {
                let address = address.clone();
                yew::platform::spawn_local(async move {
                    IMAGES.with(|images| {
                        if let Some(image) = images.borrow_mut().get_mut(&address) {
                            *image = Image::Loaded;
                        }
                    })
                });
            };
            let Some(requested) = Requested::start(src, settled) else {
                return Ok(());
            };
            let waiting = requested.wait();
            images
                .borrow_mut()
                .insert(src.to_owned(), Image::Loading(requested));
            waiting
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod loading {
    use yew::prelude::*;
    use yew::suspense::SuspensionResult;

    use super::ImgProps;

    /// Natively (a server render) there is no image to wait for.
    pub fn wait_for(_: &str) -> SuspensionResult<()> {
        Ok(())
    }

    /// A plain `<img>`.
    #[hook]
    pub fn use_img(props: &ImgProps) -> HtmlResult {
        Ok(super::plain(props))
    }
}
