//! Round robin by Berger tables (IDF s.2 art. 2.1: every participant meets every other
//! in turn, in one or several cycles; art. 6.1: the order of the meetings follows a
//! schedule drawn up after the draw of numbers).
//!
//! The Berger table for `n` players (an odd `n` adds a dummy `n+1`; whoever meets it has
//! a bye) has `n-1` rounds. Numbering players 1..=n, in round `r` (1-based):
//! - the "pivot" `f = ((r-1)·n/2 mod (n-1)) + 1` meets player `n` on board 1, with White
//!   when `r` is odd and Black when `r` is even;
//! - on board `k+1` (k = 1..n/2-1), `f+k` has White against `f-k`, both counted modulo
//!   `n-1` in 1..=n-1.
//!
//! For six players this gives the familiar table: 1-6 2-5 3-4 / 6-4 5-3 1-2 / 2-6 3-1 4-5
//! / 6-5 1-4 2-3 / 3-6 4-2 5-1. In every cycle after the first the colours are swapped,
//! so that over two cycles every pair has one game (or first game) with each colour.

use super::{Pairing, Player, Round};

/// Why a round robin cannot be drawn up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BergerError {
    /// Fewer than two players.
    #[error("a round robin needs at least two players, not {0}")]
    TooFewPlayers(usize),
    /// Zero cycles.
    #[error("a round robin needs at least one cycle")]
    NoCycles,
}

/// Rounds in one cycle for `players` players.
pub fn rounds_per_cycle(players: usize) -> usize {
    let n = players + players % 2;
    n.saturating_sub(1)
}

/// One round (`round` 0-based within the cycle) of the Berger table for `players`.
fn berger_round(players: usize, round: usize) -> Round {
    let n = players + players % 2; // even, with a dummy for an odd count
    let m = n - 1;
    let pivot = (round * (n / 2)) % m; // 0-based among 0..m
    let dummy = n - 1; // 0-based number of player n
    let wrap = |x: isize| -> usize { x.rem_euclid(m as isize) as usize };
    let mut pairs = Vec::with_capacity(n / 2);
    if round.is_multiple_of(2) {
        pairs.push((pivot, dummy));
    } else {
        pairs.push((dummy, pivot));
    }
    for k in 1..n / 2 {
        let w = wrap(pivot as isize + k as isize);
        let b = wrap(pivot as isize - k as isize);
        pairs.push((w, b));
    }
    let mut out = Round::default();
    for (w, b) in pairs {
        if players % 2 == 1 && (w == dummy || b == dummy) {
            out.bye = Some(if w == dummy { b } else { w });
        } else {
            out.pairings.push(Pairing::new(w, b));
        }
    }
    out
}

/// The whole schedule: `cycles` cycles of the Berger table for `players` players, colours
/// swapped in every even-numbered cycle.
pub fn schedule(players: usize, cycles: usize) -> Result<Vec<Round>, BergerError> {
    if players < 2 {
        return Err(BergerError::TooFewPlayers(players));
    }
    if cycles == 0 {
        return Err(BergerError::NoCycles);
    }
    let per = rounds_per_cycle(players);
    let mut out = Vec::with_capacity(per * cycles);
    for cycle in 0..cycles {
        for r in 0..per {
            let mut round = berger_round(players, r);
            if cycle % 2 == 1 {
                for p in &mut round.pairings {
                    *p = Pairing::new(p.black, p.white);
                }
            }
            out.push(round);
        }
    }
    Ok(out)
}

