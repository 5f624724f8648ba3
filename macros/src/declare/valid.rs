//! Checks a parsed declaration, one named check per rule; every mistake is
//! collected, spanned on its token. What survives the checks becomes a
//! [`Route`]: the whole declaration when it has no mistake, else the best
//! reading of it, which the fallback expands so that one mistake gives one
//! message.

use proc_macro2::Span;
use syn::ext::IdentExt as _;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Ident, LitStr, Type};

use super::ast::{Decl, Param, Params, Route, Value, Which};
use super::graphql;
use super::template::Template;
use crate::errors::Errors;

/// The options of both macros.
const OPTIONS: &[&str] = &[
    "path",
    "schema",
    "url_prefix",
    "data_expiry",
    "error_expiry",
    "invalid_if_stale",
    "poll_frequency",
    "timeout",
    "infer",
    "error_policy",
    "private",
    "params",
];
/// The options only `endpoint!` takes (a resource has all six methods).
const ENDPOINT_OPTIONS: &[&str] = &[
    "graphql",
    "method",
    "side_effect",
    "decode",
    "paginated_by",
    "page_size",
];
const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];

/// The options of a declaration, sorted by what they hold.
#[derive(Default)]
struct Options {
    path: Option<LitStr>,
    schema: Option<Type>,
    method: Option<Ident>,
    params: Vec<Param>,
    params_attrs: Vec<Attribute>,
    params_type: Option<Type>,
    exprs: Vec<(String, Expr)>,
    /// The options given a value of the wrong kind (reported already).
    wrong: Vec<String>,
}

impl Options {
    /// The expression given for the option `name`.
    fn take(&mut self, name: &str) -> Option<Expr> {
        let index = self.exprs.iter().position(|(key, _)| key == name)?;
        Some(self.exprs.remove(index).1)
    }
}

/// Checks `decl`; returns the route to expand (with its mistakes left out
/// when `errors` has any), or `None` when there is no path or no schema to
/// expand.
pub fn check(decl: Decl, which: Which, errors: &mut Errors) -> Option<Route> {
    let route = read(decl, which, errors)?;
    if let Some(operation) = &route.graphql
        && route.params_type.is_none()
    {
        let params: Vec<(String, &Ident)> = route
            .params
            .iter()
            .map(|param| {
                (
                    route.wire_name(&param.name.unraw().to_string()),
                    &param.name,
                )
            })
            .collect();
        graphql::params_are_its_variables(operation, &params, errors);
    }
    for page in [&route.paginated_by, &route.page_size]
        .into_iter()
        .flatten()
    {
        page_param_is_a_param(&route, page, errors);
    }
    if let (Some(size), None) = (&route.page_size, &route.paginated_by) {
        errors.at(
            size,
            "`page_size` goes with `paginated_by`: name the page param too",
        );
    }
    Some(route)
}

/// A page param that names none of the params would never reach the URL:
/// the pages would all be the first.
fn page_param_is_a_param(route: &Route, page: &LitStr, errors: &mut Errors) {
    // The next page's URL sets the param in the query string: a path
    // segment would stay at the first page.
    let in_path = route
        .path
        .params()
        .find(|name| route.wire_name(name) == page.value());
    if let Some(name) = in_path.filter(|name| route.path.in_path(name)) {
        errors.at(
            page,
            format!(
                "`{}` is a segment of the path; a page param goes in the query string (`\\\\?{}=:{name}`) so that the next page can set it",
                page.value(),
                page.value()
            ),
        );
        return;
    }
    let Some(names) = route.wire_names() else {
        return;
    };
    if names.contains(&page.value()) {
        return;
    }
    let known = match names.is_empty() {
        true => "it has none".to_owned(),
        false => format!("as the server names them: `{}`", names.join("`, `")),
    };
    errors.at(
        page,
        format!(
            "`{}` is not a param of this endpoint; its params {known}",
            page.value()
        ),
    );
}

