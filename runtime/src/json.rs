//! Decoding JSON, with errors that say where: the field path and the
//! innermost entity around it.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

use crate::error::SchemaError;
use crate::path::{FieldPath, Segment};

/// Parses `text` as `T`.
///
/// The happy path is plain `serde_json`; only when it fails is the text
/// parsed again with path tracking, so that the error names the field at
/// fault, and `entity_at` names the innermost entity around it.
pub(crate) fn decode<T: DeserializeOwned>(
    text: &str,
    entity_at: fn(&[Segment]) -> Option<&'static str>,
) -> Result<T, SchemaError> {
    match serde_json::from_str(text) {
        Ok(value) => Ok(value),
        Err(plain) => Err(locate::<T>(text, plain, entity_at)),
    }
}

fn locate<T: DeserializeOwned>(
    text: &str,
    plain: serde_json::Error,
    entity_at: fn(&[Segment]) -> Option<&'static str>,
) -> SchemaError {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let (segments, error) = match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
        Err(error) => {
            let segments = error.path().iter().filter_map(segment).collect::<Vec<_>>();
            (segments, error.into_inner())
        }
        // The value parsed; what failed is what follows it.
        Ok(_) => (Vec::new(), plain),
    };
    SchemaError::Decode {
        entity: entity_at(&segments),
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
