//! Tie-breaks of IDF s.2 art. 20: the coefficients of 20.3 as small functions over a
//! [`Crosstable`], and the orders in which 20.1.3 applies them.
//!
//! Coefficients (each function cites its article):
//! - Shmulyan (20.3.1): points of the players he beat minus points of those he lost to.
//! - Sonneborn-Berger (20.3.2): twice the points of the players he beat plus the points
//!   of those he drew with.
//! - Buchholz (20.3.3): the points of all his opponents.
//! - Solkoff (20.3.4): Buchholz without the best and the worst opponent.
//! - truncated Solkoff (20.3.5): Buchholz without the worst opponent; if still equal,
//!   without the two worst, then three, and so on ([`cut_lowest`]).
//! - head-to-head (20.1.3.1): points scored in the games among the tied players.
//! - micro-match wins (20.1.3.1).
//! - results against the others in order of places (20.1.3.1): see [`crate::tournament::standings`].
//!
//! "Points of a player" is his total in the crosstable; an opponent met twice (several
//! cycles, or games scored one by one) is counted once per entry. A bye has no opponent
//! and adds nothing to any coefficient (the text is silent on byes).
//!
//! Orders (20.1.3): round robin: Sonneborn-Berger (or Shmulyan), head-to-head,
//! micro-match wins, results against the others in order of places. Swiss, by the
//! pairing program named in 20.1.3.2 ([`SwissProgram`]):
//! - Tournament Manager, even number of players: Buchholz, truncated Solkoff (cut 1),
//!   cut 2, cut 3, ...; odd: truncated Solkoff (cut 1), Buchholz, cut 2, cut 3, ...
//! - Chess Arbiter, even: Buchholz, cut 1, cut 2, ...; odd: cut 1, cut 2, ..., Buchholz.
//!
//! The last criterion of every list, a match to the first win with a shorter control, is
//! a game to be played, not a number: players still equal after every criterion share
//! their place and [`crate::tournament::Standing::playoff`] marks them.

use serde::{Deserialize, Serialize};

use super::Player;
use super::SideResult;
use super::crosstable::Crosstable;

/// One tie-break criterion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "n", rename_all = "snake_case")]
pub enum TieBreak {
    /// Sonneborn-Berger, 20.3.2.
    SonnebornBerger,
    /// Shmulyan, 20.3.1.
    Shmulyan,
    /// Points among the tied players, 20.1.3.1.
    HeadToHead,
    /// Micro-matches won, 20.1.3.1.
    MicroMatchWins,
    /// Results against the others in order of places, 20.1.3.1.
    ResultsByPlaces,
    /// Buchholz, 20.3.3.
    Buchholz,
    /// Solkoff (median), 20.3.4.
    Solkoff,
    /// Buchholz without the `n` lowest opponents; `Cut(1)` is the truncated Solkoff,
    /// 20.3.5.
    Cut(usize),
}

impl TieBreak {
    /// A short name for tables and the wire.
    pub fn label(self) -> String {
        match self {
            TieBreak::SonnebornBerger => "SB".into(),
            TieBreak::Shmulyan => "Shm".into(),
            TieBreak::HeadToHead => "H2H".into(),
            TieBreak::MicroMatchWins => "Wins".into(),
            TieBreak::ResultsByPlaces => "Places".into(),
            TieBreak::Buchholz => "Bh".into(),
            TieBreak::Solkoff => "Solk".into(),
            TieBreak::Cut(n) => format!("Cut{n}"),
        }
    }
}

/// The coefficient of the round-robin list (20.1.3.1: "Sonneborn-Berger (or Shmulyan)").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoundRobinCoefficient {
    /// Sonneborn-Berger.
    #[default]
    SonnebornBerger,
    /// Shmulyan.
    Shmulyan,
}

/// The pairing program whose order of Swiss tie-breaks applies (20.1.3.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SwissProgram {
    /// "Tournament manager".
    #[default]
    TournamentManager,
    /// "Chess Arbiter for draughts".
    ChessArbiter,
}

/// Art. 20.1.3.1: the round-robin order.
pub fn round_robin_order(coefficient: RoundRobinCoefficient) -> Vec<TieBreak> {
    let first = match coefficient {
        RoundRobinCoefficient::SonnebornBerger => TieBreak::SonnebornBerger,
        RoundRobinCoefficient::Shmulyan => TieBreak::Shmulyan,
    };
    vec![
        first,
        TieBreak::HeadToHead,
        TieBreak::MicroMatchWins,
        TieBreak::ResultsByPlaces,
    ]
}

