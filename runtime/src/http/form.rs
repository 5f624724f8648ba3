//! Multipart forms (`multipart/form-data`): text fields and files, sent
//! as one body, as a browser's file upload sends them.

use std::sync::atomic::{AtomicU64, Ordering};

use super::Body;

/// A multipart form: text fields and files, in order. Its
/// [`body`](Form::into_body) is bytes with a boundary found in none of
/// them.
///
/// ```
/// use restcache::http::Form;
///
/// let body = Form::new()
///     .text("title", "holiday")
///     .file("photo", "beach.png", "image/png", vec![0x89, b'P', b'N', b'G'])
///     .into_body();
/// assert!(body.content_type().starts_with("multipart/form-data; boundary="));
/// let sent = String::from_utf8_lossy(body.as_bytes());
/// assert!(sent.contains(r#"Content-Disposition: form-data; name="photo"; filename="beach.png""#));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Form {
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Part {
    name: String,
    file: Option<(String, String)>,
    data: Vec<u8>,
}

impl Form {
    /// An empty form.
    ///
    /// ```
    /// assert_eq!(restcache::http::Form::new(), restcache::http::Form::default());
    /// ```
    pub fn new() -> Self {
        Form::default()
    }

    /// This form with the text field `name` set to `value`.
    ///
    /// ```
    /// use restcache::http::Form;
    /// let body = Form::new().text("q", "tea").into_body();
    /// assert!(String::from_utf8_lossy(body.as_bytes()).contains("\r\n\r\ntea\r\n"));
    /// ```
    pub fn text(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.parts.push(Part {
            name: name.into(),
            file: None,
            data: value.into().into_bytes(),
        });
        self
    }

    /// This form with the file `filename` (of `content_type`) as the
    /// field `name`.
    ///
    /// ```
    /// use restcache::http::Form;
    /// let body = Form::new().file("doc", "a.txt", "text/plain", b"hi".to_vec()).into_body();
    /// assert!(String::from_utf8_lossy(body.as_bytes()).contains("Content-Type: text/plain\r\n\r\nhi\r\n"));
    /// ```
    pub fn file(
        mut self,
        name: impl Into<String>,
        filename: impl Into<String>,
        content_type: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
    ) -> Self {
        self.parts.push(Part {
            name: name.into(),
            file: Some((filename.into(), content_type.into())),
            data: bytes.into(),
        });
        self
    }

    /// The form as a request body.
    ///
    /// ```
    /// use restcache::http::Form;
    /// let body = Form::new().text("a", "1").into_body();
    /// let boundary = body.content_type().split("boundary=").nth(1).unwrap().to_owned();
    /// assert!(String::from_utf8_lossy(body.as_bytes()).ends_with(&format!("--{boundary}--\r\n")));
    /// ```
    pub fn into_body(self) -> Body {
        let boundary = self.boundary();
        let mut bytes = Vec::with_capacity(self.parts.iter().map(|p| p.data.len() + 128).sum());
        for part in &self.parts {
            bytes.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
            let name = quoted(&part.name);
            match &part.file {
                Some((filename, content_type)) => {
                    let head = format!(
                        "Content-Disposition: form-data; name=\"{name}\"; filename=\"{}\"\r\nContent-Type: {}\r\n\r\n",
                        quoted(filename),
                        content_type.replace(['\r', '\n'], "")
                    );
                    bytes.extend_from_slice(head.as_bytes());
                }
                None => {
                    let head = format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n");
                    bytes.extend_from_slice(head.as_bytes());
                }
            }
            bytes.extend_from_slice(&part.data);
            bytes.extend_from_slice(b"\r\n");
        }
        bytes.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        Body::bytes(format!("multipart/form-data; boundary={boundary}"), bytes)
    }

    /// A boundary that occurs in no part.
    fn boundary(&self) -> String {
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        loop {
            let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
            let seed = crate::meta::Timestamp::now().as_micros() ^ serial.rotate_left(32);
            let boundary = format!("restcache-{seed:016x}{serial:x}");
            let inside = |part: &Part| {
                part.data
                    .windows(boundary.len())
                    .any(|window| window == boundary.as_bytes())
            };
            if !self.parts.iter().any(inside) {
                return boundary;
            }
        }
    }
}

/// A name or file name inside a quoted header parameter: quotes and line
/// breaks percent-encoded, as browsers send them.
fn quoted(text: &str) -> String {
    text.replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}
