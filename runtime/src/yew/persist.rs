//! `use_persist`: a provider's cache that survives a reload (feature
//! `persist`).

use yew::prelude::*;

use super::provider::use_controller;
use crate::persist::{Persist, Restored};

/// Takes back the cache `persist` saved, during this component's first
/// render (so before any child reads), and saves the provider's cache
/// after its changes while the component is mounted (and once more as
/// it goes). Call it near the app's root, inside the provider and above
/// every read. Returns what was taken back. On a log-out, reset the
/// controller ([`Controller::reset`](crate::Controller::reset)): that
/// removes the save too, so the next user's provider takes nothing back.
/// On the server it does
/// nothing: a server-rendered page hands its own cache over instead.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::persist::Persist;
/// use restcache::yew::use_persist;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// #[derive(Properties, PartialEq)]
/// struct RootProps { children: Html }
///
/// #[component]
/// fn Saved(props: &RootProps) -> Html {
///     use_persist(&Persist::new("todo-app").version(1).entity::<Todo>());
///     props.children.clone()
/// }
/// # let _ = html! { <Saved><p>{ "the app" }</p></Saved> };
/// ```
#[hook]
pub fn use_persist(persist: &Persist) -> Restored {
    let ctrl = use_controller();
    let link = use_memo((ctrl.id(), persist.name().to_owned()), |_| {
        cfg!(target_arch = "wasm32").then(|| ctrl.persist(persist))
    });
    link.as_ref()
        .as_ref()
        .map(|link| link.restored())
        .unwrap_or_default()
}
