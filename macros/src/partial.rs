//! Partial records: which fields a response may leave out (`Option`s and
//! fields with a serde default), how a partial record takes them from its
//! stored copy, and the light pass that reads, per record, which fields a
//! response's JSON carried (keys only; values are skipped).
//!
//! The pass is a visitor written per type. A generic envelope's visitor
//! takes the envelope's type parameters; a generic record's fields are
//! not tracked (its records are stored whole), nor are those of a type
//! serde reads some other way than key by key.

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
        .filter(|f| {
            input.attrs.serde_default
                || f.attrs.serde_default
                || f.attrs.never_read
                || is_option(f.ty)
        })
        .take(64)
        .collect()
}

/// Whether the light pass can track which of this record's fields its
/// JSON carries, key by key.
fn scans(input: &Input) -> bool {
    input.generics.params.is_empty()
        && !input.attrs.serde_indirect
        && !input.fields.iter().flatten().any(|f| f.attrs.flatten)
}

/// Whether the light pass can walk this envelope's JSON to its nested
/// fields. It tracks no field of its own, so keys a flattened field
/// reads are skipped as any unknown key is; type parameters go to its
/// visitor (a lifetime parameter does not).
fn scans_envelope(input: &Input) -> bool {
    input.generics.lifetimes().next().is_none() && !input.attrs.serde_indirect
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
/// `scan_record` and `may_be_partial`.
pub fn entity_items(input: &Input, pk: &Field, absent: &[&Field]) -> TokenStream {
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
    // The record is noted by its pk, read only when it has fields to note.
    let noted = (!absent.is_empty()).then_some(Noted { pk, all });
    let scan = scan(input, |field| bit(absent, field), noted);
    let partial = nested_partial(input);
    let own = !absent.is_empty();
    let own_way = input.attrs.merge.is_some();
    let scans = own || input.nested().next().is_some();
    let never_read: u64 = absent
        .iter()
        .enumerate()
        .filter(|(_, field)| field.attrs.never_read)
        .fold(0, |bits, (i, _)| bits | 1 << i);
    quote! {
        const MAY_BE_ABSENT: &'static [&'static str] = &[#(#wires),*];
        const NEVER_READ: u64 = #never_read;
        const SCANS: bool = #scans;
        const MERGES_ITS_OWN_WAY: bool = #own_way;

        fn keep_absent(&mut self, stored: &Self, absent: &::restcache::Absent) {
            let _ = (&stored, &absent);
            #keep
        }

        fn scan_record<'de, __D: ::restcache::__private::serde::Deserializer<'de>>(
            deserializer: __D,
            found: &mut ::restcache::__private::Presence,
        ) -> ::restcache::__private::Result<(), __D::Error> {
            #scan
        }

        fn may_be_partial(seen: &mut ::restcache::__private::Vec<::restcache::__private::TypeId>) -> bool {
            if !::restcache::__private::first_visit(seen, ::restcache::__private::TypeId::of::<Self>()) {
                return false;
            }
            #own #partial
        }
    }
}

/// A schema envelope's items: `scan_presence` and `may_be_partial`, over
/// its nested fields.
pub fn schema_items(input: &Input) -> TokenStream {
    if !scans_envelope(input) {
        return TokenStream::new();
    }
    let scan = scan(input, |_| None, None);
    let partial = nested_partial(input);
    quote! {
        const SCANS: bool = true;

        fn scan_presence<'de, __D: ::restcache::__private::serde::Deserializer<'de>>(
            deserializer: __D,
            found: &mut ::restcache::__private::Presence,
        ) -> ::restcache::__private::Result<(), __D::Error> {
            #scan
        }

        fn may_be_partial(seen: &mut ::restcache::__private::Vec<::restcache::__private::TypeId>) -> bool {
            // An envelope that nests itself (a thread of replies) is
            // looked at once.
            if !::restcache::__private::first_visit(seen, ::restcache::__private::TypeId::of::<Self>()) {
                return false;
            }
            false #partial
        }
    }
}

/// How a record notes the fields it left out: by its pk, with `all` the
/// bits of every field that may be absent.
struct Noted<'a, 'f> {
    pk: &'f Field<'a>,
    all: u64,
}

/// The light pass over one JSON object of this type: the bits (`bit`) of
/// the fields it carries, skipping their values, and the pass over each
/// nested field's value; for a record (`noted`), its pk, and a note of the
/// fields it left out.
fn scan(input: &Input, bit: impl Fn(&Field) -> Option<u32>, noted: Option<Noted>) -> TokenStream {
    let pk = noted.as_ref().map(|noted| noted.pk.ident);
    let watched: Vec<&Field> = input
        .fields
        .iter()
        .flatten()
        .filter(|f| bit(f).is_some() || f.attrs.nested.is_some() || Some(f.ident) == pk)
        // A field serde never reads is never carried: a key of its name
        // is one serde skips.
        .filter(|f| !f.attrs.never_read)
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
        let read = if Some(field.ident) == pk {
            quote!(pk = map.next_value_seed(::restcache::__private::PkSeed)?;)
        } else if field.attrs.nested.is_some() {
            let ty = field.ty;
            quote_spanned! {ty.span()=>
                <#ty as ::restcache::__private::SchemaParts>::scan_entry(&mut map, found)?;
            }
        } else {
            quote!(map.next_value::<::restcache::__private::IgnoredAny>()?;)
        };
        quote!(::restcache::__private::Some(#k) => { #seen #read })
    });
    let ident = input.ident;
    let (track, note) = match &noted {
        Some(Noted { all, .. }) => (
            quote! {
                let mut present: u64 = 0;
                let mut pk: ::restcache::__private::Option<::restcache::Pk> = ::restcache::__private::None;
            },
            quote! {
                if let ::restcache::__private::Some(pk) = pk {
                    found.note::<#ident>(pk, #all & !present);
                }
            },
        ),
        None => (TokenStream::new(), TokenStream::new()),
    };
    // The visitor takes the type's own parameters, for its nested fields.
    let mut generics = input.generics.clone();
    generics.params.insert(0, syn::parse_quote!('__a));
    let (_, ty_generics, where_clause) = generics.split_for_impl();
    let params = &generics.params;
    // An impl's parameters take no defaults (`T = Todo`).
    let mut visitor_generics = generics.clone();
    visitor_generics.params.insert(0, syn::parse_quote!('de));
    let (visitor_params, _, _) = visitor_generics.split_for_impl();
    let types = input.generics.type_params().map(|param| &param.ident);
    let args = input
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            syn::GenericParam::Type(param) => Some(&param.ident),
            syn::GenericParam::Const(param) => Some(&param.ident),
            syn::GenericParam::Lifetime(_) => None,
        });
    quote! {
        struct __Scan<#params>(
            &'__a mut ::restcache::__private::Presence,
            ::restcache::__private::PhantomData<fn() -> (#(#types,)*)>,
        ) #where_clause;
        impl #visitor_params ::restcache::__private::serde::de::Visitor<'de> for __Scan #ty_generics #where_clause {
            type Value = ();

            fn expecting(&self, f: &mut ::restcache::__private::fmt::Formatter<'_>) -> ::restcache::__private::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<__A: ::restcache::__private::serde::de::MapAccess<'de>>(
                self,
                mut map: __A,
            ) -> ::restcache::__private::Result<(), __A::Error> {
                const NAMES: &[&str] = &[#(#names),*];
                let found = self.0;
                #track
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
                let _ = &found;
                #note
                ::restcache::__private::Ok(())
            }
        }
        ::restcache::__private::scan_lenient(
            deserializer,
            __Scan::<'_, #(#args),*>(found, ::restcache::__private::PhantomData),
        )
    }
}

/// `|| may_be_partial::<F>(seen)` for each nested field.
fn nested_partial(input: &Input) -> TokenStream {
    let checks = input.nested().map(|field| {
        let ty = field.ty;
        quote_spanned! {ty.span()=>
            || <#ty as ::restcache::__private::SchemaParts>::may_be_partial(seen)
        }
    });
    quote!(#(#checks)*)
}
