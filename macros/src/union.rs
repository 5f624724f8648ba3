//! `#[derive(Schema)]` on an enum: a union of schemas (each variant
//! holding one, usually a record `Rc<E>`), told apart when read by the
//! enum's own `Deserialize` (serde's `tag`, or a hand-written one).
//! Parsed, checked and expanded here.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DataEnum, DeriveInput, Fields, Ident, Type};

use crate::attr::UnionAttrs;
use crate::errors::Errors;

/// One variant of a union: its name, the schema it holds, and the
/// names its JSON is read under (none when serde skips it).
struct Variant<'a> {
    ident: &'a Ident,
    ty: &'a Type,
    wire: Vec<String>,
}

/// Expands `#[derive(Schema)]` on the enum `input`: its impls, or its
/// errors (with those `errors` holds already) beside a fallback.
pub fn derive(
    input: &DeriveInput,
    data: &DataEnum,
    mut errors: Errors,
    fallback: TokenStream,
) -> TokenStream {
    let serde = crate::attr::union_container(&input.attrs);
    let variants = parse(input, data, &serde, &mut errors);
    match errors.finish() {
        Ok(()) => expand(input, &serde, &variants),
        Err(compile_errors) => quote!(#compile_errors #fallback),
    }
}

/// The variants, each checked: one unnamed field, no attribute of ours;
/// each read under the names `serde` (the enum's serde attributes) and
/// its own give it.
fn parse<'a>(
    input: &'a DeriveInput,
    data: &'a DataEnum,
    serde: &UnionAttrs,
    errors: &mut Errors,
) -> Vec<Variant<'a>> {
    if data.variants.is_empty() {
        errors.at(
            &input.ident,
            "a union needs at least one variant, each holding a schema: `Comment(Rc<Comment>)`",
        );
    }
    let mut variants = Vec::new();
    for variant in &data.variants {
        let named = crate::attr::union_variant(&variant.attrs);
        let own = variant.ident.to_string();
        let name = named.rename.unwrap_or_else(|| match serde.rename_all {
            Some(rule) => rule.apply_to_variant(&own),
            None => own,
        });
        let wire = match named.never_read {
            true => Vec::new(),
            false => std::iter::once(name).chain(named.aliases).collect(),
        };
        for attr in variant.attrs.iter().filter(|a| a.path().is_ident("schema")) {
            errors.at(attr, "a union's variant takes no `#[schema(..)]` options");
        }
        match &variant.fields {
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => variants.push(Variant {
                ident: &variant.ident,
                ty: &fields.unnamed[0].ty,
                wire,
            }),
            Fields::Unnamed(fields) => errors.at(
                fields,
                "a union's variant holds exactly one schema, as in `Comment(Rc<Comment>)`",
            ),
            Fields::Named(fields) => errors.at(
                fields,
                "a union's variant holds its record as one unnamed field, as in `Comment(Rc<Comment>)` with `#[derive(Entity)]` on `Comment`",
            ),
            Fields::Unit => errors.at(
                &variant.ident,
                "a union's variant holds one schema, as in `Comment(Rc<Comment>)`",
            ),
        }
    }
    variants
}

