//! Retrying reads: a read that fails soft (a 5xx, no network, no answer in
//! time) tries again a few times, each wait about twice the last, with
//! jitter so that many clients do not retry in step. Hard errors are never
//! retried, and mutations never are.

use std::time::Duration;

/// How a read retries after a soft error.
///
/// ```
/// use restcache::Retry;
/// use std::time::Duration;
///
/// let retry = Retry::default();
/// assert_eq!(retry.attempts, 3);
/// // Each wait is between half and all of twice the last.
/// let second = retry.delay(1, 7);
/// assert!(second >= retry.first_delay && second <= retry.first_delay * 2);
/// assert_eq!(Retry::NONE.attempts, 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    /// How many times a read tries again after its first request.
    pub attempts: u32,
    /// The wait before the first retry (before jitter).
    pub first_delay: Duration,
    /// The longest wait between two tries.
    pub max_delay: Duration,
}

impl Retry {
    /// No retry: a read's first soft error is its answer.
    pub const NONE: Retry = Retry {
        attempts: 0,
        first_delay: Duration::ZERO,
        max_delay: Duration::ZERO,
    };

    /// The wait before retry number `retry` (0 for the first): the first
    /// delay doubled `retry` times, at most the max, then jittered into
    /// its upper half by `seed`.
    pub fn delay(&self, retry: u32, seed: u64) -> Duration {
        let doubled = self
            .first_delay
            .saturating_mul(1_u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX));
        let full = doubled.min(self.max_delay);
        let fraction = (mix(seed) % 1_000) as f64 / 1_000.0;
        full.mul_f64(0.5 + fraction / 2.0)
    }
}

/// Three retries, from 250 ms, at most 5 s apart.
impl Default for Retry {
    fn default() -> Self {
        Retry {
            attempts: 3,
            first_delay: Duration::from_millis(250),
            max_delay: Duration::from_secs(5),
        }
    }
}

/// A well-mixed number from `seed` (splitmix64): jitter needs no more.
fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
