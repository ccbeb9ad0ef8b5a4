//! Time controls as data: one or more [`Period`]s, each with a main time, an optional
//! move quota, a Fischer increment and a FIDE delay, plus whether the clock carries over
//! between the games of a match.
//!
//! How the kinds of the rule texts map onto periods:
//!
//! | kind | periods |
//! |---|---|
//! | sudden death ("45 min to the end", IDF s.2 art. 5.1) | one period, no quota |
//! | Fischer ("3 min + 2 s per move", IDF 5.3) | one period with `increment` |
//! | delay (FIDE 6.2: the main time starts only after a fixed time each move) | `delay` |
//! | "2 h for 50 moves, then 1 h for each 25 moves" (INT 3.6.1) | `[120'/50, 60'/25]`: the last period has a quota, so it repeats |
//! | "2 h for 50 moves and 1 h to the end" (INT 3.6.1) | `[120'/50, 60']`: the last period has no quota |
//! | "5 min + 3 s for all games until the first win" (INT 3.6.4) | `[5' + 3"]` with [`TimeControl::for_match`] |
//!
//! Rule: every period but the last must have a quota; a last period with a quota repeats
//! ("for each 25 moves"). Unused main time always carries into the next period (INT
//! 3.6.1: "his unused time is added"; FIDE 6.2). The FIDE text's "except in the time
//! delay mode" is read as "unused *delay* is never saved", which is what its next
//! sentence says ("the main time does not change, irrespective of the proportion of the
//! fixed time used"); main time still carries in delay controls.
//!
//! A period may have an increment or a delay but not both: the texts describe them as
//! two modes, and refusing the mix keeps every control's meaning unambiguous.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::time::Millis;

/// One period of a time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Period {
    /// Main time added to the player's clock when the period begins (the first period's
    /// time is the starting time).
    pub time: Millis,
    /// Moves each player must complete in this period; `None` means "to the end of the
    /// game".
    pub moves: Option<u32>,
    /// Fischer increment added after each completed (not flagged) move of this period.
    pub increment: Millis,
    /// FIDE delay: each move, the main time only starts running after this much time.
    /// Unused delay is lost; delay never adds time.
    pub delay: Millis,
}

impl Period {
    /// A period of `time` to the end of the game, without increment or delay.
    pub const fn to_end(time: Millis) -> Period {
        Period {
            time,
            moves: None,
            increment: Millis::ZERO,
            delay: Millis::ZERO,
        }
    }

    /// A period of `time` for `moves` moves, without increment or delay.
    pub const fn for_moves(time: Millis, moves: u32) -> Period {
        Period {
            time,
            moves: Some(moves),
            increment: Millis::ZERO,
            delay: Millis::ZERO,
        }
    }

    /// This period with a Fischer increment.
    pub const fn with_increment(mut self, increment: Millis) -> Period {
        self.increment = increment;
        self
    }

    /// This period with a FIDE delay.
    pub const fn with_delay(mut self, delay: Millis) -> Period {
        self.delay = delay;
        self
    }
}

/// Why a list of periods is not a time control.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    /// No periods at all.
    #[error("a time control needs at least one period")]
    NoPeriods,
    /// The first period gives no time, so the first move would flag at once.
    #[error("the first period gives no time: the first move would flag at once")]
    NoStartingTime,
    /// A quota of zero moves.
    #[error("period {index} has a quota of 0 moves")]
    ZeroQuota {
        /// 0-based period index.
        index: usize,
    },
    /// A period "to the end of the game" followed by another period.
    #[error("period {index} lasts to the end of the game but is followed by another period")]
    OpenPeriodNotLast {
        /// 0-based period index.
        index: usize,
    },
    /// Both an increment and a delay in one period.
    #[error("period {index} has both an increment and a delay; the rules know them as two modes")]
    IncrementAndDelay {
        /// 0-based period index.
        index: usize,
    },
}

/// A complete time control.
///
/// Invariants (checked by [`TimeControl::new`] and on deserialization): at least one
/// period, the first gives time, no zero quotas, only the last period may be open-ended,
/// no period has both increment and delay.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "TimeControlRepr")]
pub struct TimeControl {
    periods: Vec<Period>,
    match_clock: bool,
}

