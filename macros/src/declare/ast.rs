//! `resource!` and `endpoint!` input, parsed: [`Decl`] as written, and
//! [`Route`], the declaration as the expansion reads it once checked.

use syn::ext::IdentExt as _;
use syn::parse::discouraged::Speculative as _;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Ident, LitStr, Token, Type, Visibility, braced};

use super::template::Template;
use crate::attr::serialize_name;
use crate::case::RenameRule;

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
    Params(Params),
    Expr(Expr),
    /// A value of another kind than its key takes (`path: 42`), kept to
    /// be reported beside the declaration's other mistakes.
    Wrong(Expr, &'static str),
}

/// `params: #[serde(...)] { ... }`, or `params: TypeOfYourOwn`.
pub enum Params {
    /// The fields of a params struct the macro writes, with the attributes
    /// (serde's, docs) it carries.
    Inline {
        attrs: Vec<Attribute>,
        fields: Punctuated<Param, Token![,]>,
    },
    /// A params type the user wrote.
    Named(Type),
}

/// One `#[attrs] name: Type` of `params: { ... }`.
pub struct Param {
    pub attrs: Vec<Attribute>,
    pub name: Ident,
    pub ty: Type,
}

/// `name` as a field can take it: a keyword (`type`) as a raw
/// identifier (`r#type`), which serde and the wire name without `r#`.
fn field_name(name: Ident) -> Ident {
    let text = name.to_string();
    let keyword = syn::parse_str::<Ident>(&text).is_err();
    let rawable = !matches!(text.as_str(), "self" | "Self" | "super" | "crate" | "_");
    match keyword && rawable {
        true => Ident::new_raw(&text, name.span()),
        false => name,
    }
}

impl Parse for Param {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let name = field_name(input.call(Ident::parse_any)?);
        input.parse::<Token![:]>()?;
        Ok(Param {
            attrs,
            name,
            ty: input.parse()?,
        })
    }
}

impl Parse for Params {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        if !attrs.is_empty() || input.peek(syn::token::Brace) {
            let content;
            braced!(content in input);
            return Ok(Params::Inline {
                attrs,
                fields: content.parse_terminated(Param::parse, Token![,])?,
            });
        }
        Ok(Params::Named(input.parse()?))
    }
}

impl Parse for Opt {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = Ident::parse_any(input)?;
        input.parse::<Token![:]>()?;
        let value = match key.to_string().as_str() {
            "path" if input.peek(LitStr) => Value::Path(input.parse()?),
            "path" => Value::Wrong(
                input.parse()?,
                "`path` takes the path template, a string: `path: \"/todos/:id\"`",
            ),
            "schema" => match parsed_as::<Type>(input) {
                Some(ty) => Value::Type(ty),
                None => Value::Wrong(input.parse()?, "`schema` takes a type: `schema: Todo`"),
            },
            "method" if input.peek(Ident) => Value::Method(input.parse()?),
            "method" => Value::Wrong(
                input.parse()?,
                "`method` takes the method as a word: `method: POST`",
            ),
            "params" if input.peek(Token![#]) || input.peek(syn::token::Brace) => {
                Value::Params(input.parse()?)
            }
            "params" => match parsed_as::<Type>(input) {
                Some(ty) => Value::Params(Params::Named(ty)),
                None => Value::Wrong(
                    input.parse()?,
                    "`params` takes the params' fields, `params: { page: u32 }`, or an endpoint's own params type",
                ),
            },
            _ => Value::Expr(input.parse()?),
        };
        Ok(Opt { key, value })
    }
}

/// A `T` parsed from `input` when what comes reads as one up to the
/// option's end; else `None`, with `input` left as it was.
fn parsed_as<T: Parse>(input: ParseStream) -> Option<T> {
    let fork = input.fork();
    let parsed = fork.parse::<T>().ok()?;
    if !(fork.is_empty() || fork.peek(Token![,])) {
        return None;
    }
    input.advance_to(&fork);
    Some(parsed)
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
    /// Whether a read of a record the cache holds is answered from it
    /// (`infer: false` opts out).
    pub infer: Option<Expr>,
    /// Which of its errors leave the data on show (`error_policy: f`, a
    /// `fn(&Error) -> ErrorPolicy`).
    pub error_policy: Option<Expr>,
    /// Whether its answers stay out of a saved cache (`private: true`).
    pub private: Option<Expr>,
    /// Whether the endpoint mutates (`side_effect: true`) or reads
    /// (`false`); by default, whether its method is not `GET`.
    pub side_effect: Option<bool>,
    /// A decoder of the whole response (`decode: Page::from_headers`).
    pub decode: Option<Expr>,
    /// A GraphQL operation (`graphql: "query .."`): POSTed, its params
    /// its variables; a `mutation` mutates.
    pub graphql: Option<super::graphql::Operation>,
    /// The page param and the page-size param, as the server names them.
    pub paginated_by: Option<LitStr>,
    pub page_size: Option<LitStr>,
    /// The declared params fields (inline form).
    pub params: Vec<Param>,
    /// The attributes of the inline params struct (serde's, docs).
    pub params_attrs: Vec<Attribute>,
    /// The user's own params type (`params: Type`), endpoint! only.
    pub params_type: Option<Type>,
}

impl Route {
    /// The name the param `name` has once the params are serialized: its
    /// field's serde `rename`, else the params' `rename_all` applied, else
    /// itself. A user's params type is serialized as it says; its
    /// placeholders name fields as serialized.
    pub fn wire_name(&self, name: &str) -> String {
        if self.params_type.is_some() {
            return name.to_owned();
        }
        let renamed = self
            .params
            .iter()
            .find(|p| p.name.unraw() == name)
            .and_then(|p| serialize_name(&p.attrs, "rename"));
        renamed.unwrap_or_else(|| {
            match serialize_name(&self.params_attrs, "rename_all")
                .and_then(|rule| RenameRule::from_name(&rule))
            {
                Some(rule) => rule.apply(name),
                None => name.to_owned(),
            }
        })
    }

    /// Every param's serialized name: the placeholders, then the declared
    /// params that are not in the path. `None` for a user's params type
    /// (the macro cannot see its fields).
    pub fn wire_names(&self) -> Option<Vec<String>> {
        if self.params_type.is_some() {
            return None;
        }
        let mut names: Vec<String> = self.path.params().map(|n| self.wire_name(n)).collect();
        for param in &self.params {
            let name = param.name.unraw().to_string();
            if !self.path.params().any(|n| n == name) {
                names.push(self.wire_name(&name));
            }
        }
        Some(names)
    }
}
