//! Writes the impls of a checked input.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::DeriveInput;
use syn::spanned::Spanned;

use crate::ast::{Derive, Field, Input};
use crate::errors::Errors;
use crate::partial;
use crate::valid::{self, Checked};

pub fn derive(input: &DeriveInput, derive: Derive) -> TokenStream {
    let mut errors = Errors::default();
    let parsed = Input::parse(input, derive, &mut errors);
    if let (Derive::Schema, syn::Data::Enum(data)) = (derive, &input.data) {
        return crate::union::derive(input, data, errors, fallback(&parsed));
    }
    let checked = valid::check(input, &parsed, &mut errors);
    match (errors.finish(), checked) {
        (Ok(()), Some(Checked::Entity { pk, version })) => entity(&parsed, pk, version),
        (Ok(()), Some(Checked::Schema)) => schema(&parsed),
        (Ok(()), None) => unreachable!("an input that cannot be expanded is reported"),
        (Err(compile_errors), _) => {
            let fallback = fallback(&parsed);
            quote!(#compile_errors #fallback)
        }
    }
}

fn entity(input: &Input, pk: &Field, version: Option<&Field>) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let key = input.key();
    let pk_ident = pk.ident;
    let pk_name = pk_ident.to_string();
    let pk_ty = pk.ty;
    let pk_value = quote_spanned! {pk_ty.span()=>
        <#pk_ty as ::restcache::PkValue>::to_pk(&self.#pk_ident)
    };
    let pk_key = quote_spanned! {pk_ty.span()=>
        <#pk_ty as ::restcache::PkValue>::pk_key(&self.#pk_ident)
    };
    let id_ty = quote_spanned! {pk_ty.span()=>
        <#pk_ty as ::restcache::PkValue>::Param
    };
    let has_nested = input.nested().next().is_some();
    let absent = partial::may_be_absent(input, pk);
    let partial_items = partial::entity_items(input, pk, &absent);
    let normalize = normalize_fields(input, Some(&absent));
    let denormalize = denormalize_fields(input);
    let entity_at = entity_at_fields(input);
    let same = same_fields(input);
    let equal = equal_fields(input, pk);
    let field_text = field_text(input);
    let (compare_version, has_version) = match version {
        Some(field) => {
            let (member, ty) = (field.ident, field.ty);
            let compare = quote_spanned! {ty.span()=>
                ::restcache::__private::Some(::restcache::__private::Ord::cmp(&self.#member, &stored.#member))
            };
            (
                quote! {
                    fn compare_version(&self, stored: &Self) -> ::restcache::__private::Option<::restcache::__private::Ordering> {
                        #compare
                    }
                },
                quote!(
                    const HAS_VERSION: bool = true;
                ),
            )
        }
        None => (TokenStream::new(), TokenStream::new()),
    };
    // A static in a generic impl would be shared by every instantiation, so
    // generic entities keep the default (found by `TypeId`).
    let type_index = input.generics.params.is_empty().then(|| {
        quote! {
            fn type_index() -> u32 {
                static INDEX: ::restcache::__private::TypeIndex = ::restcache::__private::TypeIndex::new();
                INDEX.get()
            }
        }
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics ::restcache::Entity for #ident #ty_generics #where_clause {
            const KEY: &'static str = #key;
            const PK_FIELD: &'static str = #pk_name;
            type Id = #id_ty;

            fn pk(&self) -> ::restcache::__private::Option<::restcache::Pk> {
                #pk_value
            }

            fn pk_key(&self) -> ::restcache::__private::Option<::restcache::__private::PkKey<'_>> {
                #pk_key
            }

            #compare_version
        }

        #[automatically_derived]
        impl #impl_generics ::restcache::__private::EntityParts for #ident #ty_generics #where_clause {
            const HAS_NESTED: bool = #has_nested;

            #[allow(clippy::needless_borrow)]
            fn stand_in() -> ::restcache::__private::Option<Self> {
                #[allow(unused_imports)]
                use ::restcache::__private::{ByDefault as _, NoStandIn as _};
                (&::restcache::__private::Probe::<Self>::new()).stand_in()
            }
            #has_version
            #type_index

            fn normalize_nested(
                &mut self,
                cx: &mut ::restcache::__private::Normalizer<'_>,
            ) -> ::restcache::__private::Result<(), ::restcache::SchemaError> {
                #normalize
            }

            fn denormalize_nested(
                &self,
                cx: &mut ::restcache::__private::Denormalizer<'_, '_>,
            ) -> ::restcache::__private::Denorm<Self> {
                #denormalize
            }

            fn same_nested(&self, other: &Self) -> bool {
                #same
            }

            #equal
            #field_text
            #partial_items

            fn nested_entity_at(path: &[::restcache::Segment]) -> ::restcache::__private::Option<&'static str> {
                #entity_at
                ::restcache::__private::None
            }
        }
    }
}