/// The unchecked serialized form of a [`TimeControl`].
#[derive(Deserialize)]
struct TimeControlRepr {
    periods: Vec<Period>,
    #[serde(default)]
    match_clock: bool,
}

impl TryFrom<TimeControlRepr> for TimeControl {
    type Error = ControlError;
    fn try_from(r: TimeControlRepr) -> Result<Self, Self::Error> {
        let tc = TimeControl::new(r.periods)?;
        Ok(if r.match_clock { tc.for_match() } else { tc })
    }
}

impl TimeControl {
    /// A control from its periods, checking the invariants.
    pub fn new(periods: Vec<Period>) -> Result<TimeControl, ControlError> {
        let first = periods.first().ok_or(ControlError::NoPeriods)?;
        if first.time.is_zero() {
            return Err(ControlError::NoStartingTime);
        }
        let last = periods.len() - 1;
        for (index, p) in periods.iter().enumerate() {
            match p.moves {
                Some(0) => return Err(ControlError::ZeroQuota { index }),
                None if index != last => return Err(ControlError::OpenPeriodNotLast { index }),
                _ => {}
            }
            if !p.increment.is_zero() && !p.delay.is_zero() {
                return Err(ControlError::IncrementAndDelay { index });
            }
        }
        Ok(TimeControl {
            periods,
            match_clock: false,
        })
    }

    /// A control from periods known to be valid (the preset tables, checked by tests).
    pub(crate) fn trusted(periods: Vec<Period>) -> TimeControl {
        TimeControl {
            periods,
            match_clock: false,
        }
    }

    /// Sudden death: `time` for the whole game.
    pub fn sudden_death(time: Millis) -> Result<TimeControl, ControlError> {
        TimeControl::new(vec![Period::to_end(time)])
    }

    /// Fischer: `time` for the game plus `increment` after each move.
    pub fn fischer(time: Millis, increment: Millis) -> Result<TimeControl, ControlError> {
        TimeControl::new(vec![Period::to_end(time).with_increment(increment)])
    }

    /// FIDE delay: `time` of main time, which each move starts running only after `delay`.
    pub fn delay(time: Millis, delay: Millis) -> Result<TimeControl, ControlError> {
        TimeControl::new(vec![Period::to_end(time).with_delay(delay)])
    }

    /// This control as a match clock: the time left at the end of one game carries into
    /// the next (INT 3.6.4, "5 min + 3 s for all games until the first win").
    pub fn for_match(mut self) -> TimeControl {
        self.match_clock = true;
        self
    }

    /// Whether the clock carries over between the games of a match.
    pub fn is_match_clock(&self) -> bool {
        self.match_clock
    }

    /// The periods, first to last (never empty).
    pub fn periods(&self) -> &[Period] {
        &self.periods
    }

    /// The period with 0-based index `index`; past the end, the last period (which
    /// repeats or lasts to the end of the game).
    pub fn period(&self, index: usize) -> Period {
        let fallback = Period::to_end(Millis::ZERO);
        self.periods
            .get(index)
            .or(self.periods.last())
            .copied()
            .unwrap_or(fallback)
    }

    /// The index of the period that follows period `index` once its quota is done.
    pub fn next_period_index(&self, index: usize) -> usize {
        (index + 1).min(self.periods.len().saturating_sub(1))
    }

    /// Where `moves` completed moves leave a player: the 0-based period and the moves
    /// completed in it, as [`super::Clock::press`] advances them (a quota done moves on
    /// to the next period; a last period with a quota repeats).
    pub fn period_after(&self, moves: u32) -> (usize, u32) {
        let (mut period, mut left) = (0, moves);
        loop {
            match self.period(period).moves {
                Some(quota) if quota > 0 && left >= quota => {
                    left -= quota;
                    period = self.next_period_index(period);
                }
                _ => return (period, left),
            }
        }
    }

    /// The first period (the starting time, increment and delay).
    pub fn first(&self) -> Period {
        self.period(0)
    }

    /// Whether this is a single period to the end of the game (sudden death, Fischer or
    /// delay), the only shape the rapid and blitz articles know.
    pub fn is_single_period(&self) -> bool {
        self.periods.len() == 1 && self.first().moves.is_none()
    }