/// Art. 20.1.3.2: the Swiss order for `players` participants, cutting up to `max_cut`
/// lowest results (cutting as many as there are opponents leaves nothing to compare, so
/// `rounds - 1` is the useful bound).
pub fn swiss_order(program: SwissProgram, players: usize, max_cut: usize) -> Vec<TieBreak> {
    let cuts = |from: usize| (from..=max_cut).map(TieBreak::Cut);
    let even = players.is_multiple_of(2);
    match (program, even) {
        (_, true) => std::iter::once(TieBreak::Buchholz).chain(cuts(1)).collect(),
        (SwissProgram::TournamentManager, false) => [TieBreak::Cut(1), TieBreak::Buchholz]
            .into_iter()
            .chain(cuts(2))
            .collect(),
        (SwissProgram::ChessArbiter, false) => {
            cuts(1).chain(std::iter::once(TieBreak::Buchholz)).collect()
        }
    }
}

fn opponents_with(
    t: &Crosstable,
    p: Player,
    outcome: SideResult,
) -> impl Iterator<Item = i64> + '_ {
    t.entries[p]
        .iter()
        .filter(move |e| e.outcome == outcome)
        .filter_map(|e| e.opponent)
        .map(|o| i64::from(t.score(o)))
}

/// Art. 20.3.1, Shmulyan: Σ points of those `p` beat − Σ points of those `p` lost to.
pub fn shmulyan(t: &Crosstable, p: Player) -> i64 {
    opponents_with(t, p, SideResult::Win).sum::<i64>()
        - opponents_with(t, p, SideResult::Loss).sum::<i64>()
}

/// Art. 20.3.2, Sonneborn-Berger: 2 × Σ points of those `p` beat + Σ points of those `p`
/// drew with.
pub fn sonneborn_berger(t: &Crosstable, p: Player) -> i64 {
    2 * opponents_with(t, p, SideResult::Win).sum::<i64>()
        + opponents_with(t, p, SideResult::Draw).sum::<i64>()
}

/// The opponents' points, one per entry, in ascending order.
fn opponent_scores(t: &Crosstable, p: Player) -> Vec<i64> {
    let mut v: Vec<i64> = t.entries[p]
        .iter()
        .filter_map(|e| e.opponent)
        .map(|o| i64::from(t.score(o)))
        .collect();
    v.sort_unstable();
    v
}

/// Art. 20.3.3, Buchholz: Σ points of all of `p`'s opponents.
pub fn buchholz(t: &Crosstable, p: Player) -> i64 {
    opponent_scores(t, p).iter().sum()
}

/// Art. 20.3.5 (and the "2, 3, ... lowest" of 20.1.3.2): Buchholz without the `n` lowest
/// opponents' points. `cut_lowest(t, p, 1)` is the truncated Solkoff coefficient.
pub fn cut_lowest(t: &Crosstable, p: Player, n: usize) -> i64 {
    opponent_scores(t, p).iter().skip(n).sum()
}

/// Art. 20.3.4, Solkoff: Buchholz without the best and the worst opponent's points.
pub fn solkoff(t: &Crosstable, p: Player) -> i64 {
    let v = opponent_scores(t, p);
    if v.len() < 2 {
        return 0;
    }
    v[1..v.len() - 1].iter().sum()
}

/// Art. 20.1.3.1, head-to-head: points `p` scored against the other members of `group`.
pub fn head_to_head(t: &Crosstable, p: Player, group: &[Player]) -> i64 {
    group
        .iter()
        .filter(|&&o| o != p)
        .map(|&o| i64::from(t.points_against(p, o)))
        .sum()
}

/// Art. 20.1.3.1: micro-matches `p` won.
pub fn micro_match_wins(t: &Crosstable, p: Player) -> i64 {
    i64::from(t.match_wins[p])
}

/// Art. 20.1.3.1, results against the others in order of places: `p`'s points against
/// each player of `order` (best placed first) who is not in `group`.
pub fn results_by_places(
    t: &Crosstable,
    p: Player,
    group: &[Player],
    order: &[Player],
) -> Vec<i64> {
    order
        .iter()
        .filter(|o| !group.contains(o))
        .map(|&o| i64::from(t.points_against(p, o)))
        .collect()
}

