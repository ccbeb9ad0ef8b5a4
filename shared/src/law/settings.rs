//! Per-game settings the law depends on: the speed category, whether the game counts as
//! recorded, and whether the clock adds an increment. The clock itself lives elsewhere;
//! the law only needs these facts.

use serde::{Deserialize, Serialize};

/// The time-control category (IDF s.2 22.1; INT 3.6.2-3.6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speed {
    /// Classical control.
    Classical,
    /// Rapid (IDF 22.1 A).
    Rapid,
    /// Blitz (IDF 22.1 B).
    Blitz,
}

/// The settings of one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Settings {
    /// Speed category.
    pub speed: Speed,
    /// Does the game count as recorded? An unrecorded game lifts the 20-move limit on
    /// draw offers but allows agreement only with 6 or fewer pieces each (IDF 22.5, UA
    /// rule 1). Default: recorded in classical games, unrecorded in rapid and blitz.
    pub recorded: bool,
    /// Does the clock add time per move? Without it, standard-draw positions are drawn at
    /// once (IDF 22.7 in rapid and blitz, UA rule 9 always).
    pub increment: bool,
    /// Competition rules may forbid agreed draws before this many moves by each side
    /// (FIDE 9.1); overrides the rule set's minimum when set.
    pub min_moves_for_agreement: Option<u32>,
}

impl Settings {
    /// A classical game: recorded, with increment.
    pub fn classical() -> Settings {
        Settings {
            speed: Speed::Classical,
            recorded: true,
            increment: true,
            min_moves_for_agreement: None,
        }
    }

    /// A rapid game, unrecorded.
    pub fn rapid(increment: bool) -> Settings {
        Settings {
            speed: Speed::Rapid,
            recorded: false,
            increment,
            min_moves_for_agreement: None,
        }
    }

    /// A blitz game, unrecorded.
    pub fn blitz(increment: bool) -> Settings {
        Settings {
            speed: Speed::Blitz,
            ..Settings::rapid(increment)
        }
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings::classical()
    }
}
