//! Derive and declaration macros of [restcache](https://docs.rs/restcache). Use them through
//! the `restcache` crate: the code they generate names `::restcache`.
//!
//! Each macro runs in three steps: `ast` parses the input (our attributes and
//! serde's renames), `valid` checks it and collects every mistake, `expand`
//! writes the impls. On a mistake the errors are reported together, each
//! spanned on the token at fault, beside a fallback impl so that one mistake
//! gives one message.

mod ast;
mod attr;
mod case;
mod declare;
mod errors;
mod expand;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `restcache::Entity`: a record type with an identity.
///
/// - `#[entity(key = "Name")]` on the struct: the entity key (default: the
///   struct's name).
/// - `#[entity(pk)]` on a field: the primary key (default: the field `id`).
/// - `#[entity(nested)]` on a field: it holds entities (`Rc<E>`, or a `Vec`,
///   `Option` or `HashMap<String, _>` of them, or a `#[derive(Schema)]`
///   struct), stored in their own tables.
///
/// serde's `rename` and `rename_all` are read so that error paths use wire
/// names.
#[proc_macro_derive(Entity, attributes(entity))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, ast::Kind::Entity).into()
}

/// Derives `restcache::Schema` for an envelope struct: fields marked
/// `#[schema(nested)]` hold entities and are normalized, every other field
/// is kept as it came.
#[proc_macro_derive(Schema, attributes(schema))]
pub fn derive_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, ast::Kind::Schema).into()
}

/// Declares a REST resource: a unit struct whose functions return the six
/// standard endpoints of one entity and one path pattern, and typed params
/// structs generated from the path.
///
/// ```ignore
/// resource!(pub TodoResource {
///     path: "/todos/:id",             // the last placeholder is the pk
///     schema: Todo,                   // an #[derive(Entity)] type
///     url_prefix: API,                // optional; else the client's base
///     data_expiry: Duration::from_secs(30), // optional
///     error_expiry: Duration::from_secs(1), // optional
///     invalid_if_stale: false,        // optional
///     params: { user_id: u64 },       // optional: types of other placeholders
/// });
/// ```
///
/// Generates `TodoResource::{get, get_list, create, update, partial_update,
/// delete}`, `TodoResourceParams { id }` (typed as the entity's pk) and,
/// when the list path keeps placeholders, `TodoResourceListParams`.
#[proc_macro]
pub fn resource(input: TokenStream) -> TokenStream {
    let decl = parse_macro_input!(input as declare::Decl);
    declare::declare(decl, declare::Which::Resource).into()
}

/// Declares one custom endpoint: a function returning it and, when it has
/// params, a params struct named after it.
///
/// ```ignore
/// endpoint!(pub UserResource::make_manager {
///     method: POST,                          // default GET
///     path: "/users/:id/make_manager",
///     schema: serde_json::Value,             // the full response schema
///     params: { id: u64 },                   // placeholders default to String;
///                                            // other names go into the query
///     side_effect: true,                     // optional; default: method != GET
/// });
/// ```
#[proc_macro]
pub fn endpoint(input: TokenStream) -> TokenStream {
    let decl = parse_macro_input!(input as declare::Decl);
    declare::declare(decl, declare::Which::Endpoint).into()
}