/// Reads `decl` into a route, checking each option.
fn read(decl: Decl, which: Which, errors: &mut Errors) -> Option<Route> {
    resource_has_no_owner(&decl, which, errors);
    let mut options = sort_options(decl.options, which, errors);
    let call = decl.name.span();
    let given = |key: &str| options.wrong.iter().any(|wrong| wrong == key);
    let (path_given, schema_given) = (given("path"), given("schema"));
    let path = options.path.take().or_else(|| match path_given {
        // An endpoint whose path is not a string still expands, at `/`,
        // so that the code calling it adds no error of its own.
        true if which == Which::Endpoint => Some(LitStr::new("/", call)),
        true => None,
        false => missing(call, "missing `path: \"/...\"`", errors),
    });
    let schema = options.schema.take().or_else(|| match schema_given {
        true => None,
        false => missing(call, "missing `schema: Type`", errors),
    });
    let template = path.as_ref().map(|lit| Template::parse(lit, errors));
    let graphql = options
        .take("graphql")
        .and_then(|expr| graphql_document(expr, errors))
        .and_then(|lit| graphql::parse(lit, errors));
    if graphql.is_some() {
        graphql_takes_no_rest_options(&mut options, template.as_ref(), path.as_ref(), errors);
    }
    if let (Some(lit), Some(template)) = (&path, &template) {
        if which == Which::Resource {
            resource_path_ends_with_its_pk(lit, template, errors);
        }
        options.params = checked_params(which, template, options.params, errors);
        if which == Which::Endpoint && !options.params.is_empty() {
            endpoint_placeholders_are_declared(lit, template, &options.params, errors);
        }
    }
    Some(Route {
        which,
        attrs: decl.attrs,
        vis: decl.vis,
        owner: decl.owner,
        name: decl.name,
        path: template?,
        schema: schema?,
        method: options
            .method
            .take()
            .unwrap_or_else(|| Ident::new("GET", Span::call_site())),
        url_prefix: options.take("url_prefix"),
        data_expiry: options.take("data_expiry"),
        error_expiry: options.take("error_expiry"),
        invalid_if_stale: options.take("invalid_if_stale"),
        poll_frequency: options.take("poll_frequency"),
        timeout: options.take("timeout"),
        infer: options.take("infer"),
        error_policy: options.take("error_policy"),
        private: options.take("private"),
        side_effect: options
            .take("side_effect")
            .and_then(|expr| side_effect(expr, errors)),
        decode: options.take("decode"),
        graphql,
        paginated_by: options
            .take("paginated_by")
            .and_then(|expr| page_param(expr, "paginated_by", errors)),
        page_size: options
            .take("page_size")
            .and_then(|expr| page_param(expr, "page_size", errors)),
        params: options.params,
        params_attrs: options.params_attrs,
        params_type: options.params_type,
    })
}

/// A page param is named by a string literal, as the server names it.
fn page_param(expr: Expr, option: &str, errors: &mut Errors) -> Option<LitStr> {
    if let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(lit),
        ..
    }) = &expr
    {
        return Some(lit.clone());
    }
    errors.at(
        &expr,
        format!("`{option}` takes the param's name as the server names it, a string: `{option}: \"_page\"`"),
    );
    None
}

/// An operation's document is a string literal, checked as the macro
/// expands.
fn graphql_document(expr: Expr, errors: &mut Errors) -> Option<LitStr> {
    if let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(lit),
        ..
    }) = expr
    {
        return Some(lit);
    }
    errors.at(
        &expr,
        "`graphql` takes the operation's document, a string: `graphql: \"query Todo($id: Int!) { .. }\"`",
    );
    None
}

/// A GraphQL operation is POSTed, reads or writes as its document says,
/// takes its params as variables and pages by none: the REST options that
/// say otherwise are mistakes.
fn graphql_takes_no_rest_options(
    options: &mut Options,
    template: Option<&Template>,
    path: Option<&LitStr>,
    errors: &mut Errors,
) {
    if let Some(method) = options.method.take() {
        errors.at(&method, "a GraphQL operation is POSTed: leave `method` out");
    }
    for (option, message) in [
        (
            "side_effect",
            "a GraphQL operation reads or writes as its document says (`query` or `mutation`): leave `side_effect` out",
        ),
        (
            "paginated_by",
            "a GraphQL operation is not paged by a URL param",
        ),
        (
            "page_size",
            "a GraphQL operation is not paged by a URL param",
        ),
    ] {
        if let Some(expr) = options.take(option) {
            errors.at(&expr, message);
        }
    }
    if let (Some(template), Some(lit)) = (template, path)
        && template.params().next().is_some()
    {
        errors.at(
            lit,
            "a GraphQL operation's params are its variables: its path has no placeholders",
        );
    }
}