/// `equal_fields`: every field but the pk equal (see [`equal_checks`]):
/// the store compares two copies of one record, found by their pk.
fn equal_fields(input: &Input, pk: &Field) -> TokenStream {
    let checks = equal_checks(input, Some(pk));
    quote! {
        #[allow(clippy::needless_borrow)]
        fn equal_fields(&self, other: &Self) -> bool {
            #checks
        }
    }
}

/// Whether every field of `self` equals the same field of `other`: a
/// nested one as its schema's `same_value` says (entities by identity, so
/// no nested record is compared twice), any other by its type's
/// `PartialEq` (never, for a type that has none). `skip`: a field known
/// to be equal.
fn equal_checks(input: &Input, skip: Option<&Field>) -> TokenStream {
    let compared = input.fields.iter().flatten();
    let compared = compared.filter(|field| skip.is_none_or(|skip| skip.ident != field.ident));
    let checks = compared.map(|field| {
        let (member, ty) = (field.ident, field.ty);
        match field.attrs.nested {
            Some(_) => quote_spanned! {ty.span()=>
                && <#ty as ::restcache::__private::SchemaParts>::same_value(&self.#member, &other.#member)
            },
            None => quote_spanned! {ty.span()=>
                && (&::restcache::__private::Compared(&self.#member)).same_field(&other.#member)
            },
        }
    });
    quote! {
        #[allow(unused_imports)]
        use ::restcache::__private::{ByEq as _, Incomparable as _};
        let _ = other;
        true #(#checks)*
    }
}

/// `field_text`: each field by its wire name, as a list filter compares
/// it (opaque when its type has no query-string form).
fn field_text(input: &Input) -> TokenStream {
    let arms = input.fields.iter().flatten().map(|field| {
        let (wire, ident) = (&field.wire, field.ident);
        quote! {
            #wire => (&::restcache::__private::filter_field::Field(&self.#ident)).field_text(),
        }
    });
    quote! {
        fn field_text(&self, field: &str) -> ::restcache::rest::FieldText {
            #[allow(unused_imports)]
            use ::restcache::__private::filter_field::{ByText as _, Opaque as _};
            match field {
                #(#arms)*
                _ => ::restcache::rest::FieldText::NoField,
            }
        }
    }
}

fn schema(input: &Input) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let normalize = normalize_fields(input, None);
    let denormalize = denormalize_fields(input);
    let entity_at = entity_at_fields(input);
    let same = same_fields(input);
    let equal = equal_checks(input, None);
    let extend_page = extend_page(input);
    let partial_items = partial::schema_items(input);
    let schema_impl = schema_impl(ident, input.generics);
    quote! {
        #schema_impl

        #[automatically_derived]
        impl #impl_generics ::restcache::__private::SchemaParts for #ident #ty_generics #where_clause {
            #[allow(clippy::needless_borrow)]
            fn stand_in() -> ::restcache::__private::Option<Self> {
                #[allow(unused_imports)]
                use ::restcache::__private::{ByDefault as _, NoStandIn as _};
                (&::restcache::__private::Probe::<Self>::new()).stand_in()
            }

            fn normalize(
                &mut self,
                cx: &mut ::restcache::__private::Normalizer<'_>,
            ) -> ::restcache::__private::Result<(), ::restcache::SchemaError> {
                #normalize
            }

            fn denormalize(
                &self,
                cx: &mut ::restcache::__private::Denormalizer<'_, '_>,
            ) -> ::restcache::__private::Denorm<Self> {
                #denormalize
            }

            fn same_entities(&self, other: &Self) -> bool {
                #same
            }

            #[allow(clippy::needless_borrow)]
            fn same_value(&self, other: &Self) -> bool {
                #equal
            }

            fn entity_at(path: &[::restcache::Segment]) -> ::restcache::__private::Option<&'static str> {
                #entity_at
                ::restcache::__private::None
            }

            #extend_page
            #partial_items
        }
    }
}

