//! Per-game settings the law depends on: the time-control category, whether the game
//! counts as recorded, and whether the clock adds an increment. The clock itself lives
//! elsewhere; the law only needs these facts.

use serde::{Deserialize, Serialize};

use crate::clock::Category;

/// The settings of one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Settings {
    /// The time-control category (IDF s.2 22.1; INT 3.6.2-3.6.3). The law tells only
    /// classical from the accelerated categories (IDF s.2 22); damka's bullet, in no
    /// text, is accelerated like blitz. Stored as `speed`, its name before it was one
    /// type with the clock's categories.
    #[serde(rename = "speed")]
    pub category: Category,
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
            category: Category::Classical,
            recorded: true,
            increment: true,
            min_moves_for_agreement: None,
        }
    }

    /// A rapid game, unrecorded.
    pub fn rapid(increment: bool) -> Settings {
        Settings {
            category: Category::Rapid,
            recorded: false,
            increment,
            min_moves_for_agreement: None,
        }
    }

    /// A blitz game, unrecorded.
    pub fn blitz(increment: bool) -> Settings {
        Settings {
            category: Category::Blitz,
            ..Settings::rapid(increment)
        }
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings::classical()
    }
}

impl Settings {
    /// Is the game classical (not rapid, blitz or bullet)? IDF s.2 22 applies to the
    /// others.
    pub fn is_classical(&self) -> bool {
        self.category == Category::Classical
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stored games (Redis snapshots, the archive) keep the form they had when the field
    /// was `speed: law::Speed`.
    #[test]
    fn stored_form_is_unchanged() {
        let stored = serde_json::json!({
            "speed": "blitz",
            "recorded": false,
            "increment": true,
            "min_moves_for_agreement": null,
        });
        assert_eq!(
            serde_json::to_value(Settings::blitz(true)).ok(),
            Some(stored.clone())
        );
        let read: Settings = serde_json::from_value(stored).expect("the stored form reads");
        assert_eq!(read, Settings::blitz(true));
        assert!(!read.is_classical() && Settings::classical().is_classical());
    }
}
