//! The Olympic system (IDF s.2 art. 2.2): whoever loses an encounter leaves the
//! competition.
//!
//! The bracket has the next power of two of places; seeds are placed so that the top two
//! can meet only in the final, the top four only in the semi-finals, and so on (seed 1
//! meets the last seed, the standard order 1 8 4 5 2 7 3 6 for eight). Places beyond
//! the number of players are byes, which fall to the top seeds. The better seed has
//! White in the first game.
//!
//! An encounter is a micro-match (art. 2.6); a drawn micro-match is decided, as the last
//! line of 20.1.3.2 does for equal Swiss scores, by further games "to the first win",
//! colours still alternating ([`winner`]). If both players of an encounter are absent
//! both lose (17.2): nobody goes through and the next opponent advances by walkover.

use serde::{Deserialize, Serialize};

use super::micromatch::{colours_in_game, match_outcome};
use super::{Pairing, Player, SideResult};
use crate::law::GameResult;
use crate::rules::Color;

/// Why a knockout operation was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KnockoutError {
    /// Fewer than two players.
    #[error("a knockout needs at least two players, not {0}")]
    TooFewPlayers(usize),
    /// No such encounter.
    #[error("round {round} has no encounter {index}")]
    NoSuchTie {
        /// Round.
        round: usize,
        /// Index in the round.
        index: usize,
    },
    /// The encounter is not ready or already decided.
    #[error("round {round} encounter {index} is not waiting for a result")]
    NotPending {
        /// Round.
        round: usize,
        /// Index in the round.
        index: usize,
    },
    /// The winner given does not play in the encounter.
    #[error("player {0} does not play in this encounter")]
    NotInTie(Player),
}

/// One encounter of the bracket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tie {
    /// The upper place (the better seed in the first round).
    pub top: Option<Player>,
    /// The lower place.
    pub bottom: Option<Player>,
    /// Who went through (`None` with `decided`: nobody, both lost, IDF 17.2).
    pub winner: Option<Player>,
    /// Whether the encounter is over (a bye, a result, or both absent).
    #[serde(default)]
    pub decided: bool,
}

/// A knockout bracket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Knockout {
    /// Rounds, the first first; each has half the ties of the one before.
    pub rounds: Vec<Vec<Tie>>,
}

/// The standard seeding order of a bracket of `size` places (a power of two), 0-based.
pub fn seeding(size: usize) -> Vec<usize> {
    let mut order = vec![0usize];
    while order.len() < size {
        let n = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, n - 1 - s]).collect();
    }
    order
}

impl Knockout {
    /// A bracket for `players` players, byes already settled.
    pub fn new(players: usize) -> Result<Knockout, KnockoutError> {
        if players < 2 {
            return Err(KnockoutError::TooFewPlayers(players));
        }
        let size = players.next_power_of_two();
        let order = seeding(size);
        let seat = |s: usize| (s < players).then_some(s);
        let first: Vec<Tie> = order
            .chunks(2)
            .map(|c| Tie {
                top: seat(c[0]),
                bottom: seat(c[1]),
                winner: None,
                decided: false,
            })
            .collect();
        let mut rounds = vec![first];
        while rounds.last().is_some_and(|r| r.len() > 1) {
            let len = rounds.last().map_or(0, Vec::len) / 2;
            rounds.push(vec![
                Tie {
                    top: None,
                    bottom: None,
                    winner: None,
                    decided: false,
                };
                len
            ]);
        }
        let mut k = Knockout { rounds };
        for i in 0..k.rounds[0].len() {
            let t = k.rounds[0][i];
            if let (Some(p), None) | (None, Some(p)) = (t.top, t.bottom) {
                k.settle(0, i, Some(p));
            }
        }
        Ok(k)
    }

    /// Decides a tie and carries its winner (or nobody) into the next round; a next-round
    /// tie left with one player (the other feeder produced nobody) is a walkover, and one
    /// left with nobody produces nobody.
    fn settle(&mut self, round: usize, index: usize, winner: Option<Player>) {
        self.rounds[round][index].winner = winner;
        self.rounds[round][index].decided = true;
        let Some(next) = self.rounds.get_mut(round + 1) else {
            return;
        };
        let t = &mut next[index / 2];
        if index.is_multiple_of(2) {
            t.top = winner;
        } else {
            t.bottom = winner;
        }
        let feeders = &self.rounds[round][(index / 2) * 2..(index / 2) * 2 + 2];
        if feeders.iter().all(|f| f.decided) {
            let t = self.rounds[round + 1][index / 2];
            match (t.top, t.bottom) {
                (Some(_), Some(_)) => {}
                (Some(p), None) | (None, Some(p)) => self.settle(round + 1, index / 2, Some(p)),
                (None, None) => self.settle(round + 1, index / 2, None),
            }
        }
    }

    /// Encounters ready to be played: (round, index, pairing with the upper place White).
    pub fn pending(&self) -> Vec<(usize, usize, Pairing)> {
        let mut out = Vec::new();
        for (r, ties) in self.rounds.iter().enumerate() {
            for (i, t) in ties.iter().enumerate() {
                if let (Some(a), Some(b), false) = (t.top, t.bottom, t.decided) {
                    out.push((r, i, Pairing::new(a, b)));
                }
            }
        }
        out
    }

    /// Records who won encounter `index` of `round`; `None` when both lost by absence
    /// (IDF 17.2): nobody goes through.
    pub fn record(
        &mut self,
        round: usize,
        index: usize,
        winner: Option<Player>,
    ) -> Result<(), KnockoutError> {
        let t = *self
            .rounds
            .get(round)
            .and_then(|r| r.get(index))
            .ok_or(KnockoutError::NoSuchTie { round, index })?;
        let (Some(a), Some(b), false) = (t.top, t.bottom, t.decided) else {
            return Err(KnockoutError::NotPending { round, index });
        };
        if let Some(w) = winner.filter(|&w| w != a && w != b) {
            return Err(KnockoutError::NotInTie(w));
        }
        self.settle(round, index, winner);
        Ok(())
    }

