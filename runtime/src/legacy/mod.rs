//! The older API generation (feature `legacy`, off by default): a
//! [`Resource`] hands out [`FetchShape`]s, and [`use_resource`] /
//! [`use_fetcher`] read and run them. It works beside the current API, on
//! the same cache: a record fetched through a shape and the same record
//! fetched through an endpoint are one stored record, and a change made
//! through either shows in every view of it.
//!
//! # Migrating
//!
//! | older call | current equivalent |
//! |---|---|
//! | `impl Resource for Birthday { const URL_ROOT: &str = "/api/birthdays/"; }` | `resource!(pub BirthdayResource { path: "/api/birthdays/:id", schema: Birthday })` |
//! | `Birthday::detail_shape()` | `BirthdayResource::get()` |
//! | `Birthday::list_shape()` | `BirthdayResource::get_list()` |
//! | `Birthday::create_shape()` | `BirthdayResource::create()` |
//! | `Birthday::update_shape()` | `BirthdayResource::update()` |
//! | `Birthday::partial_update_shape()` | `BirthdayResource::partial_update()` |
//! | `Birthday::delete_shape()` | `BirthdayResource::delete()` |
//! | `Birthday::as_schema()` | the type `Rc<Birthday>` in a `#[derive(Schema)]` struct |
//! | `FetchShape { get_fetch_key, fetch, ..base }` | `endpoint!(..)`, or `base.with_key(..).with_fetch(..)` |
//! | a mutation spread from `update_shape()` (it keeps the record it names, `target`) | an `endpoint!(..)` mutation `.with_target::<User>(\|p\| p.id.to_pk())` |
//! | `shape.with_schema(SchemaOf::<T>::new())` | `endpoint.with_schema::<T>()`, or `schema: T` in `endpoint!` |
//! | `use_resource(&shape, params)` | `use_suspense(&endpoint, params)` |
//! | `use_fetcher(&shape)` then `fetcher.fetch(params, body)` | `use_controller()` then `ctrl.fetch(&endpoint, &params, body)` |
//! | `shape.call(&ctrl, &params, body)` | `ctrl.fetch(&endpoint, &params, body)` |
//! | a shape's `kind` (`ShapeKind`) | the endpoint's effect type (`Read`, `Mutate`, `Create`, `Delete`) |
//!
//! The shapes' URLs differ from `resource!`'s in one way: a list or create
//! URL keeps the root's trailing `/` (`/api/birthdays/`), as that
//! generation's servers expect.

#[cfg(feature = "yew")]
mod hooks;
mod resource;
mod shape;

#[cfg(feature = "yew")]
pub use hooks::{Fetcher, use_fetcher, use_resource};
pub use resource::Resource;
pub use shape::{FetchShape, Query, SchemaOf, ShapeKind};
