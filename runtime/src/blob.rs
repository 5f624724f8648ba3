//! Binary data as the cache keeps it: an image, a file, bytes as they
//! came.

use std::rc::Rc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Bytes an endpoint answered with (an image, a file download), with
/// their content type: the schema of an endpoint whose answer is not
/// JSON. Its request accepts any content type and keeps the body as it
/// came, byte for byte. Cheap to clone (shared).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::Blob;
///
/// endpoint!(pub avatar { path: "/avatars/:name", schema: Blob, params: { name: String } });
///
/// let blob = Blob::new(vec![0x89, b'P', b'N', b'G'], Some("image/png"));
/// assert_eq!(blob.len(), 4);
/// assert_eq!(blob.content_type(), Some("image/png"));
/// assert_eq!(&blob.bytes()[1..], b"PNG");
/// # let _ = avatar();
/// ```
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Blob {
    bytes: Rc<[u8]>,
    content_type: Option<Rc<str>>,
}

impl Blob {
    /// `bytes` of `content_type`.
    ///
    /// ```
    /// use restcache::Blob;
    /// assert!(Blob::new(Vec::new(), None).is_empty());
    /// ```
    pub fn new(bytes: impl Into<Rc<[u8]>>, content_type: Option<&str>) -> Self {
        Blob {
            bytes: bytes.into(),
            content_type: content_type.map(Rc::from),
        }
    }

    /// The bytes.
    ///
    /// ```
    /// use restcache::Blob;
    /// assert_eq!(Blob::new(vec![1, 2], None).bytes(), [1, 2]);
    /// ```
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Their content type, as the server gave it (`image/png`).
    ///
    /// ```
    /// use restcache::Blob;
    /// assert_eq!(Blob::new(vec![], Some("text/csv")).content_type(), Some("text/csv"));
    /// ```
    pub fn content_type(&self) -> Option<&str> {
        self.content_type.as_deref()
    }

    /// How many bytes.
    ///
    /// ```
    /// use restcache::Blob;
    /// assert_eq!(Blob::new(vec![0; 3], None).len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether there are none.
    ///
    /// ```
    /// use restcache::Blob;
    /// assert!(!Blob::new(vec![0], None).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl std::fmt::Debug for Blob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blob")
            .field("len", &self.bytes.len())
            .field("content_type", &self.content_type)
            .finish()
    }
}

/// As a list of bytes (what a test's fixture or a log writes).
impl Serialize for Blob {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.bytes.serialize(serializer)
    }
}

/// From a list of bytes, with no content type.
impl<'de> Deserialize<'de> for Blob {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let bytes = Vec::<u8>::deserialize(deserializer)?;
        Ok(Blob::new(bytes, None))
    }
}
