//! The Swiss system (IDF s.2 art. 2.3: a set number of rounds, each paired by lot after
//! the results of the previous ones; 6.2), paired after the FIDE Dutch system (FIDE
//! Handbook C.04.3). The IDF text names no pairing rules of its own; it refers to the
//! programs "Tournament manager" and "Chess Arbiter for draughts" (20.1.3.2), both of
//! which pair by Dutch-style rules.
//!
//! What is implemented, in the Dutch system's own terms:
//! - Ranking (A.2): by score, then pairing number (the player's index, his seed).
//! - Absolute criteria: C1, two players meet at most once (a forfeited encounter counts
//!   as a meeting); C2, a player has at most one bye; C3, two players with the same
//!   absolute colour preference do not meet. If no pairing of the round satisfies C3,
//!   the round is paired again without it (the Dutch system relaxes C3 only for
//!   top-scorers in the last round; damka relaxes it rather than leave a round unpaired).
//! - Completion (C4): a bracket's pairing is accepted only if everybody below it can
//!   still be paired.
//! - Score brackets (A.3), top down; players who cannot be paired in their bracket float
//!   down to the next one, at its top (A.4); as many pairs as possible are made in each
//!   bracket (C6), the lowest-ranked players being the ones to float.
//! - Within a bracket: S1 is the upper half, S2 the lower (B.1); S1's i-th meets S2's
//!   i-th, then transpositions of S2 in lexicographic order (D.1), then exchanges of one
//!   and of two players between S1 and S2, smallest rank differences first (D.2); the
//!   first candidate with the fewest colour-preference conflicts (C12, then strong
//!   preferences, C13) is taken. A bracket with several score groups (floaters on top)
//!   is paired as one list (a simplification of the heterogeneous-bracket rules B.3).
//! - The bye (A.5, C2): with an odd number of players, the lowest-ranked player who has
//!   not had a bye and whose absence leaves the others pairable.
//! - Colours (A.6, E.1-E.5): preferences are absolute (colour difference beyond ±1, or the
//!   same colour in the last two games played), strong (difference ±1) or mild (0, to
//!   alternate); allocation grants both preferences, else the stronger, else alternates
//!   from the last round in which the two had different colours, else the higher-ranked
//!   player's preference, else the initial colour drawn before round 1 to the higher
//!   ranked if his pairing number is odd.
//!
//! In a micro-match tournament the colour is the first game's (the second is swapped
//! anyway). Withdrawn players (18.2.2) are not paired; their results stand.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::crosstable::{Crosstable, CrosstableError};
use super::micromatch::{Encounter, Scoring};
use super::{Pairing, Player, Round};
use crate::rules::Color;

/// What the pairing needs to know about a player.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissPlayer {
    /// Points so far.
    pub score: u32,
    /// Everybody he was paired with (forfeits included).
    pub opponents: Vec<Player>,
    /// His colour in each round played over the board, in order (first game's colour).
    pub colours: Vec<Color>,
    /// Whether he has had a bye.
    pub had_bye: bool,
    /// Whether he is still in the competition (not withdrawn).
    pub active: bool,
}

/// Settings of the Swiss pairing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissSettings {
    /// The colour drawn before round 1 for the top seed (Dutch E.5).
    pub initial_colour: Color,
}

impl Default for SwissSettings {
    fn default() -> Self {
        SwissSettings {
            initial_colour: Color::White,
        }
    }
}

/// Why a round cannot be paired.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SwissError {
    /// Fewer than two active players.
    #[error("a Swiss round needs at least two active players, not {0}")]
    TooFewPlayers(usize),
    /// Every pairing repeats an encounter or gives a second bye.
    #[error("no pairing of this round avoids repeated encounters and second byes")]
    NoPairing,
}

/// Builds each player's pairing history from the results so far, with the scores of
/// `scoring`; `withdrawn` players are inactive.
pub fn history(
    players: usize,
    scoring: &Scoring,
    results: &[(usize, Encounter)],
    withdrawn: &[Player],
) -> Result<Vec<SwissPlayer>, CrosstableError> {
    let t = Crosstable::build(players, scoring, results, &[])?;
    let mut out: Vec<SwissPlayer> = (0..players)
        .map(|p| SwissPlayer {
            score: t.score(p),
            active: !withdrawn.contains(&p),
            ..SwissPlayer::default()
        })
        .collect();
    let mut ordered: Vec<&(usize, Encounter)> = results.iter().collect();
    ordered.sort_by_key(|(r, _)| *r);
    for (_, e) in ordered {
        match e {
            Encounter::Bye { player } => out[*player].had_bye = true,
            Encounter::Played { pairing, .. } => {
                out[pairing.white].opponents.push(pairing.black);
                out[pairing.black].opponents.push(pairing.white);
                out[pairing.white].colours.push(Color::White);
                out[pairing.black].colours.push(Color::Black);
            }
            Encounter::Forfeit { pairing, .. } => {
                out[pairing.white].opponents.push(pairing.black);
                out[pairing.black].opponents.push(pairing.white);
            }
        }
    }
    Ok(out)
}

