//! The crosstable: every completed encounter turned into per-player entries with points,
//! as the tournament's [`Scoring`] counts them (IDF s.2 art. 15), with forfeits (art. 17)
//! and annulled withdrawals (art. 18.2.1) applied.
//!
//! With [`Unit::Game`] every game is an entry; with [`Unit::MicroMatch`] the micro-match
//! is one entry whose outcome is decided by the game points (art. 2.6). A forfeit is a
//! lost micro-match for the absent player (17.1), for both if both were absent (17.2):
//! with game scoring that is every game of the micro-match lost. A bye is one entry
//! without an opponent, worth what [`Scoring::bye`] says (the text is silent on byes;
//! damka's default is a won micro-match, as in most Swiss regulations).

use serde::{Deserialize, Serialize};

use super::micromatch::{Encounter, Scoring, Unit, colours_in_game, match_outcome};
use super::{Absence, Pairing, Player, SideResult};
use crate::rules::Color;

/// One scoring result of one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Round (0-based).
    pub round: usize,
    /// The opponent; `None` for a bye.
    pub opponent: Option<Player>,
    /// The colour this player had (in the first game of a micro-match scored as one);
    /// `None` for a bye or a forfeit.
    pub colour: Option<Color>,
    /// The outcome.
    pub outcome: SideResult,
    /// Points earned.
    pub points: u32,
    /// Whether the result came from a forfeit (art. 17) rather than play.
    pub forfeit: bool,
}

/// Why results cannot be tabulated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CrosstableError {
    /// A player number beyond the list.
    #[error("player {player} does not exist (there are {players})")]
    NoSuchPlayer {
        /// The number given.
        player: Player,
        /// How many players there are.
        players: usize,
    },
    /// A player paired with himself.
    #[error("player {0} is paired with himself")]
    SelfPairing(Player),
    /// A micro-match with the wrong number of games.
    #[error("an encounter has {got} games; this tournament plays {want}")]
    GameCount {
        /// Games given.
        got: usize,
        /// Games per encounter.
        want: usize,
    },
}

/// Results per player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Crosstable {
    /// Entries of each player, in the order given.
    pub entries: Vec<Vec<Entry>>,
    /// Micro-matches won by each player (forfeits included, byes not).
    pub match_wins: Vec<u32>,
    /// Players whose results were annulled (art. 18.2.1): they have no entries and are
    /// out of the standings.
    pub annulled: Vec<bool>,
}

impl Crosstable {
    /// Tabulates `results` (round, encounter) for `players` players, dropping every
    /// encounter of the `annulled` players.
    pub fn build(
        players: usize,
        scoring: &Scoring,
        results: &[(usize, Encounter)],
        annulled: &[Player],
    ) -> Result<Crosstable, CrosstableError> {
        let check = |p: Player| {
            if p < players {
                Ok(())
            } else {
                Err(CrosstableError::NoSuchPlayer { player: p, players })
            }
        };
        for &a in annulled {
            check(a)?;
        }
        let mut t = Crosstable {
            entries: vec![Vec::new(); players],
            match_wins: vec![0; players],
            annulled: (0..players).map(|p| annulled.contains(&p)).collect(),
        };
        for (round, enc) in results {
            match enc {
                Encounter::Bye { player } => {
                    check(*player)?;
                    if !t.annulled[*player] {
                        t.push_bye(scoring, *round, *player);
                    }
                }
                Encounter::Played { pairing, games } => {
                    t.check_pairing(players, *pairing)?;
                    if games.len() != usize::from(scoring.games) {
                        return Err(CrosstableError::GameCount {
                            got: games.len(),
                            want: usize::from(scoring.games),
                        });
                    }
                    if !t.skips(*pairing) {
                        t.push_played(scoring, *round, *pairing, games);
                    }
                }
                Encounter::Forfeit { pairing, absent } => {
                    t.check_pairing(players, *pairing)?;
                    if !t.skips(*pairing) {
                        t.push_forfeit(scoring, *round, *pairing, *absent);
                    }
                }
            }
        }
        Ok(t)
    }

