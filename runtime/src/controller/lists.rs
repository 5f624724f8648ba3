//! The cached lists a create touches: every `GET` result under the
//! create's URL (with any query). The created record joins each list whose
//! filters (its query params) its fields match, at the start or end as the
//! endpoint says; a list whose filters cannot be judged is invalidated, so
//! that it is fetched again rather than left wrong.

use std::rc::Rc;

use percent_encoding::percent_decode_str;
use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::cache::filter::{Verdict, judge};
use crate::cache::schema::Schema;
use crate::cache::store::table::EntityRef;
use crate::cache::store::{Layer, Store};
use crate::http::Method;
use crate::meta::Timestamp;
use crate::rest::{Effect, Endpoint, JoinAt, Pagination};

/// A cached list under a create's URL: its key, and its filters.
pub(super) struct List {
    pub key: String,
    pub filters: Vec<(String, String)>,
}

/// The cached lists under `url`, the URL of `endpoint` (a create) for
/// `params`: keyed as the `GET` of that URL, with any query.
/// A paginated list's page params (`pages`) filter nothing: they are left
/// out of its filters.
pub(super) fn lists_under<P: Serialize, S, E: Effect>(
    store: &Store,
    pages: &FxHashMap<String, Pagination>,
    endpoint: &Endpoint<P, S, E>,
    params: &P,
    url: &str,
) -> Vec<List> {
    let base = url.split('?').next().unwrap_or(url);
    let prefix = endpoint
        .clone()
        .with_method(Method::Get)
        .key_for_url(base, params);
    store
        .result_keys()
        .filter_map(|key| {
            let rest = key.strip_prefix(prefix.as_str())?;
            let query = match rest {
                "" => "",
                _ => rest.strip_prefix('?')?,
            };
            let mut filters = pairs(query);
            if let Some(pagination) = pages.get(key) {
                filters.retain(|(name, _)| !pagination.names(name));
            }
            Some(List {
                key: key.to_owned(),
                filters,
            })
        })
        .collect()
}

/// After a create whose record `item` (its store references `refs`) was
/// stored: the record joins every list under the create's URL whose
/// filters it matches. A list whose filters cannot be judged is
/// invalidated as of `started`, unless the write is an optimistic `layer`
/// (the real response will judge it).
#[allow(clippy::too_many_arguments)]
pub(super) fn join_lists<P: Serialize, S: Schema, E: Effect>(
    store: &mut Store,
    pages: &FxHashMap<String, Pagination>,
    endpoint: &Endpoint<P, S, E>,
    params: &P,
    url: &str,
    item: &Rc<S>,
    refs: &[EntityRef],
    started: Timestamp,
    mut layer: Option<&mut Layer>,
) {
    let at_start = endpoint.joins_at() == JoinAt::Start;
    for list in lists_under(store, pages, endpoint, params, url) {
        match judge(|field| item.field_text(field), &list.filters) {
            Verdict::Joins => store.append(
                &list.key,
                Rc::clone(item) as Rc<dyn std::any::Any>,
                refs.to_vec(),
                at_start,
                layer.as_deref_mut(),
            ),
            Verdict::Stays => {}
            Verdict::Unknown if layer.is_none() => {
                store.invalidate_result(&list.key, started);
            }
            Verdict::Unknown => {}
        }
    }
}

/// The name-value pairs of a query string, percent-decoded.
fn pairs(query: &str) -> Vec<(String, String)> {
    let decode = |text: &str| {
        let text = text.replace('+', " ");
        percent_decode_str(&text).decode_utf8_lossy().into_owned()
    };
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) => (decode(name), decode(value)),
            None => (decode(pair), String::new()),
        })
        .collect()
}