/// How much a player wants a colour (Dutch A.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    Mild,
    Strong,
    Absolute,
}

/// A player's colour preference, if any, with its strength.
fn preference(colours: &[Color]) -> Option<(Color, Strength)> {
    let last = *colours.last()?;
    let whites = colours.iter().filter(|&&c| c == Color::White).count() as i64;
    let diff = 2 * whites - colours.len() as i64;
    let twice = colours.len() >= 2 && colours[colours.len() - 2] == last;
    Some(if diff > 1 {
        (Color::Black, Strength::Absolute)
    } else if diff < -1 {
        (Color::White, Strength::Absolute)
    } else if twice {
        (last.opponent(), Strength::Absolute)
    } else if diff == 1 {
        (Color::Black, Strength::Strong)
    } else if diff == -1 {
        (Color::White, Strength::Strong)
    } else {
        (last.opponent(), Strength::Mild)
    })
}

/// Pairs of players.
type Pairs = Vec<(Player, Player)>;

/// The pairing state of one round.
struct Pairer<'a> {
    players: &'a [SwissPlayer],
    prefs: Vec<Option<(Color, Strength)>>,
    relaxed: bool,
    failed: HashSet<Vec<u64>>,
    budget: usize,
}

/// Evaluations allowed per round before falling back to any legal matching.
const BUDGET: usize = 200_000;