/// `Schema` for a derived type: read through an `Rc` of itself.
pub fn schema_impl(ident: &syn::Ident, generics: &syn::Generics) -> TokenStream {
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics ::restcache::Schema for #ident #ty_generics #where_clause {
            type Handle = ::std::rc::Rc<Self>;

            fn into_handle(value: ::std::rc::Rc<Self>) -> ::std::rc::Rc<Self> {
                value
            }
        }
    }
}

/// An envelope with one nested field (a page of a list) grows by pages:
/// that field grows, every other field is the next page's. A record
/// leaves that field.
fn extend_page(input: &Input) -> Option<TokenStream> {
    let mut nested = input.nested();
    let (field, None) = (nested.next()?, nested.next()) else {
        return None;
    };
    let (member, ty) = (field.ident, field.ty);
    let list_of_records = quote_spanned! {ty.span()=>
        <#ty as ::restcache::__private::SchemaParts>::LIST_OF_RECORDS
    };
    let extend = quote_spanned! {ty.span()=>
        <#ty as ::restcache::__private::SchemaParts>::extend_page(&self.#member, &next.#member, keep)
    };
    let leave = quote_spanned! {ty.span()=>
        <#ty as ::restcache::__private::SchemaParts>::leave(&self.#member, index)
    };
    Some(quote! {
        const LIST_OF_RECORDS: bool = #list_of_records;

        fn extend_page(&self, next: &Self, keep: &[bool]) -> ::restcache::__private::Option<Self> {
            let mut page = ::restcache::__private::Clone::clone(next);
            page.#member = #extend?;
            ::restcache::__private::Some(page)
        }

        fn leave(&self, index: usize) -> ::restcache::__private::Option<Self> {
            let mut page = ::restcache::__private::Clone::clone(self);
            page.#member = #leave?;
            ::restcache::__private::Some(page)
        }
    })
}

/// Normalizes each nested field in order, locating errors in the field.
/// For an entity (`absent`: its fields that may be absent), a field the
/// record kept from its stored copy is walked keeping the store's records.
fn normalize_fields(input: &Input, absent: Option<&[&Field]>) -> TokenStream {
    let steps = input.nested().map(|field| {
        let (member, ty, wire) = (field.ident, field.ty, &field.wire);
        let walk = quote_spanned! {ty.span()=>
            <#ty as ::restcache::__private::SchemaParts>::normalize(&mut self.#member, cx)
        };
        let step = match absent.and_then(|absent| partial::bit(absent, field)) {
            Some(bit) => quote! {
                if kept & (1u64 << #bit) != 0 {
                    cx.keeping(|cx| #walk)
                } else {
                    #walk
                }
            },
            None => walk,
        };
        quote! {
            #step.map_err(|e| ::restcache::__private::in_field(e, #wire))?;
        }
    });
    let keeps =
        absent.is_some_and(|absent| input.nested().any(|f| partial::bit(absent, f).is_some()));
    let kept = keeps.then(|| quote!(let kept = cx.kept_fields();));
    quote! {
        let _ = &cx;
        #kept
        #(#steps)*
        ::restcache::__private::Ok(())
    }
}

/// Denormalizes every nested field (all of them, so that each consumes its
/// references), cloning `self` only when one changed.
fn denormalize_fields(input: &Input) -> TokenStream {
    let steps = input.nested().map(|field| {
        let (member, ty) = (field.ident, field.ty);
        quote_spanned! {ty.span()=>
            match <#ty as ::restcache::__private::SchemaParts>::denormalize(&self.#member, cx) {
                ::restcache::__private::Denorm::Same => {}
                ::restcache::__private::Denorm::Changed(value) => {
                    rebuilt.get_or_insert_with(|| ::restcache::__private::Clone::clone(self)).#member = value;
                }
                ::restcache::__private::Denorm::Missing => missing = true,
            }
        }
    });
    quote! {
        let _ = &cx;
        let mut rebuilt: ::restcache::__private::Option<Self> = ::restcache::__private::None;
        let mut missing = false;
        #(#steps)*
        // `rebuilt` is matched in place: moved into a tuple, the whole
        // record would be copied on every read, rebuilt or not.
        if missing {
            return ::restcache::__private::Denorm::Missing;
        }
        match rebuilt {
            ::restcache::__private::Some(value) => ::restcache::__private::Denorm::Changed(value),
            ::restcache::__private::None => ::restcache::__private::Denorm::Same,
        }
    }
}