/// Whether an endpoint mutates is part of its type: `side_effect` is a
/// `true` or a `false`, decided where it is written.
fn side_effect(expr: Expr, errors: &mut Errors) -> Option<bool> {
    if let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Bool(lit),
        ..
    }) = &expr
    {
        return Some(lit.value);
    }
    errors.at(
        &expr,
        "`side_effect` is part of the endpoint's type: write `true` (a mutation) or `false` (a read)",
    );
    None
}

fn missing<T>(call: Span, message: &str, errors: &mut Errors) -> Option<T> {
    errors.at_span(call, message);
    None
}

/// A resource is the unit struct it declares; only an endpoint is a
/// function that may live in another type's impl (`Owner::name`).
fn resource_has_no_owner(decl: &Decl, which: Which, errors: &mut Errors) {
    if let (Which::Resource, Some(owner)) = (which, &decl.owner) {
        errors.at(
            owner,
            "a resource is declared as `pub Name { ... }`: it is a type of its own; `Owner::name` declares an endpoint",
        );
    }
}

/// Sorts the options by what they hold; an option the macro does not take,
/// one given twice, or an unknown method is a mistake (it would be
/// ignored, or silently override the first).
fn sort_options(
    list: impl IntoIterator<Item = super::ast::Opt>,
    which: Which,
    errors: &mut Errors,
) -> Options {
    let mut known = OPTIONS.to_vec();
    if which == Which::Endpoint {
        known.extend_from_slice(ENDPOINT_OPTIONS);
    }
    let mut seen: Vec<String> = Vec::new();
    let mut options = Options::default();
    for opt in list {
        let key = opt.key.to_string();
        if !option_is_known(&opt.key, &key, &known, which, errors)
            || !option_is_new(&opt.key, &key, &seen, errors)
        {
            continue;
        }
        seen.push(key.clone());
        match opt.value {
            Value::Path(lit) => options.path = Some(lit),
            Value::Type(ty) => options.schema = Some(ty),
            Value::Method(ident) => {
                if method_is_known(&ident, errors) {
                    options.method = Some(ident);
                }
            }
            Value::Params(Params::Inline { attrs, fields }) => {
                params_attributes_are_serdes(&attrs, errors);
                options.params_attrs = attrs;
                options.params = fields
                    .into_iter()
                    .filter(|param| params_attributes_are_serdes(&param.attrs, errors))
                    .collect();
            }
            Value::Params(Params::Named(ty)) => {
                if params_type_is_an_endpoints(&ty, which, errors) {
                    options.params_type = Some(ty);
                }
            }
            Value::Expr(expr) => options.exprs.push((key, expr)),
            Value::Wrong(expr, message) => {
                errors.at(&expr, message);
                options.wrong.push(key);
            }
        }
    }
    options
}

/// Params carry serde's attributes (they name the query params on the
/// wire) and docs; any other attribute would be silently dropped or
/// clash with the derives the macro writes.
fn params_attributes_are_serdes(attrs: &[Attribute], errors: &mut Errors) -> bool {
    let mut fine = true;
    for attr in attrs {
        if !(attr.path().is_ident("serde") || attr.path().is_ident("doc")) {
            errors.at_span(
                attr.path().span(),
                "params take serde's attributes (`rename`, `rename_all`, `skip_serializing_if`, ...) and doc comments",
            );
            fine = false;
        }
    }
    fine
}

/// A resource writes its params structs from its path (the detail's and
/// the list's); a params type of one's own belongs to one endpoint.
fn params_type_is_an_endpoints(ty: &Type, which: Which, errors: &mut Errors) -> bool {
    if which == Which::Endpoint {
        return true;
    }
    errors.at(
        ty,
        "resource! writes its params structs from its path; declare a params type of your own with endpoint!",
    );
    false
}

/// An option the macro does not take would be ignored; say which it takes.
fn option_is_known(
    token: &Ident,
    key: &str,
    known: &[&str],
    which: Which,
    errors: &mut Errors,
) -> bool {
    if known.contains(&key) {
        return true;
    }
    let name = match which {
        Which::Resource => "resource!",
        Which::Endpoint => "endpoint!",
    };
    let hint = match (which, ENDPOINT_OPTIONS.contains(&key)) {
        (Which::Resource, true) => {
            "; a resource has all six methods: declare other requests with endpoint!"
        }
        _ => "",
    };
    errors.at(
        token,
        format!(
            "unknown option `{key}`; {name} takes {}{hint}",
            known.join(", ")
        ),
    );
    false
}

