//! Collects the mistakes of one macro input, so that all are reported at
//! once.
//!
//! A collector must be finished ([`Errors::finish`]) before it is
//! dropped: dropping one with unreported mistakes would lose them, so it
//! panics instead, which fails every UI test that reaches the bug.

use proc_macro2::TokenStream;
use std::fmt::Display;

#[derive(Default)]
pub struct Errors {
    all: Option<syn::Error>,
    finished: bool,
}

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.all {
            Some(all) => all.combine(error),
            None => self.all = Some(error),
        }
    }

    pub fn at<T: quote::ToTokens, M: Display>(&mut self, tokens: T, message: M) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn at_span<M: Display>(&mut self, span: proc_macro2::Span, message: M) {
        self.push(syn::Error::new(span, message));
    }

    /// `Ok` when nothing was pushed, else every error as `compile_error!`s.
    pub fn finish(mut self) -> Result<(), TokenStream> {
        self.finished = true;
        match self.all.take() {
            Some(all) => Err(all.to_compile_error()),
            None => Ok(()),
        }
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        if !self.finished && !std::thread::panicking() {
            panic!("restcache-macros: an error collector was dropped without being finished");
        }
    }
}
