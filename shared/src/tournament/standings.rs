//! Places (IDF s.2 art. 20.1): players rank by points; players with equal points are
//! separated by the tournament's tie-break criteria, applied in order (20.1.3), each one
//! only among players still equal after all the earlier ones.
//!
//! - Head-to-head is recomputed inside each group still tied when it is applied, so for
//!   three players equal on points it is their mini-table.
//! - "Results against the others in order of places" compares the tied players' points
//!   against every other player, best placed first; the places used are those known when
//!   the criterion is applied (players still tied elsewhere keep their seed order).
//! - Art. 20.1.2: when the regulations provide an extra match for first place, players
//!   equal on points for first are not separated by criteria; they all get `playoff`.
//! - Players still equal after every criterion share their place and get `playoff` (the
//!   last line of 20.1.3.2: a match to the first win decides). Annulled players (18.2.1)
//!   have no place.

use serde::{Deserialize, Serialize};

use super::Player;
use super::crosstable::Crosstable;
use super::tiebreaks::{TieBreak, results_by_places, value};

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// The player.
    pub player: Player,
    /// 1-based place; players sharing a place have the same `place` and `place_to`.
    pub place: usize,
    /// The last place of a shared place (equal to `place` when not shared).
    pub place_to: usize,
    /// Points.
    pub score: u32,
    /// Each numeric criterion's value, in the order applied. Head-to-head is the value
    /// the order used: points against the players still equal with this one when the
    /// criterion was applied (equal on points and on every earlier criterion), so 0
    /// for a player the earlier criteria had already separated.
    pub tiebreaks: Vec<(TieBreak, i64)>,
    /// Still equal with others after every criterion, or tied for first under 20.1.2:
    /// an extra match decides.
    pub playoff: bool,
}

/// The standings of `t` under the criteria `order`; `playoff_for_first` says the
/// regulations provide an extra match for first place (20.1.2).
pub fn standings(t: &Crosstable, order: &[TieBreak], playoff_for_first: bool) -> Vec<Standing> {
    let mut players: Vec<Player> = (0..t.players()).filter(|&p| !t.annulled[p]).collect();
    players.sort_by_key(|&p| (std::cmp::Reverse(t.score(p)), p));
    let mut groups: Vec<Vec<Player>> = Vec::new();
    for p in players {
        match groups.last_mut() {
            Some(g) if t.score(g[0]) == t.score(p) => g.push(p),
            _ => groups.push(vec![p]),
        }
    }
    let frozen_first = playoff_for_first && groups.first().is_some_and(|g| g.len() > 1);
    // Each player's value of each criterion, computed in the group he was in when the
    // criterion was applied (only head-to-head depends on the group).
    let mut values: Vec<Vec<(TieBreak, i64)>> = vec![Vec::new(); t.players()];
    for &tb in order {
        for g in &groups {
            for &p in g {
                if let Some(v) = value(t, tb, p, g) {
                    values[p].push((tb, v));
                }
            }
        }
        let mut next: Vec<Vec<Player>> = Vec::with_capacity(groups.len());
        for i in 0..groups.len() {
            let g = std::mem::take(&mut groups[i]);
            if g.len() == 1 || (i == 0 && frozen_first) {
                next.push(g);
            } else {
                // Places as known now: the groups above already split by this criterion.
                let provisional: Vec<Player> = next
                    .iter()
                    .flatten()
                    .chain(&g)
                    .chain(groups[i + 1..].iter().flatten())
                    .copied()
                    .collect();
                next.extend(split(t, tb, g, &provisional));
            }
        }
        groups = next;
    }
    let mut out = Vec::new();
    let mut place = 1;
    for g in &groups {
        for &p in g {
            out.push(Standing {
                player: p,
                place,
                place_to: place + g.len() - 1,
                score: t.score(p),
                tiebreaks: std::mem::take(&mut values[p]),
                playoff: g.len() > 1,
            });
        }
        place += g.len();
    }
    out
}

