//! Reading attributes: ours (`#[entity(...)]`, `#[schema(...)]`) strictly,
//! serde's renames leniently (serde reports its own mistakes).

use syn::meta::ParseNestedMeta;
use syn::{Attribute, Ident, LitStr, Token};

use crate::ast::Derive;
use crate::case::RenameRule;
use crate::errors::Errors;

/// Attributes on the struct.
#[derive(Default)]
pub struct ContainerAttrs {
    /// `#[entity(key = "...")]`.
    pub key: Option<LitStr>,
    /// serde's `rename_all` (the deserialize side).
    pub rename_all: Option<RenameRule>,
    /// serde's `default` on the struct: every field may be absent.
    pub serde_default: bool,
    /// serde reads the struct some other way than field by field
    /// (`from`, `try_from`, `transparent`): its records are stored whole.
    pub serde_indirect: bool,
    /// `#[entity(merge = path)]`: how a partial record takes the fields it
    /// left out from its stored copy.
    pub merge: Option<syn::Path>,
}

/// Attributes on a field.
#[derive(Default)]
pub struct FieldAttrs {
    /// The `pk` token of `#[entity(pk)]`.
    pub pk: Option<Ident>,
    /// The `nested` token of `#[entity(nested)]` / `#[schema(nested)]`.
    pub nested: Option<Ident>,
    /// The `version` token of `#[entity(version)]`.
    pub version: Option<Ident>,
    /// serde's `rename` (the deserialize side).
    pub rename: Option<String>,
    /// serde's `default` on the field: it may be absent.
    pub serde_default: bool,
    /// serde's `alias`es: other names the field is read under.
    pub aliases: Vec<String>,
    /// serde's `flatten`: the field reads keys of its own.
    pub flatten: bool,
    /// serde's `skip` or `skip_deserializing`: the field is never read
    /// from JSON.
    pub never_read: bool,
}

pub fn container(attrs: &[Attribute], derive: Derive, errors: &mut Errors) -> ContainerAttrs {
    let mut out = ContainerAttrs::default();
    for attr in attrs {
        if attr.path().is_ident(derive.attribute()) {
            let parsed = attr.parse_nested_meta(|meta| {
                if derive == Derive::Entity && meta.path.is_ident("key") {
                    let key: LitStr = meta.value()?.parse()?;
                    if out.key.is_some() {
                        errors.at(&meta.path, "duplicate `key`: an entity has one key");
                    } else if key.value().is_empty() {
                        errors.at(&key, "the entity key must not be empty");
                    } else {
                        out.key = Some(key);
                    }
                    return Ok(());
                }
                if derive == Derive::Entity && meta.path.is_ident("merge") {
                    let path: syn::Path = meta.value()?.parse()?;
                    if out.merge.is_some() {
                        errors.at(&meta.path, "duplicate `merge`: an entity merges one way");
                    } else {
                        out.merge = Some(path);
                    }
                    return Ok(());
                }
                errors.at(&meta.path, unknown_container(derive, &meta));
                skip(&meta)
            });
            if let Err(error) = parsed {
                errors.push(error);
            }
        } else if attr.path().is_ident("serde") {
            let _lenient = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename_all") {
                    if let Some(name) = deserialize_side(&meta)? {
                        out.rename_all = RenameRule::from_name(&name);
                    }
                    return Ok(());
                }
                if meta.path.is_ident("default") {
                    out.serde_default = true;
                }
                if ["from", "try_from", "transparent"]
                    .iter()
                    .any(|name| meta.path.is_ident(name))
                {
                    out.serde_indirect = true;
                }
                skip(&meta)
            });
        }
    }
    out
}

pub fn field(attrs: &[Attribute], derive: Derive, errors: &mut Errors) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs {
        if attr.path().is_ident(derive.attribute()) {
            let parsed = attr.parse_nested_meta(|meta| {
                let Some(ident) = meta.path.get_ident() else {
                    errors.at(&meta.path, unknown_field(derive, &meta));
                    return skip(&meta);
                };
                let slot = match ident.to_string().as_str() {
                    "pk" if derive == Derive::Entity => &mut out.pk,
                    "nested" => &mut out.nested,
                    "version" if derive == Derive::Entity => &mut out.version,
                    _ => {
                        errors.at(&meta.path, unknown_field(derive, &meta));
                        return skip(&meta);
                    }
                };
                if slot.is_some() {
                    errors.at(ident, format!("duplicate `{ident}`"));
                }
                *slot = Some(ident.clone());
                if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                    errors.at_span(meta.input.span(), format!("`{ident}` takes no value"));
                    skip(&meta)?;
                }
                Ok(())
            });
            if let Err(error) = parsed {
                errors.push(error);
            }
        } else {
            serde_field(attr, &mut out);
        }
    }
    out
}