/// The scheduled pairings of player `p` that are in `rounds` (for withdrawals).
pub fn pairings_of(rounds: &[Round], p: Player) -> Vec<(usize, Pairing)> {
    rounds
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.pairing_of(p).map(|x| (i, x)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn one_based(r: &Round) -> Vec<(usize, usize)> {
        r.pairings
            .iter()
            .map(|p| (p.white + 1, p.black + 1))
            .collect()
    }

    #[test]
    fn six_players_match_the_published_berger_table() {
        let s = schedule(6, 1).unwrap();
        let want = [
            vec![(1, 6), (2, 5), (3, 4)],
            vec![(6, 4), (5, 3), (1, 2)],
            vec![(2, 6), (3, 1), (4, 5)],
            vec![(6, 5), (1, 4), (2, 3)],
            vec![(3, 6), (4, 2), (5, 1)],
        ];
        assert_eq!(s.len(), 5);
        for (r, w) in s.iter().zip(want) {
            assert_eq!(one_based(r), w);
            assert_eq!(r.bye, None);
        }
    }

    #[test]
    fn four_players_match_the_published_berger_table() {
        let s = schedule(4, 1).unwrap();
        let got: Vec<_> = s.iter().map(one_based).collect();
        assert_eq!(
            got,
            vec![
                vec![(1, 4), (2, 3)],
                vec![(4, 3), (1, 2)],
                vec![(2, 4), (3, 1)],
            ]
        );
    }

    #[test]
    fn an_odd_count_gives_one_bye_a_round_to_whoever_meets_the_dummy() {
        // Five players use the six-player table with 6 as the bye.
        let s = schedule(5, 1).unwrap();
        let byes: Vec<_> = s.iter().map(|r| r.bye.map(|b| b + 1)).collect();
        assert_eq!(byes, vec![Some(1), Some(4), Some(2), Some(5), Some(3)]);
        assert!(s.iter().all(|r| r.pairings.len() == 2));
    }

    #[test]
    fn the_second_cycle_swaps_colours() {
        let s = schedule(4, 2).unwrap();
        assert_eq!(s.len(), 6);
        for r in 0..3 {
            for (a, b) in s[r].pairings.iter().zip(&s[r + 3].pairings) {
                assert_eq!((a.white, a.black), (b.black, b.white));
            }
        }
    }

    #[test]
    fn bad_sizes_are_refused() {
        assert_eq!(schedule(1, 1), Err(BergerError::TooFewPlayers(1)));
        assert_eq!(schedule(4, 0), Err(BergerError::NoCycles));
    }

    proptest! {
        #[test]
        fn each_pair_meets_once_per_cycle_with_balanced_colours(n in 2usize..21, cycles in 1usize..4) {
            let s = schedule(n, cycles).unwrap();
            let per = rounds_per_cycle(n);
            prop_assert_eq!(s.len(), per * cycles);
            for c in 0..cycles {
                let mut met = vec![vec![0u32; n]; n];
                let mut whites = vec![0i32; n];
                let mut byes = vec![0u32; n];
                for r in &s[c * per..(c + 1) * per] {
                    // Everybody plays exactly once a round, or has the bye.
                    let mut seen = vec![0u32; n];
                    for p in &r.pairings {
                        prop_assert!(p.white != p.black);
                        seen[p.white] += 1;
                        seen[p.black] += 1;
                        met[p.white][p.black] += 1;
                        met[p.black][p.white] += 1;
                        whites[p.white] += 1;
                        whites[p.black] -= 1;
                    }
                    if let Some(b) = r.bye { seen[b] += 1; byes[b] += 1; }
                    prop_assert!(seen.iter().all(|&x| x == 1));
                }
                for a in 0..n {
                    for (b, &m) in met[a].iter().enumerate() {
                        prop_assert_eq!(m, u32::from(a != b));
                    }
                    // White minus Black is at most 1 in absolute value per cycle.
                    prop_assert!(whites[a].abs() <= 1, "player {} colour balance {}", a, whites[a]);
                    prop_assert_eq!(byes[a], u32::from(n % 2 == 1));
                }
            }
            // Over two cycles every pair has each colour once.
            if cycles >= 2 {
                let mut white_of = std::collections::HashMap::new();
                for r in &s[..2 * per] {
                    for p in &r.pairings {
                        *white_of.entry((p.white, p.black)).or_insert(0) += 1;
                    }
                }
                for a in 0..n { for b in 0..n { if a != b {
                    prop_assert_eq!(white_of.get(&(a, b)).copied().unwrap_or(0), 1);
                }}}
            }
        }
    }
}
