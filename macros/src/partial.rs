//! Partial records: which fields a response may leave out (`Option`s and
//! fields with a serde default), how a partial record takes them from its
//! stored copy, and the light pass that reads, per record, which fields a
//! response's JSON carried (keys only; values are skipped).
//!
//! The pass is a visitor written per type, which cannot see a generic
//! type's parameters: generic records are stored whole.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Type, TypePath};

use crate::ast::{Field, Input};

/// The fields a response may leave out, in declaration order, at most 64
/// (one bit each); the pk never (a record without it is refused). None for
/// a generic type.
pub fn may_be_absent<'i, 'a>(input: &'i Input<'a>, pk: &Field) -> Vec<&'i Field<'a>> {
    if !scans(input) {
        return Vec::new();
    }
    input
        .fields
        .iter()
        .flatten()
        .filter(|f| f.ident != pk.ident)
        .filter(|f| input.attrs.serde_default || f.attrs.serde_default || is_option(f.ty))
        .take(64)
        .collect()
}

/// Whether the light pass can read this type's JSON key by key.
fn scans(input: &Input) -> bool {
    input.generics.params.is_empty()
        && !input.attrs.serde_indirect
        && !input.fields.iter().flatten().any(|f| f.attrs.flatten)
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
/// `scan_record`, `mark_nested_presence` and `may_be_partial`.
pub fn entity_items(input: &Input, absent: &[&Field]) -> TokenStream {
    if !scans(input) {
        return TokenStream::new();
    }
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
    let all: u64 = match absent.len() {
        64 => u64::MAX,
        n => (1u64 << n) - 1,
    };
    let scan = scan(input, |field| bit(absent, field), all);
    let marks = marks(input);
    let partial = nested_partial(input);
    let own = !absent.is_empty();
    quote! {
        const MAY_BE_ABSENT: &'static [&'static str] = &[#(#wires),*];

        fn keep_absent(&mut self, stored: &Self, absent: &::restcache::Absent) {
            let _ = (&stored, &absent);
            #keep
        }

        fn scan_record<'de, __D: ::restcache::__private::serde::Deserializer<'de>>(
            deserializer: __D,
        ) -> ::restcache::__private::Result<::restcache::__private::Presence, __D::Error> {
            #scan
        }

        fn mark_nested_presence(&self, nested: &[::restcache::__private::Presence]) {
            let _ = nested;
            #marks
        }

        fn may_be_partial(seen: &mut ::restcache::__private::Vec<::restcache::__private::TypeId>) -> bool {
            if !::restcache::__private::first_visit(seen, ::restcache::__private::TypeId::of::<Self>()) {
                return false;
            }
            #own #partial
        }
    }
}

/// A schema envelope's items: `scan_presence`, `mark_presence` and
/// `may_be_partial`, over its nested fields.
pub fn schema_items(input: &Input) -> TokenStream {
    if !scans(input) {
        return TokenStream::new();
    }
    let scan = scan(input, |_| None, 0);
    let marks = marks(input);
    let partial = nested_partial(input);
    quote! {
        fn scan_presence<'de, __D: ::restcache::__private::serde::Deserializer<'de>>(
            deserializer: __D,
        ) -> ::restcache::__private::Result<::restcache::__private::Presence, __D::Error> {
            #scan
        }

        fn mark_presence(&self, presence: &::restcache::__private::Presence) {
            if let ::restcache::__private::Presence::Record { nested, .. } = presence {
                let _ = nested;
                #marks
            }
        }

        fn may_be_partial(seen: &mut ::restcache::__private::Vec<::restcache::__private::TypeId>) -> bool {
            let _ = &seen;
            false #partial
        }
    }
}

/// The light pass over one JSON object of this type: the bits (`bit`) of
/// the fields it carries, skipping their values, and the pass over each
/// nested field's value. `all` has a bit for every field that may be
/// absent.
fn scan(input: &Input, bit: impl Fn(&Field) -> Option<u32>, all: u64) -> TokenStream {
    let nested: Vec<&Field> = input.nested().collect();
    let watched: Vec<&Field> = input
        .fields
        .iter()
        .flatten()
        .filter(|f| bit(f).is_some() || f.attrs.nested.is_some())
        .collect();
    // Every name a watched field is read under (its aliases too), with
    // the field it names.
    let named: Vec<(&String, &Field)> = watched
        .iter()
        .flat_map(|f| {
            std::iter::once(&f.wire)
                .chain(&f.attrs.aliases)
                .map(move |n| (n, *f))
        })
        .collect();
    let names = named.iter().map(|(name, _)| name);
    let arms = named.iter().enumerate().map(|(k, (_, field))| {
        let seen = bit(field).map(|b| quote!(present |= 1u64 << #b;));
        let read = match nested.iter().position(|n| n.ident == field.ident) {
            Some(j) => {
                let ty = field.ty;
                quote_spanned! {ty.span()=>
                    found[#j] = <#ty as ::restcache::Schema>::scan_entry(&mut map)?;
                }
            }
            None => quote!(map.next_value::<::restcache::__private::IgnoredAny>()?;),
        };
        quote!(::restcache::__private::Some(#k) => { #seen #read })
    });
    let count = nested.len();
    quote! {
        struct __Scan;
        impl<'de> ::restcache::__private::serde::de::Visitor<'de> for __Scan {
            type Value = ::restcache::__private::Presence;

            fn expecting(&self, f: &mut ::restcache::__private::fmt::Formatter<'_>) -> ::restcache::__private::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<__A: ::restcache::__private::serde::de::MapAccess<'de>>(
                self,
                mut map: __A,
            ) -> ::restcache::__private::Result<::restcache::__private::Presence, __A::Error> {
                const NAMES: &[&str] = &[#(#names),*];
                let mut present: u64 = 0;
                let mut found: ::restcache::__private::Vec<::restcache::__private::Presence> =
                    ::restcache::__private::Vec::with_capacity(#count);
                found.resize_with(#count, ::std::default::Default::default);
                while let ::restcache::__private::Some(key) =
                    map.next_key_seed(::restcache::__private::KeyIndex(NAMES))?
                {
                    match key {
                        #(#arms)*
                        _ => {
                            map.next_value::<::restcache::__private::IgnoredAny>()?;
                        }
                    }
                }
                ::restcache::__private::Ok(::restcache::__private::Presence::Record {
                    absent: #all & !present,
                    nested: found,
                })
            }
        }
        deserializer.deserialize_map(__Scan)
    }
}

/// Notes, for each nested field, what the pass found in it.
fn marks(input: &Input) -> TokenStream {
    let marks = input.nested().enumerate().map(|(j, field)| {
        let (member, ty) = (field.ident, field.ty);
        quote_spanned! {ty.span()=>
            if let ::restcache::__private::Some(found) = nested.get(#j) {
                <#ty as ::restcache::Schema>::mark_presence(&self.#member, found);
            }
        }
    });
    quote!(#(#marks)*)
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
