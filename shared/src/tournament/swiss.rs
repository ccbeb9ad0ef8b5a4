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

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::crosstable::{Crosstable, CrosstableError};
use super::micromatch::{Encounter, Scoring};
use super::{Absence, Pairing, Player, Round};
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
    /// How he floated in each round so far, in order (Dutch A.4): down when paired with
    /// a lower score, given the bye or a forfeit win; up when paired with a higher one.
    #[serde(default)]
    pub floats: Vec<Float>,
}

/// A player's float in one round (Dutch A.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Float {
    /// Met a player with fewer points, or scored without playing (bye, forfeit win).
    Down,
    /// Met a player with more points.
    Up,
    /// Met a player with as many points, or lost without playing.
    None,
}

/// Settings of the Swiss pairing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwissSettings {
    /// The colour drawn before round 1 for the top seed (Dutch E.5).
    pub initial_colour: Color,
    /// This is the last round (C3: topscorers may then meet with equal absolute colour
    /// preferences).
    #[serde(default)]
    pub last_round: bool,
    /// Points for a won encounter, to tell the topscorers (A.7: more than half the
    /// points possible so far).
    #[serde(default = "win_points")]
    pub win_points: u32,
}

fn win_points() -> u32 {
    2
}

impl Default for SwissSettings {
    fn default() -> Self {
        SwissSettings {
            initial_colour: Color::White,
            last_round: false,
            win_points: win_points(),
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
    let mut before: Option<(usize, Crosstable)> = None;
    for (round, e) in ordered {
        // The scores before this round, for the floats.
        if before.as_ref().is_none_or(|(r, _)| r != round) {
            let earlier: Vec<(usize, Encounter)> =
                results.iter().filter(|(r, _)| r < round).cloned().collect();
            before = Some((*round, Crosstable::build(players, scoring, &earlier, &[])?));
        }
        let score = |p: Player| before.as_ref().map_or(0, |(_, t)| t.score(p));
        let float = |a: Player, b: Player| match score(a).cmp(&score(b)) {
            std::cmp::Ordering::Greater => Float::Down,
            std::cmp::Ordering::Less => Float::Up,
            std::cmp::Ordering::Equal => Float::None,
        };
        match e {
            Encounter::Bye { player } => {
                out[*player].had_bye = true;
                out[*player].floats.push(Float::Down);
            }
            Encounter::Played { pairing, .. } => {
                let (w, b) = (pairing.white, pairing.black);
                out[w].opponents.push(b);
                out[b].opponents.push(w);
                out[w].colours.push(Color::White);
                out[b].colours.push(Color::Black);
                let (fw, fb) = (float(w, b), float(b, w));
                out[w].floats.push(fw);
                out[b].floats.push(fb);
            }
            Encounter::Forfeit { pairing, absent } => {
                let (w, b) = (pairing.white, pairing.black);
                out[w].opponents.push(b);
                out[b].opponents.push(w);
                let present = |c: Absence| match (absent, c) {
                    (Absence::Both, _) => Float::None,
                    (Absence::White, Absence::Black) | (Absence::Black, Absence::White) => {
                        Float::Down
                    }
                    _ => Float::None,
                };
                out[w].floats.push(present(Absence::White));
                out[b].floats.push(present(Absence::Black));
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

/// How good a bracket's candidate pairing is, compared lexicographically, smaller
/// better: the Dutch quality criteria in their order (C5-C7 as maximised counts, hence
/// negated; then the colour criteria C8-C11; then the float criteria).
type Quality = Vec<i64>;

/// The pairing state of one round.
struct Pairer<'a> {
    players: &'a [SwissPlayer],
    prefs: Vec<Option<(Color, Strength)>>,
    /// Whites minus blacks of each player.
    imbalance: Vec<i64>,
    /// The colour of each player's last two games played, if it was the same.
    repeated: Vec<Option<Color>>,
    /// A.7: more than half the points possible so far.
    topscorer: Vec<bool>,
    last_round: bool,
    relaxed: bool,
    failed: HashSet<Vec<u64>>,
    complete: HashMap<Vec<u64>, bool>,
    budget: usize,
}

/// Candidate pairings evaluated per round before the best one found so far is taken.
const BUDGET: usize = 200_000;

/// The best candidate of a bracket so far, the quality no candidate can beat, and the
/// MDPs the candidate being built leaves unpaired.
struct Search {
    best: Option<(Quality, Pairs, Vec<Player>)>,
    bound: Quality,
    limbo: Vec<Player>,
}

/// The MDP step of a heterogeneous bracket: the MDPs to pair, the residents, and how
/// many pairs the remainder must make.
struct Phase<'p> {
    s1: &'p [Player],
    residents: &'p [Player],
    rest_pairs: usize,
}

/// A homogeneous (remainder) pairing: S1 takes partners from S2; `base` pairs were made
/// before (the MDPs').
struct Halves<'h> {
    s1: &'h [Player],
    s2: &'h [Player],
    base: usize,
}

/// A bracket being paired: its players (floaters from above first, then the score group),
/// the next score group, and everybody below.
struct Bracket<'b> {
    players: &'b [Player],
    next: &'b [Player],
    lower: &'b [Player],
}

impl Pairer<'_> {
    fn compatible(&self, a: Player, b: Player) -> bool {
        if self.players[a].opponents.contains(&b) {
            return false;
        }
        if self.relaxed {
            return true;
        }
        let same_absolute = matches!((self.prefs[a], self.prefs[b]),
            (Some((x, Strength::Absolute)), Some((y, Strength::Absolute))) if x == y);
        // C3: only topscorers in the last round may meet with the same absolute preference.
        !same_absolute || (self.last_round && (self.topscorer[a] || self.topscorer[b]))
    }

    fn key(&self, set: &[Player]) -> Vec<u64> {
        let mut key = vec![0u64; self.players.len().div_ceil(64)];
        for &p in set {
            key[p / 64] |= 1 << (p % 64);
        }
        key
    }

    /// Whether `set` can be paired completely (C4), by search with memoised failures.
    fn matching(&mut self, set: &[Player]) -> Option<Vec<(Player, Player)>> {
        let Some((&first, rest)) = set.split_first() else {
            return Some(Vec::new());
        };
        let key = self.key(set);
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

    /// C4 with the bye: an even set pairs completely; an odd one leaves out one player
    /// who has not had a bye (C2).
    fn completes(&mut self, set: &[Player]) -> bool {
        if set.len().is_multiple_of(2) {
            return self.matching(set).is_some();
        }
        let key = self.key(set);
        if let Some(&known) = self.complete.get(&key) {
            return known;
        }
        let ok = set.iter().rev().any(|&bye| {
            !self.players[bye].had_bye && {
                let rest: Vec<Player> = set.iter().copied().filter(|&p| p != bye).collect();
                self.matching(&rest).is_some()
            }
        });
        self.complete.insert(key, ok);
        ok
    }

    /// Pairs the ranked list bracket by bracket, top down; the player left over by the
    /// last bracket has the bye.
    fn brackets(&mut self, ranked: &[Player]) -> Option<(Pairs, Option<Player>)> {
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
            let mut players = std::mem::take(&mut carry);
            players.extend(&groups[gi]);
            let lower: Vec<Player> = groups[gi + 1..].iter().flatten().copied().collect();
            let next = groups.get(gi + 1).map_or(&[][..], |g| &g[..]);
            let bracket = Bracket {
                players: &players,
                next,
                lower: &lower,
            };
            let (mut chosen, floaters) = self.bracket(&bracket)?;
            pairs.append(&mut chosen);
            carry = floaters;
        }
        match carry[..] {
            [] => Some((pairs, None)),
            [bye] => Some((pairs, Some(bye))),
            _ => None,
        }
    }

    /// The best pairing of one bracket (C5: as many pairs as can be made while the rest
    /// of the round still pairs, C4), with its floaters. Candidates are generated in the
    /// order of B and D: the floaters from above (MDPs) first, each with a resident in
    /// order (the highest MDPs first, the others in limbo), then the remaining
    /// residents as a homogeneous bracket (S1 = upper half, S2 = lower half;
    /// transpositions of S2, then exchanges); the first candidate with the best
    /// [`Quality`] is taken.
    fn bracket(&mut self, br: &Bracket<'_>) -> Option<(Pairs, Vec<Player>)> {
        let n = br.players.len();
        let resident_score = br.players.last().map(|&p| self.score(p))?;
        let (mdps, residents): (Vec<Player>, Vec<Player>) = br
            .players
            .iter()
            .partition(|&&p| self.score(p) != resident_score);
        for p in (0..=n / 2).rev() {
            if br.lower.is_empty() && n - 2 * p > 1 {
                continue;
            }
            let mut st = Search {
                best: None,
                bound: self.bound(br, p),
                limbo: Vec::new(),
            };
            let most = mdps.len().min(residents.len()).min(p);
            'outer: for m1 in (0..=most).rev() {
                let rest_pairs = p - m1;
                if residents.len() < m1 + 2 * rest_pairs {
                    continue;
                }
                for chosen in subsets(mdps.len(), m1) {
                    let s1: Vec<Player> = chosen.iter().map(|&i| mdps[i]).collect();
                    st.limbo = (0..mdps.len())
                        .filter(|i| !chosen.contains(i))
                        .map(|i| mdps[i])
                        .collect();
                    let mut used = vec![false; residents.len()];
                    let mut pairs = Vec::with_capacity(p);
                    let phase = Phase {
                        s1: &s1,
                        residents: &residents,
                        rest_pairs,
                    };
                    if self.mdp_phase(br, &phase, &mut used, &mut pairs, &mut st)
                        || self.budget == 0
                    {
                        break 'outer;
                    }
                }
            }
            if let Some((_, pairs, floaters)) = st.best {
                return Some((pairs, floaters));
            }
            if self.budget == 0 {
                // Out of budget before any candidate: any legal matching that keeps the
                // round pairable.
                if let Some(found) = self.any_legal(br, p) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// The MDPs of `phase.s1` take residents in order; then the remaining residents are
    /// paired as a homogeneous bracket. True to stop.
    fn mdp_phase(
        &mut self,
        br: &Bracket<'_>,
        phase: &Phase<'_>,
        used: &mut [bool],
        pairs: &mut Vec<(Player, Player)>,
        st: &mut Search,
    ) -> bool {
        if self.budget == 0 {
            return true;
        }
        let i = pairs.len();
        if i == phase.s1.len() {
            let rest: Vec<Player> = phase
                .residents
                .iter()
                .zip(used.iter())
                .filter(|(_, u)| !**u)
                .map(|(&x, _)| x)
                .collect();
            for (s1, s2) in exchanges(&rest, phase.rest_pairs) {
                let mut used2 = vec![false; s2.len()];
                let halves = Halves {
                    s1: &s1,
                    s2: &s2,
                    base: pairs.len(),
                };
                if self.search(br, &halves, &mut used2, pairs, st) || self.budget == 0 {
                    return true;
                }
            }
            return false;
        }
        for j in 0..phase.residents.len() {
            if used[j] || !self.compatible(phase.s1[i], phase.residents[j]) {
                continue;
            }
            used[j] = true;
            pairs.push((phase.s1[i], phase.residents[j]));
            let stop = self.mdp_phase(br, phase, used, pairs, st);
            pairs.pop();
            used[j] = false;
            if stop {
                return true;
            }
        }
        false
    }

    /// Depth-first over the S2 partners of S1's players in lexicographic order; true to
    /// stop (a candidate reached the bound, or the budget ran out).
    fn search(
        &mut self,
        br: &Bracket<'_>,
        h: &Halves<'_>,
        used: &mut [bool],
        chosen: &mut Vec<(Player, Player)>,
        st: &mut Search,
    ) -> bool {
        if self.budget == 0 {
            return true;
        }
        let i = chosen.len() - h.base;
        if i == h.s1.len() {
            self.budget -= 1;
            let mut floaters: Vec<Player> =
                h.s2.iter()
                    .zip(used.iter())
                    .filter(|(_, u)| !**u)
                    .map(|(&x, _)| x)
                    .chain(st.limbo.iter().copied())
                    .collect();
            floaters.sort_by_key(|x| br.players.iter().position(|y| y == x));
            let legal = if br.lower.is_empty() {
                floaters.iter().all(|&x| !self.players[x].had_bye)
            } else {
                let mut rest = floaters.clone();
                rest.extend(br.lower);
                self.completes(&rest)
            };
            if !legal {
                return false;
            }
            let q = self.quality(br, chosen, &floaters);
            let reached = q <= st.bound;
            if st.best.as_ref().is_none_or(|(bq, _, _)| q < *bq) {
                st.best = Some((q, chosen.clone(), floaters));
            }
            return reached;
        }
        for j in 0..h.s2.len() {
            if used[j] || !self.compatible(h.s1[i], h.s2[j]) {
                continue;
            }
            used[j] = true;
            chosen.push((h.s1[i], h.s2[j]));
            let stop = self.search(br, h, used, chosen, st);
            chosen.pop();
            used[j] = false;
            if stop {
                return true;
            }
        }
        false
    }

    /// Floaters chosen lowest-ranked first, then any legal matching of the others.
    fn any_legal(&mut self, br: &Bracket<'_>, p: usize) -> Option<(Pairs, Vec<Player>)> {
        let n = br.players.len();
        for floaters in floater_sets(n, n - 2 * p) {
            let floating: Vec<Player> = floaters.iter().map(|&i| br.players[i]).collect();
            let legal = if br.lower.is_empty() {
                floating.iter().all(|&x| !self.players[x].had_bye)
            } else {
                let mut rest = floating.clone();
                rest.extend(br.lower);
                self.completes(&rest)
            };
            if !legal {
                continue;
            }
            let paired: Vec<Player> = (0..n)
                .filter(|i| !floaters.contains(i))
                .map(|i| br.players[i])
                .collect();
            if let Some(m) = self.matching(&paired) {
                return Some((m, floating));
            }
        }
        None
    }

    fn score(&self, p: Player) -> i64 {
        i64::from(self.players[p].score)
    }

    /// The bracket's scores, best first (the levels the score criteria count by).
    fn levels(&self, players: &[Player]) -> Vec<i64> {
        let mut v: Vec<i64> = players.iter().map(|&p| self.score(p)).collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v.dedup();
        v
    }

    /// For each level, best first, minus the number of `higher` scores at it.
    fn by_level(levels: &[i64], higher: impl Iterator<Item = i64>) -> Vec<i64> {
        let mut out = vec![0; levels.len()];
        for s in higher {
            if let Some(i) = levels.iter().position(|&l| l == s) {
                out[i] -= 1;
            }
        }
        out
    }

    /// The best quality a candidate with `p` pairs could have: the pairs' higher players
    /// the `p` best of the bracket, every floater paired in the next bracket, no colour or
    /// float criterion unmet.
    fn bound(&self, br: &Bracket<'_>, p: usize) -> Quality {
        let levels = self.levels(br.players);
        let mut q = Self::by_level(&levels, br.players.iter().take(p).map(|&x| self.score(x)));
        let f = br.players.len() - 2 * p;
        let reach = f.min(br.next.len());
        q.push(-(reach as i64));
        q.extend(Self::by_level(
            &levels,
            br.players[br.players.len() - f..]
                .iter()
                .take(reach)
                .map(|&x| self.score(x)),
        ));
        q.extend([0; 8]);
        q
    }

    /// Dutch C5-C19 as damka applies them to a candidate: scores paired (C6), the
    /// floaters' pairs in the next bracket and their scores (C7), colour criteria
    /// (C8-C11), floats repeated from one and two rounds before (C12-C15).
    fn quality(
        &self,
        br: &Bracket<'_>,
        pairs: &[(Player, Player)],
        floaters: &[Player],
    ) -> Quality {
        let levels = self.levels(br.players);
        let higher = |&(a, b): &(Player, Player)| self.score(a).max(self.score(b));
        let mut q = Self::by_level(&levels, pairs.iter().map(higher));
        let (reach, scores) = self.next_bracket(floaters, br.next);
        q.push(-(reach as i64));
        q.extend(Self::by_level(&levels, scores.into_iter()));
        let mut colour = [0i64; 4];
        for &(a, b) in pairs {
            for (c, v) in colour.iter_mut().zip(self.colour_faults(a, b)) {
                *c += i64::from(v);
            }
        }
        q.extend(colour);
        for back in [1, 2] {
            let (down, up) = self.repeated_floats(pairs, floaters, back);
            q.push(down);
            q.push(up);
        }
        q
    }

    /// C8-C11 for one pair: both have an absolute colour imbalance and want the same
    /// colour; both have an absolute preference for the same colour and the colour
    /// rule cannot avoid a third one in a row; both want the same colour; a strong
    /// preference unmet.
    fn colour_faults(&self, a: Player, b: Player) -> [bool; 4] {
        let (Some((x, s)), Some((y, t))) = (self.prefs[a], self.prefs[b]) else {
            return [false; 4];
        };
        if x != y {
            return [false; 4];
        }
        let (ia, ib) = (self.imbalance[a].abs(), self.imbalance[b].abs());
        let both_absolute = s == Strength::Absolute && t == Strength::Absolute;
        let third = both_absolute && {
            // The player who gets his preference is the one with the larger imbalance;
            // equal imbalances: a third colour in a row for one of them unless at most
            // one repeated a colour.
            if ia == ib {
                self.repeated[a].is_some() && self.repeated[a] == self.repeated[b]
            } else {
                let loser = if ia > ib { b } else { a };
                self.repeated[loser] == Some(x.opponent())
            }
        };
        [
            ia > 1 && ib > 1,
            third,
            true,
            s >= Strength::Strong && t >= Strength::Strong && !both_absolute,
        ]
    }

    /// Players who float down again after floating down `back` rounds ago (floaters and
    /// the higher player of a pair across scores), and players who float up again.
    fn repeated_floats(
        &self,
        pairs: &[(Player, Player)],
        floaters: &[Player],
        back: usize,
    ) -> (i64, i64) {
        let floated = |p: Player, f: Float| {
            let v = &self.players[p].floats;
            v.len() >= back && v[v.len() - back] == f
        };
        let mut down = floaters
            .iter()
            .filter(|&&p| floated(p, Float::Down))
            .count() as i64;
        let mut up = 0;
        for &(a, b) in pairs {
            let (hi, lo) = if self.score(a) >= self.score(b) {
                (a, b)
            } else {
                (b, a)
            };
            if self.score(hi) > self.score(lo) {
                down += i64::from(floated(hi, Float::Down));
                up += i64::from(floated(lo, Float::Up));
            }
        }
        (down, up)
    }

    /// C7: how many floaters can be paired with the next score group at once, and the
    /// scores of those paired (the best such set: most, then the highest scores).
    fn next_bracket(&self, floaters: &[Player], next: &[Player]) -> (usize, Vec<i64>) {
        fn go(
            me: &Pairer<'_>,
            floaters: &[Player],
            next: &[Player],
            used: &mut Vec<bool>,
            got: &mut Vec<i64>,
            best: &mut (usize, Vec<i64>),
        ) {
            let Some((&f, rest)) = floaters.split_first() else {
                let mut g = got.clone();
                g.sort_unstable_by(|a, b| b.cmp(a));
                if g.len() > best.0 || (g.len() == best.0 && g > best.1) {
                    *best = (g.len(), g);
                }
                return;
            };
            for j in 0..next.len() {
                if !used[j] && me.compatible(f, next[j]) {
                    used[j] = true;
                    got.push(me.score(f));
                    go(me, rest, next, used, got, best);
                    got.pop();
                    used[j] = false;
                }
            }
            go(me, rest, next, used, got, best);
        }
        let mut best = (0, Vec::new());
        if floaters.len() > 6 {
            // Rare and large: floaters in order, each with the first free partner.
            let mut used = vec![false; next.len()];
            for &f in floaters {
                if let Some(j) = (0..next.len()).find(|&j| !used[j] && self.compatible(f, next[j]))
                {
                    used[j] = true;
                    best.1.push(self.score(f));
                }
            }
            best.0 = best.1.len();
            return best;
        }
        go(
            self,
            floaters,
            next,
            &mut vec![false; next.len()],
            &mut Vec::new(),
            &mut best,
        );
        best
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
            // Both absolute: the larger colour imbalance is granted (E.2).
            (Some((x, Strength::Absolute)), Some(_))
                if self.imbalance[a].abs() != self.imbalance[b].abs() =>
            {
                return give(if self.imbalance[a].abs() > self.imbalance[b].abs() {
                    x
                } else {
                    x.opponent()
                });
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

/// The `k`-element subsets of `0..n` in lexicographic order (the best-ranked first), at
/// most 500 of them.
fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    fn rec(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if out.len() >= 500 {
            return;
        }
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..n {
            cur.push(i);
            rec(i + 1, n, k, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    rec(0, n, k, &mut Vec::new(), &mut out);
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

/// Pairs the next round.
pub fn pair_round(players: &[SwissPlayer], settings: SwissSettings) -> Result<Round, SwissError> {
    let mut ranked: Vec<Player> = (0..players.len()).filter(|&p| players[p].active).collect();
    if ranked.len() < 2 {
        return Err(SwissError::TooFewPlayers(ranked.len()));
    }
    ranked.sort_by_key(|&p| (std::cmp::Reverse(players[p].score), p));
    let played = players.iter().map(|p| p.floats.len()).max().unwrap_or(0) as u32;
    let mut pairer = Pairer {
        players,
        prefs: players.iter().map(|p| preference(&p.colours)).collect(),
        imbalance: players
            .iter()
            .map(|p| {
                let w = p.colours.iter().filter(|&&c| c == Color::White).count() as i64;
                2 * w - p.colours.len() as i64
            })
            .collect(),
        repeated: players
            .iter()
            .map(|p| match p.colours[..] {
                [.., x, y] if x == y => Some(y),
                _ => None,
            })
            .collect(),
        topscorer: players
            .iter()
            .map(|p| 2 * p.score > played * settings.win_points)
            .collect(),
        last_round: settings.last_round,
        relaxed: false,
        failed: HashSet::new(),
        complete: HashMap::new(),
        budget: BUDGET,
    };
    for relaxed in [false, true] {
        pairer.relaxed = relaxed;
        pairer.failed.clear();
        pairer.complete.clear();
        pairer.budget = BUDGET;
        if !pairer.completes(&ranked) {
            continue;
        }
        if let Some((pairs, bye)) = pairer.brackets(&ranked) {
            return Ok(finish(&pairer, &ranked, pairs, bye, settings));
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
