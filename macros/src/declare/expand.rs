//! Writes what `resource!` and `endpoint!` declare: params structs and
//! functions returning `restcache::rest::Endpoint`s. A resource is a unit
//! struct with a `Declared` impl; the runtime builds its six endpoints.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Type};

use super::ast::{Route, Which};
use super::template::{Piece, Template};
use crate::case::RenameRule;

pub fn expand(route: &Route) -> TokenStream {
    match route.which {
        Which::Resource => resource(route),
        Which::Endpoint => endpoint(route),
    }
}

/// The unit struct, its params structs, its `Declared` impl and the six
/// endpoint functions.
fn resource(route: &Route) -> TokenStream {
    let Route {
        attrs, vis, name, ..
    } = route;
    let list = route
        .path
        .list()
        .unwrap_or_else(|| fallback_list(&route.path));
    let params = ResourceParams::of(route, &list);
    let declared = declared_impl(route, &list);
    let functions = endpoint_functions(route, &list, &params);
    let (params_def, list_def) = (&params.detail_def, &params.list_def);
    quote! {
        #(#attrs)*
        #[derive(::std::clone::Clone, ::std::marker::Copy, ::std::fmt::Debug)]
        #vis struct #name;

        #params_def
        #list_def
        #declared
        #functions
    }
}

/// A list path for a resource whose path does not end with its pk (a
/// mistake already reported): the path itself, so the fallback expands.
fn fallback_list(path: &Template) -> Template {
    Template {
        source: path.source.clone(),
        pieces: path.pieces.clone(),
        span: path.span,
    }
}

/// The params structs of a resource: the detail params (every placeholder,
/// the last one the pk, typed as the entity's pk) and the list params
/// (the list path's placeholders).
struct ResourceParams {
    /// The pk's field.
    pk: Ident,
    /// The detail params' type and definition.
    detail: TokenStream,
    detail_def: TokenStream,
    /// The list params' type (`()` when there are none) and definition.
    list: TokenStream,
    list_def: TokenStream,
}

impl ResourceParams {
    fn of(route: &Route, list: &Template) -> Self {
        let Route { name, schema, .. } = route;
        let list_names: Vec<&str> = list.params().collect();
        let pk = route
            .path
            .params()
            .last()
            .map_or_else(|| Ident::new("id", Span::call_site()), field);
        let list_fields: Vec<ParamField> = list_names
            .iter()
            .filter(|n| pk != n)
            .map(|n| ParamField::placeholder(route, n))
            .collect();
        let mut fields = list_fields.clone();
        let id_ty = quote_spanned!(route.schema.span()=> <#schema as ::restcache::Entity>::Id);
        fields.push(ParamField {
            attrs: &[],
            ident: pk.clone(),
            ty: id_ty,
        });
        let source = &route.path.source;
        let (detail, detail_def) = params_struct(
            route,
            &format_ident!("{}Params", name),
            &format!("Params of `{name}`'s get, update, partial_update and delete: `{source}`."),
            &fields,
        );
        let (list_ty, list_def) = params_struct(
            route,
            &format_ident!("{}ListParams", name),
            &format!(
                "Params of `{name}`'s get_list and create: `{}`.",
                list.source
            ),
            &list_fields,
        );
        ResourceParams {
            pk,
            detail,
            detail_def,
            list: list_ty,
            list_def,
        }
    }
}

/// `impl Declared for Name`: the paths and settings the runtime builds
/// the endpoints with.
fn declared_impl(route: &Route, list: &Template) -> TokenStream {
    let name = &route.name;
    let detail_template = template(route, &route.path);
    let list_template = template(route, list);
    let settings = settings(route);
    quote! {
        impl ::restcache::__private::Declared for #name {
            const DETAIL: ::restcache::rest::PathTemplate = #detail_template;
            const LIST: ::restcache::rest::PathTemplate = #list_template;

            fn settings<P: ::restcache::__private::serde::Serialize, S, E: ::restcache::rest::Effect>(
                endpoint: ::restcache::rest::Endpoint<P, S, E>,
            ) -> ::restcache::rest::Endpoint<P, S, E> {
                #settings
            }
        }
    }
}

