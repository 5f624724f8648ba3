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
mod partial;
mod union;
mod valid;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `restcache::Entity`: a record type with an identity. Use it as
/// `restcache::Entity`, documented there with its attributes and examples.
#[proc_macro_derive(Entity, attributes(entity))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, ast::Derive::Entity).into()
}

/// Derives `restcache::Schema` for an envelope struct, or for an enum
/// whose variants each hold one schema (a union of records). Use it as
/// `restcache::Schema`, documented there with its attributes and examples.
#[proc_macro_derive(Schema, attributes(schema))]
pub fn derive_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input, ast::Derive::Schema).into()
}

/// Declares a REST resource and its six standard endpoints. Use it as
/// `restcache::resource!`, documented there with its options and examples.
#[proc_macro]
pub fn resource(input: TokenStream) -> TokenStream {
    let decl = parse_macro_input!(input as declare::Decl);
    declare::declare(decl, declare::Which::Resource).into()
}

/// Declares one custom endpoint. Use it as `restcache::endpoint!`,
/// documented there with its options and examples.
#[proc_macro]
pub fn endpoint(input: TokenStream) -> TokenStream {
    let decl = parse_macro_input!(input as declare::Decl);
    declare::declare(decl, declare::Which::Endpoint).into()
}
