//! Path templates, parsed and checked at compile time. Errors point into
//! the string literal where the compiler allows it (a subspan), else at
//! the whole literal.

use proc_macro2::Span;
use syn::LitStr;

use crate::errors::Errors;

/// One piece of a parsed path.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    Static(String),
    Param(String),
}

/// A path literal, split into pieces.
pub struct Template {
    pub source: String,
    pub pieces: Vec<Piece>,
}

/// The span of the value's bytes `start..end` inside the literal, where the
/// compiler can point inside a literal (a subspan); else the literal.
fn span_of(lit: &LitStr, start: usize, end: usize) -> Span {
    let token = lit.token();
    let text = token.to_string();
    // Map value offsets to source offsets for a plain "..." literal whose
    // only escapes are `\\` and `\"`; anything else points at the literal.
    let mut map = Vec::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 1;
    while i + 1 < bytes.len() {
        match bytes[i] {
            b'\\' if matches!(bytes.get(i + 1), Some(b'\\' | b'"')) => {
                map.push(i);
                i += 2;
            }
            b'\\' => return lit.span(),
            _ => {
                map.push(i);
                i += 1;
            }
        }
    }
    map.push(i);
    if !text.starts_with('"') || end >= map.len() {
        return lit.span();
    }
    token
        .subspan(map[start]..map[end])
        .unwrap_or_else(|| lit.span())
}

impl Template {
    /// Parses `lit`; every mistake goes to `errors`.
    pub fn parse(lit: &LitStr, errors: &mut Errors) -> Template {
        let source = lit.value();
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut seen: Vec<String> = Vec::new();
        if !source.starts_with('/') {
            errors.at_span(
                span_of(lit, 0, source.len().min(1)),
                format!("a path starts with `/`: write \"/{source}\""),
            );
        }
        let bytes = source.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => {
                    match source[i + 1..].chars().next() {
                        Some(ch) => {
                            text.push(ch);
                            i += 1 + ch.len_utf8();
                        }
                        None => {
                            errors.at_span(
                                span_of(lit, i, i + 1),
                                "a `\\` escapes the character after it; nothing follows this one",
                            );
                            i += 1;
                        }
                    }
                    continue;
                }
                b'?' => {
                    errors.at_span(
                        span_of(lit, i, i + 1),
                        "a literal `?` is escaped as `\\\\?` (params not in the path go into the query string by themselves)",
                    );
                }
                b':' => {
                    let start = i + 1;
                    let end = start
                        + source[start..]
                            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                            .unwrap_or(source.len() - start);
                    let name = &source[start..end];
                    if name.is_empty() {
                        errors.at_span(span_of(lit, i, i + 1), "a placeholder needs a name: `:id`");
                    } else if name.as_bytes()[0].is_ascii_digit()
                        || syn::parse_str::<syn::Ident>(name).is_err()
                    {
                        errors.at_span(
                            span_of(lit, i, end),
                            format!("`:{name}` cannot name a params field; use a Rust identifier that is not a keyword"),
                        );
                    } else if seen.iter().any(|s| s == name) {
                        errors.at_span(
                            span_of(lit, i, end),
                            format!("`:{name}` appears twice in the path; each placeholder names one param"),
                        );
                    } else {
                        seen.push(name.to_owned());
                        if !text.is_empty() {
                            pieces.push(Piece::Static(std::mem::take(&mut text)));
                        }
                        pieces.push(Piece::Param(name.to_owned()));
                    }
                    i = end;
                    continue;
                }
                _ => {}
            }
            let ch = source[i..].chars().next().unwrap_or_default();
            text.push(ch);
            i += ch.len_utf8().max(1);
        }
        if !text.is_empty() {
            pieces.push(Piece::Static(text));
        }
        Template { source, pieces }
    }

    /// The placeholder names, in order.
    pub fn params(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Param(name) => Some(name.as_str()),
            Piece::Static(_) => None,
        })
    }

    /// The path without its last placeholder and the segment holding it:
    /// `/users/:user_id/posts/:id` -> `/users/:user_id/posts`. `None` when
    /// something follows the last placeholder.
    pub fn list(&self) -> Option<Template> {
        let (last, before) = self.pieces.split_last()?;
        if !matches!(last, Piece::Param(_)) {
            return None;
        }
        let mut pieces = before.to_vec();
        let only = pieces.len() == 1;
        if let Some(Piece::Static(text)) = pieces.last_mut() {
            let trimmed = text.trim_end_matches('/');
            *text = if trimmed.is_empty() && only {
                "/"
            } else {
                trimmed
            }
            .to_owned();
            if text.is_empty() {
                pieces.pop();
            }
        }
        let cut = self.source.rfind(':').unwrap_or(self.source.len());
        let source = self.source[..cut].trim_end_matches('/');
        let source = if source.is_empty() { "/" } else { source };
        Some(Template {
            source: source.to_owned(),
            pieces,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(path: &str) -> (Template, bool) {
        let mut errors = Errors::default();
        let template = Template::parse(&LitStr::new(path, Span::call_site()), &mut errors);
        (template, errors.finish().is_err())
    }

    #[test]
    fn pieces_and_list_paths() {
        let (t, failed) = parse("/users/:user_id/posts/:id");
        assert!(!failed);
        assert_eq!(t.params().collect::<Vec<_>>(), ["user_id", "id"]);
        let list = t.list().unwrap();
        assert_eq!(list.source, "/users/:user_id/posts");
        assert_eq!(
            list.pieces,
            [
                Piece::Static("/users/".into()),
                Piece::Param("user_id".into()),
                Piece::Static("/posts".into())
            ]
        );
        let (t, _) = parse("/todos/:id");
        assert_eq!(t.list().unwrap().pieces, [Piece::Static("/todos".into())]);
        let (t, _) = parse("/:id");
        assert_eq!(t.list().unwrap().source, "/");
    }

    #[test]
    fn escaped_question_mark() {
        let (t, failed) = parse("/post\\?page=:page");
        assert!(!failed);
        assert_eq!(
            t.pieces,
            [
                Piece::Static("/post?page=".into()),
                Piece::Param("page".into())
            ]
        );
    }

    #[test]
    fn mistakes() {
        for path in [
            "todos/:id",
            "/todos/:",
            "/a/:id/b/:id",
            "/a?b",
            "/a/:type",
            "/a\\",
        ] {
            assert!(parse(path).1, "{path}");
        }
    }
}
