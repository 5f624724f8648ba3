//! Writes what `resource!` and `endpoint!` declare: params structs and
//! functions returning `restcache::rest::Endpoint`s.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use super::ast::{Route, Which};
use super::template::{Piece, Template};
use crate::case::RenameRule;

/// The tokens of a `PathTemplate` constant.
fn template(path: &Template) -> TokenStream {
    let source = &path.source;
    let parts = path.pieces.iter().map(|piece| match piece {
        Piece::Static(text) => quote!(::restcache::rest::Part::Static(#text)),
        Piece::Param(name) => quote!(::restcache::rest::Part::Param(#name)),
    });
    quote!(::restcache::rest::PathTemplate::new(#source, &[#(#parts),*]))
}

/// A params struct named `name` with `fields`, or `()` when there are none.
/// Returns (its type, its definition).
fn params_struct(
    route: &Route,
    name: &Ident,
    doc: &str,
    fields: &[(Ident, TokenStream)],
) -> (TokenStream, TokenStream) {
    if fields.is_empty() {
        return (quote!(()), TokenStream::new());
    }
    let vis = &route.vis;
    let fields = fields.iter().map(|(field, ty)| quote!(#vis #field: #ty));
    let definition = quote! {
        #[doc = #doc]
        #[derive(
            ::std::clone::Clone,
            ::std::fmt::Debug,
            ::std::cmp::PartialEq,
            ::restcache::__private::serde::Serialize
        )]
        #[serde(crate = "::restcache::__private::serde")]
        #vis struct #name {
            #(#fields,)*
        }
    };
    (quote!(#name), definition)
}

/// The type of a placeholder: as typed in `params`, else `String`.
fn declared(route: &Route, name: &str) -> TokenStream {
    match route.params.iter().find(|p| p.name == name) {
        Some(param) => {
            let ty = &param.ty;
            quote!(#ty)
        }
        None => quote!(::std::string::String),
    }
}

fn field(name: &str) -> Ident {
    syn::parse_str::<Ident>(name).unwrap_or_else(|_| format_ident!("r#{}", name))
}

/// `.with_url_prefix(..)` and `.with_options(..)` as declared.
fn settings(route: &Route) -> TokenStream {
    let prefix = route
        .url_prefix
        .as_ref()
        .map(|expr| quote!(let endpoint = endpoint.with_url_prefix(#expr);));
    let given = [
        &route.data_expiry,
        &route.error_expiry,
        &route.invalid_if_stale,
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
        })
    }
}

pub fn expand(route: Route) -> TokenStream {
    match route.which {
        Which::Resource => resource(&route),
        Which::Endpoint => endpoint(&route),
    }
}

fn resource(route: &Route) -> TokenStream {
    let Route {
        attrs,
        vis,
        name,
        schema,
        path,
        ..
    } = route;
    let Some(list) = path.list() else {
        unreachable!("checked: a resource's path ends with its pk placeholder");
    };
    let names: Vec<&str> = path.params().collect();
    let Some((pk, others)) = names.split_last() else {
        unreachable!("checked: a resource's path has a placeholder");
    };
    let pk_field = field(pk);
    let id_ty = quote_spanned!(schema.span()=> <#schema as ::restcache::Entity>::Id);
    let mut fields: Vec<(Ident, TokenStream)> = others
        .iter()
        .map(|n| (field(n), declared(route, n)))
        .collect();
    let list_fields = fields.clone();
    fields.push((pk_field.clone(), id_ty));

    let source = &path.source;
    let params_name = format_ident!("{}Params", name);
    let list_name = format_ident!("{}ListParams", name);
    let (params, params_def) = params_struct(
        route,
        &params_name,
        &format!("Params of `{name}`'s get, update, partial_update and delete: `{source}`."),
        &fields,
    );
    let (list_params, list_def) = params_struct(
        route,
        &list_name,
        &format!(
            "Params of `{name}`'s get_list and create: `{}`.",
            list.source
        ),
        &list_fields,
    );
    let detail = template(path);
    let list_template = template(&list);
    let settings = settings(route);
    let one = quote!(::std::rc::Rc<#schema>);
    let many = quote!(::std::vec::Vec<::std::rc::Rc<#schema>>);
    let method = |m: &str| {
        let m = Ident::new(m, Span::call_site());
        quote!(::restcache::rest::Method::#m)
    };
    let (get, post, put, patch, delete) = (
        method("Get"),
        method("Post"),
        method("Put"),
        method("Patch"),
        method("Delete"),
    );
    let doc = |verb: &str, path: &str, rest: &str| format!("`{verb} {path}`{rest}");
    let d_get = doc("GET", source, ": one record.");
    let d_list = doc("GET", &list.source, ": the list of records.");
    let d_create = doc(
        "POST",
        &list.source,
        ": creates a record from the body; it joins the cached lists.",
    );
    let d_update = doc("PUT", source, ": replaces a record with the body.");
    let d_patch = doc("PATCH", source, ": changes some fields of a record.");
    let d_delete = doc(
        "DELETE",
        source,
        ": deletes a record; it leaves every cached list.",
    );
    quote! {
        #(#attrs)*
        #[derive(::std::clone::Clone, ::std::marker::Copy, ::std::fmt::Debug)]
        #vis struct #name;

        #params_def
        #list_def

        impl #name {
            /// The path pattern the resource was declared with.
            #vis const PATH: &'static str = #source;

            fn __endpoint<P: ::restcache::__private::serde::Serialize, S>(
                endpoint: ::restcache::rest::Endpoint<P, S>,
            ) -> ::restcache::rest::Endpoint<P, S> {
                #settings
            }

            #[doc = #d_get]
            #vis fn get() -> ::restcache::rest::Endpoint<#params, #one> {
                Self::__endpoint(::restcache::rest::Endpoint::new(#get, #detail))
            }

            #[doc = #d_list]
            #vis fn get_list() -> ::restcache::rest::Endpoint<#list_params, #many> {
                Self::__endpoint(::restcache::rest::Endpoint::new(#get, #list_template))
            }

            #[doc = #d_create]
            #vis fn create() -> ::restcache::rest::Endpoint<#list_params, #one> {
                Self::__endpoint(
                    ::restcache::rest::Endpoint::new(#post, #list_template)
                        .with_kind(::restcache::rest::Kind::Create),
                )
            }

            #[doc = #d_update]
            #vis fn update() -> ::restcache::rest::Endpoint<#params, #one> {
                Self::__endpoint(::restcache::rest::Endpoint::new(#put, #detail))
            }

            #[doc = #d_patch]
            #vis fn partial_update() -> ::restcache::rest::Endpoint<#params, #one> {
                Self::__endpoint(::restcache::rest::Endpoint::new(#patch, #detail))
            }

            #[doc = #d_delete]
            #vis fn delete() -> ::restcache::rest::Endpoint<#params, ::restcache::rest::Deleted<#schema>> {
                Self::__endpoint(
                    ::restcache::rest::Endpoint::decoded_by(#delete, #detail, |_, params: &#params| {
                        ::restcache::__private::deleted::<#schema>(&params.#pk_field)
                    })
                    .with_kind(::restcache::rest::Kind::Delete),
                )
            }
        }
    }
}

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
    let names: Vec<&str> = path.params().collect();
    let mut fields: Vec<(Ident, TokenStream)> = names
        .iter()
        .map(|n| (field(n), declared(route, n)))
        .collect();
    for param in &route.params {
        if !names.iter().any(|n| param.name == n) {
            let ty: &Type = &param.ty;
            fields.push((param.name.clone(), quote!(#ty)));
        }
    }
    let pascal = RenameRule::Pascal.apply(&name.to_string());
    let params_name = format_ident!("{}Params", pascal);
    let source = &path.source;
    let (params, params_def) = params_struct(
        route,
        &params_name,
        &format!("Params of the endpoint `{name}`: `{method} {source}`."),
        &fields,
    );
    let variant = {
        let text = method.to_string();
        let mut chars = text.chars();
        let first = chars.next().unwrap_or('G');
        Ident::new(
            &format!("{first}{}", chars.as_str().to_ascii_lowercase()),
            method.span(),
        )
    };
    let kind = route.side_effect.as_ref().map(|expr| {
        quote! {
            let endpoint = endpoint.with_kind(if #expr {
                ::restcache::rest::Kind::Mutate
            } else {
                ::restcache::rest::Kind::Read
            });
        }
    });
    let settings = settings(route);
    let tpl = template(path);
    let doc = format!("`{method} {source}`.");
    let function = quote! {
        #(#attrs)*
        #[doc = #doc]
        #vis fn #name() -> ::restcache::rest::Endpoint<#params, #schema> {
            let endpoint = ::restcache::rest::Endpoint::<#params, #schema>::new(
                ::restcache::rest::Method::#variant,
                #tpl,
            );
            #kind
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
