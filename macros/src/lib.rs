//! Derive macros of [restcache](https://docs.rs/restcache). Use them through
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