/// The value of a numeric criterion (everything but [`TieBreak::ResultsByPlaces`], which
/// compares sequences and returns `None` here).
pub fn value(t: &Crosstable, tb: TieBreak, p: Player, group: &[Player]) -> Option<i64> {
    Some(match tb {
        TieBreak::SonnebornBerger => sonneborn_berger(t, p),
        TieBreak::Shmulyan => shmulyan(t, p),
        TieBreak::HeadToHead => head_to_head(t, p, group),
        TieBreak::MicroMatchWins => micro_match_wins(t, p),
        TieBreak::Buchholz => buchholz(t, p),
        TieBreak::Solkoff => solkoff(t, p),
        TieBreak::Cut(n) => cut_lowest(t, p, n),
        TieBreak::ResultsByPlaces => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::Pairing;
    use super::super::micromatch::{Encounter, Scoring, Unit};
    use super::*;
    use crate::law::{GameResult, GameResult::*};

    const A: Player = 0;
    const B: Player = 1;
    const C: Player = 2;
    const D: Player = 3;

    fn mm(round: usize, w: Player, b: Player, g: [GameResult; 2]) -> (usize, Encounter) {
        (
            round,
            Encounter::Played {
                pairing: Pairing::new(w, b),
                games: g.to_vec(),
            },
        )
    }

    /// A four-player round robin of micro-matches:
    /// A-B: A(W) wins, draw → A 3-1 B.   A-C: two draws.   A-D: D wins with Black, draw → D 3-1 A.
    /// B-C: B wins both → B 4-0 C.       B-D: B wins with Black, draw → B 3-1 D.
    /// C-D: C wins with White, draw → C 3-1 D.
    fn results() -> Vec<(usize, Encounter)> {
        vec![
            mm(0, A, B, [WhiteWin, Draw]),
            mm(0, C, D, [WhiteWin, Draw]),
            mm(1, C, A, [Draw, Draw]),
            mm(1, D, B, [BlackWin, Draw]),
            mm(2, A, D, [BlackWin, Draw]),
            mm(2, B, C, [WhiteWin, BlackWin]),
        ]
    }

    /// Scored per micro-match (art. 15, 2/1/0):
    ///
    /// ```text
    ///        A  B  C  D   pts
    ///   A    .  2  1  0    3
    ///   B    0  .  2  2    4
    ///   C    1  0  .  2    3
    ///   D    2  0  0  .    2
    /// ```
    fn by_match() -> Crosstable {
        Crosstable::build(4, &Scoring::default(), &results(), &[]).unwrap()
    }

    #[test]
    fn the_hand_worked_table_scores_as_drawn_up() {
        let t = by_match();
        assert_eq!([A, B, C, D].map(|p| t.score(p)), [3, 4, 3, 2]);
        assert_eq!(t.match_wins, vec![1, 2, 1, 1]);
    }

    #[test]
    fn sonneborn_berger_is_twice_the_beaten_plus_the_drawn_20_3_2() {
        let t = by_match();
        // A beat B (4) and drew C (3): 2·4 + 3 = 11.
        assert_eq!(sonneborn_berger(&t, A), 11);
        // B beat C (3) and D (2): 2·5 = 10.
        assert_eq!(sonneborn_berger(&t, B), 10);
        // C drew A (3) and beat D (2): 2·2 + 3 = 7.
        assert_eq!(sonneborn_berger(&t, C), 7);
        // D beat A (3): 6.
        assert_eq!(sonneborn_berger(&t, D), 6);
    }

    #[test]
    fn shmulyan_is_the_beaten_minus_those_lost_to_20_3_1() {
        let t = by_match();
        assert_eq!(shmulyan(&t, A), 4 - 2);
        assert_eq!(shmulyan(&t, B), 5 - 3);
        assert_eq!(shmulyan(&t, C), 2 - 4);
        assert_eq!(shmulyan(&t, D), 3 - 7);
    }

    #[test]
    fn head_to_head_counts_only_games_among_the_tied() {
        let t = by_match();
        assert_eq!(head_to_head(&t, A, &[A, C]), 1);
        assert_eq!(head_to_head(&t, C, &[A, C]), 1);
        assert_eq!(head_to_head(&t, A, &[A, B, D]), 2);
        assert_eq!(head_to_head(&t, B, &[A, B, D]), 2);
        assert_eq!(head_to_head(&t, D, &[A, B, D]), 2);
    }

    #[test]
    fn micro_match_wins_count_matches_not_games() {
        let t = by_match();
        assert_eq!([A, B, C, D].map(|p| micro_match_wins(&t, p)), [1, 2, 1, 1]);
    }

    #[test]
    fn results_by_places_list_points_against_the_others_best_first() {
        let t = by_match();
        // Places: B, then A and C tied, then D. Against B then D:
        assert_eq!(results_by_places(&t, A, &[A, C], &[B, A, C, D]), vec![2, 0]);
        assert_eq!(results_by_places(&t, C, &[A, C], &[B, A, C, D]), vec![0, 2]);
    }

    #[test]
    fn game_scoring_counts_every_game_as_an_encounter() {
        let g = Scoring {
            unit: Unit::Game,
            ..Scoring::default()
        };
        let t = Crosstable::build(4, &g, &results(), &[]).unwrap();
        // A: 2+1 (B) + 1+1 (C) + 0+1 (D) = 6; B: 1 + 4 + 3 = 8; C: 2 + 0 + 3 = 5; D: 3 + 1 + 1 = 5.
        assert_eq!([A, B, C, D].map(|p| t.score(p)), [6, 8, 5, 5]);
        // A won one game (against B, 8), drew four (B 8, C 5, C 5, D 5), lost one (D 5).
        assert_eq!(sonneborn_berger(&t, A), 2 * 8 + (8 + 5 + 5 + 5));
        assert_eq!(shmulyan(&t, A), 8 - 5);
        // Micro-match wins do not change with the unit.
        assert_eq!(t.match_wins, vec![1, 2, 1, 1]);
    }

    /// A five-player Swiss of three rounds, micro-matches scored 2/1/0, a bye worth a win:
    /// R1: 0 beats 1, 2 draws 3, bye 4.  R2: 0 beats 4, 3 beats 1, bye 2.
    /// R3: 0 draws 3, 4 beats 2, bye 1.
    /// Scores: 0: 5, 1: 2, 2: 3, 3: 4, 4: 4.
    fn swiss() -> Crosstable {
        let r = vec![
            mm(0, 0, 1, [WhiteWin, BlackWin]),
            mm(0, 2, 3, [Draw, Draw]),
            (0, Encounter::Bye { player: 4 }),
            mm(1, 4, 0, [BlackWin, Draw]),
            mm(1, 3, 1, [WhiteWin, Draw]),
            (1, Encounter::Bye { player: 2 }),
            mm(2, 0, 3, [Draw, Draw]),
            mm(2, 4, 2, [WhiteWin, Draw]),
            (2, Encounter::Bye { player: 1 }),
        ];
        Crosstable::build(5, &Scoring::default(), &r, &[]).unwrap()
    }

    #[test]
    fn buchholz_sums_every_opponent_and_a_bye_adds_nothing_20_3_3() {
        let t = swiss();
        assert_eq!(
            (0..5).map(|p| t.score(p)).collect::<Vec<_>>(),
            vec![5, 2, 3, 4, 4]
        );
        // 0 met 1 (2), 4 (4), 3 (4).
        assert_eq!(buchholz(&t, 0), 10);
        // 1 met 0 (5) and 3 (4), then had a bye.
        assert_eq!(buchholz(&t, 1), 9);
        // 3 met 2 (3), 1 (2), 0 (5); 4 met 0 (5), 2 (3).
        assert_eq!(buchholz(&t, 3), 10);
        assert_eq!(buchholz(&t, 4), 8);
    }

    #[test]
    fn truncated_solkoff_and_further_cuts_drop_the_lowest_20_3_5() {
        let t = swiss();
        assert_eq!(cut_lowest(&t, 0, 1), 8); // without 1 (2)
        assert_eq!(cut_lowest(&t, 3, 1), 8); // without 1 (2)
        assert_eq!(cut_lowest(&t, 0, 2), 4); // only one 4 left
        assert_eq!(cut_lowest(&t, 3, 2), 5); // only 0 (5) left
        assert_eq!(cut_lowest(&t, 4, 2), 0);
        assert_eq!(cut_lowest(&t, 4, 7), 0);
    }

    #[test]
    fn solkoff_drops_the_best_and_the_worst_20_3_4() {
        let t = swiss();
        assert_eq!(solkoff(&t, 0), 4);
        assert_eq!(solkoff(&t, 3), 3);
        assert_eq!(solkoff(&t, 4), 0);
    }

    #[test]
    fn orders_follow_20_1_3() {
        use TieBreak::*;
        assert_eq!(
            round_robin_order(RoundRobinCoefficient::SonnebornBerger),
            vec![SonnebornBerger, HeadToHead, MicroMatchWins, ResultsByPlaces]
        );
        assert_eq!(
            round_robin_order(RoundRobinCoefficient::Shmulyan),
            vec![Shmulyan, HeadToHead, MicroMatchWins, ResultsByPlaces]
        );
        assert_eq!(
            swiss_order(SwissProgram::TournamentManager, 10, 3),
            vec![Buchholz, Cut(1), Cut(2), Cut(3)]
        );
        assert_eq!(
            swiss_order(SwissProgram::TournamentManager, 9, 3),
            vec![Cut(1), Buchholz, Cut(2), Cut(3)]
        );
        assert_eq!(
            swiss_order(SwissProgram::ChessArbiter, 10, 2),
            vec![Buchholz, Cut(1), Cut(2)]
        );
        assert_eq!(
            swiss_order(SwissProgram::ChessArbiter, 9, 2),
            vec![Cut(1), Cut(2), Buchholz]
        );
    }
}
