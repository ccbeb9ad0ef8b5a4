//! Time management: how long one move may take, from the side to move's clock. A soft
//! budget ends the iterative deepening between iterations; a hard one stops the search
//! in the middle, so the clock never falls.

use crate::ClockLimits;

/// The two budgets of one move, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Budget {
    /// No new iteration starts after this.
    pub soft_ms: u64,
    /// The search stops here whatever it is doing.
    pub hard_ms: u64,
}

/// Kept back on every move for the network and the server's own work.
const SAFETY_MS: u64 = 60;
/// Sudden death and Fischer: the moves the remaining time is spread over.
const HORIZON_MOVES: u64 = 30;

/// The budget of a move on `clock`: the remaining time spread over the moves to the
/// next control (or a horizon of 30 in sudden death and Fischer), plus most of the
/// increment and the whole delay (which is not taken from the clock); the hard stop at
/// three times that, never more than a fifth of what is left.
pub(crate) fn budget(clock: &ClockLimits) -> Budget {
    let usable = clock.remaining_ms.saturating_sub(SAFETY_MS);
    let moves = clock
        .moves_to_go
        .map_or(HORIZON_MOVES, |m| u64::from(m.clamp(1, 60)) + 1);
    let base = usable / moves + clock.increment_ms * 3 / 4;
    let ceiling = usable / 5 + clock.delay_ms;
    let soft = (base + clock.delay_ms).min(ceiling).max(1);
    let hard = (soft * 3).min(ceiling).max(soft);
    Budget {
        soft_ms: soft,
        hard_ms: hard,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(remaining_ms: u64, increment_ms: u64, moves_to_go: Option<u32>) -> ClockLimits {
        ClockLimits {
            remaining_ms,
            increment_ms,
            moves_to_go,
            delay_ms: 0,
        }
    }

    #[test]
    fn sudden_death_spreads_the_time_and_never_takes_a_fifth() {
        let b = budget(&clock(60_000, 0, None));
        assert_eq!(b.soft_ms, (60_000 - SAFETY_MS) / 30);
        assert!(b.hard_ms <= (60_000 - SAFETY_MS) / 5);
        let low = budget(&clock(500, 0, None));
        assert!(low.hard_ms <= 88, "{low:?}");
    }

    #[test]
    fn increment_and_periods_and_delay_count() {
        let fischer = budget(&clock(10_000, 2_000, None));
        assert!(fischer.soft_ms > budget(&clock(10_000, 0, None)).soft_ms);
        let period = budget(&clock(10_000, 0, Some(4)));
        assert_eq!(period.soft_ms, (10_000 - SAFETY_MS) / 5);
        let delayed = budget(&ClockLimits {
            delay_ms: 3_000,
            ..clock(1_000, 0, None)
        });
        assert!(delayed.soft_ms >= 3_000, "{delayed:?}");
    }
}
