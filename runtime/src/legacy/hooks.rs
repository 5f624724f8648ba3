//! The older generation's hooks: `use_resource` reads a shape as
//! `use_suspense` reads an endpoint; `use_fetcher` runs a shape's request.

use serde::Serialize;
use yew::prelude::*;
use yew::suspense::SuspensionResult;

use super::shape::FetchShape;
use crate::cache::schema::Schema;
use crate::controller::Controller;
use crate::http::{Body, Error};
use crate::rest::Read;
use crate::yew::{ReadArgs, use_controller, use_suspense};

/// Reads `shape` with `params`, exactly as [`use_suspense`] reads an
/// endpoint: the same expiry table, the same `Option` params (`None`: no
/// fetch, no suspense), and one request for every read of the same key.
/// Whatever the shape's kind, it is read (a custom read built from a
/// create shape, say).
///
/// The older API: the current equivalent is [`use_suspense`] with an
/// endpoint of `resource!` or `endpoint!`.
///
/// ```
/// use restcache::legacy::{Resource, use_resource};
/// use restcache::prelude::*;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Birthday { id: Option<String>, name: String }
/// impl Resource for Birthday { const URL_ROOT: &'static str = "/api/birthdays/"; }
///
/// #[component]
/// fn Name() -> HtmlResult {
///     let birthday = use_resource(&Birthday::detail_shape(), "1".to_owned())?;
///     Ok(html! { <span>{ &birthday.name }</span> })
/// }
/// ```
#[hook]
pub fn use_resource<P, S, A>(
    shape: &FetchShape<P, S>,
    params: A,
) -> SuspensionResult<A::Output<S::Handle>>
where
    P: Serialize + PartialEq + Clone + 'static,
    S: Schema,
    A: ReadArgs<P>,
{
    use_suspense(&shape.endpoint::<Read>(), params)
}

/// What [`use_fetcher`] hands out: runs its shape's request through the
/// provider's controller. Cheap to clone.
pub struct Fetcher<P, S> {
    ctrl: Controller,
    shape: FetchShape<P, S>,
}

impl<P, S> Clone for Fetcher<P, S> {
    fn clone(&self) -> Self {
        Fetcher {
            ctrl: self.ctrl.clone(),
            shape: self.shape,
        }
    }
}

/// Two fetchers are equal when they run the same shape through the same
/// controller (so a component given a fetcher as a prop re-renders when
/// it gets another).
impl<P, S> PartialEq for Fetcher<P, S> {
    fn eq(&self, other: &Self) -> bool {
        self.ctrl == other.ctrl && self.shape == other.shape
    }
}

impl<P, S> Fetcher<P, S>
where
    P: Serialize + Clone + 'static,
    S: Schema,
{
    /// Runs the shape's request with `params` and `body`, and applies the
    /// response to the cache by the shape's kind: an update shows in every
    /// view of the record, a create joins the list under its URL, a delete
    /// leaves every list.
    pub async fn fetch(&self, params: P, body: Option<Body>) -> Result<S::Handle, Error> {
        self.shape.call(&self.ctrl, &params, body).await
    }
}

/// A callable that runs `shape`'s request (with params and a body) and
/// applies its response to the cache.
///
/// The older API: the current equivalent is [`use_controller`] and
/// [`Controller::fetch`] with an endpoint (or [`use_loading`](crate::yew::use_loading)
/// around it, for a button).
///
/// ```
/// use restcache::legacy::{Resource, use_fetcher};
/// use restcache::prelude::*;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Birthday { id: Option<String>, name: String }
/// impl Resource for Birthday { const URL_ROOT: &'static str = "/api/birthdays/"; }
///
/// #[component]
/// fn Rename() -> Html {
///     let update = use_fetcher(&Birthday::partial_update_shape());
///     let onclick = Callback::from(move |_| {
///         let update = update.clone();
///         yew::platform::spawn_local(async move {
///             let body = Body::json(&serde_json::json!({"name": "Ada L."})).unwrap();
///             let _ = update.fetch("1".to_owned(), Some(body)).await;
///         });
///     });
///     html! { <button {onclick}>{ "Rename" }</button> }
/// }
/// ```
#[hook]
pub fn use_fetcher<P, S>(shape: &FetchShape<P, S>) -> Fetcher<P, S>
where
    P: Serialize + Clone + 'static,
    S: Schema,
{
    Fetcher {
        ctrl: use_controller(),
        shape: *shape,
    }
}
