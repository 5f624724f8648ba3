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
/// read again, up to where serde_json stopped, to find the field path
/// there (and `entity_at` names the innermost entity around it). That
/// second reading knows nothing of `T`: one copy of it serves every
/// schema of an app.
pub(crate) fn decode<T: DeserializeOwned>(
    text: &str,
    entity_at: fn(&[Segment]) -> Option<&'static str>,
) -> Result<T, SchemaError> {
    serde_json::from_str(text).map_err(|plain| locate(text, &plain, entity_at))
}

fn locate(
    text: &str,
    error: &serde_json::Error,
    entity_at: fn(&[Segment]) -> Option<&'static str>,
) -> SchemaError {
    let at = byte_offset(text, error.line(), error.column());
    let (segments, record) = path_at(text, at);
    // The innermost steps say where; a path deeper than that is cut at
    // its start.
    let skip = segments.len().saturating_sub(PATH_SEGMENTS);
    let segments: Vec<Segment> = segments.into_iter().skip(skip).collect();
    SchemaError::Decode {
        entity: entity_at(&segments),
        path: FieldPath::from(segments),
        message: message(error),
        line: error.line(),
        column: error.column(),
        record: record.and_then(|start| compact_value(text, start)),
    }
}

/// The byte offset of `line` and `column` (serde_json's, from 1; its
/// column counts bytes): the byte serde_json stopped at.
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start = match line {
        0 | 1 => 0,
        _ => text
            .bytes()
            .enumerate()
            .filter(|&(_, byte)| byte == b'\n')
            .nth(line - 2)
            .map_or(text.len(), |(at, _)| at + 1),
    };
    (line_start + column.saturating_sub(1)).min(text.len())
}

/// Where the reading is in an object.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    /// Before a key.
    Key,
    /// After a key, before its colon.
    Colon,
    /// Inside the member's value.
    Value,
    /// After the value, before a comma or the object's end.
    Done,
}

/// One container the reading is inside.
enum Frame {
    /// An object starting at byte `start`, at the member `key`.
    Object {
        start: usize,
        key: Option<String>,
        member: Member,
    },
    /// An array; `index` is the element being read, once one started.
    Array { index: Option<usize> },
}

/// A value begins inside the innermost container.
fn value_begins(frames: &mut [Frame]) {
    if let Some(Frame::Array { index }) = frames.last_mut() {
        index.get_or_insert(0);
    }
}

/// The value being read in the innermost container ended.
fn value_done(frames: &mut [Frame]) {
    if let Some(Frame::Object { member, .. }) = frames.last_mut() {
        *member = Member::Done;
    }
}

/// The field path of the value being read at byte `at` of `text`, and
/// where the innermost object holding it starts.
fn path_at(text: &str, at: usize) -> (Vec<Segment>, Option<usize>) {
    let bytes = text.as_bytes();
    let at = at.min(bytes.len());
    let mut frames: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < at {
        let byte = bytes[i];
        let expecting_key = matches!(
            frames.last(),
            Some(Frame::Object {
                member: Member::Key,
                ..
            })
        );
        match byte {
            _ if byte.is_ascii_whitespace() => {}
            b'{' => {
                value_begins(&mut frames);
                frames.push(Frame::Object {
                    start: i,
                    key: None,
                    member: Member::Key,
                });
            }
            b'[' => {
                value_begins(&mut frames);
                frames.push(Frame::Array { index: None });
            }
            b'}' | b']' => {
                frames.pop();
                value_done(&mut frames);
            }
            b',' => match frames.last_mut() {
                Some(Frame::Object { key, member, .. }) => {
                    *key = None;
                    *member = Member::Key;
                }
                Some(Frame::Array { index }) => *index = index.map(|i| i + 1),
                None => {}
            },
            b':' => {
                if let Some(Frame::Object { member, .. }) = frames.last_mut() {
                    *member = Member::Value;
                }
            }
            b'"' if expecting_key => {
                let end = string_end(bytes, i);
                if end > at {
                    break; // inside the key itself
                }
                if let Some(Frame::Object { key, member, .. }) = frames.last_mut() {
                    *key = serde_json::from_str::<String>(&text[i..end]).ok();
                    *member = Member::Colon;
                }
                i = end;
                continue;
            }
            _ => {
                // A string, number or literal value.
                value_begins(&mut frames);
                let end = match byte {
                    b'"' => string_end(bytes, i),
                    _ => scalar_end(bytes, i),
                };
                if end > at {
                    break; // inside it
                }
                value_done(&mut frames);
                i = end;
                continue;
            }
        }
        i += 1;
    }
    let mut record = None;
    let mut path = Vec::new();
    let innermost = frames.len().saturating_sub(1);
    for (depth, frame) in frames.iter().enumerate() {
        match frame {
            Frame::Object { start, key, member } => {
                record = Some(*start);
                let reading = depth < innermost || *member == Member::Value;
                if let (true, Some(key)) = (reading, key) {
                    path.push(Segment::Key(Cow::Owned(text::one_line(
                        key,
                        text::KEY_CHARS,
                    ))));
                }
            }
            Frame::Array { index } => path.extend(index.map(Segment::Index)),
        }
    }
    (path, record)
}

/// The end of the number or literal starting at `start`.
fn scalar_end(bytes: &[u8], start: usize) -> usize {
    let len = bytes[start..]
        .iter()
        .position(|&b| matches!(b, b',' | b'}' | b']' | b':') || b.is_ascii_whitespace())
        .unwrap_or(bytes.len() - start);
    start + len.max(1)
}

/// The end (one past the closing quote) of the string starting at the
/// quote `start`, or the text's end.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The JSON value starting at byte `start` of `text` without the spaces
/// between its tokens, shortened; `None` when it does not end.
fn compact_value(text: &str, start: usize) -> Option<String> {
    let bytes = text.as_bytes();
    let mut compact = Vec::new();
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i);
                compact.extend_from_slice(&bytes[i..end]);
                i = end;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            byte if byte.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            _ => {}
        }
        compact.push(bytes[i]);
        i += 1;
        if depth == 0 {
            let compact = String::from_utf8(compact).ok()?;
            return Some(text::one_line(&compact, RECORD_ROOM));
        }
    }
    None
}

/// The most characters of the record an error quotes before its secrets
/// are masked (then it is cut to [`text::RECORD_CHARS`]).
const RECORD_ROOM: usize = text::RECORD_CHARS + 256;

/// The most steps of a field path an error keeps (the innermost ones).
const PATH_SEGMENTS: usize = 24;

/// The most characters of serde's message: it quotes the response's
/// values, which can be any length.
const MESSAGE_CHARS: usize = 300;

/// serde_json's message without its " at line L column C" tail (the error
/// carries line and column on their own), bounded: it quotes the offending
/// value, which can be any length.
fn message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let tail = format!(" at line {} column {}", error.line(), error.column());
    let head = text.strip_suffix(&tail).unwrap_or(&text);
    text::one_line(head, MESSAGE_CHARS)
}