/// Reads serde's attribute `attr` on a field (or a union's variant), if
/// it is one, leniently: the names it is read under, and how.
fn serde_field(attr: &Attribute, out: &mut FieldAttrs) {
    if !attr.path().is_ident("serde") {
        return;
    }
    let _lenient = attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("rename") {
            if let Some(name) = deserialize_side(&meta)? {
                out.rename = Some(name);
            }
            return Ok(());
        }
        if meta.path.is_ident("default") {
            out.serde_default = true;
        }
        if meta.path.is_ident("alias") {
            let alias: LitStr = meta.value()?.parse()?;
            out.aliases.push(alias.value());
            return Ok(());
        }
        if meta.path.is_ident("flatten") {
            out.flatten = true;
        }
        if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
            out.never_read = true;
        }
        skip(&meta)
    });
}

fn unknown_container(derive: Derive, meta: &ParseNestedMeta) -> String {
    let name = path_text(meta);
    match derive {
        Derive::Entity if name == "pk" || name == "nested" || name == "version" => {
            format!("`{name}` goes on a field: `#[entity({name})]`")
        }
        Derive::Entity => format!(
            "unknown attribute `{name}`: on the struct, `#[entity(...)]` takes `key = \"...\"` or `merge = path::to::function`"
        ),
        Derive::Schema if name == "nested" => {
            "`nested` goes on a field: `#[schema(nested)]`".to_owned()
        }
        Derive::Schema => {
            format!("unknown attribute `{name}`: `#[schema(...)]` takes `nested`, on a field")
        }
    }
}

fn unknown_field(derive: Derive, meta: &ParseNestedMeta) -> String {
    let name = path_text(meta);
    match derive {
        Derive::Entity if name == "key" => {
            "`key` goes on the struct: `#[entity(key = \"...\")]`".to_owned()
        }
        Derive::Entity => format!(
            "unknown attribute `{name}`: on a field, `#[entity(...)]` takes `pk`, `nested` or `version`"
        ),
        Derive::Schema => {
            format!("unknown attribute `{name}`: on a field, `#[schema(...)]` takes `nested`")
        }
    }
}

fn path_text(meta: &ParseNestedMeta) -> String {
    let path = &meta.path;
    quote::quote!(#path).to_string().replace(' ', "")
}

/// The name a serde `rename`/`rename_all` gives when deserializing:
/// `rename = "x"` or `rename(deserialize = "x")`.
fn deserialize_side(meta: &ParseNestedMeta) -> syn::Result<Option<String>> {
    one_side(meta, "deserialize")
}

/// The name a serde `rename`/`rename_all` gives on `side` (`serialize` or
/// `deserialize`): `rename = "x"` or `rename(serialize = "x")`.
fn one_side(meta: &ParseNestedMeta, side: &str) -> syn::Result<Option<String>> {
    if meta.input.peek(Token![=]) {
        let name: LitStr = meta.value()?.parse()?;
        return Ok(Some(name.value()));
    }
    let mut found = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident(side) {
            let name: LitStr = inner.value()?.parse()?;
            found = Some(name.value());
            return Ok(());
        }
        skip(&inner)
    })?;
    Ok(found)
}

/// The value serde's `#[serde(name = ...)]` among `attrs` gives when
/// serializing (`rename`, `rename_all`); serde reports its own mistakes.
pub fn serialize_name(attrs: &[Attribute], name: &str) -> Option<String> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _lenient = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(name) {
                found = one_side(&meta, "serialize")?.or(found.take());
                return Ok(());
            }
            skip(&meta)
        });
    }
    found
}

/// serde's attributes on a union's enum: how its JSON names a variant.
#[derive(Default)]
pub struct UnionAttrs {
    /// `tag = "..."`: the field that names the variant.
    pub tag: Option<String>,
    /// `content = "..."`: the field that holds the variant's value.
    pub content: Option<String>,
    /// `untagged`: no name at all; serde tries each variant in turn.
    pub untagged: bool,
    /// `rename_all` (the deserialize side), over the variants' names.
    pub rename_all: Option<RenameRule>,
}

/// Reads serde's attributes on a union's enum, leniently.
pub fn union_container(attrs: &[Attribute]) -> UnionAttrs {
    let mut out = UnionAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _lenient = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("tag") || meta.path.is_ident("content") {
                let name: LitStr = meta.value()?.parse()?;
                match meta.path.is_ident("tag") {
                    true => out.tag = Some(name.value()),
                    false => out.content = Some(name.value()),
                }
                return Ok(());
            }
            if meta.path.is_ident("rename_all") {
                if let Some(name) = deserialize_side(&meta)? {
                    out.rename_all = RenameRule::from_name(&name);
                }
                return Ok(());
            }
            if meta.path.is_ident("untagged") {
                out.untagged = true;
            }
            skip(&meta)
        });
    }
    out
}

/// serde's attributes on a union's variant, leniently: as a field's, its
/// `rename`, `alias`es, and whether serde `skip`s it (`never_read`).
pub fn union_variant(attrs: &[Attribute]) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    for attr in attrs {
        serde_field(attr, &mut out);
    }
    out
}

/// Consumes the value of an item we do not read: `= expr` or `(...)`.
fn skip(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.input.parse::<Token![=]>()?;
        meta.input.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
    }
    Ok(())
}
