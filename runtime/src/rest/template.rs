//! Path templates: `/todos/:id` and friends, parsed at compile time by
//! `resource!` / `endpoint!`, filled in with params at run time.

use std::borrow::Cow;
use std::fmt::Write as _;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::Serialize;
use serde_json::Value;

use super::fields::{fields_of, to_json};
use crate::error::UrlError;
use crate::small_sort::insertion_sort;

/// One piece of a [`PathTemplate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Text copied as it is (an escaped `\?` is already a plain `?` here).
    Static(&'static str),
    /// A `:name` placeholder, filled with the param `name`.
    Param(&'static str),
}

/// A path pattern such as `/users/:user_id/posts/:id`, split into parts.
///
/// The macros build these at compile time (so a malformed path is a
/// compile error); [`PathTemplate::url`] fills one in with params:
/// placeholders take their param's value, percent-encoded so a value can
/// never change the path, and params that are not in the path go into the
/// query string, sorted by name, so one set of params always makes the
/// same URL. A list param repeats its name once a value, in the list's
/// order: give a set as a `Vec` or a `BTreeSet`, not a `HashSet` (whose
/// order differs between equal sets, and so would the URL and the cache
/// key).
///
/// ```
/// use restcache::rest::{Part, PathTemplate};
/// use serde::Serialize;
///
/// const POSTS: PathTemplate = PathTemplate::new(
///     "/users/:user_id/posts",
///     &[Part::Static("/users/"), Part::Param("user_id"), Part::Static("/posts")],
/// );
///
/// #[derive(Serialize)]
/// struct Params { user_id: String, tag: &'static str, page: u32 }
///
/// let url = POSTS.url("http://127.0.0.1:8080", &Params { user_id: "a b/c".into(), tag: "x&y", page: 2 })?;
/// assert_eq!(url, "http://127.0.0.1:8080/users/a%20b%2Fc/posts?page=2&tag=x%26y");
/// # Ok::<(), restcache::rest::UrlError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathTemplate {
    source: &'static str,
    parts: &'static [Part],
}

/// What a path segment value escapes: everything but `A-Z a-z 0-9 - . _ ~`.
pub(crate) const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

impl PathTemplate {
    /// A template from its source text and its parts (what the macros emit).
    pub const fn new(source: &'static str, parts: &'static [Part]) -> Self {
        PathTemplate { source, parts }
    }

    /// The path as declared, e.g. `/todos/:id`.
    pub const fn source(&self) -> &'static str {
        self.source
    }

    /// The parts of the path.
    pub const fn parts(&self) -> &'static [Part] {
        self.parts
    }

    /// The placeholder names, in path order.
    pub fn params(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.parts.iter().filter_map(|part| match part {
            Part::Param(name) => Some(*name),
            Part::Static(_) => None,
        })
    }

    /// Whether the placeholder `name` is in the path's last segment: the
    /// path names the record it fills in, not one beneath it
    /// (`/todos/:id` and `/todos/:id.json`, not `/todos/:id/owner`).
    pub(crate) fn in_last_segment(&self, name: &str) -> bool {
        let named = |part: &&Part| matches!(part, Part::Param(param) if *param == name);
        let mut after = self.parts.iter().skip_while(|part| !named(part));
        if after.next().is_none() {
            return false;
        }
        for part in after {
            let Part::Static(text) = part else {
                return false; // another placeholder in the path after it
            };
            let path = text.split('?').next().unwrap_or_default();
            if path
                .split_once('/')
                .is_some_and(|(_, more)| !more.is_empty())
            {
                return false;
            }
            if text.contains('?') {
                return true; // the query: placeholders there name no segment
            }
        }
        true
    }

    /// `prefix` + the path filled in with `params` + the query of the
    /// params the path does not use (sorted by name; `None` values left
    /// out; a list repeats its name).
    pub fn url(&self, prefix: &str, params: &impl Serialize) -> Result<String, UrlError> {
        let mut named: Vec<(Cow<'static, str>, Value)> = match fields_of(params) {
            Some(fields) => fields
                .into_iter()
                .map(|(name, value)| (Cow::Borrowed(name), value))
                .collect(),
            None => match to_json(params) {
                Ok(Value::Object(map)) => map
                    .into_iter()
                    .map(|(name, value)| (Cow::Owned(name), value))
                    .collect(),
                Ok(Value::Null) => Vec::new(),
                Ok(other) => {
                    return Err(UrlError::NotNamed {
                        found: kind(&other),
                    });
                }
                Err(_) => {
                    return Err(UrlError::NotNamed {
                        found: "unserializable",
                    });
                }
            },
        };
        // A query of the base address (an API key) goes last, after the
        // path's own and the params'.
        let (prefix, base_query) = prefix.split_once('?').unwrap_or((prefix, ""));
        let mut url = String::with_capacity(prefix.len() + self.source.len() + 16);
        url.push_str(prefix.trim_end_matches('/'));
        let mut in_query = false;
        for part in self.parts {
            match part {
                Part::Static(text) => {
                    url.push_str(text);
                    in_query |= text.contains('?');
                }
                Part::Param(name) => {
                    let at = named
                        .iter()
                        .position(|(named, _)| named == name)
                        .or_else(|| renamed_field(&named, name));
                    let value = at.map_or(Value::Null, |at| named.remove(at).1);
                    let text = scalar(name, &value)?.ok_or(UrlError::Missing {
                        name,
                        path: self.source,
                    })?;
                    // A path segment may not be empty nor lead up; a
                    // query value may (a search box cleared).
                    if !in_query && matches!(text.as_str(), "" | "." | "..") {
                        return Err(UrlError::Unsafe {
                            name,
                            value: text,
                            path: self.source,
                        });
                    }
                    url.extend(utf8_percent_encode(&text, SEGMENT));
                }
            }
        }
        let mut rest = named;
        // A query holds a handful of params.
        insertion_sort(&mut rest, |a, b| a.0 > b.0);
        let mut separator = if url.contains('?') { '&' } else { '?' };
        for (name, value) in &rest {
            let values = match value {
                Value::Array(items) => items.as_slice(),
                single => std::slice::from_ref(single),
            };
            for value in values {
                let Some(text) = scalar(name, value)? else {
                    continue;
                };
                url.push(separator);
                separator = '&';
                let _ = write!(
                    url,
                    "{}={}",
                    utf8_percent_encode(name, SEGMENT),
                    utf8_percent_encode(&text, SEGMENT)
                );
            }
        }
        if !base_query.is_empty() {
            url.push(separator);
            url.push_str(base_query);
        }
        Ok(url)
    }
}