    /// FIDE's measure of a control's length (Appendices A1, B1; INT 3.6.2 "on the first 60
    /// moves"): the main time plus 60 times the per-move extra time. For several periods
    /// the main times of all listed periods are summed (a repeating period counted once).
    /// Delay is counted like an increment.
    pub fn nominal_game_time(&self) -> Millis {
        let first = self.first();
        let per_move = first.increment.saturating_add(first.delay);
        let mains = self
            .periods
            .iter()
            .fold(Millis::ZERO, |acc, p| acc.saturating_add(p.time));
        mains.saturating_add(per_move.saturating_mul(60))
    }

    /// lichess's "estimated total seconds": starting time plus 40 moves of increment (or
    /// delay), in whole seconds. Used to size lag-compensation quotas.
    pub fn estimate_total_seconds(&self) -> u64 {
        let first = self.first();
        let per_move = first.increment.saturating_add(first.delay).as_ms() / 1_000;
        (first.time.as_ms() / 1_000).saturating_add(per_move.saturating_mul(40))
    }
}

fn fmt_span(f: &mut fmt::Formatter<'_>, m: Millis) -> fmt::Result {
    let ms = m.as_ms();
    if ms.is_multiple_of(60_000) {
        write!(f, "{}'", ms / 60_000)
    } else if ms.is_multiple_of(1_000) {
        write!(f, "{}\"", ms / 1_000)
    } else {
        write!(f, "{ms}ms")
    }
}

impl fmt::Display for TimeControl {
    /// For example `3'+2"`, `120'/50, 60'/25 repeating`, `5' d5"`, `5'+3" match`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.periods.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            fmt_span(f, p.time)?;
            if let Some(n) = p.moves {
                write!(f, "/{n}")?;
            }
            if !p.increment.is_zero() {
                f.write_str("+")?;
                fmt_span(f, p.increment)?;
            }
            if !p.delay.is_zero() {
                f.write_str(" d")?;
                fmt_span(f, p.delay)?;
            }
        }
        if self.periods.last().is_some_and(|p| p.moves.is_some()) {
            f.write_str(" repeating")?;
        }
        if self.match_clock {
            f.write_str(" match")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invariants_are_checked() {
        assert_eq!(TimeControl::new(vec![]), Err(ControlError::NoPeriods));
        assert_eq!(
            TimeControl::sudden_death(Millis::ZERO),
            Err(ControlError::NoStartingTime)
        );
        assert_eq!(
            TimeControl::new(vec![Period::for_moves(Millis::mins(5), 0)]),
            Err(ControlError::ZeroQuota { index: 0 })
        );
        assert_eq!(
            TimeControl::new(vec![
                Period::to_end(Millis::mins(5)),
                Period::to_end(Millis::mins(5))
            ]),
            Err(ControlError::OpenPeriodNotLast { index: 0 })
        );
        assert_eq!(
            TimeControl::new(vec![
                Period::to_end(Millis::mins(5))
                    .with_increment(Millis::secs(2))
                    .with_delay(Millis::secs(2))
            ]),
            Err(ControlError::IncrementAndDelay { index: 0 })
        );
    }

    #[test]
    fn deserialization_checks_invariants() {
        let bad = r#"{"periods":[]}"#;
        assert!(serde_json::from_str::<TimeControl>(bad).is_err());
        let tc = TimeControl::fischer(Millis::mins(5), Millis::secs(3))
            .map(TimeControl::for_match)
            .expect("valid");
        let json = serde_json::to_string(&tc).expect("serializes");
        assert_eq!(serde_json::from_str::<TimeControl>(&json).ok(), Some(tc));
    }

    #[test]
    fn display_and_measures() {
        let int = TimeControl::new(vec![
            Period::for_moves(Millis::hours(2), 50),
            Period::for_moves(Millis::hours(1), 25),
        ])
        .expect("valid");
        assert_eq!(int.to_string(), "120'/50, 60'/25 repeating");
        assert_eq!(int.nominal_game_time(), Millis::hours(3));
        let blitz = TimeControl::fischer(Millis::mins(3), Millis::secs(2)).expect("valid");
        assert_eq!(blitz.to_string(), "3'+2\"");
        assert_eq!(blitz.nominal_game_time(), Millis::mins(5));
        assert_eq!(blitz.estimate_total_seconds(), 260);
        assert_eq!(int.period(7), int.periods()[1]);
        assert_eq!(int.next_period_index(1), 1);
    }
}
