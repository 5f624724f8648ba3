//! A GraphQL operation declared with `endpoint!(.. graphql: "..")`: its
//! kind (query or mutation) and the variables its document defines, read
//! from the document's text, and the checks that its params are exactly
//! those variables.

use syn::LitStr;

use super::template::span_of;
use crate::errors::Errors;

/// What the macro reads of an operation's document.
pub struct Operation {
    /// The document as written.
    pub lit: LitStr,
    /// A `mutation` (else a `query`).
    pub mutation: bool,
    /// The variables it defines (`$id` as `id`), with where each is in
    /// the document.
    pub variables: Vec<(String, usize)>,
}

/// Reads `lit` as one operation: a `query` (or a bare `{ .. }`) or a
/// `mutation`, with fragments beside it; a subscription, a second
/// operation, or any other text, is a mistake.
pub fn parse(lit: LitStr, errors: &mut Errors) -> Option<Operation> {
    let text = lit.value();
    let tokens = tokens(&text);
    let mut operations = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        match tokens[at].1 {
            "fragment" => at = after_block(&tokens, at),
            token @ ("query" | "mutation" | "subscription" | "{") => {
                operations.push((at, token == "mutation", token == "subscription"));
                at = after_block(&tokens, at);
            }
            _ => {
                errors.at(
                    &lit,
                    "a GraphQL document here is one operation: `query Name($var: Type) { .. }`, `mutation ..` or `{ .. }`, with its fragments",
                );
                return None;
            }
        }
    }
    let &[(first, mutation, subscription)] = operations.as_slice() else {
        let message = match operations.len() {
            0 => "a GraphQL document here holds one operation: it has none".to_owned(),
            n => format!(
                "one operation per endpoint: this document has {n} (declare an endpoint for each)"
            ),
        };
        errors.at(&lit, message);
        return None;
    };
    if subscription {
        errors.at(
            &lit,
            "a subscription streams its answers: it is not an endpoint; declare a `query` or a `mutation`",
        );
        return None;
    }
    let variables = variables(&tokens, first);
    Some(Operation {
        lit,
        mutation,
        variables,
    })
}

/// The document's tokens, with where each starts: names, punctuators,
/// `$` and strings (as one token each); white space, commas and comments
/// left out.
fn tokens(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' if text[i..].starts_with("\"\"\"") => {
                i = text[i + 3..]
                    .find("\"\"\"")
                    .map_or(bytes.len(), |end| i + 3 + end + 3);
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
            }
            b if b.is_ascii_alphanumeric() || b == b'_' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
            }
            b if b.is_ascii_whitespace() || b == b',' => {
                i += 1;
                continue;
            }
            _ => i += text[i..].chars().next().map_or(1, char::len_utf8),
        }
        found.push((start, &text[start..i]));
    }
    found
}

/// The token after the definition starting at token `at`: past its
/// selection set's closing brace.
fn after_block(tokens: &[(usize, &str)], at: usize) -> usize {
    let mut depth = 0usize;
    for (index, &(_, token)) in tokens.iter().enumerate().skip(at) {
        match token {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return index + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// The variables the operation starting at token `at` defines: in the
/// parentheses after its name, each `$name` followed by a `:` at their
/// own depth (a directive's or a default's parentheses and strings
/// skipped).
fn variables(tokens: &[(usize, &str)], at: usize) -> Vec<(String, usize)> {
    let mut index = at;
    while index < tokens.len() && !matches!(tokens[index].1, "(" | "{") {
        index += 1;
    }
    if tokens.get(index).map(|t| t.1) != Some("(") {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut depth = 0usize;
    for window in tokens[index..].windows(3) {
        match window[0].1 {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            "$" if depth == 1 && window[2].1 == ":" => {
                found.push((window[1].1.to_owned(), window[0].0));
            }
            _ => {}
        }
    }
    found
}

/// Every variable has a param of its name (as serialized), and every
/// param is a variable: a variable left out would be `null` on the
/// server, and a param that is none would be refused by it.
pub fn params_are_its_variables(
    operation: &Operation,
    params: &[(String, &syn::Ident)],
    errors: &mut Errors,
) {
    let known: Vec<String> = operation
        .variables
        .iter()
        .map(|(name, _)| format!("${name}"))
        .collect();
    for (name, at) in &operation.variables {
        if params.iter().any(|(wire, _)| wire == name) {
            continue;
        }
        errors.at_span(
            span_of(&operation.lit, *at, at + 1 + name.len()),
            format!(
                "`${name}` has no param: declare it in `params` under the name the \
                 operation gives it (`params: {{ {name}: .. }}`, or a serde rename)"
            ),
        );
    }
    for (wire, ident) in params {
        if operation.variables.iter().any(|(name, _)| name == wire) {
            continue;
        }
        let theirs = match known.is_empty() {
            true => "it defines none".to_owned(),
            false => format!("it defines `{}`", known.join("`, `")),
        };
        errors.at(
            ident,
            format!("`{wire}` is not a variable of the operation; {theirs}"),
        );
    }
}