/// The text of a URL param value; `None` for null.
fn scalar(name: &str, value: &Value) -> Result<Option<String>, UrlError> {
    Ok(Some(match value {
        Value::Null => return Ok(None),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => {
            return Err(UrlError::Unsupported {
                name: name.to_owned(),
                found: kind(other),
            });
        }
    }))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a nested object",
    }
}

/// Where the field `name` (a placeholder, as Rust names a field of a
/// params type of one's own) stands among `named` when the type
/// serializes it under a `rename_all` rule: the one serialized name that
/// a rule of serde's makes of it (`team_id` as `teamId`, `TeamId`,
/// `TEAM_ID`, `team-id`, `TEAM-ID`). A field renamed by
/// itself is not found.
fn renamed_field<K: AsRef<str>, V>(named: &[(K, V)], name: &str) -> Option<usize> {
    let words: Vec<&str> = name.split('_').filter(|word| !word.is_empty()).collect();
    if words.is_empty() || name.chars().any(|c| c.is_ascii_uppercase()) {
        return None;
    }
    let capitalized = |word: &str| {
        let mut chars = word.chars();
        chars.next().map_or_else(String::new, |first| {
            first.to_ascii_uppercase().to_string() + chars.as_str()
        })
    };
    let pascal: String = words.iter().map(|word| capitalized(word)).collect();
    let camel = words[0].to_owned() + &pascal[capitalized(words[0]).len()..];
    let spellings = [
        camel,
        pascal,
        name.to_ascii_uppercase(),
        words.join("-"),
        words.join("-").to_ascii_uppercase(),
    ];
    let mut found = named
        .iter()
        .enumerate()
        .filter(|(_, (named, _))| spellings.iter().any(|spelled| spelled == named.as_ref()))
        .map(|(at, _)| at);
    let at = found.next()?;
    found.next().is_none().then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TODO: PathTemplate =
        PathTemplate::new("/todos/:id", &[Part::Static("/todos/"), Part::Param("id")]);
    const PAGE: PathTemplate = PathTemplate::new(
        "/post\\?page=:page",
        &[Part::Static("/post?page="), Part::Param("page")],
    );

    #[test]
    fn placeholders_are_filled_and_encoded() {
        let base = "http://h";
        assert_eq!(
            TODO.url(base, &json!({"id": 5})).unwrap(),
            "http://h/todos/5"
        );
        assert_eq!(
            TODO.url(base, &json!({"id": "../admin"})).unwrap(),
            "http://h/todos/..%2Fadmin"
        );
        assert_eq!(
            TODO.url(base, &json!({"id": "a b?c#d"})).unwrap(),
            "http://h/todos/a%20b%3Fc%23d"
        );
        assert_eq!(
            TODO.url("http://h/", &json!({"id": 1})).unwrap(),
            "http://h/todos/1"
        );
    }

    #[test]
    fn values_that_would_change_the_path_are_refused() {
        for value in ["", ".", ".."] {
            assert!(matches!(
                TODO.url("", &json!({ "id": value })),
                Err(UrlError::Unsafe { name: "id", .. })
            ));
        }
        assert_eq!(
            TODO.url("", &json!({})),
            Err(UrlError::Missing {
                name: "id",
                path: "/todos/:id"
            })
        );
    }

    #[test]
    fn other_params_make_a_sorted_query() {
        let url = TODO
            .url(
                "",
                &json!({"id": 1, "z": true, "a": [1, 2], "skip": null, "m": "x=y&"}),
            )
            .unwrap();
        assert_eq!(url, "/todos/1?a=1&a=2&m=x%3Dy%26&z=true");
        assert_eq!(PAGE.url("", &json!({"page": "2"})).unwrap(), "/post?page=2");
        assert_eq!(
            PAGE.url("", &json!({"page": 2, "q": "a"})).unwrap(),
            "/post?page=2&q=a"
        );
        assert!(matches!(
            TODO.url("", &json!({"id": 1, "f": {"a": 1}})),
            Err(UrlError::Unsupported { .. })
        ));
        assert!(matches!(TODO.url("", &5), Err(UrlError::NotNamed { .. })));
    }

    #[test]
    fn a_struct_s_fields_are_sorted_whatever_their_order() {
        #[derive(Serialize)]
        struct Query {
            z: u8,
            tag: Vec<&'static str>,
            id: u8,
            b: Option<u8>,
            a: &'static str,
        }
        let query = Query {
            z: 1,
            tag: vec!["y", "x"],
            id: 7,
            b: Some(2),
            a: "q",
        };
        assert_eq!(
            TODO.url("", &query).unwrap(),
            "/todos/7?a=q&b=2&tag=y&tag=x&z=1",
            "names sorted; a list keeps its order"
        );
    }
}
