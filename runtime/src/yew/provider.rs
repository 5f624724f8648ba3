//! The provider: one controller for a subtree, and the page listeners
//! that tell it when the page comes back into view or online.

use std::time::Duration;

use yew::prelude::*;

use super::context::{CacheContext, Scope, use_scope};
#[cfg(feature = "ssr")]
use super::server::current_pass;
use crate::controller::Controller;
use crate::http::Client;

/// Props of [`CacheProvider`].
#[derive(Properties, PartialEq)]
pub struct CacheProviderProps {
    /// The controller of the subtree. Under a
    /// [`ServerRender`](super::ServerRender), the provider takes the
    /// render's controller instead (when this is not given, or is that
    /// one). The provider keeps the controller (or the `base_url`) of
    /// its first render for its whole life, so a parent may build one in
    /// its render; to swap the cache on purpose (a log-out, another
    /// tenant), give the provider a `key` that changes with it
    /// (`<CacheProvider key={user_id} ..>`): Yew then mounts a new one.
    /// On a log-out, [`reset`](Controller::reset) the old controller
    /// first: a reset also removes what `use_persist` (feature `persist`)
    /// saved, drops the mutations queued offline, and reaches the other
    /// tabs. A provider swapped without one leaves its cache saved, and
    /// the next provider's `use_persist` takes it back.
    #[prop_or_default]
    pub controller: Option<Controller>,
    /// The API's base address, to build a controller from when none is
    /// given. In a browser build with the `hydration` feature, that
    /// controller first takes the cache a server handed to the page
    /// ([`Controller::import_handoff_from_page`]).
    #[prop_or_default]
    pub base_url: Option<AttrValue>,
    /// Whether the page becoming visible again refetches every mounted
    /// read that is stale (default: yes); only then does the provider
    /// follow the page's visibility (a page out of view pauses its polls
    /// and defers its reads' expiries to its return). A controller shared
    /// by several providers hears from each that revalidates.
    #[prop_or(true)]
    pub revalidate_on_focus: bool,
    /// Whether the browser coming back online refetches every mounted
    /// read that is stale (default: yes; without it, only the reads whose
    /// expiry came while offline). Either way the provider tells its
    /// controller whether the network is up, from the browser's word when
    /// it mounts on: offline, mutations wait in their queue and reads wait
    /// for the network. (A browser that says it is offline with a network
    /// up, as some set-ups do, is set right with
    /// [`Controller::set_online`].)
    #[prop_or(true)]
    pub revalidate_on_reconnect: bool,
    /// The shortest time between two revalidations on focus or reconnect
    /// (default: 1 s), so that a burst of events makes one round.
    #[prop_or(Duration::from_secs(1))]
    pub revalidate_throttle: Duration,
    /// The subtree.
    #[prop_or_default]
    pub children: Html,
}

/// Gives its subtree one [`Controller`]: every hook below reads and writes
/// its cache. A provider nested inside another gives its own subtree a
/// cache of its own.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::{CacheProvider, use_controller};
/// use yew::prelude::*;
///
/// #[component]
/// fn Base() -> Html {
///     let ctrl = use_controller();
///     html! { <p>{ ctrl.client().base_url().to_owned() }</p> }
/// }
///
/// #[component]
/// fn App() -> Html {
///     html! {
///         <CacheProvider base_url="http://127.0.0.1:8080">
///             <Base />
///         </CacheProvider>
///     }
/// }
/// # let html = restcache_demo::block_on(yew::LocalServerRenderer::<App>::new().hydratable(false).render());
/// # assert_eq!(html, "<p>http://127.0.0.1:8080</p>");
/// ```
#[component]
pub fn CacheProvider(props: &CacheProviderProps) -> Html {
    // The first controller stays for the provider's life: a parent that
    // makes a new one in each render must not empty the cache each time.
    // In a server render, the render's controller serves (unless the
    // provider is given another one), held by the render's pass.
    let outer = use_scope();
    let first = (props.controller.clone(), props.base_url.clone());
    let context = use_memo((), move |()| {
        #[cfg(feature = "ssr")]
        if let Some(pass) = current_pass()
            && (first.0.is_none() || pass.controller() == first.0)
        {
            return CacheContext::in_pass(pass);
        }
        match first {
            (Some(controller), _) => CacheContext::new(controller),
            (None, Some(base_url)) => {
                let controller = Controller::new(Client::new(base_url.as_str()));
                // A page a server rendered holds its cache: take it before
                // the first render, so that hydration reads it. A text the
                // controller refuses leaves the cache empty (the reads
                // fetch), and the console says why. A build without
                // `hydration` leaves the import out (its context warns when
                // a page holds a handoff all the same).
                #[cfg(feature = "hydration")]
                if let Err(refused) = controller.import_handoff_from_page() {
                    #[cfg(target_arch = "wasm32")]
                    web_sys::console::warn_1(
                        &format!("restcache: the page's cache handoff is not taken: {refused}")
                            .into(),
                    );
                    #[cfg(not(target_arch = "wasm32"))]
                    let _ = refused;
                }
                CacheContext::new(controller)
            }
            (None, None) => panic!(
                "<CacheProvider> needs a `controller` or a `base_url`: \
             <CacheProvider base_url=\"https://api.example\">"
            ),
        }
    });
    let listen = (
        (*context).clone(),
        props.revalidate_on_focus,
        props.revalidate_on_reconnect,
        props.revalidate_throttle,
    );
    // An effect: a server render never listens.
    use_effect_with(listen, |(context, on_focus, on_reconnect, throttle)| {
        let listener = context
            .controller()
            .listen_to_page(*on_focus, *on_reconnect, *throttle);
        move || drop(listener)
    });
    html! {
        <ContextProvider<Scope> context={Scope { cache: Some((*context).clone()), ..outer }}>
            { props.children.clone() }
        </ContextProvider<Scope>>
    }
}

/// The provider's context, or a panic that says what to add.
#[hook]
pub(crate) fn use_cache_context(hook: &'static str) -> CacheContext {
    match use_scope().cache {
        Some(context) => context,
        None => panic!(
            "{hook} needs a <CacheProvider> above it: wrap the app in \
             <CacheProvider base_url=\"https://api.example\">...</CacheProvider>"
        ),
    }
}

/// The [`Controller`] of the nearest [`CacheProvider`]: for mutations,
/// invalidation and anything else a component does beside reading.
///
/// Panics with a message saying what to add when no provider is above.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::yew::{CacheProvider, use_controller};
/// use yew::prelude::*;
///
/// #[component]
/// fn Reset() -> Html {
///     let ctrl = use_controller();
///     let onclick = Callback::from(move |_| ctrl.reset());
///     html! { <button {onclick}>{"Forget everything"}</button> }
/// }
/// # #[component]
/// # fn App() -> Html {
/// #     html! { <CacheProvider base_url="http://127.0.0.1:8080"><Reset /></CacheProvider> }
/// # }
/// # let html = restcache_demo::block_on(yew::LocalServerRenderer::<App>::new().hydratable(false).render());
/// # assert_eq!(html, "<button>Forget everything</button>");
/// ```
#[hook]
pub fn use_controller() -> Controller {
    use_cache_context("use_controller").controller()
}