    fn check_pairing(&self, players: usize, p: Pairing) -> Result<(), CrosstableError> {
        for x in [p.white, p.black] {
            if x >= players {
                return Err(CrosstableError::NoSuchPlayer { player: x, players });
            }
        }
        if p.white == p.black {
            return Err(CrosstableError::SelfPairing(p.white));
        }
        Ok(())
    }

    fn skips(&self, p: Pairing) -> bool {
        self.annulled[p.white] || self.annulled[p.black]
    }

    fn push_bye(&mut self, scoring: &Scoring, round: usize, player: Player) {
        let times = match scoring.unit {
            Unit::Game => usize::from(scoring.games),
            Unit::MicroMatch => 1,
        };
        for _ in 0..times {
            self.entries[player].push(Entry {
                round,
                opponent: None,
                colour: None,
                outcome: scoring.bye,
                points: scoring.points.of(scoring.bye),
                forfeit: false,
            });
        }
    }

    fn push_pair(
        &mut self,
        scoring: &Scoring,
        round: usize,
        p: Pairing,
        first: SideResult,
        colours: bool,
        forfeit: bool,
    ) {
        let sides = [
            (p.white, p.black, first, Color::White),
            (p.black, p.white, first.reversed(), Color::Black),
        ];
        for (me, opp, outcome, colour) in sides {
            self.entries[me].push(Entry {
                round,
                opponent: Some(opp),
                colour: colours.then_some(colour),
                outcome,
                points: scoring.points.of(outcome),
                forfeit,
            });
        }
    }

    fn push_played(
        &mut self,
        scoring: &Scoring,
        round: usize,
        p: Pairing,
        games: &[crate::law::GameResult],
    ) {
        match scoring.unit {
            Unit::Game => {
                for (i, g) in games.iter().enumerate() {
                    let c = colours_in_game(p, i);
                    let first = match g.winner() {
                        Some(Color::White) => SideResult::Win,
                        Some(Color::Black) => SideResult::Loss,
                        None => SideResult::Draw,
                    };
                    self.push_pair(scoring, round, c, first, true, false);
                }
            }
            Unit::MicroMatch => {
                self.push_pair(scoring, round, p, match_outcome(p, games), true, false)
            }
        }
        match match_outcome(p, games) {
            SideResult::Win => self.match_wins[p.white] += 1,
            SideResult::Loss => self.match_wins[p.black] += 1,
            SideResult::Draw => {}
        }
    }

    fn push_forfeit(&mut self, scoring: &Scoring, round: usize, p: Pairing, absent: Absence) {
        let times = match scoring.unit {
            Unit::Game => usize::from(scoring.games),
            Unit::MicroMatch => 1,
        };
        let (w, b) = match absent {
            Absence::White => (SideResult::Loss, SideResult::Win),
            Absence::Black => (SideResult::Win, SideResult::Loss),
            Absence::Both => (SideResult::Loss, SideResult::Loss),
        };
        for _ in 0..times {
            for (me, opp, outcome) in [(p.white, p.black, w), (p.black, p.white, b)] {
                self.entries[me].push(Entry {
                    round,
                    opponent: Some(opp),
                    colour: None,
                    outcome,
                    points: scoring.points.of(outcome),
                    forfeit: true,
                });
            }
        }
        match absent {
            Absence::White => self.match_wins[p.black] += 1,
            Absence::Black => self.match_wins[p.white] += 1,
            Absence::Both => {}
        }
    }

    /// How many players the table has (annulled ones included).
    pub fn players(&self) -> usize {
        self.entries.len()
    }

    /// A player's total points.
    pub fn score(&self, p: Player) -> u32 {
        self.entries[p].iter().map(|e| e.points).sum()
    }

    /// Points `p` earned against `o` over all their encounters.
    pub fn points_against(&self, p: Player, o: Player) -> u32 {
        self.entries[p]
            .iter()
            .filter(|e| e.opponent == Some(o))
            .map(|e| e.points)
            .sum()
    }

