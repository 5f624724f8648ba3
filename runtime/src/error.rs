//! The leaf errors: storing a response ([`SchemaError`]) and making a URL
//! from params ([`UrlError`]).

use thiserror::Error;

use crate::path::{FieldPath, Segment};

/// Why a response could not be stored. The store is left exactly as it was.
///
/// Every variant names the entity key concerned (where there is one) and the
/// path of the field at fault, in wire names.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Todo { id: u64, title: String }
///
/// let mut store = Store::new();
/// let err = store.set_json::<Vec<Rc<Todo>>>("todos", r#"[{"id": 1, "title": 5}]"#, Meta::default()).unwrap_err();
/// match &err {
///     SchemaError::Decode { entity, path, .. } => {
///         assert_eq!(*entity, Some("Todo"));
///         assert_eq!(path.to_string(), "[0].title");
///     }
///     other => panic!("{other}"),
/// }
/// assert!(err.to_string().contains("[0].title"));
/// ```
#[derive(Debug, Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum SchemaError {
    /// A record has no usable primary key (absent, null or empty).
    #[error(
        "`{entity}` record at `{path}` has no usable primary key (`{field}` is missing, null or empty)"
    )]
    MissingPk {
        /// The entity key of the record.
        entity: &'static str,
        /// The pk field, as the Rust struct names it.
        field: &'static str,
        /// Where the record is in the response.
        path: FieldPath,
    },
    /// The response's JSON does not fit the schema (wrong type, missing
    /// field, not JSON at all).
    #[error("response does not fit the schema{}: at `{path}`: {message} (line {line}, column {column}){}", entity_clause(*.entity), record_clause(.record.as_deref()))]
    Decode {
        /// The innermost entity around the field at fault, if any.
        entity: Option<&'static str>,
        /// The field at fault.
        path: FieldPath,
        /// What serde said.
        message: String,
        /// Line in the JSON text (1-based; 0 when unknown).
        line: usize,
        /// Column in the JSON text (1-based; 0 when unknown).
        column: usize,
        /// The record at fault, quoted (shortened): the innermost JSON
        /// object holding the field, so that one bad record in a list of
        /// thousands is found at once.
        record: Option<String>,
    },
    /// Two different Rust types claim the same entity key.
    #[error(
        "entity key `{key}` is claimed by both `{first}` and `{second}`; give one of them another `#[entity(key = ...)]`"
    )]
    KeyConflict {
        /// The contested key.
        key: &'static str,
        /// The type already registered under it.
        first: &'static str,
        /// The type that tried to register under it.
        second: &'static str,
    },
}

fn entity_clause(entity: Option<&'static str>) -> String {
    entity.map(|e| format!(" of `{e}`")).unwrap_or_default()
}

fn record_clause(record: Option<&str>) -> String {
    record
        .map(|r| format!(", in the record {r}"))
        .unwrap_or_default()
}

impl SchemaError {
    /// A body that is not UTF-8 (JSON text must be), its first bad byte
    /// at `at`.
    pub(crate) fn not_utf8(at: usize) -> Self {
        SchemaError::Decode {
            entity: None,
            path: FieldPath::default(),
            message: format!("the body is not valid UTF-8 (a bad byte at offset {at})"),
            line: 0,
            column: 0,
            record: None,
        }
    }

    /// The same error with every secret among `secrets` masked in what it
    /// quotes from the response (serde's message, the record).
    pub(crate) fn masked(mut self, secrets: &[String]) -> Self {
        if let SchemaError::Decode {
            message, record, ..
        } = &mut self
        {
            *message = crate::text::masked(message, secrets);
            if let Some(record) = record {
                let masked = crate::text::masked(record, secrets);
                *record = crate::text::one_line(&masked, crate::text::RECORD_CHARS);
            }
        }
        self
    }

    /// The same error, located one step further from the root.
    pub(crate) fn within(mut self, segment: Segment) -> Self {
        match &mut self {
            SchemaError::MissingPk { path, .. } | SchemaError::Decode { path, .. } => {
                path.prepend(segment)
            }
            SchemaError::KeyConflict { .. } => {}
        }
        self
    }

    /// The entity key the error names, if any.
    pub fn entity(&self) -> Option<&'static str> {
        match self {
            SchemaError::MissingPk { entity, .. } => Some(entity),
            SchemaError::Decode { entity, .. } => *entity,
            SchemaError::KeyConflict { key, .. } => Some(key),
        }
    }

    /// The path of the field at fault (empty for a key conflict).
    pub fn path(&self) -> Option<&FieldPath> {
        match self {
            SchemaError::MissingPk { path, .. } | SchemaError::Decode { path, .. } => Some(path),
            SchemaError::KeyConflict { .. } => None,
        }
    }
}

/// Why params could not make a URL.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::rest::UrlError;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: String }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// let err = TodoResource::get().url("http://h", &TodoResourceParams { id: "..".into() }).unwrap_err();
/// assert!(matches!(err, UrlError::Unsafe { .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum UrlError {
    /// The params have no value for a placeholder of the path.
    #[error(
        "no value for `{name}`, a placeholder of `{path}` (params fill placeholders by their serialized names)"
    )]
    Missing {
        /// The placeholder.
        name: &'static str,
        /// The path template.
        path: &'static str,
    },
    /// A placeholder's value would change the path's shape: empty, `.` or `..`.
    #[error("`{value}` for `:{name}` in `{path}` would change the path")]
    Unsafe {
        /// The placeholder.
        name: &'static str,
        /// The value refused.
        value: String,
        /// The path template.
        path: &'static str,
    },
    /// A param is not a string, number, bool, null or list of those.
    #[error("param `{name}` is {found}; a URL param is a string, number, bool, or a list of them")]
    Unsupported {
        /// The param.
        name: String,
        /// What it was.
        found: &'static str,
    },
    /// The params are not a struct or map of named values.
    #[error("params must serialize as a struct or map, not {found}")]
    NotNamed {
        /// What they serialized as.
        found: &'static str,
    },
}