impl Pairer<'_> {
    fn compatible(&self, a: Player, b: Player) -> bool {
        if self.players[a].opponents.contains(&b) {
            return false;
        }
        if self.relaxed {
            return true;
        }
        !matches!((self.prefs[a], self.prefs[b]),
            (Some((x, Strength::Absolute)), Some((y, Strength::Absolute))) if x == y)
    }

    /// Whether `set` can be paired completely (C4), by search with memoised failures.
    fn matching(&mut self, set: &[Player]) -> Option<Vec<(Player, Player)>> {
        let Some((&first, rest)) = set.split_first() else {
            return Some(Vec::new());
        };
        let mut key = vec![0u64; self.players.len().div_ceil(64)];
        for &p in set {
            key[p / 64] |= 1 << (p % 64);
        }
        if self.failed.contains(&key) {
            return None;
        }
        for (i, &b) in rest.iter().enumerate() {
            if !self.compatible(first, b) {
                continue;
            }
            let others: Vec<Player> = rest
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &x)| x)
                .collect();
            if let Some(mut m) = self.matching(&others) {
                m.push((first, b));
                return Some(m);
            }
        }
        self.failed.insert(key);
        None
    }

    /// Colour conflicts of a pair: (any preference unmet, a strong or absolute one unmet).
    fn conflict(&self, a: Player, b: Player) -> (u32, u32) {
        match (self.prefs[a], self.prefs[b]) {
            (Some((x, s)), Some((y, t))) if x == y => (1, u32::from(s.min(t) >= Strength::Strong)),
            _ => (0, 0),
        }
    }

    /// Pairs the ranked list `ranked` bracket by bracket.
    fn brackets(&mut self, ranked: &[Player]) -> Option<Vec<(Player, Player)>> {
        let mut groups: Vec<Vec<Player>> = Vec::new();
        for &p in ranked {
            match groups.last_mut() {
                Some(g) if self.players[g[0]].score == self.players[p].score => g.push(p),
                _ => groups.push(vec![p]),
            }
        }
        let mut carry: Vec<Player> = Vec::new();
        let mut pairs = Vec::new();
        for gi in 0..groups.len() {
            let mut bracket = std::mem::take(&mut carry);
            bracket.extend(&groups[gi]);
            let lower: Vec<Player> = groups[gi + 1..].iter().flatten().copied().collect();
            let (mut chosen, floaters) = self.bracket(&bracket, &lower)?;
            pairs.append(&mut chosen);
            carry = floaters;
        }
        carry.is_empty().then_some(pairs)
    }

    /// The best pairing of one bracket whose floaters, with `lower`, can still be paired.
    fn bracket(&mut self, bracket: &[Player], lower: &[Player]) -> Option<(Pairs, Vec<Player>)> {
        let len = bracket.len();
        for p in (0..=len / 2).rev() {
            if lower.is_empty() && 2 * p != len {
                continue;
            }
            for floaters in floater_sets(len, len - 2 * p) {
                let floating: Vec<Player> = floaters.iter().map(|&i| bracket[i]).collect();
                let mut rest: Vec<Player> = floating.clone();
                rest.extend(lower);
                if self.matching(&rest).is_none() {
                    continue;
                }
                let paired: Vec<Player> = (0..len)
                    .filter(|i| !floaters.contains(i))
                    .map(|i| bracket[i])
                    .collect();
                if let Some(pairs) = self.best_in(&paired) {
                    return Some((pairs, floating));
                }
                // No S1/S2 candidate looked at works (or the budget ran out): any legal
                // matching of these players keeps the round pairable.
                if let Some(m) = self.matching(&paired) {
                    return Some((m, floating));
                }
            }
        }
        None
    }

    /// S1 against S2 with transpositions and exchanges; the first candidate with the
    /// fewest colour conflicts.
    fn best_in(&mut self, paired: &[Player]) -> Option<Vec<(Player, Player)>> {
        let p = paired.len() / 2;
        let mut best: Option<((u32, u32), Pairs)> = None;
        for (s1, s2) in exchanges(paired, p) {
            let mut perm: Vec<usize> = (0..p).collect();
            loop {
                if self.budget == 0 {
                    return best.map(|b| b.1);
                }
                self.budget -= 1;
                let pairs: Vec<(Player, Player)> = (0..p).map(|i| (s1[i], s2[perm[i]])).collect();
                if pairs.iter().all(|&(a, b)| self.compatible(a, b)) {
                    let q = pairs.iter().fold((0, 0), |acc, &(a, b)| {
                        let c = self.conflict(a, b);
                        (acc.0 + c.0, acc.1 + c.1)
                    });
                    if q == (0, 0) {
                        return Some(pairs);
                    }
                    if best.as_ref().is_none_or(|(bq, _)| q < *bq) {
                        best = Some((q, pairs));
                    }
                }
                if !next_permutation(&mut perm) {
                    break;
                }
            }
        }
        best.map(|b| b.1)
    }

    /// Dutch E.1-E.5: who has White; `a` is ranked higher than `b`.
    fn colours(&self, a: Player, b: Player, initial: Color) -> Pairing {
        let give = |a_colour: Color| {
            if a_colour == Color::White {
                Pairing::new(a, b)
            } else {
                Pairing::new(b, a)
            }
        };
        match (self.prefs[a], self.prefs[b]) {
            (Some((x, _)), Some((y, _))) if x != y => return give(x),
            (Some((x, _)), None) => return give(x),
            (None, Some((y, _))) => return give(y.opponent()),
            (Some((x, s)), Some((_, t))) if s != t => {
                return give(if s > t { x } else { x.opponent() });
            }
            _ => {}
        }
        // E.3: alternate from the latest round in which they had different colours.
        let (ca, cb) = (&self.players[a].colours, &self.players[b].colours);
        for k in 1..=ca.len().min(cb.len()) {
            let (x, y) = (ca[ca.len() - k], cb[cb.len() - k]);
            if x != y {
                return give(x.opponent());
            }
        }
        // E.4: the higher-ranked player's preference.
        if let Some((x, _)) = self.prefs[a] {
            return give(x);
        }
        // E.5: the initial colour to the higher ranked with an odd pairing number.
        give(if a.is_multiple_of(2) {
            initial
        } else {
            initial.opponent()
        })
    }
}

