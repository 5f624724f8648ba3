//! Handing a server's cache to the browser. A server render records the
//! responses its reads got; [`Controller::export_handoff`] writes them as
//! one text to embed in the page ([`handoff_script`]); in the browser,
//! [`Controller::import_handoff`] takes them back before the first
//! render, so that hydration reads what the server read, with no request.
//!
//! The store keeps its values without their types, so the text carries
//! each read's response as the server got it (status, headers, body),
//! by key: the browser's first typed read of a key decodes it with its
//! own endpoint, as if it had fetched it. Any schema and any decoder
//! work, and nothing has to be serializable. Times cross as ages: a
//! response fetched 3 s before the export counts as fetched 3 s before
//! the import, so a browser clock that differs from the server's neither
//! refetches everything nor keeps stale data fresh.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::request::Delivery;
use super::{Controller, State};
use crate::cache::schema::Schema;
#[cfg(feature = "hydration")]
use crate::http::{Attempt, GraphQlError, Method};
#[cfg(any(feature = "ssr", feature = "hydration"))]
use crate::http::{Error, ErrorKind};
use crate::http::{HeaderMap, HeaderName, HeaderValue, Response};
use crate::meta::Timestamp;
use crate::rest::{Effect, Endpoint};

/// The most bytes a handoff text may hold; a longer one is refused.
pub const MAX_HANDOFF_BYTES: usize = 8 * 1024 * 1024;

/// The `id` of the script element [`handoff_script`] writes.
pub const HANDOFF_SCRIPT_ID: &str = "restcache-handoff";

/// The format of the text, so that a page from another version is
/// refused rather than misread.
const FORMAT: u32 = 1;

/// Headers a page never carries (the server's own session).
const PRIVATE_HEADERS: &[&str] = &[
    "set-cookie",
    "set-cookie2",
    "authorization",
    "www-authenticate",
];

/// A response a read got, kept for the handoff.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Recorded {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    /// Its endpoint's answers stay out of a saved cache.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
}

impl Recorded {
    /// What the page may carry of `response`.
    pub fn of(response: &Response) -> Self {
        let headers = response
            .headers
            .iter()
            .filter(|(name, _)| !PRIVATE_HEADERS.contains(&name.as_str()))
            .filter_map(|(name, value)| Some((name.to_string(), value.to_str().ok()?.to_owned())))
            .collect();
        Recorded {
            status: response.status,
            headers,
            body: response.body.clone(),
            private: false,
        }
    }

    /// The response again, for a decoder.
    pub fn response(&self) -> Response {
        let mut headers = HeaderMap::new();
        for (name, value) in &self.headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                headers.append(name, value);
            }
        }
        Response {
            status: self.status,
            headers,
            body: self.body.clone(),
            bytes: None,
            sent: None,
        }
    }
}

/// One read's response in the text, with its age at the export.
#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    #[serde(flatten)]
    response: Recorded,
    /// Milliseconds between the response's arrival and the export.
    age_ms: u64,
    /// Stale on the server already (expired by hand before its time):
    /// the page shows it, and fetches it again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    stale: bool,
}

/// A boundary that showed its fallback on the server: where it sits, the
/// error it showed, and the reads that failed in it.
#[derive(Clone, Serialize, Deserialize)]
struct Fallback {
    boundary: Vec<u32>,
    method: String,
    url: String,
    /// The HTTP status, when the error had one.
    status: Option<u16>,
    /// The excerpt of the body (a status error), or the error's message.
    text: String,
    /// A GraphQL answer's errors: each message and path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    graphql: Option<Vec<(String, Vec<String>)>>,
    keys: Vec<String>,
}

#[cfg(any(feature = "ssr", feature = "hydration"))]
impl Fallback {
    #[cfg(feature = "ssr")]
    fn of(boundary: Vec<u32>, error: &Error, keys: Vec<String>) -> Self {
        Fallback {
            boundary,
            method: error.method().as_str().to_owned(),
            url: error.url().to_owned(),
            status: error.status(),
            text: match error.status() {
                Some(_) => error.excerpt().to_owned(),
                None => error.to_string(),
            },
            graphql: match error.kind() {
                ErrorKind::GraphQl(errors) => Some(
                    errors
                        .iter()
                        .map(|e| (e.message.clone(), e.path.clone()))
                        .collect(),
                ),
                _ => None,
            },
            keys,
        }
    }

