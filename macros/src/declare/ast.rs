//! `resource!` and `endpoint!` input, parsed: [`Decl`] as written, and
//! [`Route`], the declaration as the expansion reads it once checked.

use syn::ext::IdentExt as _;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Ident, LitStr, Token, Type, Visibility, braced};

use super::template::Template;

/// Which macro is parsing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Resource,
    Endpoint,
}

/// `#[attrs] vis [Owner::]name { option: value, ... }`, unchecked.
pub struct Decl {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub owner: Option<Ident>,
    pub name: Ident,
    pub options: Punctuated<Opt, Token![,]>,
}

/// One `option: value` of a declaration.
pub struct Opt {
    pub key: Ident,
    pub value: Value,
}

/// An option's value, parsed by what its key takes.
pub enum Value {
    Path(LitStr),
    Type(Type),
    Method(Ident),
    Params(Punctuated<Param, Token![,]>),
    Expr(Expr),
}

/// One `name: Type` of `params: { ... }`.
pub struct Param {
    pub name: Ident,
    pub ty: Type,
}

impl Parse for Param {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = input.call(Ident::parse_any)?;
        input.parse::<Token![:]>()?;
        Ok(Param {
            name,
            ty: input.parse()?,
        })
    }
}

impl Parse for Opt {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = Ident::parse_any(input)?;
        input.parse::<Token![:]>()?;
        let value = match key.to_string().as_str() {
            "path" => Value::Path(input.parse()?),
            "schema" => Value::Type(input.parse()?),
            "method" => Value::Method(input.parse()?),
            "params" => {
                let content;
                braced!(content in input);
                Value::Params(content.parse_terminated(Param::parse, Token![,])?)
            }
            _ => Value::Expr(input.parse()?),
        };
        Ok(Opt { key, value })
    }
}

impl Parse for Decl {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        let first: Ident = input.parse()?;
        let (owner, name) = if input.peek(Token![::]) {
            input.parse::<Token![::]>()?;
            (Some(first), input.parse()?)
        } else {
            (None, first)
        };
        let content;
        braced!(content in input);
        let options = content.parse_terminated(Opt::parse, Token![,])?;
        Ok(Decl {
            attrs,
            vis,
            owner,
            name,
            options,
        })
    }
}

/// A checked declaration.
pub struct Route {
    pub which: Which,
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub owner: Option<Ident>,
    pub name: Ident,
    pub path: Template,
    pub schema: Type,
    /// `GET` and friends; endpoint! only (a resource has all six).
    pub method: Ident,
    pub url_prefix: Option<Expr>,
    pub data_expiry: Option<Expr>,
    pub error_expiry: Option<Expr>,
    pub invalid_if_stale: Option<Expr>,
    pub poll_frequency: Option<Expr>,
    pub timeout: Option<Expr>,
    pub side_effect: Option<Expr>,
    pub params: Vec<Param>,
}
