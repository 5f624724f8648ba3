//! Checks a parsed input; every mistake is collected, spanned on its token.

use syn::ext::IdentExt;
use syn::{Data, DeriveInput, Fields, Ident};

use crate::ast::{Derive, Field, Input};
use crate::errors::Errors;

/// What a checked input expands to.
pub enum Checked<'a> {
    /// An entity, identified by its pk field, its versions compared by
    /// its version field when it has one.
    Entity {
        pk: &'a Field<'a>,
        version: Option<&'a Field<'a>>,
    },
    /// An envelope.
    Schema,
}

/// Checks `parsed`; `None` when it cannot be expanded (the reasons are in
/// `errors`).
pub fn check<'a>(
    input: &DeriveInput,
    parsed: &'a Input<'a>,
    errors: &mut Errors,
) -> Option<Checked<'a>> {
    let Some(fields) = &parsed.fields else {
        shape(input, parsed.derive, errors);
        return None;
    };
    nested_records_read_whole(parsed, fields, errors);
    match parsed.derive {
        Derive::Schema => Some(Checked::Schema),
        Derive::Entity => {
            let pk = primary_key(parsed.ident, fields, errors)?;
            pk_is_not_nested(pk, errors);
            let version = version_field(fields, errors);
            Some(Checked::Entity { pk, version })
        }
    }
}

/// A nested record (`Rc<E>`) that serde may make up (a `default`, or a
/// field it never reads) would be stored as a record the server never
/// sent, over the real one of its pk: it must be an `Option`.
fn nested_records_read_whole(parsed: &Input, fields: &[Field], errors: &mut Errors) {
    for field in fields {
        let made_up =
            parsed.attrs.serde_default || field.attrs.serde_default || field.attrs.never_read;
        if field.attrs.nested.is_none() || !made_up || !is_shared_pointer(field.ty) {
            continue;
        }
        let name = field.ident.unraw();
        errors.at(
            field.ty,
            format!(
                "a nested record that serde reads as its default when `{name}` is absent would be \
                 stored as a record the server never sent, over the real one of its pk: make it \
                 `Option<..>` (absent reads as `None`), or drop the `default`"
            ),
        );
    }
}

/// Whether `ty` is an `Rc<..>` or `Arc<..>`: one nested record.
fn is_shared_pointer(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(syn::TypePath { qself: None, path })
        if path.segments.last().is_some_and(|s| s.ident == "Rc" || s.ident == "Arc"))
}

/// The pk identifies the record itself; a nested entity lives in another
/// table under its own identity.
fn pk_is_not_nested(pk: &Field, errors: &mut Errors) {
    if let Some(nested) = &pk.attrs.nested {
        errors.at(
            nested,
            "the primary key cannot be `nested`: it identifies the record itself",
        );
    }
}

/// Reports an input that is not a struct with named fields.
fn shape(input: &DeriveInput, derive: Derive, errors: &mut Errors) {
    let name = derive.derive_name();
    match &input.data {
        Data::Enum(data) => errors.at(
            data.enum_token,
            format!(
                "`#[derive({name})]` is for structs with named fields, not enums; for a union of records (`Comment(Rc<Comment>)`, `Mention(Rc<Mention>)`), derive `Schema` on the enum"
            ),
        ),
        Data::Union(data) => errors.at(
            data.union_token,
            format!("`#[derive({name})]` is for structs with named fields, not unions"),
        ),
        Data::Struct(data) => match &data.fields {
            Fields::Unnamed(fields) => errors.at(
                fields,
                format!("`#[derive({name})]` needs named fields: a tuple struct has no field names to read from JSON"),
            ),
            _ => errors.at(
                &input.ident,
                format!("`#[derive({name})]` needs a struct with named fields"),
            ),
        },
    }
}

/// The field marked `#[entity(pk)]`, else the field `id`.
fn primary_key<'a>(
    ident: &Ident,
    fields: &'a [Field<'a>],
    errors: &mut Errors,
) -> Option<&'a Field<'a>> {
    let mut marked = fields.iter().filter(|f| f.attrs.pk.is_some());
    if let Some(first) = marked.next() {
        for extra in marked {
            if let Some(token) = &extra.attrs.pk {
                errors.at(
                    token,
                    format!(
                        "a second primary key: `{}` is already the pk; an entity has one",
                        first.ident
                    ),
                );
            }
        }
        return Some(first);
    }
    let id = fields.iter().find(|f| f.ident == "id");
    if id.is_none() {
        errors.at(
            ident,
            format!("`{ident}` has no primary key: add a field `id`, or mark the field that identifies a record with `#[entity(pk)]`"),
        );
    }
    id
}

/// The field marked `#[entity(version)]`, if any: a record has one version
/// (two would not say which copy is newer when they disagree), and it is
/// the record's own field, not a nested entity.
fn version_field<'a>(fields: &'a [Field<'a>], errors: &mut Errors) -> Option<&'a Field<'a>> {
    let mut marked = fields.iter().filter(|f| f.attrs.version.is_some());
    let first = marked.next()?;
    for extra in marked {
        if let Some(token) = &extra.attrs.version {
            errors.at(
                token,
                format!(
                    "a second version: `{}` already says which copy is newer; an entity has one",
                    first.ident
                ),
            );
        }
    }
    if let (Some(nested), Some(_)) = (&first.attrs.nested, &first.attrs.version) {
        errors.at(
            nested,
            "the version cannot be `nested`: it is a value of the record itself, compared with `Ord`",
        );
    }
    Some(first)
}
