//! Where a controller gets "now" from, and how it waits: the wall clock,
//! or one a test moves.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use futures_util::future::LocalBoxFuture;

use crate::meta::Timestamp;

/// A source of the current time for a [`Controller`](crate::Controller),
/// and its timer.
///
/// Expiry (stale-while-revalidate, error expiry) is computed against it,
/// and the controller's timers (polling) wait on it, so tests drive time
/// with a [`ManualClock`] instead of sleeping.
///
/// ```
/// use restcache::{Clock, Timestamp};
///
/// /// A clock stopped at one moment, whose timers fire at once.
/// struct Frozen(Timestamp);
/// impl Clock for Frozen {
///     fn now(&self) -> Timestamp { self.0 }
///     fn sleep(&self, _: std::time::Duration) -> futures_util::future::LocalBoxFuture<'static, ()> {
///         Box::pin(async {})
///     }
/// }
/// assert_eq!(Frozen(Timestamp::from_millis(7)).now(), Timestamp::from_millis(7));
/// ```
pub trait Clock {
    /// The time now.
    fn now(&self) -> Timestamp;

    /// Resolves once `duration` has passed on this clock (the wall clock's
    /// timer by default).
    fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()> {
        Box::pin(futures_timer::Delay::new(duration))
    }
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

/// A clock that moves only when told, and whose timers fire when it has
/// moved far enough; clones share one time.
///
/// ```
/// use restcache::{Clock, ManualClock, Timestamp};
/// use std::time::Duration;
///
/// let clock = ManualClock::at(Timestamp::from_millis(1_000));
/// let seen_by_controller = clock.clone();
/// let mut timer = seen_by_controller.sleep(Duration::from_secs(5));
/// clock.advance(Duration::from_secs(2));
/// assert_eq!(seen_by_controller.now(), Timestamp::from_millis(3_000));
/// assert!(futures_util::FutureExt::now_or_never(&mut timer).is_none());
/// clock.advance(Duration::from_secs(3));
/// assert!(futures_util::FutureExt::now_or_never(&mut timer).is_some());
/// ```
#[derive(Clone, Debug, Default)]
pub struct ManualClock(Rc<RefCell<Manual>>);

#[derive(Debug, Default)]
struct Manual {
    now: Timestamp,
    /// The timers waiting: each one's number, when it fires, and its task.
    timers: Vec<(u64, Timestamp, Waker)>,
    /// Numbers the timers.
    made: u64,
}

impl ManualClock {
    /// A clock showing `now`.
    ///
    /// ```
    /// use restcache::{Clock, ManualClock, Timestamp};
    /// assert_eq!(ManualClock::at(Timestamp::from_millis(9)).now(), Timestamp::from_millis(9));
    /// ```
    pub fn at(now: Timestamp) -> Self {
        ManualClock(Rc::new(RefCell::new(Manual {
            now,
            ..Manual::default()
        })))
    }

    /// Moves the clock forward by `by`, waking the timers due by then.
    ///
    /// ```
    /// use restcache::{Clock, ManualClock, Timestamp};
    /// use std::time::Duration;
    /// let clock = ManualClock::at(Timestamp::from_millis(0));
    /// clock.advance(Duration::from_millis(5));
    /// assert_eq!(clock.now(), Timestamp::from_millis(5));
    /// ```
    pub fn advance(&self, by: Duration) {
        let now = self.0.borrow().now + by;
        self.set(now);
    }

    /// Sets the time, waking the timers due by then.
    ///
    /// ```
    /// use restcache::{Clock, ManualClock, Timestamp};
    /// let clock = ManualClock::at(Timestamp::from_millis(0));
    /// clock.set(Timestamp::from_millis(40));
    /// assert_eq!(clock.now(), Timestamp::from_millis(40));
    /// ```
    pub fn set(&self, now: Timestamp) {
        let due: Vec<Waker> = {
            let mut manual = self.0.borrow_mut();
            manual.now = now;
            let (due, waiting) = std::mem::take(&mut manual.timers)
                .into_iter()
                .partition(|(_, at, _)| *at <= now);
            manual.timers = waiting;
            due.into_iter().map(|(_, _, waker)| waker).collect()
        };
        for waker in due {
            waker.wake();
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        self.0.borrow().now
    }

    fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()> {
        let mut manual = self.0.borrow_mut();
        manual.made += 1;
        Box::pin(ManualTimer {
            clock: self.clone(),
            id: manual.made,
            at: manual.now + duration,
        })
    }
}

/// A timer of a [`ManualClock`]: ready once the clock reads `at`.
struct ManualTimer {
    clock: ManualClock,
    id: u64,
    at: Timestamp,
}

impl Future for ManualTimer {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut manual = self.clock.0.borrow_mut();
        if manual.now >= self.at {
            return Poll::Ready(());
        }
        let waker = cx.waker().clone();
        match manual.timers.iter_mut().find(|(id, _, _)| *id == self.id) {
            Some(timer) => timer.2 = waker,
            None => manual.timers.push((self.id, self.at, waker)),
        }
        Poll::Pending
    }
}

impl Drop for ManualTimer {
    fn drop(&mut self) {
        if let Ok(mut manual) = self.clock.0.try_borrow_mut() {
            manual.timers.retain(|(id, _, _)| *id != self.id);
        }
    }
}

#[cfg(any(feature = "live", all(feature = "persist", target_arch = "wasm32")))]
impl super::Controller {
    /// Waits `duration` on the controller's clock.
    pub(crate) fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()> {
        self.inner.clock.sleep(duration)
    }
}
