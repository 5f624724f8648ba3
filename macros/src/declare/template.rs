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
    /// The literal's span: checks of the placeholders point at it.
    pub span: Span,
}

/// The span of the value's bytes `start..end` inside the literal, where the
/// compiler can point inside a literal (a subspan); else the literal.
pub(super) fn span_of(lit: &LitStr, start: usize, end: usize) -> Span {
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
    /// Parses `lit`; every mistake goes to `errors`, and the template holds
    /// what could be read around them.
    pub fn parse(lit: &LitStr, errors: &mut Errors) -> Template {
        let source = lit.value();
        starts_with_a_slash(lit, &source, errors);
        let mut parser = Parser {
            lit,
            source: &source,
            errors,
            pieces: Vec::new(),
            text: String::new(),
            seen: Vec::new(),
        };
        let mut i = 0;
        while i < source.len() {
            i = match source.as_bytes()[i] {
                b'\\' => parser.escape(i),
                b':' => parser.placeholder(i),
                b'?' => parser.question_mark(i),
                _ => parser.plain(i),
            };
        }
        let pieces = parser.finish();
        Template {
            source,
            pieces,
            span: lit.span(),
        }
    }

    /// The placeholder names, in order, each once.
    pub fn params(&self) -> impl Iterator<Item = &str> {
        self.pieces
            .iter()
            .enumerate()
            .filter_map(|(i, piece)| match piece {
                Piece::Param(name) if !self.pieces[..i].contains(piece) => Some(name.as_str()),
                _ => None,
            })
    }

    /// Whether the placeholder `name` stands in the path, before any
    /// query string (`/posts/page/:page`, not `/posts\\?page=:page`).
    pub fn in_path(&self, name: &str) -> bool {
        for piece in &self.pieces {
            match piece {
                Piece::Static(text) if text.contains('?') => return false,
                Piece::Param(param) if param == name => return true,
                _ => {}
            }
        }
        false
    }

    /// Whether the path ends with a placeholder.
    pub fn ends_with_param(&self) -> bool {
        matches!(self.pieces.last(), Some(Piece::Param(_)))
    }

    /// Whether the path's last piece is a placeholder with a `/` before
    /// it: the whole last segment.
    pub fn last_param_fills_its_segment(&self) -> bool {
        match self.pieces.as_slice() {
            [.., Piece::Static(text), Piece::Param(_)] => text.ends_with('/'),
            _ => false,
        }
    }

    /// The path without its last placeholder and the segment holding it:
    /// `/users/:user_id/posts/:id` -> `/users/:user_id/posts`. `None` when
    /// something follows the last placeholder, or shares its segment
    /// (`/users/@:handle`).
    pub fn list(&self) -> Option<Template> {
        let (_, before) = self.pieces.split_last()?;
        if !self.last_param_fills_its_segment() {
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
            span: self.span,
        })
    }
}

/// A path is joined to a base address, so it must start with `/`.
fn starts_with_a_slash(lit: &LitStr, source: &str, errors: &mut Errors) {
    if !source.starts_with('/') {
        errors.at_span(
            span_of(lit, 0, source.len().min(1)),
            format!("a path starts with `/`: write \"/{source}\""),
        );
    }
}

/// The state of one parse: the pieces so far and the static text being
/// gathered. Each step reads from byte `i` and returns where the next one
/// starts.
struct Parser<'a> {
    lit: &'a LitStr,
    source: &'a str,
    errors: &'a mut Errors,
    pieces: Vec<Piece>,
    text: String,
    /// The placeholder names so far.
    seen: Vec<String>,
}

impl Parser<'_> {
    /// A character copied as it is.
    fn plain(&mut self, i: usize) -> usize {
        let ch = self.source[i..].chars().next().unwrap_or_default();
        self.text.push(ch);
        i + ch.len_utf8().max(1)
    }

    /// `\x`: the character `x`, taken literally (`\?` is a `?` in the path).
    fn escape(&mut self, i: usize) -> usize {
        match self.source[i + 1..].chars().next() {
            Some(ch) => {
                self.text.push(ch);
                i + 1 + ch.len_utf8()
            }
            None => {
                self.errors.at_span(
                    span_of(self.lit, i, i + 1),
                    "a `\\` escapes the character after it; nothing follows this one",
                );
                i + 1
            }
        }
    }

    /// A bare `?` would start a query the params already make: params not
    /// in the path go into the query string by themselves.
    fn question_mark(&mut self, i: usize) -> usize {
        self.errors.at_span(
            span_of(self.lit, i, i + 1),
            "a literal `?` is escaped as `\\\\?` (params not in the path go into the query string by themselves)",
        );
        self.plain(i)
    }

    /// `:name`: a placeholder, whose name becomes a params field.
    fn placeholder(&mut self, i: usize) -> usize {
        let start = i + 1;
        let end = start
            + self.source[start..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(self.source.len() - start);
        let name = &self.source[start..end];
        // A name used twice stays in the path (so that its shape, and the
        // checks that read it, hold); the params have it once.
        if self.names_a_field(i, end, name) {
            if self.is_new(i, end, name) {
                self.seen.push(name.to_owned());
            }
            if !self.text.is_empty() {
                self.pieces
                    .push(Piece::Static(std::mem::take(&mut self.text)));
            }
            self.pieces.push(Piece::Param(name.to_owned()));
        }
        end
    }

    /// A placeholder's name is a params field, so it is a Rust identifier.
    fn names_a_field(&mut self, i: usize, end: usize, name: &str) -> bool {
        if name.is_empty() {
            self.errors.at_span(
                span_of(self.lit, i, i + 1),
                "a placeholder needs a name: `:id`",
            );
            return false;
        }
        if name.as_bytes()[0].is_ascii_digit() || syn::parse_str::<syn::Ident>(name).is_err() {
            self.errors.at_span(
                span_of(self.lit, i, end),
                format!("`:{name}` cannot name a params field; use a Rust identifier that is not a keyword"),
            );
            return false;
        }
        true
    }

    /// Each placeholder names one param: a second `:id` could never take
    /// another value than the first.
    fn is_new(&mut self, i: usize, end: usize, name: &str) -> bool {
        if self.seen.iter().any(|s| s == name) {
            self.errors.at_span(
                span_of(self.lit, i, end),
                format!("`:{name}` appears twice in the path; each placeholder names one param"),
            );
            return false;
        }
        true
    }

    fn finish(mut self) -> Vec<Piece> {
        if !self.text.is_empty() {
            self.pieces.push(Piece::Static(self.text));
        }
        self.pieces
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