/// `Name::get()` and the five others, each documented with its request.
fn endpoint_functions(route: &Route, list: &Template, params: &ResourceParams) -> TokenStream {
    let Route {
        vis, name, schema, ..
    } = route;
    let (detail, list_params, pk) = (&params.detail, &params.list, &params.pk);
    let (one, many) = (
        quote!(::std::rc::Rc<#schema>),
        quote!(::std::vec::Vec<::std::rc::Rc<#schema>>),
    );
    let deleted = quote!(::restcache::rest::Deleted<#schema>);
    let (read, mutate, create, delete) = (
        quote!(::restcache::rest::Read),
        quote!(::restcache::rest::Mutate),
        quote!(::restcache::rest::Create),
        quote!(::restcache::rest::Delete),
    );
    let (path, list_path) = (&route.path.source, &list.source);
    let functions = [
        ("get", "GET", path, ": one record.", detail, &one, &read),
        (
            "get_list",
            "GET",
            list_path,
            ": the list of records.",
            list_params,
            &many,
            &read,
        ),
        (
            "create",
            "POST",
            list_path,
            ": creates a record from the body; it joins the cached lists.",
            list_params,
            &one,
            &create,
        ),
        (
            "update",
            "PUT",
            path,
            ": replaces a record with the body. The server drops what the body leaves out, and so does the cache: the answer replaces the cached record whole (an entity that merges its own way, with `#[entity(merge = ...)]`, still decides).",
            detail,
            &one,
            &mutate,
        ),
        (
            "partial_update",
            "PATCH",
            path,
            ": changes some fields of a record.",
            detail,
            &one,
            &mutate,
        ),
        (
            "delete",
            "DELETE",
            path,
            ": deletes a record; it leaves every cached list.",
            detail,
            &deleted,
            &delete,
        ),
    ]
    .into_iter()
    .map(|(function, verb, path, what, params, result, effect)| {
        let doc = format!("`{verb} {path}`{what}");
        let target = quote! {
            |params: &#params| ::restcache::PkValue::to_pk(&params.#pk)
        };
        let body = match function {
            "delete" => quote! {
                ::restcache::__private::resource::delete::<Self, _, _>(
                    #target,
                    |_, params: &#params| {
                        ::restcache::__private::resource::deleted::<#schema>(&params.#pk)
                    },
                )
            },
            "update" | "partial_update" => {
                let function = Ident::new(function, Span::call_site());
                quote!(::restcache::__private::resource::#function::<Self, _, _>(#target))
            }
            _ => {
                let function = Ident::new(function, Span::call_site());
                quote!(::restcache::__private::resource::#function::<Self, _, _>())
            }
        };
        let function = Ident::new(function, Span::call_site());
        quote! {
            #[doc = #doc]
            #vis fn #function() -> ::restcache::rest::Endpoint<#params, #result, #effect> {
                #body
            }
        }
    });
    quote! {
        impl #name {
            /// The path pattern the resource was declared with.
            #vis const PATH: &'static str = #path;

            #(#functions)*
        }
    }
}

/// A custom endpoint: a function returning it (in its owner's impl when
/// declared as `Owner::name`) and, when it has params, a params struct
/// named after it.
fn endpoint(route: &Route) -> TokenStream {
    let Route {
        attrs,
        vis,
        owner,
        name,
        schema,
        path,
        method,
        ..
    } = route;
    let (params, params_def) = endpoint_params(route);
    let (variant, mutates, graphql) = match &route.graphql {
        Some(operation) => {
            let document = &operation.lit;
            (
                Ident::new("Post", method.span()),
                operation.mutation,
                Some(quote!(let endpoint = endpoint.graphql(#document);)),
            )
        }
        None => (
            method_variant(method),
            route.side_effect.unwrap_or_else(|| *method != "GET"),
            None,
        ),
    };
    let (effect, converted) = match mutates {
        true => (
            quote!(::restcache::rest::Mutate),
            Some(quote!(let endpoint = endpoint.with_effect::<::restcache::rest::Mutate>();)),
        ),
        false => (quote!(::restcache::rest::Read), None),
    };
    let settings = settings(route);
    let paging = paging(route);
    let tpl = template(route, path);
    let doc = match &route.graphql {
        Some(operation) => format!(
            "The GraphQL {} `POST {}`.",
            if operation.mutation {
                "mutation"
            } else {
                "query"
            },
            path.source
        ),
        None => format!("`{method} {}`.", path.source),
    };
    let function = quote! {
        #(#attrs)*
        #[doc = #doc]
        #vis fn #name() -> ::restcache::rest::Endpoint<#params, #schema, #effect> {
            let endpoint = ::restcache::rest::Endpoint::<#params, #schema>::new(
                ::restcache::http::Method::#variant,
                #tpl,
            );
            #converted
            #graphql
            #paging
            #settings
        }
    };
    let function = match owner {
        Some(owner) => quote!(impl #owner { #function }),
        None => function,
    };
    quote! {
        #params_def
        #function
    }
}

/// An endpoint's params: the user's own type (`params: Type`), its
/// placeholders checked to be fields of it; else a struct the macro
/// writes, `{Name}Params` (`{Owner}{Name}Params` for `Owner::name`, so two
/// owners' endpoints of one name never collide): its placeholders (typed
/// as declared, else `String`), then its declared params that are not in
/// the path (they go into the query string).
fn endpoint_params(route: &Route) -> (TokenStream, TokenStream) {
    if let Some(ty) = &route.params_type {
        return (quote!(#ty), placeholders_are_fields(route, ty));
    }
    let names: Vec<&str> = route.path.params().collect();
    let mut fields: Vec<ParamField> = names
        .iter()
        .map(|n| ParamField::placeholder(route, n))
        .collect();
    for param in &route.params {
        if !names.iter().any(|n| param.name.unraw() == n) {
            let ty: &Type = &param.ty;
            fields.push(ParamField {
                attrs: &param.attrs,
                ident: param.name.clone(),
                ty: quote!(#ty),
            });
        }
    }
    let name = &route.name;
    // `r#match` names `MatchParams`.
    let pascal = RenameRule::Pascal.apply(&name.unraw().to_string());
    let struct_name = match &route.owner {
        Some(owner) => format_ident!("{}{}Params", owner, pascal),
        None => format_ident!("{}Params", pascal),
    };
    params_struct(
        route,
        &struct_name,
        &match route.graphql {
            Some(_) => format!(
                "Variables of the GraphQL operation `{name}`: `POST {}`.",
                route.path.source
            ),
            None => format!(
                "Params of the endpoint `{name}`: `{} {}`.",
                route.method, route.path.source
            ),
        },
        &fields,
    )
}

/// A compile-time check that every placeholder of the path is a field of
/// the user's params type, pointing at the path when one is not.
fn placeholders_are_fields(route: &Route, ty: &Type) -> TokenStream {
    let span = route.path.span;
    let reads = route.path.params().map(|name| {
        let member = Ident::new(&field(name).to_string(), span);
        quote_spanned!(span=> let _ = &params.#member;)
    });
    quote! {
        const _: () = {
            #[allow(dead_code)]
            fn placeholders_are_fields(params: &#ty) {
                #(#reads)*
            }
        };
    }
}

/// One field of a params struct the macro writes.
#[derive(Clone)]
struct ParamField<'a> {
    /// serde's attributes and docs, as declared.
    attrs: &'a [Attribute],
    ident: Ident,
    ty: TokenStream,
}

impl<'a> ParamField<'a> {
    /// The field of the placeholder `name`: typed and attributed as
    /// declared in `params`, else a `String`.
    fn placeholder(route: &'a Route, name: &str) -> Self {
        match route.params.iter().find(|p| p.name.unraw() == name) {
            Some(param) => {
                let ty = &param.ty;
                ParamField {
                    attrs: &param.attrs,
                    ident: field(name),
                    ty: quote!(#ty),
                }
            }
            None => ParamField {
                attrs: &[],
                ident: field(name),
                ty: quote!(::std::string::String),
            },
        }
    }
}

/// `GET` as the `Method` variant `Get`, spanned on the method's token.
fn method_variant(method: &Ident) -> Ident {
    let text = method.to_string();
    let mut chars = text.chars();
    let first = chars.next().unwrap_or('G');
    Ident::new(
        &format!("{first}{}", chars.as_str().to_ascii_lowercase()),
        method.span(),
    )
}

/// The tokens of a `PathTemplate` constant: each placeholder filled from
/// the param serialized under its wire name.
fn template(route: &Route, path: &Template) -> TokenStream {
    let source = &path.source;
    let parts = path.pieces.iter().map(|piece| match piece {
        Piece::Static(text) => quote!(::restcache::rest::Part::Static(#text)),
        Piece::Param(name) => {
            let wire = route.wire_name(name);
            quote!(::restcache::rest::Part::Param(#wire))
        }
    });
    quote!(::restcache::rest::PathTemplate::new(#source, &[#(#parts),*]))
}

/// A params struct named `name` with `fields`, or `()` when there are none.
/// Returns (its type, its definition).
fn params_struct(
    route: &Route,
    name: &Ident,
    doc: &str,
    fields: &[ParamField],
) -> (TokenStream, TokenStream) {
    if fields.is_empty() {
        return (quote!(()), TokenStream::new());
    }
    let vis = &route.vis;
    let attrs = &route.params_attrs;
    let fields = fields
        .iter()
        .map(|ParamField { attrs, ident, ty }| quote!(#(#attrs)* #vis #ident: #ty));
    let definition = quote! {
        #[doc = #doc]
        #[derive(
            ::std::clone::Clone,
            ::std::fmt::Debug,
            ::std::cmp::PartialEq,
            ::restcache::__private::serde::Serialize,
            ::restcache::__private::serde::Deserialize
        )]
        #[serde(crate = "::restcache::__private::serde")]
        #(#attrs)*
        #vis struct #name {
            #(#fields,)*
        }
    };
    (quote!(#name), definition)
}

/// The params field of the placeholder `name` (a raw identifier when
/// `name` is a keyword).
fn field(name: &str) -> Ident {
    syn::parse_str::<Ident>(name).unwrap_or_else(|_| format_ident!("r#{}", name))
}

/// `endpoint` with its declared decoder and pagination.
fn paging(route: &Route) -> TokenStream {
    let decode = route
        .decode
        .as_ref()
        .map(|decode| quote!(let endpoint = endpoint.with_decode(#decode);));
    let page = route
        .paginated_by
        .as_ref()
        .map(|page| quote!(let endpoint = endpoint.paginated_by(#page);));
    let size = route
        .page_size
        .as_ref()
        .map(|size| quote!(let endpoint = endpoint.with_page_size(#size);));
    quote!(#decode #page #size)
}

/// `endpoint` with `.with_url_prefix(..)` and `.with_options(..)` as
/// declared.
fn settings(route: &Route) -> TokenStream {
    let url_prefix = route
        .url_prefix
        .as_ref()
        .map(|expr| quote!(let endpoint = endpoint.with_url_prefix(#expr);));
    let infer = route.infer.as_ref().map(
        |expr| quote!(let endpoint = if #expr { endpoint } else { endpoint.without_inference() };),
    );
    let policy = route
        .error_policy
        .as_ref()
        .map(|expr| quote!(let endpoint = endpoint.with_error_policy(#expr);));
    let private = route
        .private
        .as_ref()
        .map(|expr| quote!(let endpoint = if #expr { endpoint.private() } else { endpoint };));
    let prefix = quote!(#url_prefix #infer #policy #private);
    let given = [
        &route.data_expiry,
        &route.error_expiry,
        &route.invalid_if_stale,
        &route.poll_frequency,
        &route.timeout,
    ];
    if given.iter().all(|e| e.is_none()) {
        return quote!(#prefix endpoint);
    }
    let some = |e: &Option<syn::Expr>| match e {
        Some(expr) => quote!(::std::option::Option::Some(#expr)),
        None => quote!(::std::option::Option::None),
    };
    let data = some(&route.data_expiry);
    let error = some(&route.error_expiry);
    let poll = some(&route.poll_frequency);
    let timeout = some(&route.timeout);
    let stale = match &route.invalid_if_stale {
        Some(expr) => quote!(#expr),
        None => quote!(false),
    };
    quote! {
        #prefix
        endpoint.with_options(::restcache::rest::Options {
            data_expiry: #data,
            error_expiry: #error,
            invalid_if_stale: #stale,
            poll_frequency: #poll,
            timeout: #timeout,
        })
    }
}
