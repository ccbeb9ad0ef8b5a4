//! The clock's own time types: [`Millis`], a span of milliseconds, and [`Timestamp`], an
//! instant counted in milliseconds from an origin the caller chooses.
//!
//! Nothing here reads the system time. The server turns its monotonic clock into
//! timestamps (for example milliseconds since the process or the game started) and passes
//! them in; tests pass literal numbers. All arithmetic saturates instead of overflowing
//! or wrapping, so no input a caller controls can panic.

use std::fmt;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

/// A span of time in whole milliseconds.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Millis(pub u64);

impl Millis {
    /// No time at all.
    pub const ZERO: Millis = Millis(0);

    /// `ms` milliseconds.
    pub const fn ms(ms: u64) -> Millis {
        Millis(ms)
    }

    /// `s` seconds.
    pub const fn secs(s: u64) -> Millis {
        Millis(s.saturating_mul(1_000))
    }

    /// `m` minutes.
    pub const fn mins(m: u64) -> Millis {
        Millis(m.saturating_mul(60_000))
    }

    /// `h` hours.
    pub const fn hours(h: u64) -> Millis {
        Millis(h.saturating_mul(3_600_000))
    }

    /// The number of milliseconds.
    pub const fn as_ms(self) -> u64 {
        self.0
    }

    /// `self - other`, or zero when `other` is larger.
    pub const fn saturating_sub(self, other: Millis) -> Millis {
        Millis(self.0.saturating_sub(other.0))
    }

    /// `self + other`, saturating at the largest value.
    pub const fn saturating_add(self, other: Millis) -> Millis {
        Millis(self.0.saturating_add(other.0))
    }

    /// `self * n`, saturating at the largest value.
    pub const fn saturating_mul(self, n: u64) -> Millis {
        Millis(self.0.saturating_mul(n))
    }

    /// Whether this is zero.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }
}

impl Add for Millis {
    type Output = Millis;
    /// Saturating addition.
    fn add(self, rhs: Millis) -> Millis {
        self.saturating_add(rhs)
    }
}

impl AddAssign for Millis {
    fn add_assign(&mut self, rhs: Millis) {
        *self = self.saturating_add(rhs);
    }
}

impl fmt::Display for Millis {
    /// `m:ss.mmm`, or `h:mm:ss.mmm` from an hour up.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0 % 1_000;
        let total_s = self.0 / 1_000;
        let (h, m, s) = (total_s / 3_600, (total_s / 60) % 60, total_s % 60);
        if h > 0 {
            write!(f, "{h}:{m:02}:{s:02}.{ms:03}")
        } else {
            write!(f, "{m}:{s:02}.{ms:03}")
        }
    }
}

/// An instant, in milliseconds after an origin chosen by the caller.
///
/// Only differences between timestamps mean anything; a clock must be driven by
/// timestamps from one origin.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// The instant `ms` milliseconds after the origin.
    pub const fn ms(ms: u64) -> Timestamp {
        Timestamp(ms)
    }

    /// How long after `earlier` this instant is, or `None` if it is before `earlier`.
    pub const fn since(self, earlier: Timestamp) -> Option<Millis> {
        match self.0.checked_sub(earlier.0) {
            Some(d) => Some(Millis(d)),
            None => None,
        }
    }

    /// How long after `earlier` this instant is, or zero if it is before `earlier`.
    pub const fn saturating_since(self, earlier: Timestamp) -> Millis {
        Millis(self.0.saturating_sub(earlier.0))
    }
}

impl Add<Millis> for Timestamp {
    type Output = Timestamp;
    /// Saturating: the latest representable instant is the limit.
    fn add(self, rhs: Millis) -> Timestamp {
        Timestamp(self.0.saturating_add(rhs.0))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t+{}ms", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(Millis(5).saturating_sub(Millis(7)), Millis::ZERO);
        assert_eq!(Millis(u64::MAX) + Millis(1), Millis(u64::MAX));
        assert_eq!(Timestamp(3).since(Timestamp(5)), None);
        assert_eq!(Timestamp(5).since(Timestamp(3)), Some(Millis(2)));
        assert_eq!(Timestamp(u64::MAX) + Millis(9), Timestamp(u64::MAX));
    }

    #[test]
    fn display() {
        assert_eq!(Millis::mins(3).to_string(), "3:00.000");
        assert_eq!(
            Millis::hours(2).saturating_add(Millis(61_005)).to_string(),
            "2:01:01.005"
        );
    }
}
