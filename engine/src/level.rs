//! The eight levels, as lichess offers Stockfish's: each deeper, longer and less
//! deliberately wrong than the one below. Level 1 searches one ply and adds up to four
//! men of noise to every root move, so a beginner beats it; level 8 searches as deep as
//! its time allows with no noise.

use crate::search::Plan;
use crate::time;
use crate::{EngineError, Limits};

/// A level, 1 to 8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Level(u8);

/// One row of the level table.
#[derive(Clone, Copy, Debug)]
pub struct LevelSpec {
    /// Deepest iteration, in plies.
    pub depth: u8,
    /// Longest think per move, before the clock's own budget.
    pub movetime_ms: u64,
    /// Noise added to each root move's score, hundredths of a man (0: none).
    pub error_centi: i32,
}

/// The table `docs/engine.md` prints.
pub const TABLE: [LevelSpec; 8] = [
    spec(1, 50, 400),
    spec(2, 100, 250),
    spec(3, 150, 150),
    spec(4, 250, 90),
    spec(5, 300, 50),
    spec(7, 400, 30),
    spec(10, 1_000, 0),
    spec(64, 3_000, 0),
];

const fn spec(depth: u8, movetime_ms: u64, error_centi: i32) -> LevelSpec {
    LevelSpec {
        depth,
        movetime_ms,
        error_centi,
    }
}

/// With no limit at all, analysis thinks this long.
const ANALYSIS_DEFAULT_MS: u64 = 1_000;

impl Level {
    /// Level `n`, if 1 to 8.
    pub fn new(n: u8) -> Result<Level, EngineError> {
        if (1..=8).contains(&n) {
            Ok(Level(n))
        } else {
            Err(EngineError::InvalidLevel(n))
        }
    }

    /// Full strength.
    pub fn full() -> Level {
        Level(8)
    }

    /// The level's number.
    pub fn get(self) -> u8 {
        self.0
    }

    /// The level's row of [`TABLE`].
    pub fn spec(self) -> LevelSpec {
        TABLE[usize::from(self.0 - 1)]
    }

    pub(crate) fn error_centi(self) -> Option<i32> {
        Some(self.spec().error_centi).filter(|&e| e > 0)
    }

    /// How long the level thinks about a draw offer.
    pub(crate) fn draw_think_ms(self) -> u64 {
        self.spec().movetime_ms.min(300)
    }

    /// The search plan: the level's depth and time, cut by the caller's limits and by the
    /// clock's budget.
    pub(crate) fn plan(self, limits: &Limits) -> Plan {
        let spec = self.spec();
        let depth = limits.depth.map_or(spec.depth, |d| d.min(spec.depth));
        // Level 8 plays at full strength for the time it is given; the others think no
        // longer than their row says.
        let cap = if self.0 == 8 {
            u64::MAX
        } else {
            spec.movetime_ms
        };
        let movetime = limits.movetime_ms.unwrap_or(spec.movetime_ms).min(cap);
        let (soft, hard) = match limits.clock {
            Some(clock) => {
                let budget = time::budget(&clock);
                let cap = if self.0 == 8 && limits.movetime_ms.is_none() {
                    u64::MAX
                } else {
                    movetime
                };
                (budget.soft_ms.min(cap), budget.hard_ms.min(cap))
            }
            None => (movetime, movetime),
        };
        Plan::new(depth, Some((soft, hard)), limits)
    }

    /// The plan of a full-strength analysis: the caller's limits, else one second.
    pub(crate) fn plan_for_analysis(self, limits: &Limits) -> Plan {
        let depth = limits.depth.unwrap_or(self.spec().depth);
        let time = match (limits.movetime_ms, limits.clock) {
            (Some(ms), _) => Some((ms, ms)),
            (None, Some(clock)) => {
                let b = time::budget(&clock);
                Some((b.soft_ms, b.hard_ms))
            }
            (None, None) if limits.depth.is_some() || limits.nodes.is_some() => None,
            (None, None) if limits.stop.is_some() => None,
            (None, None) => Some((ANALYSIS_DEFAULT_MS, ANALYSIS_DEFAULT_MS)),
        };
        Plan::new(depth, time, limits)
    }
}
