//! `#[derive(Schema)]` on an enum: a union of schemas (each variant
//! holding one, usually a record `Rc<E>`), told apart when read by the
//! enum's own `Deserialize` (serde's `tag`, or a hand-written one).
//! Parsed, checked and expanded here.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DataEnum, DeriveInput, Fields, Ident, Type};

use crate::errors::Errors;

/// One variant of a union: its name and the schema it holds.
struct Variant<'a> {
    ident: &'a Ident,
    ty: &'a Type,
}

/// Expands `#[derive(Schema)]` on the enum `input`: its impls, or its
/// errors (with those `errors` holds already) beside a fallback.
pub fn derive(
    input: &DeriveInput,
    data: &DataEnum,
    mut errors: Errors,
    fallback: TokenStream,
) -> TokenStream {
    let variants = parse(input, data, &mut errors);
    match errors.finish() {
        Ok(()) => expand(input, &variants),
        Err(compile_errors) => quote!(#compile_errors #fallback),
    }
}

/// The variants, each checked: one unnamed field, no attribute of ours.
fn parse<'a>(input: &'a DeriveInput, data: &'a DataEnum, errors: &mut Errors) -> Vec<Variant<'a>> {
    if data.variants.is_empty() {
        errors.at(
            &input.ident,
            "a union needs at least one variant, each holding a schema: `Comment(Rc<Comment>)`",
        );
    }
    let mut variants = Vec::new();
    for variant in &data.variants {
        for attr in variant.attrs.iter().filter(|a| a.path().is_ident("schema")) {
            errors.at(attr, "a union's variant takes no `#[schema(..)]` options");
        }
        match &variant.fields {
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => variants.push(Variant {
                ident: &variant.ident,
                ty: &fields.unnamed[0].ty,
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

fn expand(input: &DeriveInput, variants: &[Variant]) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let parts =
        |ty: &Type| quote_spanned!(ty.span()=> <#ty as ::restcache::__private::SchemaParts>);
    let normalize = variants.iter().map(|Variant { ident: name, ty }| {
        let parts = parts(ty);
        quote!(#ident::#name(inner) => #parts::normalize(inner, cx),)
    });
    let denormalize = variants.iter().map(|Variant { ident: name, ty }| {
        let parts = parts(ty);
        quote! {
            #ident::#name(inner) => match #parts::denormalize(inner, cx) {
                ::restcache::__private::Denorm::Same => ::restcache::__private::Denorm::Same,
                ::restcache::__private::Denorm::Changed(value) => ::restcache::__private::Denorm::Changed(#ident::#name(value)),
                ::restcache::__private::Denorm::Missing => ::restcache::__private::Denorm::Missing,
            },
        }
    });
    let same = variants.iter().map(|Variant { ident: name, ty }| {
        let parts = parts(ty);
        quote!((#ident::#name(a), #ident::#name(b)) => #parts::same_entities(a, b),)
    });
    let same_value = variants.iter().map(|Variant { ident: name, ty }| {
        let parts = parts(ty);
        quote!((#ident::#name(a), #ident::#name(b)) => #parts::same_value(a, b),)
    });
    let field_text = variants.iter().map(|Variant { ident: name, ty }| {
        let parts = parts(ty);
        quote!(#ident::#name(inner) => #parts::field_text(inner, field),)
    });
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
        }
    }
}
