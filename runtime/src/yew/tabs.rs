//! `use_tab_sync`: the app's tabs keep their caches in agreement while
//! the component is mounted (feature `tabs`).

use yew::prelude::*;

use super::provider::use_controller;
use crate::tabs::TabSync;

/// Syncs the provider's cache with the app's other tabs while the
/// component is mounted (call it once, near the app's root): records a
/// tab learns show in the others with no request, and an invalidation or
/// a log-out (a reset) reaches them all. On the server it does nothing.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::tabs::TabSync;
/// use restcache::yew::use_tab_sync;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// #[component]
/// fn Synced() -> Html {
///     use_tab_sync(&TabSync::new("todo-app").entity::<Todo>());
///     html! { <p>{ "in step with the other tabs" }</p> }
/// }
/// # let _ = html! { <Synced /> };
/// ```
#[hook]
pub fn use_tab_sync(sync: &TabSync) {
    use_link(sync);
}

/// In the browser the link is made at the first render, before the reads
/// under it start, so that they are shared from the first: another tab
/// that reads one of their keys meanwhile waits for this tab's answer.
/// It goes with the component.
#[cfg(target_arch = "wasm32")]
#[hook]
fn use_link(sync: &TabSync) {
    let ctrl = use_controller();
    let sync = sync.clone();
    use_memo((ctrl.id(), sync.name().to_owned()), move |_| {
        ctrl.sync_tabs(&sync)
    });
}

/// Elsewhere (a server render) effects never run: nothing is synced.
#[cfg(not(target_arch = "wasm32"))]
#[hook]
fn use_link(sync: &TabSync) {
    let ctrl = use_controller();
    let sync = sync.clone();
    use_effect_with((ctrl.id(), sync.name().to_owned()), move |_| {
        let link = ctrl.sync_tabs(&sync);
        move || drop(link)
    });
}
