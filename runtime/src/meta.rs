//! Times and the meta kept beside every stored result and entity.

use std::time::Duration;

/// A point in time since the Unix epoch, to the microsecond.
///
/// The store never reads a clock: every write carries its times, so tests
/// and the controller decide what "now" is. A controller gives every
/// request a start time of its own, a microsecond after the previous one
/// when two start within one tick of the clock, so that start order breaks
/// every tie.
///
/// ```
/// use restcache::Timestamp;
/// use std::time::Duration;
///
/// let t = Timestamp::from_millis(1_000);
/// assert_eq!(t + Duration::from_secs(60), Timestamp::from_millis(61_000));
/// assert!(Timestamp::now() > t);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(u64);

impl Timestamp {
    /// The time `millis` milliseconds after the Unix epoch.
    pub const fn from_millis(millis: u64) -> Self {
        Timestamp(millis.saturating_mul(1_000))
    }

    /// The time `micros` microseconds after the Unix epoch.
    ///
    /// ```
    /// use restcache::Timestamp;
    /// assert_eq!(Timestamp::from_micros(2_500).as_millis(), 2);
    /// ```
    pub const fn from_micros(micros: u64) -> Self {
        Timestamp(micros)
    }

    /// Milliseconds since the Unix epoch (rounded down).
    pub const fn as_millis(self) -> u64 {
        self.0 / 1_000
    }

    /// Microseconds since the Unix epoch.
    pub const fn as_micros(self) -> u64 {
        self.0
    }

    /// The time a microsecond later: what a controller gives a request
    /// that starts within the same tick as the previous one.
    pub const fn next(self) -> Self {
        Timestamp(self.0.saturating_add(1))
    }

    /// The wall-clock time now (also on `wasm32`, through `web-time`).
    pub fn now() -> Self {
        let since = web_time::SystemTime::now()
            .duration_since(web_time::UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp(u64::try_from(since.as_micros()).unwrap_or(u64::MAX))
    }
}

impl std::ops::Add<Duration> for Timestamp {
    type Output = Timestamp;

    /// Saturates instead of overflowing.
    fn add(self, rhs: Duration) -> Timestamp {
        let micros = u64::try_from(rhs.as_micros()).unwrap_or(u64::MAX);
        Timestamp(self.0.saturating_add(micros))
    }
}

/// When a stored value was fetched and until when it is fresh.
///
/// `fetched_at` is when the request *started*: of two responses touching
/// one record, the one that started later wins, whatever order they arrive
/// in. `date` is when the response arrived; `expires_at` when it goes stale.
///
/// ```
/// use restcache::{Meta, Timestamp};
/// use std::time::Duration;
///
/// let meta = Meta::fetched(Timestamp::from_millis(0), Timestamp::from_millis(40), Duration::from_secs(60));
/// assert_eq!(meta.expires_at, Timestamp::from_millis(60_040));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// When the request that produced the value started.
    pub fetched_at: Timestamp,
    /// When its response arrived.
    pub date: Timestamp,
    /// When the value turns stale.
    pub expires_at: Timestamp,
}

impl Meta {
    /// The meta of a response that started at `fetched_at`, arrived at
    /// `date` and stays fresh for `expiry` after arriving.
    pub fn fetched(fetched_at: Timestamp, date: Timestamp, expiry: Duration) -> Self {
        Meta {
            fetched_at,
            date,
            expires_at: date + expiry,
        }
    }
}
