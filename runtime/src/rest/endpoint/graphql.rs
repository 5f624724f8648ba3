//! GraphQL operations as endpoints: a query reads and a mutation writes,
//! each POSTed with its document and its params as variables; their
//! answer's `data` is decoded and normalized as a REST response is, and
//! its `errors` fail the request.

use serde::Serialize;

use super::{Endpoint, GraphQl, json_of};
use crate::http::{Body, GraphQlError, Method};
use crate::rest::effect::{Action, Effect};

impl<P: Serialize, S, E: Effect> Endpoint<P, S, E> {
    /// This endpoint as the GraphQL operation `document` (a `query` or a
    /// `mutation`), POSTed to its path: the body is `{"query": document,
    /// "variables": params}`, the params stay out of the URL, one request
    /// serves every read of the same operation and variables (the key
    /// holds both), and the answer's `data` is what the schema decodes;
    /// `errors` in a successful answer fail the request with a hard
    /// [`ErrorKind::GraphQl`](crate::http::ErrorKind::GraphQl). A body
    /// given by the caller is sent instead of the built one. `endpoint!`
    /// declares one with `graphql: "..."`.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::rest::{Part, PathTemplate};
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// #[derive(Schema, Clone, Debug, Deserialize)]
    /// struct OneTodo { #[schema(nested)] todo: Rc<Todo> }
    /// #[derive(Serialize, Clone)]
    /// struct ById { id: u64 }
    ///
    /// const GRAPHQL: PathTemplate = PathTemplate::new("/graphql", &[Part::Static("/graphql")]);
    /// let todo = Endpoint::<ById, OneTodo>::new(Method::Post, GRAPHQL)
    ///     .graphql("query Todo($id: Int!) { todo(id: $id) { id title } }");
    /// # let api = restcache_demo::DemoApi::start()?;
    /// let ctrl = Controller::new(Client::new(api.url()));
    /// # restcache_demo::block_on(async {
    /// let first = ctrl.fetch(&todo, &ById { id: 1 }, None).await?;
    /// assert_eq!(first.todo.title, "delectus aut autem");
    /// let missing = ctrl.fetch(&todo, &ById { id: 99 }, None).await.unwrap_err();
    /// assert_eq!(missing.to_string(), format!("POST {}/graphql: GraphQL: no todos/99 (at todo)", api.url()));
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// A `mutation` is an endpoint of a mutation's effect
    /// (`.with_effect::<Mutate>()` before this call), so that it is never
    /// cached, shared or sent again as a read is.
    ///
    /// # Panics
    ///
    /// When the document's kind and the endpoint's effect disagree: a
    /// `mutation` on a read, or a query on a mutation.
    pub fn graphql(mut self, document: &'static str) -> Self {
        let mutation = is_mutation(document);
        assert!(
            mutation == (E::ACTION != Action::Read),
            "a GraphQL {} needs an endpoint of {}: {document:?}",
            if mutation { "mutation" } else { "query" },
            if mutation {
                "a mutation's effect (`.with_effect::<Mutate>()` before `.graphql(..)`)"
            } else {
                "a read's effect"
            },
        );
        self.method = Method::Post;
        self.graphql = Some(GraphQl {
            document,
            variables: json_of::<P>,
            ops: &OPS,
        });
        self
    }
}

impl<P, S, E: Effect> Endpoint<P, S, E> {
    /// The GraphQL document this endpoint sends, if it is an operation.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// assert_eq!(TodoResource::get().graphql_document(), None);
    /// ```
    pub fn graphql_document(&self) -> Option<&'static str> {
        self.graphql.map(|graphql| graphql.document)
    }
}

/// Whether `document`'s operation is a `mutation`: its first definition
/// that is not a fragment (comments, strings and fragments before it
/// skipped).
fn is_mutation(document: &str) -> bool {
    let bytes = document.as_bytes();
    let (mut i, mut depth, mut in_fragment) = (0, 0usize, false);
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            // Bytes, not text: a string may hold characters of several.
            b'"' if bytes[i..].starts_with(b"\"\"\"") => {
                i += 3;
                while i < bytes.len() && !bytes[i..].starts_with(b"\"\"\"") {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 2;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' => {
                if depth == 0 && !in_fragment {
                    return false; // a bare `{ .. }` is a query
                }
                depth += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                in_fragment &= depth > 0;
            }
            c if depth == 0 && (c.is_ascii_alphabetic() || c == b'_') => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                match &document[start..i] {
                    "fragment" => in_fragment = true,
                    _ if in_fragment => {}
                    word => return word == "mutation",
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// What only GraphQL operations do, as functions an operation's endpoint
/// points at.
pub(crate) struct Ops {
    /// The key of an operation's read: the endpoint's key, the document
    /// on one line, the variables.
    pub key: fn(&str, &str, &str) -> String,
    /// The body: the document and the variables.
    pub body: fn(&str, &str) -> Body,
    /// An answer's `data` as JSON text, or its errors.
    pub split: fn(&str) -> Result<String, Vec<GraphQlError>>,
}

static OPS: Ops = Ops {
    key,
    body,
    split: crate::http::split_graphql,
};

/// One request per operation and variables: the same variables name the
/// same read, whatever order their type writes them in (a `HashMap`'s
/// order is its own).
fn key(endpoint_key: &str, document: &str, variables: &str) -> String {
    let document = document.split_whitespace().collect::<Vec<_>>().join(" ");
    let variables = match serde_json::from_str::<serde_json::Value>(variables) {
        Ok(value) => {
            let mut sorted = String::with_capacity(variables.len());
            write_sorted(&value, &mut sorted);
            sorted
        }
        Err(_) => variables.to_owned(),
    };
    format!("{endpoint_key} {document} {variables}")
}

/// Writes `value` as JSON with each object's members sorted by name.
fn write_sorted(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Object(members) => {
            let mut members: Vec<_> = members.iter().collect();
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (at, (name, member)) in members.into_iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(name).unwrap_or_default());
                out.push(':');
                write_sorted(member, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    out.push(',');
                }
                write_sorted(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn body(document: &str, variables: &str) -> Body {
    let document = serde_json::to_string(document).unwrap_or_default();
    Body::Json(format!(r#"{{"query":{document},"variables":{variables}}}"#))
}