/// An option given twice would override the first without a word.
fn option_is_new(token: &Ident, key: &str, seen: &[String], errors: &mut Errors) -> bool {
    if seen.iter().any(|s| s == key) {
        errors.at(token, format!("`{key}` is given twice"));
        return false;
    }
    true
}

/// Only the methods the client makes can be declared.
fn method_is_known(ident: &Ident, errors: &mut Errors) -> bool {
    if METHODS.contains(&ident.to_string().as_str()) {
        return true;
    }
    errors.at(
        ident,
        format!(
            "unknown method `{ident}`; use one of {}",
            METHODS.join(", ")
        ),
    );
    false
}

/// A resource's list path is its path without the last placeholder, which
/// is the pk; a path that does not end with one has no list path.
fn resource_path_ends_with_its_pk(lit: &LitStr, template: &Template, errors: &mut Errors) {
    if template.list().is_some() {
        return;
    }
    let ends_with_param = template.ends_with_param();
    let message = if template.params().next().is_none() {
        "a resource's path ends with the placeholder of its pk, e.g. \"/todos/:id\""
    } else if ends_with_param {
        "the pk placeholder must fill the last segment of a resource's path (\"/users/:handle\", not \"/users/@:handle\"): the list path drops that segment"
    } else {
        "the pk placeholder must end a resource's path (the list path drops it); declare other paths with endpoint!"
    };
    errors.at(lit, message);
}

/// The params that pass every check: each typed once; a resource's typed
/// only when they are placeholders of its path other than the pk (the pk
/// has the entity's pk type, and a resource has no query params).
fn checked_params(
    which: Which,
    template: &Template,
    params: Vec<Param>,
    errors: &mut Errors,
) -> Vec<Param> {
    let placeholders: Vec<&str> = template.params().collect();
    let mut kept: Vec<Param> = Vec::with_capacity(params.len());
    for param in params {
        let fine = param_is_typed_once(&param, &kept, errors)
            && (which == Which::Endpoint
                || resource_param_is_a_placeholder(&param, &placeholders, errors)
                    && resource_param_is_not_the_pk(&param, &placeholders, errors));
        if fine {
            kept.push(param);
        }
    }
    kept
}

/// An endpoint that types its params types every placeholder: one left
/// out would be a `String` beside them, and a param meant for it (named
/// otherwise) would go to the query.
fn endpoint_placeholders_are_declared(
    lit: &LitStr,
    template: &Template,
    params: &[Param],
    errors: &mut Errors,
) {
    for placeholder in template.params() {
        if params.iter().any(|param| param.name.unraw() == placeholder) {
            continue;
        }
        let at = template
            .source
            .match_indices(&format!(":{placeholder}"))
            .map(|(at, _)| at)
            .find(|&at| {
                let end = at + 1 + placeholder.len();
                !template.source[end..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            });
        let span = match at {
            Some(at) => super::template::span_of(lit, at, at + 1 + placeholder.len()),
            None => template.span,
        };
        errors.at_span(
            span,
            format!(
                "`:{placeholder}` is not in `params`: declare it with its type \
                 (`params: {{ {placeholder}: u64, .. }}`); a placeholder takes the \
                 param of its name"
            ),
        );
    }
}

/// A param typed twice would leave the params struct two fields of one name.
fn param_is_typed_once(param: &Param, before: &[Param], errors: &mut Errors) -> bool {
    if before.iter().any(|p| p.name == param.name) {
        errors.at(&param.name, format!("`{}` is typed twice", param.name));
        return false;
    }
    true
}

/// A resource's params are its placeholders: a name that is not one would
/// never reach the URL.
fn resource_param_is_a_placeholder(
    param: &Param,
    placeholders: &[&str],
    errors: &mut Errors,
) -> bool {
    let name = param.name.unraw().to_string();
    if placeholders.contains(&name.as_str()) {
        return true;
    }
    errors.at(
        &param.name,
        format!(
            "`{name}` is not a placeholder of the path; a resource's params are its placeholders"
        ),
    );
    false
}

/// The pk placeholder takes the entity's pk type, so that a params struct
/// and the record it names cannot disagree.
fn resource_param_is_not_the_pk(param: &Param, placeholders: &[&str], errors: &mut Errors) -> bool {
    let name = param.name.unraw().to_string();
    if placeholders.last() != Some(&name.as_str()) {
        return true;
    }
    errors.at(
        &param.name,
        format!(
            "`{name}` is the pk placeholder: it has the entity's pk type, leave it out of params"
        ),
    );
    false
}
