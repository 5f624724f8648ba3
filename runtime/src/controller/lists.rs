//! The cached lists a write touches: every `GET` result under the URL of
//! the collection a record belongs to (with any query). A created or
//! updated record joins each list whose filters (its query params) its
//! fields match, at the start or end as the endpoint says, and leaves each
//! list it no longer matches; a list whose filters cannot be judged goes
//! stale (it is fetched again in the background, and stays on show). A
//! deleted record leaves every list that holds it.

use std::rc::Rc;

use percent_encoding::percent_decode_str;
use serde::Serialize;

use super::state::Keys;
use crate::cache::filter::{FieldText, Verdict, judge};
use crate::cache::schema::Schema;
use crate::cache::store::table::EntityRef;
use crate::cache::store::{Joining, Layer, Store};
use crate::http::Method;
use crate::meta::Timestamp;
use crate::rest::effect::Action;
use crate::rest::{Effect, Endpoint, JoinAt};

/// A cached list under a create's URL: its key, and its filters.
pub(super) struct List {
    pub key: String,
    pub filters: Vec<(String, String)>,
}

/// The cached lists under `url`, the URL of `endpoint` (a create) for
/// `params`: keyed as the `GET` of that URL, with any query.
/// A paginated list's page params (as `keys` holds them) filter nothing: they are left
/// out of its filters. Nor do the params of `url`'s own query (a base
/// address's `?key=K`): the write was sent under them too.
pub(super) fn lists_under<P: Serialize, S, E: Effect>(
    store: &Store,
    keys: &Keys,
    endpoint: &Endpoint<P, S, E>,
    params: &P,
    url: &str,
) -> Vec<List> {
    lists_among(store.result_keys(), keys, endpoint, params, url)
}

/// The keys of the lists under `url` (as [`lists_under`] finds them)
/// whose first answer is on its way: the store holds nothing of them yet
/// for a write to edit.
pub(super) fn lists_on_their_way<P: Serialize, S, E: Effect>(
    store: &Store,
    keys: &Keys,
    endpoint: &Endpoint<P, S, E>,
    params: &P,
    url: &str,
) -> Vec<String> {
    let waiting = keys
        .having(|kept| kept.in_flight.is_some())
        .map(String::as_str)
        .filter(|key| store.result_meta(key).is_none());
    let lists = lists_among(waiting, keys, endpoint, params, url);
    lists.into_iter().map(|list| list.key).collect()
}

/// The lists among `candidates` (result keys) under `url`.
fn lists_among<'k, P: Serialize, S, E: Effect>(
    candidates: impl Iterator<Item = &'k str>,
    keys: &Keys,
    endpoint: &Endpoint<P, S, E>,
    params: &P,
    url: &str,
) -> Vec<List> {
    let (base, scope) = url.split_once('?').unwrap_or((url, ""));
    let scope = pairs(scope);
    let base = base.trim_end_matches('/');
    // The lists' keys as either API generation names them: `GET url`
    // (the current one's) and the bare URL (the older one's), besides
    // the endpoint's own key for the URL.
    let own = endpoint
        .clone()
        .with_method(Method::Get)
        .key_for_url(base, params);
    let current = format!("{} {base}", Method::Get);
    let mut prefixes = vec![own.as_str(), current.as_str(), base];
    prefixes.dedup();
    candidates
        .filter_map(|key| {
            let rest = prefixes
                .iter()
                .find_map(|prefix| key.strip_prefix(prefix))?;
            // The collection's URL may end in `/` (`/todos/?done=1`, as the
            // older API's lists are keyed).
            let rest = rest.strip_prefix('/').unwrap_or(rest);
            let query = match rest {
                "" => "",
                _ => rest.strip_prefix('?')?,
            };
            Some(List {
                key: key.to_owned(),
                filters: filters_of(keys, key, query, &scope),
            })
        })
        .collect()
}

/// The filters of the list `key` whose query is `query`: its params but
/// those of `scope` (the query every URL of the write carries) and its
/// page params (as `keys` holds them), which filter nothing.
fn filters_of(
    keys: &Keys,
    key: &str,
    query: &str,
    scope: &[(String, String)],
) -> Vec<(String, String)> {
    let mut filters = pairs(query);
    filters.retain(|pair| !scope.contains(pair));
    if let Some(pagination) = keys.get(key).and_then(|kept| kept.pages.as_ref()) {
        filters.retain(|(name, _)| !pagination.names(name));
    }
    filters
}