    /// The error again: a status error or a GraphQL answer's errors as
    /// they were; another one (a body that did not decode, no answer) as a
    /// network error with its message.
    #[cfg(feature = "hydration")]
    fn error(&self) -> Error {
        let method = Method::from_name(&self.method).unwrap_or(Method::Get);
        if let Some(errors) = &self.graphql {
            let errors = errors
                .iter()
                .map(|(message, path)| GraphQlError::new(message.clone(), path.clone()))
                .collect();
            let status = self.status.unwrap_or(200);
            return Attempt::new(method, &self.url).answered(
                status,
                "",
                ErrorKind::GraphQl(errors),
            );
        }
        match self.status {
            Some(status) => Error::http_status(method, &self.url, status, &self.text),
            None => Attempt::new(method, &self.url).failed(ErrorKind::Network(self.text.clone())),
        }
    }
}

/// A boundary's fallback as the browser shows it while hydrating: where it
/// sits, its error, and the keys of its failed reads.
#[cfg(any(feature = "ssr", feature = "hydration"))]
pub(crate) type HandedFallback = (Vec<u32>, Error, Vec<String>);

/// The text.
#[derive(Serialize, Deserialize)]
struct Text {
    restcache_handoff: u32,
    entries: Vec<Entry>,
    #[serde(default)]
    fallbacks: Vec<Fallback>,
    /// The keys of reads that never wait (`use_dle`, `use_cache`) and
    /// showed nothing on the server: their answer came after they
    /// rendered, or came from a record another read brought later.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    shown_empty: Vec<String>,
}

/// A response waiting in the browser for its first typed read.
pub(crate) struct Pending {
    pub response: Recorded,
    /// When it arrived, on this controller's clock.
    pub arrived: Timestamp,
    /// When this controller took it (a page load): unread for as long as
    /// a result is kept unused, it goes.
    pub taken: Timestamp,
    /// Shown, but refetched at once (its result changed after it came).
    pub stale: bool,
}

impl Pending {
    /// Whether `store` holds a newer result under its key `key` (written
    /// since the page loaded): this answer is older than what it would
    /// stand for, and is neither shown, nor kept, nor saved.
    pub fn outdated(&self, store: &crate::cache::store::Store, key: &str) -> bool {
        store
            .result_meta(key)
            .is_some_and(|meta| meta.fetched_at > self.arrived)
    }
}

