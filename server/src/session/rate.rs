//! A token bucket: the per-connection rate limit on incoming frames.

use tokio::time::Instant;

/// The burst of the second bucket, for keep-alives and `resume`: room for a resume of
/// every game a session may follow, twice, and never less than the main burst.
pub fn light_burst(burst: f64) -> f64 {
    burst.max(2.0 * super::MAX_SUBSCRIPTIONS as f64)
}

/// `burst` tokens, refilled at `rate` per second; each frame takes one.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(rate: f64, burst: f64, now: Instant) -> TokenBucket {
        TokenBucket {
            rate,
            burst,
            tokens: burst,
            last: now,
        }
    }

    /// Takes a token if there is one.
    pub fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn burst_then_rate() {
        let t0 = Instant::now();
        let mut b = TokenBucket::new(2.0, 3.0, t0);
        assert!((0..3).all(|_| b.take(t0)));
        assert!(!b.take(t0));
        assert!(b.take(t0 + Duration::from_millis(500)));
        assert!(!b.take(t0 + Duration::from_millis(600)));
        assert!((0..3).all(|_| b.take(t0 + Duration::from_secs(60))));
        assert!(!b.take(t0 + Duration::from_secs(60)));
    }
}
