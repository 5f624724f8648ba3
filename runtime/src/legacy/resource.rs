//! The older generation's Resource: an entity with a URL root, which
//! hands out the six standard shapes.

use std::rc::Rc;

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde::de::DeserializeOwned;

use super::shape::{FetchShape, Query, SchemaOf, ShapeKind};
use crate::cache::deleted::Deleted;
use crate::cache::entity::Entity;
use crate::cache::schema::Decoded;
use crate::error::{SchemaError, UrlError};
use crate::http::{Attempt, Body, Client, ErrorKind, Method, Response, ResponseFuture};
use crate::pk::{Pk, PkValue};
use crate::rest::declared::deleted;
use crate::rest::{Options, Target, decode_json};

/// An entity served under a URL root, with the older generation's six
/// shapes:
///
/// | shape | request | params | result |
/// |---|---|---|---|
/// | `detail_shape` | `GET {url_root}{pk}` | the pk | `Rc<Self>` |
/// | `list_shape` | `GET {url_root}?{query}` | a [`Query`] | `Vec<Rc<Self>>` |
/// | `create_shape` | `POST {url_root}?{query}` | a [`Query`], the body | `Rc<Self>`; it joins the list under the same URL |
/// | `update_shape` | `PUT {url_root}{pk}` | the pk, the body | `Rc<Self>` |
/// | `partial_update_shape` | `PATCH {url_root}{pk}` | the pk, the body | `Rc<Self>` |
/// | `delete_shape` | `DELETE {url_root}{pk}` | the pk | the record leaves every list |
///
/// `as_schema` gives the record's schema for other shapes' schemas. A
/// shape of one record refuses a pk that would name another URL (empty,
/// `.` or `..`): it sends nothing and fails with
/// [`ErrorKind::Url`](crate::http::ErrorKind::Url).
///
/// ```
/// use restcache::legacy::{Query, Resource};
/// use restcache::prelude::*;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Birthday { id: Option<String>, name: String }
///
/// impl Resource for Birthday {
///     const URL_ROOT: &'static str = "/api/birthdays/";
/// }
///
/// assert_eq!((Birthday::detail_shape().get_fetch_key)(&"7".to_owned()), "/api/birthdays/7");
/// let query = Query::from([("month".to_owned(), "6".to_owned())]);
/// assert_eq!((Birthday::list_shape().get_fetch_key)(&query), "/api/birthdays/?month=6");
/// // A mutation names its record, invalidated if the answer cannot be read.
/// assert_eq!(Birthday::update_shape().target.map(|t| t.entity), Some("Birthday"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an older-generation Resource",
    note = "implement `restcache::legacy::Resource` for it, with its `URL_ROOT`"
)]
pub trait Resource: Entity + DeserializeOwned {
    /// The root of the resource's URLs, with its trailing `/`: the list is
    /// at the root, a record at the root followed by its pk.
    const URL_ROOT: &'static str;

    /// `GET {url_root}{pk}`: one record.
    fn detail_shape() -> FetchShape<Self::Id, Rc<Self>> {
        one_shape(ShapeKind::Read, get::<Self>)
    }

    /// `GET {url_root}?{query}`: the list.
    fn list_shape() -> FetchShape<Query, Vec<Rc<Self>>> {
        FetchShape {
            kind: ShapeKind::Read,
            get_fetch_key: list_url::<Self>,
            fetch: get_list::<Self>,
            schema: decode_json::<Query, Vec<Rc<Self>>>,
            options: Options::default(),
            target: None,
        }
    }

    /// `POST {url_root}?{query}` with the record's fields: it joins the
    /// list under the same URL.
    fn create_shape() -> FetchShape<Query, Rc<Self>> {
        FetchShape {
            kind: ShapeKind::Create,
            get_fetch_key: list_url::<Self>,
            fetch: post::<Self>,
            schema: decode_json::<Query, Rc<Self>>,
            options: Options::default(),
            target: None,
        }
    }

    /// `PUT {url_root}{pk}` with the whole record.
    fn update_shape() -> FetchShape<Self::Id, Rc<Self>> {
        one_shape(ShapeKind::Mutate, put::<Self>)
    }

    /// `PATCH {url_root}{pk}` with some fields.
    fn partial_update_shape() -> FetchShape<Self::Id, Rc<Self>> {
        one_shape(ShapeKind::Mutate, patch::<Self>)
    }

    /// `DELETE {url_root}{pk}`: the record leaves every list.
    fn delete_shape() -> FetchShape<Self::Id, Deleted<Self>> {
        FetchShape {
            kind: ShapeKind::Delete,
            get_fetch_key: detail_url::<Self>,
            fetch: delete::<Self>,
            schema: deleted_by_id::<Self>,
            options: Options::default(),
            target: Some(target::<Self>()),
        }
    }

