//! GraphQL over HTTP as the client reads it: an answer is an envelope of
//! `data` and `errors`; errors in it fail the request, however the
//! status reads.

use std::fmt;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::text;

/// One error of a GraphQL answer's `errors`: its message and the path of
/// the field it is about (`["todo", 0, "user"]`, as text), if any.
///
/// ```
/// use restcache::http::{ErrorKind, Incoming, Outgoing};
/// use restcache::prelude::*;
/// use restcache::rest::{Part, PathTemplate};
///
/// const GRAPHQL: PathTemplate = PathTemplate::new("/graphql", &[Part::Static("/graphql")]);
/// let me = Endpoint::<(), serde_json::Value>::new(Method::Post, GRAPHQL).graphql("{ me { id } }");
/// let client = Client::new("http://api.test").with_transport(|_: Outgoing| async {
///     Ok(Incoming::new(200, r#"{"data": null, "errors": [{"message": "signed out", "path": ["me"]}]}"#))
/// });
/// # restcache_demo::block_on(async {
/// let failed = client.call(&me, &(), None).await.unwrap_err();
/// let ErrorKind::GraphQl(errors) = failed.kind() else { panic!() };
/// assert_eq!((errors[0].message.as_str(), errors[0].path.as_slice()), ("signed out", ["me".to_owned()].as_slice()));
/// assert_eq!(errors[0].to_string(), "signed out (at me)");
/// # });
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct GraphQlError {
    /// What the server says.
    pub message: String,
    /// Where in the answer: field names and list indexes.
    pub path: Vec<String>,
}

impl GraphQlError {
    /// An error saying `message` about the field at `path`.
    ///
    /// ```
    /// use restcache::http::GraphQlError;
    /// let error = GraphQlError::new("no todos/9", vec!["todo".into()]);
    /// assert_eq!(error.to_string(), "no todos/9 (at todo)");
    /// ```
    pub fn new(message: impl Into<String>, path: Vec<String>) -> Self {
        GraphQlError {
            message: message.into(),
            path,
        }
    }
}

impl fmt::Display for GraphQlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if !self.path.is_empty() {
            write!(f, " (at {})", self.path.join("."))?;
        }
        Ok(())
    }
}

/// The most errors an error keeps, and characters of each message.
const MOST_ERRORS: usize = 8;
const MESSAGE_CHARS: usize = 200;

#[derive(Deserialize)]
struct Envelope<'a> {
    /// Present (`null` too) or not.
    #[serde(borrow, default, deserialize_with = "present")]
    data: Option<&'a RawValue>,
    #[serde(default)]
    errors: Option<Vec<WireError>>,
}

/// A field that is there, whatever its value (`null` too): `Some`.
fn present<'de, D: serde::Deserializer<'de>>(field: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(field).map(Some)
}

#[derive(Deserialize)]
struct WireError {
    #[serde(default)]
    message: String,
    #[serde(default)]
    path: Option<Vec<serde_json::Value>>,
}

/// What a GraphQL answer's body holds: its `data` as JSON text (`null`
/// when absent), or its errors (bounded, one line each). A body with
/// neither `data` nor `errors` is handed on whole, for the schema to
/// read or refuse.
pub(crate) fn split(body: &str) -> Result<String, Vec<GraphQlError>> {
    let envelope = match serde_json::from_str::<Envelope<'_>>(body) {
        Ok(envelope) if envelope.data.is_some() || envelope.errors.is_some() => envelope,
        _ => return Ok(body.to_owned()),
    };
    match envelope.errors {
        Some(errors) if !errors.is_empty() => Err(errors
            .into_iter()
            .take(MOST_ERRORS)
            .map(|error| GraphQlError {
                message: text::one_line(&error.message, MESSAGE_CHARS),
                path: error
                    .path
                    .unwrap_or_default()
                    .iter()
                    .map(|step| match step {
                        serde_json::Value::String(name) => text::one_line(name, text::KEY_CHARS),
                        other => other.to_string(),
                    })
                    .collect(),
            })
            .collect()),
        _ => Ok(envelope
            .data
            .map_or_else(|| "null".to_owned(), |data| data.get().to_owned())),
    }
}