/// After a create or an update whose record `item` (its store references
/// `refs`, the record's own first) was stored: the record joins every
/// list under `collection` (the URL of its collection) whose filters it
/// matches and does not hold yet, and leaves every one it holds but no
/// longer matches. A list whose filters cannot be judged goes stale,
/// unless the write is an optimistic `layer` (the real response will
/// judge it). A list the write changed is dated `at`, when its request
/// started: an answer to a read of it that started before (and so knows
/// nothing of the write) is turned down.
#[allow(clippy::too_many_arguments)]
pub(super) fn place_in_lists<P: Serialize, S: Schema, E: Effect>(
    store: &mut Store,
    keys: &Keys,
    endpoint: &Endpoint<P, S, E>,
    params: &P,
    collection: &str,
    item: &Rc<S>,
    refs: &[EntityRef],
    at: Timestamp,
    mut layer: Option<&mut Layer>,
    (pushed, before): (bool, Option<&S>),
) {
    let record = refs.first().copied().filter(|_| S::IS_RECORD);
    for list in lists_under(store, keys, endpoint, params, collection) {
        let joining = Joining {
            at_start: endpoint.joins_at() == JoinAt::Start,
            new: E::ACTION == Action::Create,
            record,
            paged: keys.get(&list.key).is_some_and(|kept| kept.pages.is_some()),
            filtered: !list.filters.is_empty(),
            optimistic: layer.is_some(),
        };
        // A confirmed write edits the list beneath any optimistic value on
        // show (an optimistic move of the record elsewhere does not hide
        // it there); an optimistic one, the list as shown.
        let holds = |record: EntityRef| match layer.is_none() {
            true => store
                .confirmed_result(&list.key)
                .is_some_and(|slot| slot.refs.view().contains(record)),
            false => store.result_refs(&list.key).contains(record),
        };
        let held = record.filter(|&record| holds(record));
        let holds_it = held.is_some();
        // A paged list whose last response was asked for after the create
        // was sent may count the new record already, on a page not loaded:
        // it is fetched again rather than counted twice. So is one a
        // pushed record would join: it may be no new record, but one of
        // a page not loaded.
        let counted_maybe = joining.paged
            && joining.new
            && layer.is_none()
            && (pushed
                || keys
                    .get(&list.key)
                    .and_then(|kept| kept.read_started)
                    .is_some_and(|started| started > at));
        let changed = match judge(|field| item.field_text(field), &list.filters) {
            Verdict::Joins if !holds_it && counted_maybe => {
                store.expire_result(&list.key);
                true
            }
            Verdict::Joins if !holds_it => {
                let changed = store.append(
                    &list.key,
                    Rc::clone(item) as Rc<dyn std::any::Any>,
                    refs.to_vec(),
                    joining,
                    layer.as_deref_mut(),
                );
                // Counted, to come with a page not loaded.
                if joining.paged
                    && joining.new
                    && layer.is_none()
                    && let Some(record) = record
                    && let Some(kept) = keys.get(&list.key)
                    && !store.result_refs(&list.key).contains(record)
                {
                    kept.counted_to_come.set(kept.counted_to_come.get() + 1);
                }
                changed
            }
            Verdict::Joins => false,
            Verdict::Stays => match held {
                // A text filter turned the record away before this write
                // too, while the server listed it: it is written in the
                // server's own syntax, for the server to judge.
                Some(_)
                    if before.is_some_and(|before| turned_away_as_text(before, &list.filters)) =>
                {
                    store.expire_result(&list.key);
                    true
                }
                Some(record) => {
                    if !store.leave(&list.key, record, layer.as_deref_mut()) && layer.is_none() {
                        store.expire_result(&list.key);
                    }
                    true
                }
                None => false,
            },
            Verdict::Unknown | Verdict::Unreadable if layer.is_none() => {
                store.expire_result(&list.key);
                true
            }
            Verdict::Unknown | Verdict::Unreadable => false,
        };
        if changed && layer.is_none() {
            store.date_result(&list.key, at);
        }
    }
}

/// The record `pk` of an update under `collection`, as it stands before
/// the update is written, when a filtered list of that collection is
/// cached: a text filter that turned it away already, while the list
/// held it, is in a syntax of the server's (`?title=eq.a`), for the
/// server to judge (see [`place_in_lists`]).
pub(super) fn record_before_update<P: Serialize, S: Schema, E: Effect>(
    store: &Store,
    keys: &Keys,
    endpoint: &Endpoint<P, S, E>,
    params: &P,
    collection: &str,
    pk: &crate::pk::Pk,
) -> Option<Rc<S>> {
    let lists = lists_under(store, keys, endpoint, params, collection);
    let filtered = lists.iter().any(|list| !list.filters.is_empty());
    filtered.then(|| store.record_as::<S>(pk)).flatten()
}

/// Whether the text filters among `filters` (those on a field of text)
/// turn `record` away.
fn turned_away_as_text<S: Schema>(record: &S, filters: &[(String, String)]) -> bool {
    let text: Vec<(String, String)> = filters
        .iter()
        .filter(|(name, _)| matches!(record.field_text(name), FieldText::Text(_)))
        .cloned()
        .collect();
    !text.is_empty() && judge(|field| record.field_text(field), &text) == Verdict::Stays
}