/// How serde's attributes on the enum say its JSON names a variant;
/// `None` when it does not (`untagged`: serde tries each in turn).
fn tagging(serde: &UnionAttrs) -> Option<TokenStream> {
    let tag = quote!(::restcache::__private::UnionTag);
    match (serde.untagged, &serde.tag, &serde.content) {
        (true, _, _) => None,
        (false, Some(name), Some(content)) => Some(quote!(#tag::Adjacent(#name, #content))),
        (false, Some(name), None) => Some(quote!(#tag::Internal(#name))),
        (false, None, _) => Some(quote!(#tag::External)),
    }
}

/// The light pass over a value of the union, and whether one may hold
/// records with fields that may be absent: a record of a union keeps the
/// fields its JSON left out as any record does. Over an `untagged` union
/// the pass notes nothing: its records are written whole.
fn partial_items(serde: &UnionAttrs, variants: &[Variant]) -> TokenStream {
    let Some(tagging) = tagging(serde) else {
        return TokenStream::new();
    };
    let tys = variants.iter().map(|v| v.ty);
    let scans = variants.iter().map(|Variant { ty, wire, .. }| {
        quote_spanned! {ty.span()=>
            (
                &[#(#wire),*],
                |value, found| <#ty as ::restcache::__private::SchemaParts>::scan_presence(value, found),
            )
        }
    });
    quote! {
        fn scan_presence<'de, __D: ::restcache::__private::serde::Deserializer<'de>>(
            deserializer: __D,
            found: &mut ::restcache::__private::Presence,
        ) -> ::restcache::__private::Result<(), __D::Error> {
            ::restcache::__private::scan_union(deserializer, found, #tagging, &[#(#scans),*])
        }

        const SCANS: bool = true;

        fn may_be_partial(seen: &mut ::restcache::__private::Vec<::restcache::__private::TypeId>) -> bool {
            false #(|| <#tys as ::restcache::__private::SchemaParts>::may_be_partial(seen))*
        }
    }
}

fn expand(input: &DeriveInput, serde: &UnionAttrs, variants: &[Variant]) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let parts =
        |ty: &Type| quote_spanned!(ty.span()=> <#ty as ::restcache::__private::SchemaParts>);
    // One match arm a variant, made by `arm` from the variant's name
    // and its schema's parts.
    let arms = |arm: &dyn Fn(&Ident, TokenStream) -> TokenStream| -> Vec<TokenStream> {
        variants.iter().map(|v| arm(v.ident, parts(v.ty))).collect()
    };
    let normalize =
        arms(&|name, parts| quote!(#ident::#name(inner) => #parts::normalize(inner, cx),));
    let denormalize = arms(&|name, parts| {
        quote! {
            #ident::#name(inner) => match #parts::denormalize(inner, cx) {
                ::restcache::__private::Denorm::Same => ::restcache::__private::Denorm::Same,
                ::restcache::__private::Denorm::Changed(value) => ::restcache::__private::Denorm::Changed(#ident::#name(value)),
                ::restcache::__private::Denorm::Missing => ::restcache::__private::Denorm::Missing,
            },
        }
    });
    let same = arms(
        &|name, parts| quote!((#ident::#name(a), #ident::#name(b)) => #parts::same_entities(a, b),),
    );
    let same_value = arms(
        &|name, parts| quote!((#ident::#name(a), #ident::#name(b)) => #parts::same_value(a, b),),
    );
    let field_text =
        arms(&|name, parts| quote!(#ident::#name(inner) => #parts::field_text(inner, field),));
    // Where a decode error's path leads is known only with one variant.
    let entity_at = match variants {
        [Variant { ty, .. }] => {
            let parts = parts(ty);
            quote!(#parts::entity_at(path))
        }
        _ => quote!({
            let _ = path;
            ::restcache::__private::None
        }),
    };
    let others = (variants.len() > 1).then(|| quote!(_ => false,));
    let schema_impl = crate::expand::schema_impl(ident, &input.generics);
    let partial = partial_items(serde, variants);
    quote! {
        #schema_impl

        #[automatically_derived]
        impl #impl_generics ::restcache::__private::SchemaParts for #ident #ty_generics #where_clause {
            fn normalize(
                &mut self,
                cx: &mut ::restcache::__private::Normalizer<'_>,
            ) -> ::restcache::__private::Result<(), ::restcache::SchemaError> {
                match self {
                    #(#normalize)*
                }
            }

            fn denormalize(
                &self,
                cx: &mut ::restcache::__private::Denormalizer<'_, '_>,
            ) -> ::restcache::__private::Denorm<Self> {
                match self {
                    #(#denormalize)*
                }
            }

            fn same_entities(&self, other: &Self) -> bool {
                match (self, other) {
                    #(#same)*
                    #others
                }
            }

            fn same_value(&self, other: &Self) -> bool {
                match (self, other) {
                    #(#same_value)*
                    #others
                }
            }

            fn entity_at(path: &[::restcache::Segment]) -> ::restcache::__private::Option<&'static str> {
                #entity_at
            }

            fn field_text(&self, field: &str) -> ::restcache::rest::FieldText {
                match self {
                    #(#field_text)*
                }
            }

            #partial
        }
    }
}