/// Sets of `f` bracket positions (of `len`) to float, the lowest-ranked first (at most
/// a few thousand, generated from the bottom of the bracket up).
fn floater_sets(len: usize, f: usize) -> Vec<Vec<usize>> {
    fn rec(limit: usize, f: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == f {
            out.push(cur.clone());
            return;
        }
        for i in (0..limit).rev() {
            if out.len() >= 2000 {
                return;
            }
            cur.push(i);
            rec(i, f, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    rec(len, f, &mut Vec::new(), &mut out);
    // Each set is listed lowest-ranked first; compare them that way, larger first.
    out.sort_by(|a, b| b.cmp(a));
    out
}

/// S1/S2 splits: none exchanged first, then one, then two players exchanged (Dutch D.2),
/// smallest rank difference first.
fn exchanges(paired: &[Player], p: usize) -> Vec<(Vec<Player>, Vec<Player>)> {
    let (s1, s2) = paired.split_at(p);
    let mut out = vec![(s1.to_vec(), s2.to_vec())];
    let mut singles: Vec<(usize, usize)> = (0..p)
        .flat_map(|i| (0..s2.len()).map(move |j| (i, j)))
        .collect();
    // Difference of positions, then the S1 player with the highest position first, then
    // the S2 player with the lowest.
    singles.sort_by_key(|&(i, j)| (p + j - i, std::cmp::Reverse(i), j));
    for &(i, j) in &singles {
        let mut a = s1.to_vec();
        let mut b = s2.to_vec();
        std::mem::swap(&mut a[i], &mut b[j]);
        a.sort_by_key(|x| paired.iter().position(|y| y == x));
        b.sort_by_key(|x| paired.iter().position(|y| y == x));
        out.push((a, b));
    }
    if p >= 2 {
        let mut doubles = Vec::new();
        for i1 in 0..p {
            for i2 in i1 + 1..p {
                for j1 in 0..s2.len() {
                    for j2 in j1 + 1..s2.len() {
                        doubles.push((i1, i2, j1, j2));
                    }
                }
            }
        }
        doubles.sort_by_key(|&(i1, i2, j1, j2)| {
            (
                2 * p + j1 + j2 - i1 - i2,
                std::cmp::Reverse(i1 + i2),
                j1 + j2,
            )
        });
        for (i1, i2, j1, j2) in doubles.into_iter().take(400) {
            let mut a = s1.to_vec();
            let mut b = s2.to_vec();
            std::mem::swap(&mut a[i1], &mut b[j1]);
            std::mem::swap(&mut a[i2], &mut b[j2]);
            a.sort_by_key(|x| paired.iter().position(|y| y == x));
            b.sort_by_key(|x| paired.iter().position(|y| y == x));
            out.push((a, b));
        }
    }
    out
}

/// The next lexicographic permutation; false after the last.
fn next_permutation(v: &mut [usize]) -> bool {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        return false;
    };
    let j = (i..v.len()).rev().find(|&j| v[j] > v[i - 1]).unwrap_or(i);
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

/// Pairs the next round.
pub fn pair_round(players: &[SwissPlayer], settings: SwissSettings) -> Result<Round, SwissError> {
    let mut ranked: Vec<Player> = (0..players.len()).filter(|&p| players[p].active).collect();
    if ranked.len() < 2 {
        return Err(SwissError::TooFewPlayers(ranked.len()));
    }
    ranked.sort_by_key(|&p| (std::cmp::Reverse(players[p].score), p));
    let prefs = players.iter().map(|p| preference(&p.colours)).collect();
    let mut pairer = Pairer {
        players,
        prefs,
        relaxed: false,
        failed: HashSet::new(),
        budget: BUDGET,
    };
    for relaxed in [false, true] {
        pairer.relaxed = relaxed;
        pairer.failed.clear();
        pairer.budget = BUDGET;
        let byes: Vec<Option<Player>> = if ranked.len() % 2 == 1 {
            ranked
                .iter()
                .rev()
                .filter(|&&p| !players[p].had_bye)
                .map(|&p| Some(p))
                .collect()
        } else {
            vec![None]
        };
        for bye in byes {
            let rest: Vec<Player> = ranked.iter().copied().filter(|&p| Some(p) != bye).collect();
            if pairer.matching(&rest).is_none() {
                continue;
            }
            if let Some(pairs) = pairer.brackets(&rest) {
                return Ok(finish(&pairer, &ranked, pairs, bye, settings));
            }
        }
    }
    Err(SwissError::NoPairing)
}

/// Colours and board order: boards by the higher score, then the better rank.
fn finish(
    pairer: &Pairer<'_>,
    ranked: &[Player],
    pairs: Vec<(Player, Player)>,
    bye: Option<Player>,
    settings: SwissSettings,
) -> Round {
    let rank = |p: Player| ranked.iter().position(|&x| x == p).unwrap_or(usize::MAX);
    let mut pairs: Vec<(Player, Player)> = pairs
        .into_iter()
        .map(|(a, b)| if rank(a) <= rank(b) { (a, b) } else { (b, a) })
        .collect();
    pairs.sort_by_key(|&(a, b)| {
        let s = |p: Player| pairer.players[p].score;
        (
            std::cmp::Reverse(s(a).max(s(b))),
            std::cmp::Reverse(s(a) + s(b)),
            rank(a),
        )
    });
    Round {
        pairings: pairs
            .into_iter()
            .map(|(a, b)| pairer.colours(a, b, settings.initial_colour))
            .collect(),
        bye,
    }
}

#[cfg(test)]
mod tests;
