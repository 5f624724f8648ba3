//! `use_stream`: a component keeps a live stream open while it is
//! mounted (feature `live`).

use yew::prelude::*;

use super::provider::use_controller;
use crate::controller::Event;
use crate::live::{Live, StreamStatus};

/// Keeps `live` open while the component is mounted, and returns where it
/// stands (re-rendering when that changes), so the page can say
/// "reconnecting". Components that open the same stream share one
/// connection; it closes when the last of them unmounts. Its messages
/// write into the cache, so every view that reads the records shows
/// them. On the server it does nothing (effects do not run there): the
/// status is [`StreamStatus::Connecting`].
///
/// ```
/// use restcache::prelude::*;
/// use restcache::live::{Live, StreamStatus};
/// use restcache::yew::{use_stream, use_suspense};
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, title: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// #[component]
/// fn Todos() -> HtmlResult {
///     let status = use_stream(&Live::sse("/events").entity::<Todo>());
///     let todos = use_suspense(&TodoResource::get_list(), ())?;
///     Ok(html! {
///         <>
///             if status.is_down() { <p>{ "Reconnecting…" }</p> }
///             <ul>{ for todos.iter().map(|t| html! { <li key={t.id}>{ &t.title }</li> }) }</ul>
///         </>
///     })
/// }
/// # let _ = html! { <Todos /> };
/// ```
#[hook]
pub fn use_stream(live: &Live) -> StreamStatus {
    let ctrl = use_controller();
    let key = live.key(ctrl.client());
    let status = use_state_eq(|| ctrl.stream_status(live).unwrap_or(StreamStatus::Connecting));
    {
        let (ctrl, live, status) = (ctrl.clone(), live.clone(), status.setter());
        let listener_status =
            |ctrl: &crate::controller::Controller,
             live: &Live,
             status: &UseStateSetter<StreamStatus>| {
                status.set(ctrl.stream_status(live).unwrap_or(StreamStatus::Connecting));
            };
        use_effect_with((ctrl.id(), key.clone()), move |_| {
            let watched = key.clone();
            let told = status.clone();
            let listener = ctrl.on_event(move |event, _| {
                if let Event::StreamChanged { key, status: now } = event
                    && *key == watched
                {
                    told.set(*now);
                }
            });
            let hold = ctrl.open_stream(&live);
            // Another view may have opened it before this one rendered.
            listener_status(&ctrl, &live, &status);
            move || {
                drop(hold);
                drop(listener);
            }
        });
    }
    *status
}