/// Whether every nested field holds the same entities as `other`'s.
fn same_fields(input: &Input) -> TokenStream {
    let checks = input.nested().map(|field| {
        let (member, ty) = (field.ident, field.ty);
        quote_spanned! {ty.span()=>
            && <#ty as ::restcache::__private::SchemaParts>::same_entities(&self.#member, &other.#member)
        }
    });
    quote! {
        let _ = other;
        true #(#checks)*
    }
}

/// Follows `path` into the nested field it starts with.
fn entity_at_fields(input: &Input) -> TokenStream {
    let steps = input.nested().map(|field| {
        let (ty, wire) = (field.ty, &field.wire);
        quote! {
            if ::restcache::__private::is_field(first, #wire) {
                if let ::restcache::__private::Some(inner) = <#ty as ::restcache::__private::SchemaParts>::entity_at(rest) {
                    return ::restcache::__private::Some(inner);
                }
            }
        }
    });
    quote! {
        if let ::restcache::__private::Some((first, rest)) = path.split_first() {
            let _ = (first, rest);
            #(#steps)*
        }
    }
}

/// An impl that keeps one mistake from causing more errors where the type
/// is used; never run, since the crate does not compile.
fn fallback(input: &Input) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    match input.derive {
        Derive::Entity => {
            let key = input.key();
            quote! {
                impl #impl_generics ::restcache::Entity for #ident #ty_generics #where_clause {
                    const KEY: &'static str = #key;
                    const PK_FIELD: &'static str = "";
                    type Id = ::restcache::Pk;
                    fn pk(&self) -> ::restcache::__private::Option<::restcache::Pk> {
                        ::restcache::__private::None
                    }
                }
                impl #impl_generics ::restcache::__private::EntityParts for #ident #ty_generics #where_clause {}
            }
        }
        Derive::Schema => {
            let schema_impl = schema_impl(ident, input.generics);
            quote! {
                #schema_impl
                impl #impl_generics ::restcache::__private::SchemaParts for #ident #ty_generics #where_clause {
                    fn normalize(&mut self, _: &mut ::restcache::__private::Normalizer<'_>) -> ::restcache::__private::Result<(), ::restcache::SchemaError> {
                        ::restcache::__private::Ok(())
                    }
                    fn denormalize(&self, _: &mut ::restcache::__private::Denormalizer<'_, '_>) -> ::restcache::__private::Denorm<Self> {
                        ::restcache::__private::Denorm::Same
                    }
                    fn same_entities(&self, _: &Self) -> bool {
                        true
                    }
                    fn entity_at(_: &[::restcache::Segment]) -> ::restcache::__private::Option<&'static str> {
                        ::restcache::__private::None
                    }
                }
            }
        }
    }
}
