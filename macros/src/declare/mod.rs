//! `resource!` and `endpoint!`: `ast` parses a declaration, `valid` checks
//! it (its path template in `template`, a GraphQL operation's document
//! in `graphql`), `expand` writes the params
//! structs and endpoint functions. After a mistake the declaration is
//! still expanded as far as it can be read, so that code using it does
//! not add errors of its own: one mistake gives one message.

mod ast;
mod expand;
mod graphql;
mod template;
mod valid;

use proc_macro2::TokenStream;
use quote::quote;

pub use ast::{Decl, Which};

use crate::errors::Errors;

/// Checks `decl` and expands it; on a mistake, every error beside the
/// fallback expansion.
pub fn declare(decl: Decl, which: Which) -> TokenStream {
    let placeholder = fallback(&decl, which);
    let mut errors = Errors::default();
    let route = valid::check(decl, which, &mut errors);
    match (errors.finish(), route) {
        (Ok(()), Some(route)) => expand::expand(&route),
        (Err(errors), Some(route)) => {
            let expansion = expand::expand(&route);
            quote!(#errors #expansion)
        }
        (Err(errors), None) => quote!(#errors #placeholder),
        (Ok(()), None) => unreachable!("a declaration without a path or a schema is reported"),
    }
}

/// What stands for a declaration with no path or no schema to expand: the
/// resource's type, so that naming it adds no error.
fn fallback(decl: &Decl, which: Which) -> TokenStream {
    let (vis, name) = (&decl.vis, &decl.name);
    match which {
        Which::Resource => quote!(#vis struct #name;),
        Which::Endpoint => TokenStream::new(),
    }
}