    /// Where a player finished: 1 for the champion, 2 for the finalist, then the first
    /// place of those out in each earlier round (3 for the semi-finals, 5 for the quarter
    /// finals...); `None` while still in.
    pub fn place(&self, p: Player) -> Option<usize> {
        let rounds = self.rounds.len();
        if self.champion() == Some(p) {
            return Some(1);
        }
        for (r, ties) in self.rounds.iter().enumerate() {
            for t in ties {
                let plays = t.top == Some(p) || t.bottom == Some(p);
                if plays && t.decided && t.winner != Some(p) {
                    // Out in round r: 2^(rounds - 1 - r) + 1.
                    return Some((1 << (rounds - 1 - r)) + 1);
                }
            }
        }
        None
    }

    /// The winner of the final, once played.
    pub fn champion(&self) -> Option<Player> {
        self.rounds.last().and_then(|r| r[0].winner)
    }
}

/// Who won a knockout encounter of `pairing` after `games` (colours alternating, art.
/// 2.6), the first `base` games forming the micro-match: the micro-match winner, or if it
/// was drawn, the winner of the first decisive game after it; `None` while undecided.
pub fn winner(pairing: Pairing, games: &[GameResult], base: usize) -> Option<Player> {
    if games.len() < base {
        return None;
    }
    match match_outcome(pairing, &games[..base]) {
        SideResult::Win => return Some(pairing.white),
        SideResult::Loss => return Some(pairing.black),
        SideResult::Draw => {}
    }
    games.iter().enumerate().skip(base).find_map(|(i, g)| {
        let c = colours_in_game(pairing, i);
        g.winner()
            .map(|w| if w == Color::White { c.white } else { c.black })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::law::GameResult::*;

    #[test]
    fn seeding_keeps_the_top_seeds_apart() {
        assert_eq!(seeding(8), vec![0, 7, 3, 4, 1, 6, 2, 5]);
        assert_eq!(seeding(4), vec![0, 3, 1, 2]);
    }

    #[test]
    fn byes_go_to_the_top_seeds_and_the_bracket_runs_to_a_champion() {
        let mut k = Knockout::new(6).unwrap();
        assert_eq!(k.rounds.len(), 3);
        // Seeds 0 and 1 have byes; 3-4 and 2-5 play.
        let p = k.pending();
        assert_eq!(
            p,
            vec![(0, 1, Pairing::new(3, 4)), (0, 3, Pairing::new(2, 5))]
        );
        k.record(0, 1, Some(4)).unwrap();
        k.record(0, 3, Some(2)).unwrap();
        assert_eq!(
            k.pending(),
            vec![(1, 0, Pairing::new(0, 4)), (1, 1, Pairing::new(1, 2))]
        );
        assert_eq!(k.record(1, 0, Some(3)), Err(KnockoutError::NotInTie(3)));
        k.record(1, 0, Some(4)).unwrap();
        k.record(1, 1, Some(1)).unwrap();
        assert_eq!(
            k.record(1, 1, Some(1)),
            Err(KnockoutError::NotPending { round: 1, index: 1 })
        );
        k.record(2, 0, Some(1)).unwrap();
        assert_eq!(k.champion(), Some(1));
        assert!(k.pending().is_empty());
        assert_eq!(Knockout::new(1), Err(KnockoutError::TooFewPlayers(1)));
        assert_eq!(
            k.record(5, 0, Some(1)),
            Err(KnockoutError::NoSuchTie { round: 5, index: 0 })
        );
        // Places: 1 champion, 4 finalist, 0 and 2 out in the semi-finals, 3 and 5 first.
        assert_eq!(
            [1, 4, 0, 2, 3, 5].map(|p| k.place(p)),
            [Some(1), Some(2), Some(3), Some(3), Some(5), Some(5)]
        );
    }

    #[test]
    fn both_absent_lets_nobody_through_and_the_next_opponent_walks_over() {
        let mut k = Knockout::new(4).unwrap();
        // 0-3 and 1-2; both of 1-2 absent: 0-3's winner walks over in the final.
        k.record(0, 1, None).unwrap();
        assert_eq!(k.pending(), vec![(0, 0, Pairing::new(0, 3))]);
        k.record(0, 0, Some(3)).unwrap();
        assert_eq!(k.champion(), Some(3));
        assert!(k.pending().is_empty());
        assert_eq!(k.place(1), Some(3));
        // Two such ties leave the final empty: no champion.
        let mut k = Knockout::new(4).unwrap();
        k.record(0, 0, None).unwrap();
        k.record(0, 1, None).unwrap();
        assert!(k.rounds[1][0].decided);
        assert_eq!(k.champion(), None);
    }

    #[test]
    fn a_drawn_micro_match_goes_on_to_the_first_win() {
        let p = Pairing::new(0, 1);
        assert_eq!(winner(p, &[WhiteWin], 2), None);
        assert_eq!(winner(p, &[WhiteWin, Draw], 2), Some(0));
        assert_eq!(winner(p, &[Draw, Draw], 2), None);
        assert_eq!(winner(p, &[Draw, Draw, Draw], 2), None);
        // Game 3 has 0 White again; game 4 has 1 White, and Black (0) wins it.
        assert_eq!(winner(p, &[Draw, Draw, Draw, BlackWin], 2), Some(0));
        assert_eq!(winner(p, &[WhiteWin, WhiteWin, WhiteWin], 2), Some(0));
    }
}