/// After the record at `record` was written from outside a mutation (a
/// live message, [`set_entity`](super::Controller::set_entity), another
/// tab's records) as of `at`, with `field_text` reading its fields: each
/// cached list holding it (as confirmed) whose filters it no longer
/// matches lets it go, and each other filtered list of the same
/// collection (the same URL before its query) that it now matches, and
/// does not hold, goes stale, so that its next read brings it. A list
/// holding it whose filter is in a syntax the field cannot take
/// (`?done=1` of a bool) goes stale too. A list
/// whose filters cannot be judged (a `sort` param) is left as it is:
/// writes from outside come often (every message of a live stream), and
/// each would fetch it again. A paged list's page params filter nothing,
/// nor do the params of the base address's query (`scope`, `key=K`).
pub(super) fn judge_holding_lists(
    store: &mut Store,
    keys: &Keys,
    record: EntityRef,
    field_text: &dyn Fn(&str) -> crate::cache::filter::FieldText,
    (scope, at): (&str, Timestamp),
) {
    let scope = pairs(scope);
    // A key with no query is a list with no filters (or a detail read,
    // whose base no list shares).
    let list = |key: &str| {
        let (base, query) = key.split_once('?').unwrap_or((key, ""));
        let paged = keys.get(key).is_some_and(|kept| kept.pages.is_some());
        Some((base.to_owned(), filters_of(keys, key, query, &scope), paged))
    };
    let holding = store.results_holding(record);
    let mut collections = Vec::new();
    for key in &holding {
        // As confirmed: an optimistic value on show may leave it out.
        let confirmed = store.confirmed_result(key);
        if !confirmed.is_some_and(|slot| slot.refs.view().contains(record)) {
            continue;
        }
        let Some((base, filters, _)) = list(key) else {
            continue;
        };
        if !collections.contains(&base) {
            collections.push(base);
        }
        match judge(field_text, &filters) {
            Verdict::Stays => match store.leave(key, record, None) {
                true => store.date_result(key, at),
                false => drop(store.expire_result(key)),
            },
            // Whether it still belongs is the server's to say.
            Verdict::Unreadable => drop(store.expire_result(key)),
            Verdict::Joins | Verdict::Unknown => {}
        }
    }
    let joins: Vec<String> = store
        .result_keys()
        .filter(|key| !holding.iter().any(|held| held == key))
        .filter(|key| {
            list(key).is_some_and(|(base, filters, paged)| {
                !paged
                    && collections.contains(&base)
                    && judge(field_text, &filters) == Verdict::Joins
            })
        })
        .map(str::to_owned)
        .collect();
    for key in joins {
        store.expire_result(&key);
    }
}

/// A delete's record: its entity and pk, and whether lists may still
/// count it (it was not gone already).
pub(super) struct Deletion<'a> {
    pub entity: &'a str,
    pub pk: &'a crate::pk::Pk,
    pub counted: bool,
}

/// The deleted record `pk` of `entity` leaves every result holding it as
/// an item (a paged list counts one record fewer), with a `layer` as part
/// of it. Returns the keys of those results, each with whether it let
/// the record go (a result of another shape keeps it).
pub(super) fn leave_holding(
    store: &mut Store,
    entity: &str,
    pk: &crate::pk::Pk,
    mut layer: Option<&mut Layer>,
) -> Vec<(String, bool)> {
    let Some(record) = store.record_ref(entity, pk) else {
        return Vec::new();
    };
    let holding = store.results_holding(record);
    holding
        .into_iter()
        .map(|key| {
            let left = store.leave(&key, record, layer.as_deref_mut());
            (key, left)
        })
        .collect()
}

/// After a delete of the record `deleted` (at `url`): it leaves every
/// stored list that holds it as an item (a paged list's total counts one
/// less). A paged list of its collection with pages left to load, which
/// does not hold it, may count it on a page it has not loaded (unless it
/// was gone already): with no filters it counts one less; with filters
/// that may not have matched it, it goes stale (unless the delete is an
/// optimistic `layer`). Any other read of the record drops it when read,
/// as the record is invalid.
pub(super) fn leave_lists<P: Serialize, S, E: Effect>(
    store: &mut Store,
    keys: &Keys,
    endpoint: &Endpoint<P, S, E>,
    params: &P,
    url: &str,
    deleted: Deletion<'_>,
    mut layer: Option<&mut Layer>,
) {
    let Deletion {
        entity,
        pk,
        counted,
    } = deleted;
    let holding = leave_holding(store, entity, pk, layer.as_deref_mut());
    let Some(collection) = collection_of(url, pk).filter(|_| counted) else {
        return;
    };
    for list in lists_under(store, keys, endpoint, params, &collection) {
        if holding.iter().any(|(held, _)| *held == list.key) {
            continue;
        }
        if list.filters.is_empty() {
            store.uncount(&list.key, layer.as_deref_mut());
        } else if layer.is_none() && keys.get(&list.key).is_some_and(|kept| kept.pages.is_some()) {
            store.expire_result(&list.key);
        }
    }
}

/// The URL of the collection that the record `pk`, at `url`, belongs to:
/// `url` without its last path segment when that segment is the pk
/// (`/todos/3?key=K` -> `/todos?key=K`); `None` otherwise. It keeps
/// `url`'s query, which scopes the collection as it scopes the record.
pub(super) fn collection_of(url: &str, pk: &crate::pk::Pk) -> Option<String> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let (collection, last) = path.rsplit_once('/')?;
    let last = percent_decode_str(last).decode_utf8().ok()?;
    (last == pk.to_string()).then(|| match query {
        "" => collection.to_owned(),
        query => format!("{collection}?{query}"),
    })
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
