//! What the list and record routes read from the query string, as popular
//! off-the-shelf REST servers do: filters on fields (`?userId=2`, a field
//! repeated for "any of"), pages (`?_page=2&_limit=10`, answered with
//! `X-Total-Count` and a `Link` header), and related records embedded
//! (`?_embed=comments`: the comments whose `postId` is the record's id) or
//! expanded (`?_expand=user`: the user whose id is the record's `userId`).

use std::collections::HashMap;

use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use serde_json::{Value, json};

use super::Collection;

/// The query of one request, as name-value pairs in order.
pub struct ListQuery {
    pairs: Vec<(String, String)>,
}

/// A page of a list: which one, and how long.
struct Page {
    number: usize,
    limit: usize,
}

type Refusal = (StatusCode, Json<Value>);

impl ListQuery {
    pub fn new(pairs: Vec<(String, String)>) -> Self {
        ListQuery { pairs }
    }

    fn values(&self, name: &str) -> impl Iterator<Item = &str> {
        self.pairs
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether `record` passes every field filter (names not starting
    /// with `_`); a field given several times matches any of its values.
    /// A filter on a field the record does not have is ignored, as many
    /// servers do (they filter on the fields they know).
    fn keeps(&self, record: &Value) -> bool {
        let mut filters: HashMap<&str, Vec<&str>> = HashMap::new();
        for (name, value) in &self.pairs {
            if !name.starts_with('_') {
                filters.entry(name).or_default().push(value);
            }
        }
        filters.iter().all(|(field, wanted)| {
            let actual = match record.get(*field) {
                None => return true,
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
            };
            wanted.iter().any(|w| *w == actual)
        })
    }

    fn page(&self) -> Result<Option<Page>, Refusal> {
        let number = |name: &str, default: usize| -> Result<usize, Refusal> {
            match self.values(name).next() {
                None => Ok(default),
                Some(text) => match text.parse() {
                    Ok(n) if n >= 1 => Ok(n),
                    _ => Err(bad_request(&format!("`{name}` must be a number from 1"))),
                },
            }
        };
        if self.values("_page").next().is_none() {
            return Ok(None);
        }
        Ok(Some(Page {
            number: number("_page", 1)?,
            limit: number("_limit", 10)?,
        }))
    }

    /// The records of `collection` this query asks for, each with what it
    /// embeds or expands, and the headers of a paged answer.
    pub fn list(
        &self,
        path: &str,
        collection: &str,
        all: &HashMap<&'static str, Collection>,
    ) -> Result<(HeaderMap, Vec<Value>), Refusal> {
        let records = all
            .get(collection)
            .map(|c| &c.records)
            .ok_or_else(|| not_found(&format!("resource `{collection}`")))?;
        let kept: Vec<&Value> = records.values().filter(|r| self.keeps(r)).collect();
        let mut headers = HeaderMap::new();
        let chosen: Vec<&Value> = match self.page()? {
            None => kept,
            Some(page) => {
                let total = kept.len();
                headers.insert("x-total-count", HeaderValue::from(total));
                let link = self.links(path, &page, total);
                if let Ok(link) = HeaderValue::from_str(&link) {
                    headers.insert("link", link);
                }
                kept.into_iter()
                    .skip((page.number - 1).saturating_mul(page.limit))
                    .take(page.limit)
                    .collect()
            }
        };
        let records = chosen
            .into_iter()
            .map(|record| self.related(collection, record, all))
            .collect::<Result<_, _>>()?;
        Ok((headers, records))
    }

    /// `record` of `collection` with what the query embeds or expands.
    pub fn related(
        &self,
        collection: &str,
        record: &Value,
        all: &HashMap<&'static str, Collection>,
    ) -> Result<Value, Refusal> {
        let mut record = record.clone();
        for children in self.values("_embed") {
            let found = all
                .get(children)
                .ok_or_else(|| bad_request(&format!("no resource `{children}` to embed")))?;
            let key = format!("{}Id", singular(collection));
            let id = record["id"].to_string().trim_matches('"').to_owned();
            let embedded: Vec<Value> = found
                .records
                .values()
                .filter(|child| child[&key].to_string().trim_matches('"') == id)
                .cloned()
                .collect();
            record[children] = Value::Array(embedded);
        }
        for parent in self.values("_expand") {
            let parents = all.get(format!("{parent}s").as_str()).ok_or_else(|| {
                bad_request(&format!(
                    "no resource `{parent}s` to expand `{parent}` from"
                ))
            })?;
            let key = format!("{parent}Id");
            let found = record[&key]
                .as_u64()
                .or_else(|| record[&key].as_str().and_then(|t| t.parse().ok()))
                .and_then(|id| parents.records.get(&id));
            record[parent] = found.cloned().unwrap_or(Value::Null);
        }
        Ok(record)
    }

    /// The `Link` header of a page: first, prev, next and last, keeping
    /// every other query pair.
    fn links(&self, path: &str, page: &Page, total: usize) -> String {
        let last = total.div_ceil(page.limit).max(1);
        let others: String = self
            .pairs
            .iter()
            .filter(|(name, _)| name != "_page" && name != "_limit")
            .map(|(name, value)| format!("&{}={}", encode(name), encode(value)))
            .collect();
        let at = |n: usize, rel: &str| {
            format!(
                "<{path}?_page={n}&_limit={}{others}>; rel=\"{rel}\"",
                page.limit
            )
        };
        let mut links = vec![at(1, "first")];
        if page.number > 1 {
            links.push(at(page.number - 1, "prev"));
        }
        if page.number < last {
            links.push(at(page.number + 1, "next"));
        }
        links.push(at(last, "last"));
        links.join(", ")
    }
}

/// `comments` to `comment`: the name of one record of a collection.
fn singular(collection: &str) -> &str {
    collection.strip_suffix('s').unwrap_or(collection)
}

/// Percent-encodes what a query pair may not hold as is.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn bad_request(detail: &str) -> Refusal {
    (StatusCode::BAD_REQUEST, Json(json!({ "detail": detail })))
}

fn not_found(what: &str) -> Refusal {
    (
        StatusCode::NOT_FOUND,
        Json(json!({ "detail": format!("no {what}") })),
    )
}