    /// The schema of one record, for another shape's schema.
    fn as_schema() -> SchemaOf<Rc<Self>> {
        SchemaOf::new()
    }
}

/// A shape of one record, by pk.
fn one_shape<R: Resource>(
    kind: ShapeKind,
    fetch: fn(&Client, &R::Id, Option<Body>) -> ResponseFuture,
) -> FetchShape<R::Id, Rc<R>> {
    FetchShape {
        kind,
        get_fetch_key: detail_url::<R>,
        fetch,
        schema: decode_json::<R::Id, Rc<R>>,
        options: Options::default(),
        target: (kind != ShapeKind::Read).then(target::<R>),
    }
}

/// The record named by a shape's pk params.
fn target<R: Resource>() -> Target<R::Id> {
    Target {
        entity: R::KEY,
        pk: pk_of::<R>,
    }
}

fn pk_of<R: Resource>(id: &R::Id) -> Option<Pk> {
    id.to_pk()
}

/// `{url_root}{pk}`, the pk percent-encoded.
fn detail_url<R: Resource>(id: &R::Id) -> String {
    url_of_pk::<R>(&pk_text(id))
}

/// `{url_root}{pk}`, `pk` percent-encoded.
fn url_of_pk<R: Resource>(pk: &str) -> String {
    format!(
        "{}{}",
        R::URL_ROOT,
        utf8_percent_encode(pk, NON_ALPHANUMERIC)
    )
}

/// The pk's text; empty without one.
fn pk_text<Id: PkValue>(id: &Id) -> String {
    id.to_pk().map(|pk| pk.to_string()).unwrap_or_default()
}

/// `{url_root}` followed by the query, if any.
fn list_url<R: Resource>(query: &Query) -> String {
    if query.is_empty() {
        return R::URL_ROOT.to_owned();
    }
    let pairs: Vec<String> = query
        .iter()
        .map(|(name, value)| {
            let (name, value) = (
                utf8_percent_encode(name, NON_ALPHANUMERIC),
                utf8_percent_encode(value, NON_ALPHANUMERIC),
            );
            format!("{name}={value}")
        })
        .collect();
    format!("{}?{}", R::URL_ROOT, pairs.join("&"))
}

fn get<R: Resource>(client: &Client, id: &R::Id, body: Option<Body>) -> ResponseFuture {
    detail_request::<R>(client, Method::Get, id, body)
}

fn put<R: Resource>(client: &Client, id: &R::Id, body: Option<Body>) -> ResponseFuture {
    detail_request::<R>(client, Method::Put, id, body)
}

fn patch<R: Resource>(client: &Client, id: &R::Id, body: Option<Body>) -> ResponseFuture {
    detail_request::<R>(client, Method::Patch, id, body)
}

fn delete<R: Resource>(client: &Client, id: &R::Id, body: Option<Body>) -> ResponseFuture {
    detail_request::<R>(client, Method::Delete, id, body)
}

/// The request for the record `id` names, unless its pk would make the
/// URL another one: empty (the list's URL), `.` or `..` (a URL parser
/// reads them, encoded or not, as "here" and "up"). Then no request is
/// made, and the call fails as a URL its params cannot make.
fn detail_request<R: Resource>(
    client: &Client,
    method: Method,
    id: &R::Id,
    body: Option<Body>,
) -> ResponseFuture {
    let pk = pk_text(id);
    if matches!(pk.as_str(), "" | "." | "..") {
        let refused = UrlError::Unsafe {
            name: "pk",
            value: pk,
            path: R::URL_ROOT,
        };
        let error = Attempt::new(method, R::URL_ROOT).failed(ErrorKind::Url(refused));
        return Box::pin(std::future::ready(Err(error)));
    }
    client.request(method, &url_of_pk::<R>(&pk), body)
}

fn get_list<R: Resource>(client: &Client, query: &Query, body: Option<Body>) -> ResponseFuture {
    client.request(Method::Get, &list_url::<R>(query), body)
}

fn post<R: Resource>(client: &Client, query: &Query, body: Option<Body>) -> ResponseFuture {
    client.request(Method::Post, &list_url::<R>(query), body)
}

/// A delete's result names the record from its params: its body is
/// often empty.
fn deleted_by_id<R: Resource>(
    _: &Response,
    id: &R::Id,
) -> Result<Decoded<Deleted<R>>, SchemaError> {
    deleted::<R>(id)
}
