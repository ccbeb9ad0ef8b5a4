//! Competitions by section II of the IDF rules (`000_83d98dc725e6aed9.txt`): the pure
//! logic of who plays whom, with which colours and opening, how results become points,
//! what forfeits and withdrawals do, and how ties are broken. No I/O, no clock reading:
//! the server's organiser feeds results in and asks what comes next.
//!
//! - [`berger`]: round robin in one or more cycles by Berger tables (art. 2.1, 6.1).
//! - [`scheveningen`]: two groups, each member of one meets every member of the other (2.4).
//! - [`swiss`]: a Swiss system (2.3, 6.2) after the FIDE Dutch system; the rules kept
//!   are listed in that module and in `docs/tournaments.md`.
//! - [`knockout`]: the Olympic system with elimination (2.2).
//! - [`micromatch`]: micro-matches of two games with colours swapped (2.6) and the points
//!   of art. 15.
//! - [`ballot`]: ballot tables of opening moves or positions (2.7, 3.1, 5.5, 7.2.4-7.2.6).
//! - [`forfeits`]: lateness and absence (art. 17) and withdrawals (art. 18.2).
//! - [`crosstable`]: results turned into a crosstable of encounters and scores.
//! - [`tiebreaks`]: the coefficients of art. 20.3 and the orders of 20.1.3.
//! - [`standings`]: final places from scores and tie-breaks (art. 20.1).
//!
//! Players are identified by their index in the tournament's list, which is also their
//! seed (index 0 has pairing number 1).

pub mod ballot;
pub mod berger;
pub mod crosstable;
pub mod forfeits;
pub mod knockout;
pub mod micromatch;
pub mod scheveningen;
pub mod standings;
pub mod swiss;
pub mod tiebreaks;

use serde::{Deserialize, Serialize};

pub use ballot::{BallotError, BallotErrorKind, BallotTable, Opening, OpeningKind, RandomSource};
pub use crosstable::{Crosstable, Entry};
pub use forfeits::{Attendance, Withdrawal};
pub use micromatch::{Encounter, Points, Scoring, Unit};
pub use standings::{Standing, standings};
pub use tiebreaks::{RoundRobinCoefficient, SwissProgram, TieBreak};

/// A win, a draw or a loss, from one player's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideResult {
    /// Won.
    Win,
    /// Drawn.
    Draw,
    /// Lost.
    Loss,
}

impl SideResult {
    /// The same result seen from the other side.
    pub fn reversed(self) -> SideResult {
        match self {
            SideResult::Win => SideResult::Loss,
            SideResult::Draw => SideResult::Draw,
            SideResult::Loss => SideResult::Win,
        }
    }
}

/// Who did not come to a micro-match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Absence {
    /// The player with White in the first game.
    White,
    /// The player with Black in the first game.
    Black,
    /// Both (art. 17.2).
    Both,
}

/// A player: the index in the tournament's list of players (its seed, 0-based).
pub type Player = usize;

/// Two players paired for an encounter. In a micro-match `white` has White in the first
/// game and Black in the second (art. 2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pairing {
    /// White in the (first) game.
    pub white: Player,
    /// Black in the (first) game.
    pub black: Player,
}

impl Pairing {
    /// A pairing of `white` against `black`.
    pub const fn new(white: Player, black: Player) -> Pairing {
        Pairing { white, black }
    }

    /// Does `p` play in this pairing?
    pub fn involves(&self, p: Player) -> bool {
        self.white == p || self.black == p
    }

    /// The opponent of `p`, if `p` plays in this pairing.
    pub fn opponent_of(&self, p: Player) -> Option<Player> {
        if self.white == p {
            Some(self.black)
        } else if self.black == p {
            Some(self.white)
        } else {
            None
        }
    }

    /// Whether this pairing and `other` join the same two players, whatever the colours.
    pub fn same_players(&self, other: &Pairing) -> bool {
        (self.white == other.white && self.black == other.black)
            || (self.white == other.black && self.black == other.white)
    }
}

/// One round's plan: the pairings, board by board, and the player with a bye, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// Pairings in board order.
    pub pairings: Vec<Pairing>,
    /// The player who sits out this round (an odd number of players).
    pub bye: Option<Player>,
}

impl Round {
    /// The pairing `p` plays in, if any.
    pub fn pairing_of(&self, p: Player) -> Option<Pairing> {
        self.pairings.iter().copied().find(|x| x.involves(p))
    }
}

#[cfg(test)]
mod tests;