    /// Whether `p` and `o` have an entry against each other.
    pub fn met(&self, p: Player, o: Player) -> bool {
        self.entries[p].iter().any(|e| e.opponent == Some(o))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::law::GameResult::*;

    fn played(w: Player, b: Player, g: [crate::law::GameResult; 2]) -> Encounter {
        Encounter::Played {
            pairing: Pairing::new(w, b),
            games: g.to_vec(),
        }
    }

    #[test]
    fn micro_match_scoring_gives_one_entry_per_match() {
        let s = Scoring::default();
        let r = [
            (0, played(0, 1, [WhiteWin, Draw])), // 0: 2+1 = 3, 1: 0+1 = 1 -> 0 wins the match
            (0, Encounter::Bye { player: 2 }),
        ];
        let t = Crosstable::build(3, &s, &r, &[]).unwrap();
        assert_eq!((t.score(0), t.score(1), t.score(2)), (2, 0, 2));
        assert_eq!(t.match_wins, vec![1, 0, 0]);
        assert_eq!(t.entries[0][0].colour, Some(Color::White));
        assert_eq!(t.entries[2][0].opponent, None);
    }

    #[test]
    fn game_scoring_gives_one_entry_per_game_with_swapped_colours() {
        let s = Scoring {
            unit: Unit::Game,
            ..Scoring::default()
        };
        let r = [(0, played(0, 1, [WhiteWin, WhiteWin]))];
        let t = Crosstable::build(2, &s, &r, &[]).unwrap();
        assert_eq!((t.score(0), t.score(1)), (2, 2));
        assert_eq!(t.entries[0].len(), 2);
        assert_eq!(t.entries[0][1].colour, Some(Color::Black));
        assert_eq!(t.entries[0][1].outcome, SideResult::Loss);
        assert_eq!(t.match_wins, vec![0, 0]);
    }

    #[test]
    fn forfeits_lose_the_micro_match_for_the_absent_and_both_when_both_are_absent() {
        let s = Scoring::default();
        let r = [
            (
                0,
                Encounter::Forfeit {
                    pairing: Pairing::new(0, 1),
                    absent: Absence::Black,
                },
            ),
            (
                1,
                Encounter::Forfeit {
                    pairing: Pairing::new(2, 3),
                    absent: Absence::Both,
                },
            ),
        ];
        let t = Crosstable::build(4, &s, &r, &[]).unwrap();
        assert_eq!(
            (t.score(0), t.score(1), t.score(2), t.score(3)),
            (2, 0, 0, 0)
        );
        assert_eq!(t.entries[2][0].outcome, SideResult::Loss);
        assert_eq!(t.entries[3][0].outcome, SideResult::Loss);
        let g = Scoring {
            unit: Unit::Game,
            ..Scoring::default()
        };
        let t = Crosstable::build(4, &g, &r, &[]).unwrap();
        assert_eq!((t.score(0), t.score(1)), (4, 0));
    }

    #[test]
    fn annulled_players_vanish_with_every_encounter_against_them() {
        let s = Scoring::default();
        let r = [
            (0, played(0, 1, [WhiteWin, BlackWin])),
            (0, played(2, 3, [Draw, Draw])),
        ];
        let t = Crosstable::build(4, &s, &r, &[1]).unwrap();
        assert_eq!(t.score(0), 0);
        assert!(t.entries[0].is_empty() && t.entries[1].is_empty());
        assert_eq!(t.score(2), 1);
    }

    #[test]
    fn bad_results_are_refused() {
        let s = Scoring::default();
        assert_eq!(
            Crosstable::build(2, &s, &[(0, played(0, 2, [Draw, Draw]))], &[]),
            Err(CrosstableError::NoSuchPlayer {
                player: 2,
                players: 2
            })
        );
        assert_eq!(
            Crosstable::build(2, &s, &[(0, played(1, 1, [Draw, Draw]))], &[]),
            Err(CrosstableError::SelfPairing(1))
        );
        let one = Encounter::Played {
            pairing: Pairing::new(0, 1),
            games: vec![Draw],
        };
        assert_eq!(
            Crosstable::build(2, &s, &[(0, one)], &[]),
            Err(CrosstableError::GameCount { got: 1, want: 2 })
        );
    }
}
