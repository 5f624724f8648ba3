//! Partial records: which fields a response may leave out (`Option`s and
//! fields with a serde default), how a partial record takes them from its
//! stored copy, and the walks that note, per record, which fields a
//! response's JSON carried.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Type, TypePath};

use crate::ast::{Field, Input};

/// The fields a response may leave out, in declaration order, at most 64
/// (one bit each); the pk never (a record without it is refused).
pub fn may_be_absent<'i, 'a>(input: &'i Input<'a>, pk: &Field) -> Vec<&'i Field<'a>> {
    input
        .fields
        .iter()
        .flatten()
        .filter(|f| f.ident != pk.ident)
        .filter(|f| input.attrs.serde_default || f.attrs.serde_default || is_option(f.ty))
        .take(64)
        .collect()
}

fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(TypePath { qself: None, path })
        if path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// The bit of `field` among `absent`, if it may be absent.
pub fn bit(absent: &[&Field], field: &Field) -> Option<u32> {
    absent
        .iter()
        .position(|f| f.ident == field.ident)
        .map(|i| i as u32)
}

/// The entity's partial-record items: `MAY_BE_ABSENT`, `keep_absent`,
/// `mark_nested_presence` and `may_be_partial`.
pub fn entity_items(input: &Input, absent: &[&Field]) -> TokenStream {
    let wires = absent.iter().map(|f| &f.wire);
    let keep = match &input.attrs.merge {
        Some(merge) => quote_spanned! {merge.span()=>
            #merge(self, stored, absent);
        },
        None => {
            let copies = absent.iter().enumerate().map(|(i, field)| {
                let (member, index) = (field.ident, i as u32);
                quote! {
                    if absent.has(#index) {
                        self.#member = ::restcache::__private::Clone::clone(&stored.#member);
                    }
                }
            });
            quote!(#(#copies)*)
        }
    };
    let marks = input.nested().map(|field| {
        let (member, ty, wire) = (field.ident, field.ty, &field.wire);
        quote_spanned! {ty.span()=>
            if let ::restcache::__private::Some(value) = object.get(#wire) {
                <#ty as ::restcache::Schema>::mark_presence(&self.#member, value);
            }
        }
    });
    let partial = nested_partial(input);
    let own = !absent.is_empty();
    quote! {
        const MAY_BE_ABSENT: &'static [&'static str] = &[#(#wires),*];

        fn keep_absent(&mut self, stored: &Self, absent: &::restcache::Absent) {
            let _ = (&stored, &absent);
            #keep
        }

        fn mark_nested_presence(
            &self,
            object: &::restcache::__private::Map<::std::string::String, ::restcache::__private::Value>,
        ) {
            let _ = object;
            #(#marks)*
        }

        fn may_be_partial(seen: &mut ::restcache::__private::Vec<::restcache::__private::TypeId>) -> bool {
            if !::restcache::__private::first_visit(seen, ::restcache::__private::TypeId::of::<Self>()) {
                return false;
            }
            #own #partial
        }
    }
}

/// A schema envelope's items: `mark_presence` and `may_be_partial`, over
/// its nested fields.
pub fn schema_items(input: &Input) -> TokenStream {
    let marks = input.nested().map(|field| {
        let (member, ty, wire) = (field.ident, field.ty, &field.wire);
        quote_spanned! {ty.span()=>
            if let ::restcache::__private::Some(value) = object.get(#wire) {
                <#ty as ::restcache::Schema>::mark_presence(&self.#member, value);
            }
        }
    });
    let partial = nested_partial(input);
    quote! {
        fn mark_presence(&self, value: &::restcache::__private::Value) {
            if let ::restcache::__private::Value::Object(object) = value {
                let _ = object;
                #(#marks)*
            }
        }

        fn may_be_partial(seen: &mut ::restcache::__private::Vec<::restcache::__private::TypeId>) -> bool {
            let _ = &seen;
            false #partial
        }
    }
}

/// `|| <F as Schema>::may_be_partial(seen)` for each nested field.
fn nested_partial(input: &Input) -> TokenStream {
    let checks = input.nested().map(|field| {
        let ty = field.ty;
        quote_spanned! {ty.span()=>
            || <#ty as ::restcache::Schema>::may_be_partial(seen)
        }
    });
    quote!(#(#checks)*)
}
