//! `resource!` and `endpoint!`: `ast` parses and checks the declaration
//! (its path template in `template`), `expand` writes the params structs
//! and endpoint functions.

mod ast;
mod expand;
mod template;

use proc_macro2::TokenStream;

pub use ast::{Decl, Which};

/// Checks `decl` and expands it, or reports every mistake in it.
pub fn declare(decl: Decl, which: Which) -> TokenStream {
    match decl.check(which) {
        Ok(route) => expand::expand(route),
        Err(errors) => errors,
    }
}
