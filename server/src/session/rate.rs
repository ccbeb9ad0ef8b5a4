//! The per-connection rate limits on incoming frames: governor's GCRA limiters (a
//! token bucket measured in time), `burst` frames at once and `rate` a second after.

use std::num::NonZeroU32;
use std::sync::LazyLock;
use std::time::Duration;

use governor::clock::QuantaClock;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

/// The burst of the second limiter, for keep-alives and `resume`: room for a resume of
/// every game a session may follow, twice, and never less than the main burst.
pub fn light_burst(burst: f64) -> f64 {
    burst.max(2.0 * super::MAX_SUBSCRIPTIONS as f64)
}

/// `burst` frames at once, refilled at `rate` a second (the configuration checks
/// `rate > 0` and `burst >= 1`; out-of-range values are clamped, never a panic).
fn quota(rate: f64, burst: f64) -> Quota {
    let burst =
        NonZeroU32::new(burst.clamp(1.0, f64::from(u32::MAX)) as u32).unwrap_or(NonZeroU32::MIN);
    let period = Duration::try_from_secs_f64(1.0 / rate).unwrap_or(Duration::from_secs(1));
    Quota::with_period(period)
        .unwrap_or_else(|| Quota::per_second(NonZeroU32::MAX))
        .allow_burst(burst)
}

/// One connection's limiter: [`Limiter::check`] takes a frame's place or refuses it.
pub type Limiter = DefaultDirectRateLimiter;

/// The clock every connection's limiters read. Made once: making one asks the CPU
/// whether its time-stamp counter can be trusted (`cpuid`, a trap to the hypervisor
/// in a virtual machine), which was over a quarter of the node's time in a burst's
/// connect phase when each limiter made its own (`docs/performance.md`, "A paired
/// join's answer in its start's write").
static CLOCK: LazyLock<QuantaClock> = LazyLock::new(QuantaClock::default);

/// A full limiter: `burst` frames now, then `rate` a second.
pub fn limiter(rate: f64, burst: f64) -> Limiter {
    RateLimiter::direct_with_clock(quota(rate, burst), CLOCK.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use governor::clock::FakeRelativeClock;

    #[test]
    fn burst_then_rate() {
        let clock = FakeRelativeClock::default();
        let l = RateLimiter::direct_with_clock(quota(2.0, 3.0), clock.clone());
        assert!((0..3).all(|_| l.check().is_ok()));
        assert!(l.check().is_err());
        clock.advance(Duration::from_millis(500));
        assert!(l.check().is_ok());
        clock.advance(Duration::from_millis(100));
        assert!(l.check().is_err());
        clock.advance(Duration::from_secs(60));
        assert!((0..3).all(|_| l.check().is_ok()));
        assert!(l.check().is_err());
    }

    #[test]
    fn odd_settings_are_clamped() {
        for (rate, burst) in [(1e-300, 0.0), (f64::MAX, 1e12), (0.5, 1.5)] {
            let l = limiter(rate, burst);
            assert!(l.check().is_ok(), "{rate} {burst}");
        }
    }
}
