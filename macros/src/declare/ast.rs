//! `resource!` and `endpoint!` input: parsed, then checked into a [`Route`].

use proc_macro2::Span;
use syn::ext::IdentExt as _;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Ident, LitStr, Token, Type, Visibility, braced};

use super::template::Template;
use crate::errors::Errors;

/// Which macro is parsing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Resource,
    Endpoint,
}

/// `#[attrs] vis [Owner::]name { option: value, ... }`, unchecked.
pub struct Decl {
    attrs: Vec<Attribute>,
    vis: Visibility,
    owner: Option<Ident>,
    name: Ident,
    options: Punctuated<Opt, Token![,]>,
}

struct Opt {
    key: Ident,
    value: Value,
}

enum Value {
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
    pub side_effect: Option<Expr>,
    pub params: Vec<Param>,
}

/// The options of both macros.
const OPTIONS: &[&str] = &[
    "path",
    "schema",
    "url_prefix",
    "data_expiry",
    "error_expiry",
    "invalid_if_stale",
    "params",
];
/// The options only `endpoint!` takes (a resource has all six methods).
const ENDPOINT_OPTIONS: &[&str] = &["method", "side_effect"];
const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];

impl Decl {
    /// Checks the declaration; every mistake is reported, together.
    pub fn check(self, which: Which) -> Result<Route, proc_macro2::TokenStream> {
        let mut errors = Errors::default();
        let mut known = OPTIONS.to_vec();
        if which == Which::Endpoint {
            known.extend_from_slice(ENDPOINT_OPTIONS);
        }
        if let (Which::Resource, Some(owner)) = (which, &self.owner) {
            errors.at(owner, "a resource is declared as `pub Name { ... }`");
        }
        let mut seen: Vec<String> = Vec::new();
        let mut path = None;
        let mut schema = None;
        let mut method = None;
        let mut params = Vec::new();
        let mut exprs: Vec<(String, Expr)> = Vec::new();
        for opt in self.options {
            let key = opt.key.to_string();
            if !known.contains(&key.as_str()) {
                errors.at(
                    &opt.key,
                    format!(
                        "unknown option `{key}`; {} takes {}",
                        match which {
                            Which::Resource => "resource!",
                            Which::Endpoint => "endpoint!",
                        },
                        known.join(", ")
                    ),
                );
                continue;
            }
            if seen.contains(&key) {
                errors.at(&opt.key, format!("`{key}` is given twice"));
                continue;
            }
            seen.push(key.clone());
            match opt.value {
                Value::Path(lit) => path = Some(lit),
                Value::Type(ty) => schema = Some(ty),
                Value::Method(ident) => {
                    if METHODS.contains(&ident.to_string().as_str()) {
                        method = Some(ident);
                    } else {
                        errors.at(
                            &ident,
                            format!(
                                "unknown method `{ident}`; use one of {}",
                                METHODS.join(", ")
                            ),
                        );
                    }
                }
                Value::Params(list) => params = list.into_iter().collect(),
                Value::Expr(expr) => exprs.push((key, expr)),
            }
        }
        let call = self.name.span();
        let path = match path {
            Some(lit) => {
                let template = Template::parse(&lit, &mut errors);
                check_params(which, &lit, &template, &params, &mut errors);
                Some(template)
            }
            None => {
                errors.at_span(call, "missing `path: \"/...\"`");
                None
            }
        };
        if schema.is_none() {
            errors.at_span(call, "missing `schema: Type`");
        }
        errors.finish()?;
        let (Some(path), Some(schema)) = (path, schema) else {
            unreachable!("both were checked above");
        };
        let mut take = |name: &str| {
            exprs
                .iter()
                .position(|(k, _)| k == name)
                .map(|i| exprs.remove(i).1)
        };
        Ok(Route {
            which,
            attrs: self.attrs,
            vis: self.vis,
            owner: self.owner,
            name: self.name,
            path,
            schema,
            method: method.unwrap_or_else(|| Ident::new("GET", Span::call_site())),
            url_prefix: take("url_prefix"),
            data_expiry: take("data_expiry"),
            error_expiry: take("error_expiry"),
            invalid_if_stale: take("invalid_if_stale"),
            side_effect: take("side_effect"),
            params,
        })
    }
}

/// A resource's path ends with its pk placeholder, and its `params` type
/// the other placeholders only; an endpoint's `params` may add query
/// params.
fn check_params(
    which: Which,
    lit: &LitStr,
    template: &Template,
    params: &[Param],
    errors: &mut Errors,
) {
    let placeholders: Vec<&str> = template.params().collect();
    if which == Which::Resource {
        match template.list() {
            Some(_) => {}
            None if placeholders.is_empty() => errors.at(
                lit,
                "a resource's path ends with the placeholder of its pk, e.g. \"/todos/:id\"",
            ),
            None => errors.at(
                lit,
                "the pk placeholder must end a resource's path (the list path drops it); declare other paths with endpoint!",
            ),
        }
    }
    for (i, param) in params.iter().enumerate() {
        let name = param.name.to_string();
        if params[..i].iter().any(|p| p.name == param.name) {
            errors.at(&param.name, format!("`{name}` is typed twice"));
            continue;
        }
        if which == Which::Resource {
            if !placeholders.contains(&name.as_str()) {
                errors.at(
                    &param.name,
                    format!("`{name}` is not a placeholder of the path; a resource's params are its placeholders"),
                );
            } else if placeholders.last() == Some(&name.as_str()) {
                errors.at(
                    &param.name,
                    format!("`{name}` is the pk placeholder: it has the entity's pk type, leave it out of params"),
                );
            }
        }
    }
}
