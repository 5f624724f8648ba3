//! Decoding JSON, with errors that say where: the field path and the
//! innermost entity around it.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

use crate::error::SchemaError;
use crate::path::{FieldPath, Segment};
use crate::text;

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
    let mut record = None;
    let (segments, error) = match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
        Err(error) => {
            record = record_at(text, error.path());
            let segments = error.path().iter().filter_map(segment);
            // The innermost steps say where; a path deeper than that is
            // cut at its start.
            let segments: Vec<Segment> = segments.collect();
            let skip = segments.len().saturating_sub(PATH_SEGMENTS);
            (
                segments.into_iter().skip(skip).collect::<Vec<_>>(),
                error.into_inner(),
            )
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
        record,
    }
}

/// The most characters of the record an error quotes before its secrets
/// are masked (then it is cut to [`text::RECORD_CHARS`]).
const RECORD_ROOM: usize = text::RECORD_CHARS + 256;

/// The record at fault, quoted: the innermost JSON object that holds the
/// value at `path` (one record of a list, say), written compactly and
/// shortened; `None` when the text is not JSON or no object holds it.
fn record_at(text: &str, path: &serde_path_to_error::Path) -> Option<String> {
    use serde_path_to_error::Segment as Tracked;
    let root: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut value = &root;
    let mut record = root.is_object().then_some(&root);
    for step in path.iter() {
        value = match step {
            Tracked::Seq { index } => value.get(index)?,
            Tracked::Map { key } => value.get(key.as_str())?,
            Tracked::Enum { .. } | Tracked::Unknown => break,
        };
        if value.is_object() {
            record = Some(value);
        }
    }
    Some(text::one_line(&record?.to_string(), RECORD_ROOM))
}

/// The most steps of a field path an error keeps (the innermost ones).
const PATH_SEGMENTS: usize = 24;

/// The most characters of a key in a field path, and of serde's message:
/// a response's keys and values can be any length.
const KEY_CHARS: usize = 64;
const MESSAGE_CHARS: usize = 300;

fn segment(segment: &serde_path_to_error::Segment) -> Option<Segment> {
    use serde_path_to_error::Segment as Tracked;
    let key = |key: &str| Segment::Key(Cow::Owned(text::one_line(key, KEY_CHARS)));
    match segment {
        Tracked::Seq { index } => Some(Segment::Index(*index)),
        Tracked::Map { key: name } => Some(key(name)),
        Tracked::Enum { variant } => Some(key(variant)),
        Tracked::Unknown => None,
    }
}

/// serde_json's message without its " at line L column C" tail (the error
/// carries line and column on their own), bounded: it quotes the offending
/// value, which can be any length.
fn message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let tail = format!(" at line {} column {}", error.line(), error.column());
    let head = text.strip_suffix(&tail).unwrap_or(&text);
    text::one_line(head, MESSAGE_CHARS)
}
