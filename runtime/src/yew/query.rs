//! `use_query`: a derived view in a component, rendered again when its
//! value changes.

use std::rc::Rc;

use yew::prelude::*;

use super::provider::use_controller;
use crate::cache::derived::Query;

/// The value of `query` (see [`Query`]) over the provider's cache; the
/// component renders again when it changes, and not when a write leaves
/// it equal. It never fetches or suspends: the reads that bring its data
/// do (a `use_suspense` of the list beside it, say). Keep the query
/// itself across renders (a `thread_local`, a `use_memo`), so that it
/// remembers its last value.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::Query;
/// use restcache::yew::use_query;
/// use yew::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
/// struct Todo { id: u64, completed: bool }
///
/// thread_local! {
///     static OPEN: Query<usize> =
///         Query::new(|q| q.all::<Todo>().iter().filter(|t| !t.completed).count());
/// }
///
/// #[component]
/// fn Header() -> Html {
///     let open = use_query(&OPEN.with(Query::clone));
///     html! { <h1>{ format!("{open} open") }</h1> }
/// }
/// ```
#[hook]
pub fn use_query<T: PartialEq + 'static>(query: &Query<T>) -> Rc<T> {
    let ctrl = use_controller();
    let value = ctrl.query(query);
    let rerender = use_force_update();
    let rendered = Rc::clone(&value);
    use_effect_with((ctrl.clone(), query.clone()), move |(ctrl, query)| {
        let again = rerender.clone();
        let subscription = ctrl.subscribe_query(query, move || rerender.force_update());
        // A change between the render and now renders again.
        if !Rc::ptr_eq(&rendered, &ctrl.query(query)) {
            again.force_update();
        }
        move || drop(subscription)
    });
    value
}
