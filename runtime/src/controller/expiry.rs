//! The expiry status of a read: whether to fetch, and whether to wait.

use std::fmt;
use std::rc::Rc;

use crate::cache::schema::Schema;
use crate::http::Error;
use crate::meta::{Meta, Timestamp};

/// How fresh the cached answer to a read is.
///
/// | status | fetch | suspend | when |
/// |---|---|---|---|
/// | `Invalid` | yes (deduplicated) | yes | nothing cached, deleted, invalidated, or stale with `invalid_if_stale` |
/// | `Stale` | yes (deduplicated) | no | cached data whose expiry is earlier than now |
/// | `Valid` | no | no | fresh data, or an error that has not expired yet |
///
/// ```
/// use restcache::prelude::*;
/// use std::time::Duration;
///
/// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
/// struct Todo { id: u64 }
/// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
///
/// let clock = ManualClock::at(Timestamp::from_millis(0));
/// let ctrl = Controller::builder(Client::new("http://127.0.0.1:8080")).clock(clock.clone()).build();
/// let list = TodoResource::get_list();
/// assert_eq!(ctrl.read(&list, &()).status, ExpiryStatus::Invalid);
/// ctrl.set_response(&list, &(), vec![])?;
/// assert_eq!(ctrl.read(&list, &()).status, ExpiryStatus::Valid);
/// clock.advance(Duration::from_secs(61));
/// assert_eq!(ctrl.read(&list, &()).status, ExpiryStatus::Stale);
/// # Ok::<(), restcache::WriteError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExpiryStatus {
    /// Fetch, and wait for it: there is nothing to show.
    Invalid,
    /// Show what is cached and fetch again in the background.
    Stale,
    /// Show what is cached; no fetch.
    Valid,
}

/// What the cache holds for one read: the data (denormalized, `Rc`s that
/// keep their identity while nothing changes), its status, when it
/// expires, and the error of the last request when it has not expired.
///
/// `data` is the schema's [`Handle`](Schema::Handle): `Rc<E>` for a
/// record, `Rc<S>` for a list or an envelope.
///
/// ```
/// use restcache::{Cached, ExpiryStatus};
///
/// let nothing = Cached::<serde_json::Value>::absent();
/// assert_eq!(nothing.status, ExpiryStatus::Invalid);
/// assert!(nothing.needs_fetch());
/// ```
pub struct Cached<S: Schema> {
    /// The data, if the cache holds a readable copy.
    pub data: Option<S::Handle>,
    /// Whether to fetch, and whether to wait for it.
    pub status: ExpiryStatus,
    /// When the data (or the error) expires.
    pub expires_at: Timestamp,
    /// The error of the last request for this read, while it has not
    /// expired; a soft one may sit beside data, which stays readable.
    pub error: Option<Error>,
    /// Whether a request for this read is on its way (a first load, a
    /// refetch, or its retries): what a "refreshing" indicator shows.
    pub fetching: bool,
    /// Whether `error` is soft by its endpoint's
    /// [`ErrorPolicy`](crate::rest::ErrorPolicy): data on show stays, and
    /// the error is reported only when asked for
    /// ([`soft_error`](Self::soft_error)).
    pub error_is_soft: bool,
    /// Whether `error` came from a poll while data was on show: it stays
    /// beside the data, whatever its kind, and never takes its place
    /// ([`settled`](Self::settled) gives the data).
    pub polled_error: bool,
}

impl<S: Schema> Clone for Cached<S> {
    fn clone(&self) -> Self {
        Cached {
            data: self.data.clone(),
            status: self.status,
            expires_at: self.expires_at,
            error: self.error.clone(),
            fetching: self.fetching,
            error_is_soft: self.error_is_soft,
            polled_error: self.polled_error,
        }
    }
}

impl<S: Schema> fmt::Debug for Cached<S>
where
    S::Handle: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cached")
            .field("data", &self.data)
            .field("status", &self.status)
            .field("expires_at", &self.expires_at)
            .field("error", &self.error)
            .field("fetching", &self.fetching)
            .field("error_is_soft", &self.error_is_soft)
            .field("polled_error", &self.polled_error)
            .finish()
    }
}

impl<S: Schema> Cached<S> {
    /// Nothing cached.
    pub fn absent() -> Self {
        Cached {
            data: None,
            status: ExpiryStatus::Invalid,
            expires_at: Timestamp::default(),
            error: None,
            fetching: false,
            error_is_soft: false,
            polled_error: false,
        }
    }

