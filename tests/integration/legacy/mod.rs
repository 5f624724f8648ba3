//! The older API generation: a Resource's six shapes and the custom
//! shapes built by spreading them make the requests they name (method,
//! path, body, call count, against mockito), share the cache with the
//! current API, and read through `use_resource` in a server render.

mod cache;
mod shapes;

use restcache::http::{Body, Client, Method, ResponseFuture};
use restcache::legacy::{FetchShape, Query, Resource, SchemaOf, ShapeKind};

use crate::common::{Birthday, UpcomingBirthdays, User};

fn current_user_key(_: &Query) -> String {
    "/current_user/".to_owned()
}

fn post_current_user(client: &Client, _: &Query, body: Option<Body>) -> ResponseFuture {
    client.request(Method::Post, "/current_user/", body)
}

/// The current user: the create shape, read with empty params, posting to
/// `/current_user/`.
pub fn current_user_shape() -> FetchShape<Query, std::rc::Rc<User>> {
    FetchShape {
        kind: ShapeKind::Read,
        get_fetch_key: current_user_key,
        fetch: post_current_user,
        ..User::create_shape()
    }
}

fn upcoming_key(_: &Query) -> String {
    "/api/birthdays/upcoming/".to_owned()
}

fn post_upcoming(client: &Client, _: &Query, body: Option<Body>) -> ResponseFuture {
    client.request(Method::Post, "/api/birthdays/upcoming/", body)
}

/// Upcoming birthdays: the list shape with another schema (the
/// `{withinSevenDays, withinThirtyDays}` envelope), posting.
pub fn upcoming_shape() -> FetchShape<Query, UpcomingBirthdays> {
    FetchShape {
        get_fetch_key: upcoming_key,
        fetch: post_upcoming,
        ..Birthday::list_shape().with_schema(SchemaOf::<UpcomingBirthdays>::new())
    }
}

fn make_manager_key(id: &u64) -> String {
    format!("/users/{id}/make_manager")
}

fn post_make_manager(client: &Client, id: &u64, body: Option<Body>) -> ResponseFuture {
    client.request(Method::Post, &make_manager_key(id), body)
}

/// Make manager: a mutation from the update shape, posting to
/// `/users/:id/make_manager` (a body may come; none is expected).
pub fn make_manager_shape() -> FetchShape<u64, std::rc::Rc<User>> {
    FetchShape {
        get_fetch_key: make_manager_key,
        fetch: post_make_manager,
        ..User::update_shape()
    }
}
