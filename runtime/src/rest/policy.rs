//! An endpoint's error policy: whether a failed read leaves the data it
//! has on show (soft) or takes its place (hard).

use crate::http::Error;

/// What a failed read does to the data on show, as its endpoint decides
/// ([`Endpoint::with_error_policy`](super::Endpoint::with_error_policy)).
///
/// - **Soft**: cached data stays on show (and readable); the error is kept
///   beside it, reported only when asked for (`use_soft_error`,
///   [`Dle::soft_error`](crate::yew::Dle)). With nothing cached, it is the
///   read's answer like any error.
/// - **Hard**: the error takes the data's place: a suspense read hands it
///   to the nearest error boundary, `use_error` reports it.
///
/// The default, [`ErrorPolicy::by_kind`], calls soft what may pass by
/// itself (a 5xx status, no response, no response in time) and hard the
/// rest (a 4xx status, a body that does not decode). An error a poll gets
/// while data is on show never takes the data's place, whatever its policy.
///
/// ```
/// use restcache::http::{Error, Method};
/// use restcache::rest::ErrorPolicy;
///
/// let unavailable = Error::http_status(Method::Get, "http://h/x", 503, "");
/// let gone = Error::http_status(Method::Get, "http://h/x", 404, "");
/// assert_eq!(ErrorPolicy::by_kind(&unavailable), ErrorPolicy::Soft);
/// assert_eq!(ErrorPolicy::by_kind(&gone), ErrorPolicy::Hard);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorPolicy {
    /// The data on show stays; the error sits beside it.
    Soft,
    /// The error takes the data's place.
    Hard,
}

impl ErrorPolicy {
    /// The default policy: [`Soft`](Self::Soft) for an error that may pass
    /// by itself ([`Error::is_soft`]: a 5xx, no response, a timeout),
    /// [`Hard`](Self::Hard) for the rest.
    ///
    /// ```
    /// use restcache::http::{Error, Method};
    /// use restcache::rest::ErrorPolicy;
    /// let bad = Error::http_status(Method::Get, "http://h/x", 400, "");
    /// assert_eq!(ErrorPolicy::by_kind(&bad), ErrorPolicy::Hard);
    /// ```
    pub fn by_kind(error: &Error) -> Self {
        match error.is_soft() {
            true => ErrorPolicy::Soft,
            false => ErrorPolicy::Hard,
        }
    }
}

/// Decides the [`ErrorPolicy`] of an endpoint's errors.
pub type ErrorPolicyFn = fn(&Error) -> ErrorPolicy;