    /// Whether a read should fetch (Invalid or Stale).
    pub fn needs_fetch(&self) -> bool {
        self.status != ExpiryStatus::Valid
    }

    /// What a suspense read hands out: the data, or the error a UI shows
    /// in its error boundary (a hard error always, unless a poll made it
    /// while data was on show; a soft one only when there is no data to
    /// show). `None` while there is neither: suspend.
    pub fn settled(&self) -> Option<Result<S::Handle, Error>> {
        match (&self.data, &self.error) {
            (Some(data), Some(_)) if self.keeps_data() => Some(Ok(data.clone())),
            (_, Some(error)) => Some(Err(error.clone())),
            (Some(data), None) => Some(Ok(data.clone())),
            (None, None) => None,
        }
    }

    /// The error a view reports unasked: a hard one (a poll's too), and
    /// any error with no data to show. A soft error beside data on show is
    /// left out: see [`soft_error`](Self::soft_error).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::http::Error;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// let down = Error::http_status(Method::Get, "http://h/todos", 503, "");
    /// let cached = Cached::<Vec<Rc<Todo>>> {
    ///     data: Some(Rc::new(vec![])),
    ///     error: Some(down),
    ///     error_is_soft: true,
    ///     ..Cached::absent()
    /// };
    /// assert!(cached.error().is_none());
    /// assert!(cached.soft_error().is_some());
    /// ```
    pub fn error(&self) -> Option<&Error> {
        match self.keeps_data() && self.error_is_soft {
            true => None,
            false => self.error.as_ref(),
        }
    }

    /// A soft error beside data on show (a refetch failed with a 5xx, say):
    /// what a view reports when it asks, e.g. "showing older data".
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::http::Error;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    ///
    /// // With no data to show, a soft error is the read's error.
    /// let down = Error::http_status(Method::Get, "http://h/todos", 503, "");
    /// let nothing = Cached::<Vec<Rc<Todo>>> { error: Some(down), error_is_soft: true, ..Cached::absent() };
    /// assert!(nothing.soft_error().is_none());
    /// assert!(nothing.error().is_some());
    /// ```
    pub fn soft_error(&self) -> Option<&Error> {
        match self.keeps_data() && self.error_is_soft {
            true => self.error.as_ref(),
            false => None,
        }
    }

    /// Whether the data stays on show beside the error.
    fn keeps_data(&self) -> bool {
        self.data.is_some() && (self.error_is_soft || self.polled_error)
    }
}

/// An error kept for a read: as fresh as the request that failed.
#[derive(Debug, Clone)]
pub(crate) struct StoredError {
    pub error: Error,
    /// When the failed request started and when the error expires.
    pub meta: Meta,
    /// Tells one stored error from the next (for change notification).
    pub serial: u64,
    /// Soft by its endpoint's error policy.
    pub soft: bool,
    /// Made by a poll: with data on show, it stays beside the data.
    pub polled: bool,
}

/// The status of `data` (stored with `meta`) and `error` at `now`.
pub(crate) fn classify<S: Schema>(
    data: Option<(Rc<S>, Meta)>,
    error: Option<&StoredError>,
    now: Timestamp,
    invalid_if_stale: bool,
) -> Cached<S> {
    // An error counts while it has not expired and is not older than the
    // data (a later success clears it).
    let error = error.filter(|e| {
        now <= e.meta.expires_at
            && data
                .as_ref()
                .is_none_or(|(_, meta)| meta.fetched_at <= e.meta.fetched_at)
    });
    if let Some(stored) = error {
        return Cached {
            error_is_soft: stored.soft,
            polled_error: stored.polled && data.is_some(),
            data: data.map(|(value, _)| S::into_handle(value)),
            status: ExpiryStatus::Valid,
            expires_at: stored.meta.expires_at,
            error: Some(stored.error.clone()),
            fetching: false,
        };
    }
    let Some((value, meta)) = data else {
        return Cached::absent();
    };
    let status = match meta.expires_at < now {
        false => ExpiryStatus::Valid,
        true if invalid_if_stale => {
            return Cached {
                expires_at: meta.expires_at,
                ..Cached::absent()
            };
        }
        true => ExpiryStatus::Stale,
    };
    Cached {
        data: Some(S::into_handle(value)),
        status,
        expires_at: meta.expires_at,
        error: None,
        fetching: false,
        error_is_soft: false,
        polled_error: false,
    }
}
