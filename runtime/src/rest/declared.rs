//! What `resource!` declares, and the six standard endpoints the runtime
//! builds from it. The macro writes a [`Declared`] impl (the two path
//! templates and the settings) and six one-line functions; the endpoints
//! are plain generic functions here, so the generated code stays small.

use std::rc::Rc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Create, DecodeFn, Delete, Effect, Endpoint, Mutate, PathTemplate};
use crate::cache::deleted::Deleted;
use crate::cache::entity::Entity;
use crate::cache::schema::Decoded;
use crate::error::SchemaError;
use crate::http::Method;
use crate::path::FieldPath;
use crate::pk::{Pk, PkValue};

/// A resource as `resource!` declares it. Not public API: implement it
/// through the macro.
pub trait Declared {
    /// The path of one record, e.g. `/todos/:id`.
    const DETAIL: PathTemplate;
    /// The path of the list, e.g. `/todos`.
    const LIST: PathTemplate;

    /// `endpoint` with the declared settings (url prefix, expiry).
    fn settings<P: Serialize, S, E: Effect>(endpoint: Endpoint<P, S, E>) -> Endpoint<P, S, E>;
}

/// `GET` one record.
pub fn get<R: Declared, P: Serialize, E: Entity + DeserializeOwned>() -> Endpoint<P, Rc<E>> {
    let endpoint = Endpoint::new(Method::Get, R::DETAIL);
    // The detail path's last placeholder holds the pk.
    let endpoint = match R::DETAIL.params().last() {
        Some(pk) => endpoint.naming_record_by(pk),
        None => endpoint,
    };
    R::settings(endpoint)
}

/// `GET` the list.
pub fn get_list<R: Declared, P: Serialize, E: Entity + DeserializeOwned>() -> Endpoint<P, Vec<Rc<E>>>
{
    R::settings(Endpoint::new(Method::Get, R::LIST))
}

/// `POST` to the list: the new record joins the cached lists.
pub fn create<R: Declared, P: Serialize, E: Entity + DeserializeOwned>()
-> Endpoint<P, Rc<E>, Create> {
    R::settings(Endpoint::new(Method::Post, R::LIST).with_effect::<Create>())
}

/// `PUT` one record, the one whose pk `pk` reads from the params: a full
/// replace on the server, and in the cache: the answer replaces the
/// cached record whole, a field it leaves out gone as it is on the server
/// (an entity that merges its own way, `#[entity(merge = ...)]`, still
/// decides; see [`Entity`]'s partial records).
pub fn update<R: Declared, P: Serialize, E: Entity + DeserializeOwned>(
    pk: fn(&P) -> Option<Pk>,
) -> Endpoint<P, Rc<E>, Mutate> {
    let endpoint = Endpoint::new(Method::Put, R::DETAIL).with_effect::<Mutate>();
    R::settings(endpoint.with_target::<E>(pk))
}

/// `PATCH` one record, the one whose pk `pk` reads from the params.
pub fn partial_update<R: Declared, P: Serialize, E: Entity + DeserializeOwned>(
    pk: fn(&P) -> Option<Pk>,
) -> Endpoint<P, Rc<E>, Mutate> {
    let endpoint = Endpoint::new(Method::Patch, R::DETAIL).with_effect::<Mutate>();
    R::settings(endpoint.with_target::<E>(pk))
}

/// `DELETE` one record, the one whose pk `pk` reads from the params;
/// `decode` names the deleted record from the params (the body of a delete
/// is often empty), through [`deleted`].
pub fn delete<R: Declared, P: Serialize, E: Entity>(
    pk: fn(&P) -> Option<Pk>,
    decode: DecodeFn<P, Deleted<E>>,
) -> Endpoint<P, Deleted<E>, Delete> {
    let endpoint = Endpoint::decoded_by(Method::Delete, R::DETAIL, decode);
    R::settings(endpoint.with_effect::<Delete>().with_target::<E>(pk))
}

/// The deletion of the record whose pk param is `id`.
pub fn deleted<E: Entity>(id: &impl PkValue) -> Result<Decoded<Deleted<E>>, SchemaError> {
    match id.to_pk() {
        Some(pk) => Ok(Decoded::from(Deleted::new(pk))),
        None => Err(SchemaError::MissingPk {
            entity: E::KEY,
            field: E::PK_FIELD,
            path: FieldPath::default(),
        }),
    }
}
