//! Collects the mistakes of one macro input, so that all are reported at once.

use proc_macro2::TokenStream;
use std::fmt::Display;

#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    pub fn at<T: quote::ToTokens, M: Display>(&mut self, tokens: T, message: M) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn at_span<M: Display>(&mut self, span: proc_macro2::Span, message: M) {
        self.push(syn::Error::new(span, message));
    }

    /// `Ok` when nothing was pushed, else every error as `compile_error!`s.
    pub fn finish(self) -> Result<(), TokenStream> {
        match self.0 {
            Some(all) => Err(all.to_compile_error()),
            None => Ok(()),
        }
    }
}
