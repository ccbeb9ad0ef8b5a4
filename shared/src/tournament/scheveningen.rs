//! The Scheveningen system (IDF s.2 art. 2.4): the members of one group (team) play, in
//! turn, every member of the other group, and nobody from their own group.
//!
//! Groups A and B of equal size `m` play `m` rounds. In round `r` (0-based) the `i`-th
//! member of A meets the `(i + r) mod m`-th member of B; A's member has White when
//! `i + r` is even, so colours alternate both along the boards and from round to round.

use super::{Pairing, Player, Round};

/// Why a Scheveningen schedule cannot be drawn up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScheveningenError {
    /// The groups differ in size.
    #[error("the groups must be the same size, not {0} and {1}")]
    UnequalGroups(usize, usize),
    /// Empty groups.
    #[error("the groups are empty")]
    Empty,
    /// A player is in both groups or twice in one.
    #[error("player {0} is listed more than once")]
    Duplicate(Player),
}

/// Every round of a Scheveningen match between groups `a` and `b`.
pub fn schedule(a: &[Player], b: &[Player]) -> Result<Vec<Round>, ScheveningenError> {
    if a.len() != b.len() {
        return Err(ScheveningenError::UnequalGroups(a.len(), b.len()));
    }
    if a.is_empty() {
        return Err(ScheveningenError::Empty);
    }
    let mut all: Vec<Player> = a.iter().chain(b).copied().collect();
    all.sort_unstable();
    if let Some(w) = all.windows(2).find(|w| w[0] == w[1]) {
        return Err(ScheveningenError::Duplicate(w[0]));
    }
    let m = a.len();
    Ok((0..m)
        .map(|r| Round {
            pairings: (0..m)
                .map(|i| {
                    let (x, y) = (a[i], b[(i + r) % m]);
                    if (i + r) % 2 == 0 {
                        Pairing::new(x, y)
                    } else {
                        Pairing::new(y, x)
                    }
                })
                .collect(),
            bye: None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_member_meets_every_member_of_the_other_group_once() {
        let a = [0, 1, 2, 3];
        let b = [4, 5, 6, 7];
        let s = schedule(&a, &b).unwrap();
        assert_eq!(s.len(), 4);
        let mut met = std::collections::HashSet::new();
        for r in &s {
            for p in &r.pairings {
                let (x, y) = if a.contains(&p.white) {
                    (p.white, p.black)
                } else {
                    (p.black, p.white)
                };
                assert!(a.contains(&x) && b.contains(&y), "same-group pairing {p:?}");
                assert!(met.insert((x, y)));
            }
        }
        assert_eq!(met.len(), 16);
        // Every member of A has White twice and Black twice.
        for x in a {
            let whites = s
                .iter()
                .flat_map(|r| &r.pairings)
                .filter(|p| p.white == x)
                .count();
            assert_eq!(whites, 2);
        }
    }

    #[test]
    fn bad_groups_are_refused() {
        assert_eq!(
            schedule(&[0], &[1, 2]),
            Err(ScheveningenError::UnequalGroups(1, 2))
        );
        assert_eq!(schedule(&[], &[]), Err(ScheveningenError::Empty));
        assert_eq!(
            schedule(&[0, 1], &[1, 2]),
            Err(ScheveningenError::Duplicate(1))
        );
    }
}
