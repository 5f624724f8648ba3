//! Request bodies: JSON or text.

use serde::Serialize;

/// A request body: JSON (sent as `application/json`) or text (sent as
/// `text/plain`).
///
/// ```
/// use restcache::http::Body;
/// use serde_json::json;
///
/// let body = Body::json(&json!({"title": "milk"}))?;
/// assert_eq!(body.content_type(), "application/json");
/// assert_eq!(body.as_str(), r#"{"title":"milk"}"#);
/// assert_eq!(Body::text("hi").content_type(), "text/plain; charset=utf-8");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// Serialized JSON.
    Json(String),
    /// Plain text.
    Text(String),
}

impl Body {
    /// `value` serialized as JSON.
    pub fn json(value: &impl Serialize) -> Result<Body, serde_json::Error> {
        serde_json::to_string(value).map(Body::Json)
    }

    /// A plain text body.
    pub fn text(text: impl Into<String>) -> Body {
        Body::Text(text.into())
    }

    /// The `Content-Type` the body is sent with.
    pub fn content_type(&self) -> &'static str {
        match self {
            Body::Json(_) => "application/json",
            Body::Text(_) => "text/plain; charset=utf-8",
        }
    }

    /// The body's text.
    pub fn as_str(&self) -> &str {
        match self {
            Body::Json(text) | Body::Text(text) => text,
        }
    }
}

impl From<serde_json::Value> for Body {
    fn from(value: serde_json::Value) -> Self {
        Body::Json(value.to_string())
    }
}
