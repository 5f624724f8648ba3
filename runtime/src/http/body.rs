//! Request bodies: JSON, text, or bytes (a file, an image, a multipart
//! form).

use serde::Serialize;

/// A request body: JSON (sent as `application/json`), text (sent as
/// `text/plain`), or bytes with their own content type (a file upload;
/// [`Form`](super::Form) makes a multipart one).
///
/// ```
/// use restcache::http::Body;
/// use serde_json::json;
///
/// let body = Body::json(&json!({"title": "milk"}))?;
/// assert_eq!(body.content_type(), "application/json");
/// assert_eq!(body.as_str(), Some(r#"{"title":"milk"}"#));
/// assert_eq!(Body::text("hi").content_type(), "text/plain; charset=utf-8");
/// let png = Body::bytes("image/png", vec![0x89, b'P', b'N', b'G']);
/// assert_eq!(png.as_bytes(), [0x89, b'P', b'N', b'G']);
/// assert_eq!(png.as_str(), None);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Body {
    /// Serialized JSON.
    Json(String),
    /// Plain text.
    Text(String),
    /// Bytes, sent with `content_type`.
    Bytes {
        /// The `Content-Type` they are sent with.
        content_type: String,
        /// The bytes.
        bytes: Vec<u8>,
    },
}

impl Body {
    /// `value` serialized as JSON.
    ///
    /// ```
    /// use restcache::http::Body;
    /// assert_eq!(Body::json(&[1, 2])?.as_str(), Some("[1,2]"));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn json(value: &impl Serialize) -> Result<Body, serde_json::Error> {
        serde_json::to_string(value).map(Body::Json)
    }

    /// A plain text body.
    ///
    /// ```
    /// use restcache::http::Body;
    /// assert_eq!(Body::text("hi").as_str(), Some("hi"));
    /// ```
    pub fn text(text: impl Into<String>) -> Body {
        Body::Text(text.into())
    }

    /// Bytes sent as they are, with `content_type` (`image/png`,
    /// `application/octet-stream`).
    ///
    /// ```
    /// use restcache::http::Body;
    /// let body = Body::bytes("application/octet-stream", vec![0, 255]);
    /// assert_eq!(body.content_type(), "application/octet-stream");
    /// ```
    pub fn bytes(content_type: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Body {
        Body::Bytes {
            content_type: content_type.into(),
            bytes: bytes.into(),
        }
    }

    /// The `Content-Type` the body is sent with.
    ///
    /// ```
    /// use restcache::http::Body;
    /// assert_eq!(Body::text("hi").content_type(), "text/plain; charset=utf-8");
    /// ```
    pub fn content_type(&self) -> &str {
        match self {
            Body::Json(_) => "application/json",
            Body::Text(_) => "text/plain; charset=utf-8",
            Body::Bytes { content_type, .. } => content_type,
        }
    }

    /// The body's text; `None` for bytes.
    ///
    /// ```
    /// use restcache::http::Body;
    /// assert_eq!(Body::text("hi").as_str(), Some("hi"));
    /// ```
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Body::Json(text) | Body::Text(text) => Some(text),
            Body::Bytes { .. } => None,
        }
    }

    /// The bytes sent.
    ///
    /// ```
    /// use restcache::http::Body;
    /// assert_eq!(Body::text("hi").as_bytes(), b"hi");
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Body::Json(text) | Body::Text(text) => text.as_bytes(),
            Body::Bytes { bytes, .. } => bytes,
        }
    }

    /// The bytes sent, taken.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        match self {
            Body::Json(text) | Body::Text(text) => text.into_bytes(),
            Body::Bytes { bytes, .. } => bytes,
        }
    }
}

impl From<serde_json::Value> for Body {
    fn from(value: serde_json::Value) -> Self {
        Body::Json(value.to_string())
    }
}
