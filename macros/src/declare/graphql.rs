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

/// Reads `lit` as an operation: a `query` (or a bare `{ .. }`) or a
/// `mutation`; a subscription, or any other text, is a mistake.
pub fn parse(lit: LitStr, errors: &mut Errors) -> Option<Operation> {
    let text = lit.value();
    let body = text.trim_start();
    let offset = text.len() - body.len();
    let (mutation, rest) = if let Some(rest) = keyword(body, "query") {
        (false, rest)
    } else if let Some(rest) = keyword(body, "mutation") {
        (true, rest)
    } else if body.starts_with('{') {
        (false, body)
    } else {
        let message = match keyword(body, "subscription") {
            Some(_) => {
                "a subscription streams its answers: it is not an endpoint; declare a `query` or a `mutation`"
            }
            None => {
                "a GraphQL document here is one operation: `query Name($var: Type) { .. }`, `mutation ..` or `{ .. }`"
            }
        };
        errors.at(&lit, message);
        return None;
    };
    let at = offset + (body.len() - rest.len());
    let variables = variables(&text, at);
    Some(Operation {
        lit,
        mutation,
        variables,
    })
}

/// `text` after the keyword `word` and the white space after it, when it
/// starts with that word.
fn keyword<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(word)?;
    match rest.chars().next() {
        Some(c) if c.is_alphanumeric() || c == '_' => None,
        _ => Some(rest),
    }
}

/// The variables the operation starting at byte `at` of `text` defines:
/// each `$name` followed by a `:` inside the parentheses after its name.
fn variables(text: &str, at: usize) -> Vec<(String, usize)> {
    let rest = &text[at..];
    let Some(open) = rest.find(['(', '{']) else {
        return Vec::new();
    };
    if !rest[open..].starts_with('(') {
        return Vec::new();
    }
    let start = at + open;
    let end = text[start..]
        .find(')')
        .map_or(text.len(), |close| start + close);
    let definitions = &text[start..end];
    let mut found = Vec::new();
    for (dollar, _) in definitions.match_indices('$') {
        let name: String = definitions[dollar + 1..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = definitions[dollar + 1 + name.len()..].trim_start();
        if !name.is_empty() && after.starts_with(':') {
            found.push((name, start + dollar));
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
