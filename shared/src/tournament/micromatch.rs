//! Micro-matches and points (IDF s.2 art. 2.6, 15).
//!
//! Art. 2.6: official competitions are played as micro-matches of two games, one after
//! the other, with colours swapped. Art. 15: a game or a micro-match earns 2 points for a
//! win, 1 for a draw, 0 for a loss; the tournament's settings choose whether points are
//! counted per game or per micro-match ([`Unit`]). A micro-match is won by the player with
//! more game points over its games; equal game points make it a draw.
//!
//! An [`Encounter`] is one pairing's whole result: the games played, a forfeit (art. 17)
//! or a bye.

use serde::{Deserialize, Serialize};

use super::{Pairing, Player};
use crate::law::GameResult;

/// Points for a win, a draw and a loss (art. 15: 2, 1, 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Points {
    /// Points for a win.
    pub win: u32,
    /// Points for a draw.
    pub draw: u32,
    /// Points for a loss.
    pub loss: u32,
}

impl Points {
    /// Art. 15: 2 for a win, 1 for a draw, 0 for a loss.
    pub const IDF: Points = Points {
        win: 2,
        draw: 1,
        loss: 0,
    };

    /// The points for an outcome.
    pub fn of(&self, outcome: super::SideResult) -> u32 {
        match outcome {
            super::SideResult::Win => self.win,
            super::SideResult::Draw => self.draw,
            super::SideResult::Loss => self.loss,
        }
    }
}

impl Default for Points {
    fn default() -> Self {
        Points::IDF
    }
}

/// What a tournament scores (art. 15: "for the result of each game or micro-match").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Every game scores on its own.
    Game,
    /// The micro-match scores as one result.
    #[default]
    MicroMatch,
}

/// How a tournament turns results into points.
/// Every field has the default of [`Scoring::default`] when absent; an unknown field is
/// refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scoring {
    /// Points per win, draw and loss.
    pub points: Points,
    /// Whether games or micro-matches score.
    pub unit: Unit,
    /// Games per encounter: 2 for micro-matches (art. 2.6), 1 for single games.
    pub games: u8,
    /// What a bye counts as (the text is silent; default a won micro-match).
    pub bye: super::SideResult,
}

impl Default for Scoring {
    fn default() -> Self {
        Scoring {
            points: Points::IDF,
            unit: Unit::MicroMatch,
            games: 2,
            bye: super::SideResult::Win,
        }
    }
}

/// One pairing's complete result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Encounter {
    /// Games played over the board; game `i` has `pairing.white` as White when `i` is
    /// even (art. 2.6: colours swap from game to game).
    Played {
        /// The pairing (colours of the first game).
        pairing: Pairing,
        /// The results, in the order played.
        games: Vec<GameResult>,
    },
    /// Nobody played: the absent player(s) lost the micro-match (art. 17).
    Forfeit {
        /// The pairing.
        pairing: Pairing,
        /// Who did not come.
        absent: super::Absence,
    },
    /// A round without an opponent (an odd number of players).
    Bye {
        /// The player who sat out.
        player: Player,
    },
}

/// Who has White in game `index` (0-based) of a micro-match: colours alternate (art. 2.6).
pub fn colours_in_game(pairing: Pairing, index: usize) -> Pairing {
    if index.is_multiple_of(2) {
        pairing
    } else {
        Pairing::new(pairing.black, pairing.white)
    }
}

/// Game points each player of `pairing` earned over `games` (the first of the pair is
/// `pairing.white`), by `points`.
pub fn game_points(pairing: Pairing, games: &[GameResult], points: Points) -> (u32, u32) {
    let mut totals = (0, 0);
    for (i, g) in games.iter().enumerate() {
        let first_is_white = colours_in_game(pairing, i).white == pairing.white;
        let (w, b) = match g {
            GameResult::WhiteWin => (points.win, points.loss),
            GameResult::Draw => (points.draw, points.draw),
            GameResult::BlackWin => (points.loss, points.win),
        };
        let (a, c) = if first_is_white { (w, b) } else { (b, w) };
        totals.0 += a;
        totals.1 += c;
    }
    totals
}

/// The micro-match's outcome for `pairing.white` (art. 2.6, 15): more game points wins.
pub fn match_outcome(pairing: Pairing, games: &[GameResult]) -> super::SideResult {
    let (a, b) = game_points(pairing, games, Points::IDF);
    match a.cmp(&b) {
        std::cmp::Ordering::Greater => super::SideResult::Win,
        std::cmp::Ordering::Equal => super::SideResult::Draw,
        std::cmp::Ordering::Less => super::SideResult::Loss,
    }
}

#[cfg(test)]
mod tests {
    use super::super::SideResult;
    use super::*;

    const P: Pairing = Pairing::new(3, 5);

    #[test]
    fn colours_swap_from_game_to_game() {
        assert_eq!(colours_in_game(P, 0), Pairing::new(3, 5));
        assert_eq!(colours_in_game(P, 1), Pairing::new(5, 3));
        assert_eq!(colours_in_game(P, 2), Pairing::new(3, 5));
    }

    #[test]
    fn game_points_follow_the_colours_of_each_game() {
        // Player 3 wins with White, then loses with Black: 2-2, a drawn micro-match.
        let games = [GameResult::WhiteWin, GameResult::WhiteWin];
        assert_eq!(game_points(P, &games, Points::IDF), (2, 2));
        assert_eq!(match_outcome(P, &games), SideResult::Draw);
        // Player 3 wins with White, then wins with Black too: 4-0.
        let games = [GameResult::WhiteWin, GameResult::BlackWin];
        assert_eq!(game_points(P, &games, Points::IDF), (4, 0));
        assert_eq!(match_outcome(P, &games), SideResult::Win);
        // A draw and a loss with Black: 1-3.
        let games = [GameResult::Draw, GameResult::WhiteWin];
        assert_eq!(game_points(P, &games, Points::IDF), (1, 3));
        assert_eq!(match_outcome(P, &games), SideResult::Loss);
    }

    #[test]
    fn points_are_two_one_zero_by_default() {
        assert_eq!(Points::default().of(SideResult::Win), 2);
        assert_eq!(Points::default().of(SideResult::Draw), 1);
        assert_eq!(Points::default().of(SideResult::Loss), 0);
        assert_eq!(Scoring::default().unit, Unit::MicroMatch);
        assert_eq!(Scoring::default().games, 2);
    }
}
