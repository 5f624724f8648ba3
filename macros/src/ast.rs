//! The parsed form of a derive input.

use syn::{Data, DeriveInput, Fields, Generics, Ident, LitStr, Type};

use crate::attr::{self, ContainerAttrs, FieldAttrs};
use crate::errors::Errors;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Derive {
    Entity,
    Schema,
}

impl Derive {
    /// The name of our attribute for this derive.
    pub fn attribute(self) -> &'static str {
        match self {
            Derive::Entity => "entity",
            Derive::Schema => "schema",
        }
    }

    pub fn derive_name(self) -> &'static str {
        match self {
            Derive::Entity => "Entity",
            Derive::Schema => "Schema",
        }
    }
}

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub derive: Derive,
    pub attrs: ContainerAttrs,
    /// `None` when the input is not a struct with named fields.
    pub fields: Option<Vec<Field<'a>>>,
}

pub struct Field<'a> {
    pub ident: &'a Ident,
    pub ty: &'a Type,
    /// The field's name in JSON.
    pub wire: String,
    pub attrs: FieldAttrs,
}

impl<'a> Input<'a> {
    pub fn parse(input: &'a DeriveInput, derive: Derive, errors: &mut Errors) -> Self {
        let attrs = attr::container(&input.attrs, derive, errors);
        let fields = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => Some(
                    named
                        .named
                        .iter()
                        .filter_map(|field| field.ident.as_ref().map(|ident| (field, ident)))
                        .map(|(field, ident)| {
                            let field_attrs = attr::field(&field.attrs, derive, errors);
                            let rust = ident.unraw().to_string();
                            let wire = field_attrs.rename.clone().unwrap_or_else(|| {
                                match attrs.rename_all {
                                    Some(rule) => rule.apply(&rust),
                                    None => rust,
                                }
                            });
                            Field {
                                ident,
                                ty: &field.ty,
                                wire,
                                attrs: field_attrs,
                            }
                        })
                        .collect(),
                ),
                _ => None,
            },
            _ => None,
        };
        Input {
            ident: &input.ident,
            generics: &input.generics,
            derive,
            attrs,
            fields,
        }
    }

    /// The entity key: `#[entity(key = ...)]` or the struct's name.
    pub fn key(&self) -> LitStr {
        self.attrs
            .key
            .clone()
            .unwrap_or_else(|| LitStr::new(&self.ident.unraw().to_string(), self.ident.span()))
    }

    pub fn nested(&self) -> impl Iterator<Item = &Field<'a>> {
        self.fields
            .iter()
            .flatten()
            .filter(|f| f.attrs.nested.is_some())
    }
}

use syn::ext::IdentExt;
