//! Field paths inside a response, for error reports.

use std::borrow::Cow;
use std::fmt;

/// One step into a response: a field or map key, or a list index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A field of an object (its name on the wire) or a key of a map.
    Key(Cow<'static, str>),
    /// A position in a list.
    Index(usize),
}

/// Where in a response something is, e.g. `projects.project[3].buildTypes`.
///
/// Paths use wire names (after serde's `rename` / `rename_all`), so they read
/// like the JSON a user can see in the network tab.
///
/// ```
/// use restcache::{FieldPath, Segment};
///
/// let path = FieldPath::from(vec![Segment::Key("data".into()), Segment::Index(2), Segment::Key("owner".into())]);
/// assert_eq!(path.to_string(), "data[2].owner");
/// assert_eq!(FieldPath::default().to_string(), "(the response itself)");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPath(Vec<Segment>);

impl FieldPath {
    /// The steps from the response's root.
    pub fn segments(&self) -> &[Segment] {
        &self.0
    }

    /// Puts `segment` in front: errors gain their path while they unwind,
    /// so building it costs nothing when nothing fails.
    pub(crate) fn prepend(&mut self, segment: Segment) {
        self.0.insert(0, segment);
    }
}

impl From<Vec<Segment>> for FieldPath {
    fn from(segments: Vec<Segment>) -> Self {
        FieldPath(segments)
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(the response itself)");
        }
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(key) if i == 0 => f.write_str(key)?,
                Segment::Key(key) => write!(f, ".{key}")?,
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}
