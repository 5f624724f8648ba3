//! Decoding a JSON response into a schema, with errors that say where.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

use crate::cache::schema::Schema;
use crate::error::SchemaError;
use crate::path::{FieldPath, Segment};

/// Parses `text` as the schema `S`.
///
/// The happy path is plain `serde_json`; only when it fails is the text
/// parsed again with path tracking, so that the error names the field at
/// fault and the innermost entity around it.
///
/// ```
/// use restcache::prelude::*;
/// use std::rc::Rc;
///
/// #[derive(Entity, Clone, Debug, Default, Deserialize)]
/// struct Todo { id: u64, completed: bool }
///
/// let todos = restcache::from_json::<Vec<Rc<Todo>>>(r#"[{"id": 1, "completed": true}]"#)?;
/// assert!(todos[0].completed);
///
/// let err = restcache::from_json::<Vec<Rc<Todo>>>(r#"[{"id": 1, "completed": "yes"}]"#).unwrap_err();
/// assert_eq!(err.entity(), Some("Todo"));
/// assert_eq!(err.path().unwrap().to_string(), "[0].completed");
/// # Ok::<(), restcache::SchemaError>(())
/// ```
pub fn from_json<S: Schema + DeserializeOwned>(text: &str) -> Result<S, SchemaError> {
    match serde_json::from_str(text) {
        Ok(value) => Ok(value),
        Err(plain) => Err(locate::<S>(text, plain)),
    }
}

fn locate<S: Schema + DeserializeOwned>(text: &str, plain: serde_json::Error) -> SchemaError {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let (segments, error) = match serde_path_to_error::deserialize::<_, S>(&mut deserializer) {
        Err(error) => {
            let segments = error.path().iter().filter_map(segment).collect::<Vec<_>>();
            (segments, error.into_inner())
        }
        // The value parsed; what failed is what follows it.
        Ok(_) => (Vec::new(), plain),
    };
    SchemaError::Decode {
        entity: S::entity_at(&segments),
        path: FieldPath::from(segments),
        message: message(&error),
        line: error.line(),
        column: error.column(),
    }
}

fn segment(segment: &serde_path_to_error::Segment) -> Option<Segment> {
    use serde_path_to_error::Segment as Tracked;
    match segment {
        Tracked::Seq { index } => Some(Segment::Index(*index)),
        Tracked::Map { key } => Some(Segment::Key(Cow::Owned(key.clone()))),
        Tracked::Enum { variant } => Some(Segment::Key(Cow::Owned(variant.clone()))),
        Tracked::Unknown => None,
    }
}

/// serde_json's message without its " at line L column C" tail (the error
/// carries line and column on their own).
fn message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let tail = format!(" at line {} column {}", error.line(), error.column());
    match text.strip_suffix(&tail) {
        Some(head) => head.to_owned(),
        None => text,
    }
}