/// Splits a tied group by one criterion, best first; equal values stay together in seed
/// order.
fn split(t: &Crosstable, tb: TieBreak, g: Vec<Player>, provisional: &[Player]) -> Vec<Vec<Player>> {
    let mut keyed: Vec<(Vec<i64>, Player)> = g
        .iter()
        .map(|&p| {
            let key = match value(t, tb, p, &g) {
                Some(v) => vec![v],
                None => results_by_places(t, p, &g, provisional),
            };
            (key, p)
        })
        .collect();
    keyed.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out: Vec<Vec<Player>> = Vec::new();
    let mut last: Option<Vec<i64>> = None;
    for (k, p) in keyed {
        match (&last, out.last_mut()) {
            (Some(l), Some(grp)) if *l == k => grp.push(p),
            _ => {
                out.push(vec![p]);
                last = Some(k);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::Pairing;
    use super::super::micromatch::{Encounter, Scoring};
    use super::super::tiebreaks::{
        RoundRobinCoefficient, SwissProgram, round_robin_order, swiss_order,
    };
    use super::*;
    use crate::law::{GameResult, GameResult::*};

    fn mm(round: usize, w: Player, b: Player, g: [GameResult; 2]) -> (usize, Encounter) {
        (
            round,
            Encounter::Played {
                pairing: Pairing::new(w, b),
                games: g.to_vec(),
            },
        )
    }

    fn places(s: &[Standing]) -> Vec<(Player, usize, usize)> {
        s.iter().map(|x| (x.player, x.place, x.place_to)).collect()
    }

    /// The four-player table of the tie-break tests: B 4, A 3, C 3, D 2; A's SB 11 beats
    /// C's 7.
    fn four() -> Crosstable {
        let r = vec![
            mm(0, 0, 1, [WhiteWin, Draw]),
            mm(0, 2, 3, [WhiteWin, Draw]),
            mm(1, 2, 0, [Draw, Draw]),
            mm(1, 3, 1, [BlackWin, Draw]),
            mm(2, 0, 3, [BlackWin, Draw]),
            mm(2, 1, 2, [WhiteWin, BlackWin]),
        ];
        Crosstable::build(4, &Scoring::default(), &r, &[]).unwrap()
    }

    #[test]
    fn sonneborn_berger_separates_equal_points() {
        let s = standings(
            &four(),
            &round_robin_order(RoundRobinCoefficient::SonnebornBerger),
            false,
        );
        assert_eq!(places(&s), vec![(1, 1, 1), (0, 2, 2), (2, 3, 3), (3, 4, 4)]);
        assert_eq!(s[1].tiebreaks[0], (TieBreak::SonnebornBerger, 11));
        assert!(s.iter().all(|x| !x.playoff));
    }

    #[test]
    fn shmulyan_can_be_chosen_instead() {
        // A: 4 − 2 = 2, C: 2 − 4 = −2.
        let s = standings(
            &four(),
            &round_robin_order(RoundRobinCoefficient::Shmulyan),
            false,
        );
        assert_eq!(places(&s), vec![(1, 1, 1), (0, 2, 2), (2, 3, 3), (3, 4, 4)]);
    }

    /// Three players each beat one and lose to one, and all draw a fourth: points, SB,
    /// the mini-table, wins and the results against the fourth are all equal, so they
    /// share the place.
    #[test]
    fn a_perfect_circle_shares_the_place() {
        let r = vec![
            mm(0, 0, 1, [WhiteWin, Draw]),
            mm(0, 2, 3, [Draw, Draw]),
            mm(1, 1, 2, [WhiteWin, Draw]),
            mm(1, 3, 0, [Draw, Draw]),
            mm(2, 2, 0, [WhiteWin, Draw]),
            mm(2, 1, 3, [Draw, Draw]),
        ];
        let t = Crosstable::build(4, &Scoring::default(), &r, &[]).unwrap();
        let s = standings(
            &t,
            &round_robin_order(RoundRobinCoefficient::SonnebornBerger),
            false,
        );
        assert_eq!(places(&s), vec![(0, 1, 3), (1, 1, 3), (2, 1, 3), (3, 4, 4)]);
        assert!(s[..3].iter().all(|x| x.playoff));
    }

    /// A five-player round robin given as (a, b, r): r = 2 a wins, 1 drawn, 0 b wins.
    fn five(results: [(Player, Player, u8); 10]) -> Crosstable {
        let r: Vec<_> = results
            .iter()
            .map(|&(a, b, r)| match r {
                2 => mm(0, a, b, [WhiteWin, Draw]),
                1 => mm(0, a, b, [Draw, Draw]),
                _ => mm(0, a, b, [BlackWin, Draw]),
            })
            .collect();
        Crosstable::build(5, &Scoring::default(), &r, &[]).unwrap()
    }

    #[test]
    fn head_to_head_decides_after_an_equal_coefficient() {
        // Points 3 3 8 4 2. SB(0): beat 1 (3), drew 4 (2) → 2·3 + 2 = 8.
        // SB(1): beat 4 (2), drew 3 (4) → 2·2 + 4 = 8. Equal; 0 beat 1.
        let t = five([
            (0, 1, 2),
            (0, 2, 0),
            (0, 3, 0),
            (0, 4, 1),
            (1, 2, 0),
            (1, 3, 1),
            (1, 4, 2),
            (2, 3, 2),
            (2, 4, 2),
            (3, 4, 1),
        ]);
        assert_eq!(
            (0..5).map(|p| t.score(p)).collect::<Vec<_>>(),
            vec![3, 3, 8, 4, 2]
        );
        let s = standings(
            &t,
            &round_robin_order(RoundRobinCoefficient::SonnebornBerger),
            false,
        );
        assert_eq!(
            s[2].tiebreaks[..2],
            [(TieBreak::SonnebornBerger, 8), (TieBreak::HeadToHead, 2)]
        );
        assert_eq!(
            places(&s),
            vec![(2, 1, 1), (3, 2, 2), (0, 3, 3), (1, 4, 4), (4, 5, 5)]
        );
    }

    /// 20.1.3.1: head-to-head is applied to the players still equal after the first
    /// coefficient, and the standings publish that value. Points 6 4 2 4 4: seeds 2, 4
    /// and 5 (players 1, 3, 4) are equal on points; SB 12, 16, 16 puts player 1 third of
    /// them, and players 3 and 4 remain. Among all three, 3 and 4 both scored 2 (3 lost
    /// to 1 and beat 4; 4 beat 1 and lost to 3); between the two still tied, 3 scored 2
    /// and 4 none. The published H2H is that of the two: 2 against 0, which is why 3
    /// stands above 4; 1, alone after SB, has H2H 0.
    #[test]
    fn head_to_head_published_is_that_of_the_group_still_tied() {
        let t = five([
            (0, 1, 2),
            (0, 2, 2),
            (0, 3, 1),
            (0, 4, 1),
            (1, 2, 2),
            (1, 3, 2),
            (1, 4, 0),
            (2, 3, 1),
            (2, 4, 1),
            (3, 4, 2),
        ]);
        assert_eq!(
            (0..5).map(|p| t.score(p)).collect::<Vec<_>>(),
            vec![6, 4, 2, 4, 4]
        );
        let s = standings(
            &t,
            &round_robin_order(RoundRobinCoefficient::SonnebornBerger),
            false,
        );
        assert_eq!(
            places(&s),
            vec![(0, 1, 1), (3, 2, 2), (4, 3, 3), (1, 4, 4), (2, 5, 5)]
        );
        let h2h = |i: usize| s[i].tiebreaks[..2].to_vec();
        assert_eq!(
            h2h(1),
            [(TieBreak::SonnebornBerger, 16), (TieBreak::HeadToHead, 2)]
        );
        assert_eq!(
            h2h(2),
            [(TieBreak::SonnebornBerger, 16), (TieBreak::HeadToHead, 0)]
        );
        assert_eq!(
            h2h(3),
            [(TieBreak::SonnebornBerger, 12), (TieBreak::HeadToHead, 0)]
        );
    }

    #[test]
    fn micro_match_wins_decide_after_a_drawn_head_to_head() {
        // Points 3 3 4 5 5. SB(0): beat 4 (5), drew 1 (3) → 13. SB(1): drew 0, 3, 4
        // (3 + 5 + 5) → 13. 0 and 1 drew. Wins: 0 one, 1 none.
        let t = five([
            (0, 1, 1),
            (0, 2, 0),
            (0, 3, 0),
            (0, 4, 2),
            (1, 2, 0),
            (1, 3, 1),
            (1, 4, 1),
            (2, 3, 0),
            (2, 4, 0),
            (3, 4, 0),
        ]);
        assert_eq!(
            (0..5).map(|p| t.score(p)).collect::<Vec<_>>(),
            vec![3, 3, 4, 5, 5]
        );
        let s = standings(
            &t,
            &round_robin_order(RoundRobinCoefficient::SonnebornBerger),
            false,
        );
        // 4 (SB 21) before 3 (SB 17).
        assert_eq!(
            places(&s),
            vec![(4, 1, 1), (3, 2, 2), (2, 3, 3), (0, 4, 4), (1, 5, 5)]
        );
    }

    #[test]
    fn results_against_the_others_in_order_of_places_decide_last() {
        // Points 2 2 4 6 6. 3 and 4: SB 20 each, drew each other, two wins each; against
        // the others in order of places (2, 0, 1): 3 scored 2 2 1, 4 scored 2 1 2 → 3 first.
        // 0 and 1: SB 8 each, drew, no wins; against 3, 4, 2: 0 scored 0 1 0, 1 scored
        // 1 0 0 → 1 before 0.
        let t = five([
            (0, 1, 1),
            (0, 2, 0),
            (0, 3, 0),
            (0, 4, 1),
            (1, 2, 0),
            (1, 3, 1),
            (1, 4, 0),
            (2, 3, 0),
            (2, 4, 0),
            (3, 4, 1),
        ]);
        assert_eq!(
            (0..5).map(|p| t.score(p)).collect::<Vec<_>>(),
            vec![2, 2, 4, 6, 6]
        );
        let s = standings(
            &t,
            &round_robin_order(RoundRobinCoefficient::SonnebornBerger),
            false,
        );
        assert_eq!(
            places(&s),
            vec![(3, 1, 1), (4, 2, 2), (2, 3, 3), (1, 4, 4), (0, 5, 5)]
        );
    }

    #[test]
    fn swiss_order_for_an_odd_field_puts_the_truncated_solkoff_first() {
        // The five-player Swiss of the tie-break tests: 3 and 4 have 4 points each.
        // Tournament Manager, odd: Cut1 first: 3 has 8, 4 has 5 → 3 ahead.
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
        let t = Crosstable::build(5, &Scoring::default(), &r, &[]).unwrap();
        let order = swiss_order(SwissProgram::TournamentManager, 5, 2);
        let s = standings(&t, &order, false);
        assert_eq!(
            places(&s),
            vec![(0, 1, 1), (3, 2, 2), (4, 3, 3), (2, 4, 4), (1, 5, 5)]
        );
        assert_eq!(
            s[1].tiebreaks,
            vec![
                (TieBreak::Cut(1), 8),
                (TieBreak::Buchholz, 10),
                (TieBreak::Cut(2), 5)
            ]
        );
    }

    #[test]
    fn an_extra_match_for_first_keeps_the_leaders_together_20_1_2() {
        let r = vec![mm(0, 0, 1, [Draw, Draw]), mm(0, 2, 3, [Draw, Draw])];
        let t = Crosstable::build(4, &Scoring::default(), &r, &[]).unwrap();
        let s = standings(
            &t,
            &swiss_order(SwissProgram::TournamentManager, 4, 0),
            true,
        );
        assert!(
            s.iter()
                .all(|x| x.place == 1 && x.place_to == 4 && x.playoff)
        );
    }

    #[test]
    fn annulled_players_have_no_place() {
        let r = vec![mm(0, 0, 1, [WhiteWin, Draw]), mm(0, 2, 3, [WhiteWin, Draw])];
        let t = Crosstable::build(4, &Scoring::default(), &r, &[3]).unwrap();
        let s = standings(&t, &[], false);
        assert_eq!(
            s.iter().map(|x| x.player).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        assert_eq!(places(&s), vec![(0, 1, 1), (1, 2, 3), (2, 2, 3)]);
    }
}