/// What the server recorded and the browser took back.
#[derive(Default)]
pub(crate) struct Handoff {
    /// How reads record their responses, when they do (a server render,
    /// a saved cache). A function set by what turns recording on, so that
    /// an app that never records carries none of its code.
    pub recording: Option<fn(&Response) -> Recorded>,
    /// The responses recorded, by key, with when they arrived and the
    /// store's write count once they were stored.
    pub recorded: FxHashMap<String, (Recorded, Timestamp, u64)>,
    /// The responses imported and not read yet, by key.
    pub pending: FxHashMap<String, Pending>,
    /// The records a private endpoint's answer held, by entity key and
    /// pk, until a reset: never saved.
    #[cfg(feature = "persist")]
    pub private_records: rustc_hash::FxHashSet<(&'static str, crate::pk::Pk)>,
    /// Whether a saved cache's mutations were sent again already (only
    /// the first restore of a controller does).
    #[cfg(feature = "persist")]
    pub replayed: bool,
    /// The mark this cache's saved offline mutations carry (set by its
    /// first persist link).
    #[cfg(feature = "persist")]
    pub queue_owner: Option<u64>,
    /// How many persist links the cache has: the last to go lets go of
    /// the lease on its saved mutations.
    #[cfg(feature = "persist")]
    pub persist_links: usize,
    /// The boundaries that showed their fallback: on the server, for the
    /// export; in the browser, until a provider takes them (in a build
    /// with `hydration`; one without it only warns of them).
    fallbacks: Vec<Fallback>,
    /// The keys of reads that never wait and showed nothing: on the
    /// server, noted for the export; in the browser (imported), shown
    /// empty again by their first render, the one that hydrates.
    pub shown_empty: rustc_hash::FxHashSet<String>,
}

/// Why a handoff text was refused: the cache stays as it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HandoffError {
    /// The text is longer than [`MAX_HANDOFF_BYTES`].
    #[error("the cache handoff is {bytes} bytes, over the limit of {limit}")]
    TooLarge {
        /// Its length.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// The text is not a handoff this version reads (another version's,
    /// or not one at all).
    #[error("not a cache handoff this version reads: {0}")]
    Foreign(String),
}

/// `text` as the content of a `<script type="application/json">` element
/// with the id [`HANDOFF_SCRIPT_ID`], to put once in the page.
///
/// ```
/// use restcache::handoff_script;
/// let script = handoff_script(r#"{"title":"\u003c/script>"}"#);
/// assert!(script.starts_with(r#"<script type="application/json" id="restcache-handoff">"#));
/// assert_eq!(script.matches("</script>").count(), 1);
/// ```
pub fn handoff_script(text: &str) -> String {
    format!(
        r#"<script type="application/json" id="{HANDOFF_SCRIPT_ID}">{}</script>"#,
        escaped(text)
    )
}

/// JSON text that no HTML parser reads as markup: `<`, `>` and `&` (and
/// the two line separators JavaScript once broke on) as `\u` escapes,
/// which JSON reads back as the same characters. Outside of strings, JSON
/// has none of them.
fn escaped(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

impl Controller {
    /// Makes this controller's reads keep the responses they get, for
    /// [`export_handoff`](Self::export_handoff). A
    /// [`ServerRender`](crate::yew::ServerRender) turns it on for its
    /// controller.
    pub fn record_for_handoff(&self) {
        self.state_mut().handoff.recording = Some(Recorded::of);
    }

    /// The responses of the reads this controller recorded and still
    /// holds, as one text for the page (embed it with [`handoff_script`]).
    /// It carries what the reads got, nothing else: not the server's
    /// `Set-Cookie`, not the requests' headers. It holds at most
    /// [`MAX_HANDOFF_BYTES`]: past it, the largest responses are left out
    /// (the page fetches those reads), and the fallbacks the server showed
    /// only when they alone are past it. Serve a page that carries
    /// one with `Cache-Control: no-store`: a page taken from a cache (the
    /// Back button, a CDN) hands over data as old as the page, which the
    /// browser counts from when the page was made, not from when the
    /// cache served it.
    ///
    /// ```
    /// use restcache::prelude::*;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// # let api = restcache_demo::DemoApi::start()?;
    /// # restcache_demo::block_on(async {
    /// let server = Controller::new(Client::new(api.url()));
    /// server.record_for_handoff();
    /// let params = TodoResourceParams { id: 1 };
    /// server.fetch(&TodoResource::get(), &params, None).await?;
    /// let text = server.export_handoff();
    ///
    /// let browser = Controller::new(Client::new(api.url()));
    /// assert_eq!(browser.import_handoff(&text), Ok(1));
    /// assert_eq!(browser.read(&TodoResource::get(), &params).status, ExpiryStatus::Valid);
    /// # Ok::<(), restcache::http::Error>(()) })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn export_handoff(&self) -> String {
        let now = self.now();
        let state = self.inner.state.borrow();
        let mut entries: Vec<Entry> = state
            .handoff
            .recorded
            .iter()
            // What the cache still shows as that response gave it: not
            // invalidated, written over, or holding a record gone since.
            .filter_map(|(key, (response, arrived, written))| {
                let standing = state.store.recorded_standing(key, *written, now)?;
                (!standing.changed).then(|| Entry {
                    key: key.clone(),
                    response: response.clone(),
                    age_ms: now.as_micros().saturating_sub(arrived.as_micros()) / 1000,
                    stale: standing.expired,
                })
            })
            .collect();
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        let mut text = Text {
            restcache_handoff: FORMAT,
            entries,
            fallbacks: state.handoff.fallbacks.clone(),
            shown_empty: match state.handoff.recording {
                Some(_) => {
                    let mut keys: Vec<String> = state.handoff.shown_empty.iter().cloned().collect();
                    keys.sort();
                    keys
                }
                None => Vec::new(),
            },
        };
        let whole = escaped(&serde_json::to_string(&text).unwrap_or_default());
        if whole.len() <= MAX_HANDOFF_BYTES {
            return whole;
        }
        // Over the limit, the page would refuse it all (the fallbacks the
        // server showed too): the largest reads stay behind, to be fetched.
        let size =
            |entry: &Entry| escaped(&serde_json::to_string(entry).unwrap_or_default()).len() + 1;
        let sizes: Vec<usize> = text.entries.iter().map(size).collect();
        let mut largest: Vec<usize> = (0..sizes.len()).collect();
        largest.sort_by_key(|&at| std::cmp::Reverse(sizes[at]));
        let mut over = whole.len() - MAX_HANDOFF_BYTES;
        let mut left_out = vec![false; sizes.len()];
        for at in largest {
            if over == 0 {
                break;
            }
            left_out[at] = true;
            over = over.saturating_sub(sizes[at]);
        }
        let mut at = 0;
        text.entries.retain(|_| {
            at += 1;
            !left_out[at - 1]
        });
        let mut trimmed = escaped(&serde_json::to_string(&text).unwrap_or_default());
        // A comma fewer than counted, or fallbacks past the limit alone:
        // the next largest go, then the fallbacks (the page fetches all).
        while trimmed.len() > MAX_HANDOFF_BYTES {
            let next = (0..text.entries.len()).max_by_key(|&at| size(&text.entries[at]));
            match next {
                Some(at) => drop(text.entries.remove(at)),
                None if !text.fallbacks.is_empty() => text.fallbacks.clear(),
                None => break,
            }
            trimmed = escaped(&serde_json::to_string(&text).unwrap_or_default());
        }
        trimmed
    }

    /// Takes back what a server's [`export_handoff`](Self::export_handoff)
    /// wrote (the script's text, as the page holds it): each read's first
    /// typed read decodes its response with its own endpoint, as fetched
    /// that long ago. Returns how many reads it holds. A text that is too
    /// long, corrupt or of another version is refused with an error, and
    /// nothing is taken. The boundaries whose fallback the server showed
    /// show it again while the page hydrates only in a build with the
    /// `hydration` feature: a page to hydrate needs it.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::HandoffError;
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// assert!(matches!(ctrl.import_handoff("not json"), Err(HandoffError::Foreign(_))));
    /// assert_eq!(ctrl.import_handoff(r#"{"restcache_handoff":1,"entries":[]}"#), Ok(0));
    /// ```
    pub fn import_handoff(&self, text: &str) -> Result<usize, HandoffError> {
        if text.len() > MAX_HANDOFF_BYTES {
            return Err(HandoffError::TooLarge {
                bytes: text.len(),
                limit: MAX_HANDOFF_BYTES,
            });
        }
        let text: Text =
            serde_json::from_str(text).map_err(|e| HandoffError::Foreign(e.to_string()))?;
        if text.restcache_handoff != FORMAT {
            return Err(HandoffError::Foreign(format!(
                "format {}, this version reads {FORMAT}",
                text.restcache_handoff
            )));
        }
        let now = self.now();
        let count = text.entries.len();
        let mut state = self.state_mut();
        for entry in text.entries {
            let age = entry.age_ms.saturating_mul(1000);
            let arrived = Timestamp::from_micros(now.as_micros().saturating_sub(age));
            let pending = Pending {
                response: entry.response,
                arrived,
                taken: now,
                stale: entry.stale,
            };
            state.handoff.pending.insert(entry.key, pending);
        }
        state.handoff.fallbacks = text.fallbacks;
        #[cfg(feature = "hydration")]
        if !state.handoff.fallbacks.is_empty() {
            HANDED_OVER.with(|handed| *handed.borrow_mut() = std::rc::Rc::downgrade(&self.inner));
        }
        state.handoff.shown_empty.extend(text.shown_empty);
        Ok(count)
    }

    /// Notes, on a server recording its reads, whether the read `key`,
    /// one that never waits, rendered with nothing to show (its latest
    /// render says): the browser's first render of it shows nothing too,
    /// whatever the handoff brings.
    #[cfg(feature = "yew")]
    pub(crate) fn note_shown_empty(&self, key: &str, empty: bool) {
        let mut state = self.state_mut();
        if state.handoff.recording.is_none() {
            return;
        }
        match empty {
            true => drop(state.handoff.shown_empty.insert(key.to_owned())),
            false => drop(state.handoff.shown_empty.remove(key)),
        }
    }

    /// Forgets what reads that never wait showed: a server render pass
    /// starts again.
    #[cfg(feature = "ssr")]
    pub(crate) fn forget_shown_empty(&self) {
        self.state_mut().handoff.shown_empty.clear();
    }

    /// Whether the read `key` showed nothing on the server whose handoff
    /// this controller took (and has not been let show its data since).
    #[cfg(feature = "yew")]
    pub(crate) fn shown_empty_on_server(&self, key: &str) -> bool {
        self.inner.state.borrow().handoff.shown_empty.contains(key)
    }

    /// Lets the read `key` show what the cache holds: the page hydrated.
    #[cfg(feature = "yew")]
    pub(crate) fn hydrated_empty(&self, key: &str) {
        self.state_mut().handoff.shown_empty.remove(key);
    }

    /// Takes back the handoff the page holds (the text of the element
    /// [`HANDOFF_SCRIPT_ID`], which [`handoff_script`] wrote), and removes
    /// the element, so that it is taken once. `Ok(0)` when the page holds
    /// none (a page the browser rendered alone), and natively.
    /// A [`CacheProvider`](crate::yew::CacheProvider) that builds its
    /// controller from `base_url` in a browser calls it before its first
    /// render, in a build with the `hydration` feature.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// assert_eq!(ctrl.import_handoff_from_page(), Ok(0));
    /// ```
    pub fn import_handoff_from_page(&self) -> Result<usize, HandoffError> {
        #[cfg(target_arch = "wasm32")]
        {
            let Some(element) = handoff_element() else {
                return Ok(0);
            };
            let text = element.text_content().unwrap_or_default();
            element.remove();
            self.import_handoff(&text)
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            Ok(0)
        }
    }

    /// Whether the page holds a handoff (a server rendered it).
    #[cfg(all(target_arch = "wasm32", feature = "yew", not(feature = "hydration")))]
    pub(crate) fn page_holds_handoff() -> bool {
        handoff_element().is_some()
    }

    /// Whether this controller took a handoff whose server showed a
    /// boundary's fallback.
    #[cfg(all(target_arch = "wasm32", feature = "yew", not(feature = "hydration")))]
    pub(crate) fn holds_handed_fallbacks(&self) -> bool {
        !self.inner.state.borrow().handoff.fallbacks.is_empty()
    }

    /// Notes the boundaries a server render showed the fallback of, for
    /// the export.
    #[cfg(feature = "ssr")]
    pub(crate) fn hand_over_fallbacks(&self, shown: Vec<HandedFallback>) {
        let fallbacks = shown
            .into_iter()
            .map(|(boundary, error, keys)| Fallback::of(boundary, &error, keys));
        self.state_mut().handoff.fallbacks = fallbacks.collect();
    }

    /// The controller that took the last handoff with fallbacks in it,
    /// while it holds them: a boundary above every provider, which
    /// renders before the provider of that controller, takes them there.
    #[cfg(feature = "hydration")]
    pub(crate) fn holding_handed_fallbacks() -> Option<Controller> {
        let inner = HANDED_OVER.with(|handed| handed.borrow().upgrade())?;
        let holds = !inner.state.borrow().handoff.fallbacks.is_empty();
        holds.then_some(Controller { inner })
    }

    /// Takes the boundaries an imported page showed the fallback of: a
    /// provider shows them again as it hydrates.
    #[cfg(feature = "hydration")]
    pub(crate) fn take_handed_fallbacks(&self) -> Vec<HandedFallback> {
        let fallbacks = std::mem::take(&mut self.state_mut().handoff.fallbacks);
        fallbacks
            .into_iter()
            .map(|fallback| {
                let error = fallback.error();
                (fallback.boundary, error, fallback.keys)
            })
            .collect()
    }
}

#[cfg(feature = "hydration")]
thread_local! {
    /// The controller that took the last handoff with fallbacks in it.
    static HANDED_OVER: std::cell::RefCell<std::rc::Weak<super::Inner>> =
        const { std::cell::RefCell::new(std::rc::Weak::new()) };
}

/// The page's handoff element, if it holds one.
#[cfg(target_arch = "wasm32")]
fn handoff_element() -> Option<web_sys::Element> {
    web_sys::window()
        .and_then(|window| window.document())
        .and_then(|document| document.get_element_by_id(HANDOFF_SCRIPT_ID))
}

impl Controller {
    /// Stores the response the handoff holds for `key`, if any, decoded by
    /// `endpoint` for `params`, as arrived when the server got it. One
    /// the endpoint cannot decode is dropped: the read fetches.
    pub(super) fn adopt<P: serde::Serialize, S: Schema, E: Effect>(
        &self,
        state: &mut State,
        endpoint: &Endpoint<P, S, E>,
        params: &P,
        key: &str,
    ) {
        let Some(pending) = state.handoff.pending.remove(key) else {
            return;
        };
        if pending.outdated(&state.store, key) {
            return;
        }
        let Ok(value) = endpoint.decode(&pending.response.response(), params) else {
            return;
        };
        let delivery = Delivery {
            key,
            url: key,
            started: pending.arrived,
            arrived: pending.arrived,
        };
        if self
            .store_success(state, endpoint, params, value, delivery, false)
            .is_ok()
        {
            if pending.stale {
                state.store.expire_result(key);
            }
            if state.handoff.recording.is_some() {
                // Kept for the next save, stale as it came (a write count
                // of 0 is older than the result's).
                let written = match pending.stale {
                    true => 0,
                    false => state.store.writes(),
                };
                state
                    .handoff
                    .recorded
                    .insert(key.to_owned(), (pending.response, pending.arrived, written));
            }
            self.inner.notify_due.set(true);
        }
    }
}
