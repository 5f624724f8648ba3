//! Where a controller gets "now" from: the wall clock, or one a test moves.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use crate::meta::Timestamp;

/// A source of the current time for a [`Controller`](crate::Controller).
///
/// Expiry (stale-while-revalidate, error expiry) is computed against it, so
/// tests drive time with a [`ManualClock`] instead of sleeping.
pub trait Clock {
    /// The time now.
    fn now(&self) -> Timestamp;
}

/// The wall clock (`web-time`, so it works in browsers too).
///
/// ```
/// use restcache::{Clock, SystemClock, Timestamp};
/// assert!(SystemClock.now() > Timestamp::from_millis(0));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// A clock that moves only when told; clones share one time.
///
/// ```
/// use restcache::{Clock, ManualClock, Timestamp};
/// use std::time::Duration;
///
/// let clock = ManualClock::at(Timestamp::from_millis(1_000));
/// let seen_by_controller = clock.clone();
/// clock.advance(Duration::from_secs(2));
/// assert_eq!(seen_by_controller.now(), Timestamp::from_millis(3_000));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ManualClock(Rc<Cell<Timestamp>>);

impl ManualClock {
    /// A clock showing `now`.
    pub fn at(now: Timestamp) -> Self {
        ManualClock(Rc::new(Cell::new(now)))
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        self.0.set(self.0.get() + by);
    }

    /// Sets the time.
    pub fn set(&self, now: Timestamp) {
        self.0.set(now);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        self.0.get()
    }
}
