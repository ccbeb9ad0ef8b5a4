//! The search: iterative deepening over a principal-variation alpha-beta, with a
//! transposition table, captures searched out below the horizon (draughts captures are
//! forced, so a position with a capture is never scored statically), forced single moves
//! extended, killer and history ordering, and the draw law inside the tree: a repeated
//! position and the kings-only move counter's limit (IDF 8.2.14: 15 moves, INT 3.5: 25,
//! Italian 8.2.4: 40 without a change in the balance) score 0, so the engine steers away
//! from a rule draw when it is ahead and into one when it is behind.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use shared::rules::draughts::{DraughtsVariant, Move, Position};

use crate::eval;
use crate::tt::{Bound, MoveKey, Table};
use crate::{EngineError, Limits, Pace, Score};

const INF: i32 = 32_000;
const MATE: i32 = 30_000;
const MAX_PLY: usize = 128;
/// A mate score is at least this.
const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// The clock and the stop flag are looked at every this many nodes.
const CHECK_EVERY: u64 = 1024;

/// What bounds one search.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub depth: u8,
    /// Soft and hard time, milliseconds.
    pub time: Option<(u64, u64)>,
    pub nodes: Option<u64>,
    pub stop: Option<Arc<AtomicBool>>,
    pub law_plies: u16,
    pub pace: Option<Pace>,
}

impl Plan {
    pub fn new(depth: u8, time: Option<(u64, u64)>, limits: &Limits) -> Plan {
        Plan {
            depth: depth.clamp(1, (MAX_PLY / 2) as u8),
            time,
            nodes: limits.nodes,
            stop: limits.stop.clone(),
            law_plies: limits.law_plies,
            pace: limits.pace.clone(),
        }
    }
}

/// A finished search.
pub(crate) struct Found {
    pub best: Move,
    pub score: Score,
    pub depth: u8,
    pub nodes: u64,
    pub pv: Vec<Move>,
    pub elapsed_ms: u64,
}

/// Plies of kings-only (or balance-keeping) play after which the variant's law draws.
fn law_limit(variant: DraughtsVariant) -> u16 {
    match variant {
        DraughtsVariant::International => 50,
        DraughtsVariant::Italian => 80,
        DraughtsVariant::Frisian => 60,
        _ => 30,
    }
}

struct Search<'a> {
    tt: &'a mut Table,
    plan: &'a Plan,
    hard: Option<Instant>,
    nodes: u64,
    aborted: bool,
    /// Keys of the game's positions and of the search path, oldest first.
    path: Vec<u64>,
    killers: Vec<[Option<MoveKey>; 2]>,
    history: Vec<u32>,
    buffers: Vec<Vec<Move>>,
    law_limit: u16,
    /// Italian counts moves without a change in the balance: a man's step does not reset.
    man_move_resets: bool,
}

impl<'a> Search<'a> {
    fn new(tt: &'a mut Table, plan: &'a Plan, history: &[u64], variant: DraughtsVariant) -> Self {
        let hard = plan
            .time
            .map(|(_, hard)| Instant::now() + Duration::from_millis(hard));
        Search {
            tt,
            plan,
            hard,
            nodes: 0,
            aborted: false,
            path: history.to_vec(),
            killers: vec![[None; 2]; MAX_PLY],
            history: vec![0; 64 * 64],
            buffers: (0..MAX_PLY).map(|_| Vec::with_capacity(48)).collect(),
            law_limit: law_limit(variant),
            man_move_resets: variant != DraughtsVariant::Italian,
        }
    }

    fn check(&mut self) {
        if let Some(pace) = &self.plan.pace {
            pace.call();
        }
        let stopped = self
            .plan
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed));
        let late = self.hard.is_some_and(|h| Instant::now() >= h);
        let spent = self.plan.nodes.is_some_and(|n| self.nodes >= n);
        self.aborted |= stopped || late || spent;
    }

    /// Is `key` a repetition within the last `window` plies (same side to move)?
    fn repeated(&self, key: u64, window: u16) -> bool {
        let n = self.path.len();
        let back = usize::from(window).min(n);
        (2..=back)
            .step_by(2)
            .any(|i| self.path.get(n - i).is_some_and(|&k| k == key))
    }

    fn next_law(&self, p: &Position, mv: &Move, law: u16) -> u16 {
        let king = p.kings() & (1u64 << mv.from()) != 0;
        let resets = mv.is_capture() || mv.crowns() || (!king && self.man_move_resets);
        if resets { 0 } else { law.saturating_add(1) }
    }

    fn order(&self, p: &Position, moves: &mut [Move], tt_move: Option<MoveKey>, ply: usize) {
        let kings = p.kings();
        let killers = self.killers[ply];
        let key = |m: &Move| -> i64 {
            if tt_move.is_some_and(|t| t.matches(m)) {
                return i64::MAX;
            }
            if m.is_capture() {
                let taken = m.captures();
                return 1 << 40
                    | (i64::from(taken.count_ones()) << 20)
                    | i64::from((taken & kings).count_ones()) << 16;
            }
            let k = MoveKey::of(m);
            if killers[0] == Some(k) {
                return 1 << 38;
            }
            if killers[1] == Some(k) {
                return 1 << 37;
            }
            i64::from(self.history[usize::from(m.from()) * 64 + usize::from(m.to())])
                + if m.crowns() { 1 << 36 } else { 0 }
        };
        moves.sort_by_cached_key(|m| std::cmp::Reverse(key(m)));
    }

    fn reward(&mut self, mv: &Move, depth: i32, ply: usize) {
        if mv.is_capture() {
            return;
        }
        let k = MoveKey::of(mv);
        let slot = &mut self.killers[ply];
        if slot[0] != Some(k) {
            slot[1] = slot[0];
            slot[0] = Some(k);
        }
        let h = &mut self.history[usize::from(mv.from()) * 64 + usize::from(mv.to())];
        *h = h.saturating_add((depth * depth) as u32).min(1 << 30);
    }

    /// Negamax with PVS. `law` counts the plies of the kings-only run.
    fn node(
        &mut self,
        p: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        law: u16,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            self.check();
        }
        if self.aborted {
            return 0;
        }
        let key = p.key();
        if ply > 0 && (law >= self.law_limit || self.repeated(key, law)) {
            return 0;
        }
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        p.generate_into(&mut moves);
        let result = self.expand(p, &mut moves, depth, &mut alpha, beta, ply, law, key);
        self.buffers[ply] = moves;
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn expand(
        &mut self,
        p: &Position,
        moves: &mut [Move],
        depth: i32,
        alpha: &mut i32,
        beta: i32,
        ply: usize,
        law: u16,
        key: u64,
    ) -> i32 {
        if moves.is_empty() {
            return -(MATE - ply as i32);
        }
        let forced = moves[0].is_capture();
        if (depth <= 0 && !forced) || ply + 2 >= MAX_PLY {
            return eval::evaluate(p);
        }
        let entry = self.tt.probe(key);
        if let Some(e) = entry.filter(|e| ply > 0 && i32::from(e.depth) >= depth) {
            let s = from_tt(e.score, ply);
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= *alpha,
            };
            if cut {
                return s;
            }
        }
        self.order(p, moves, entry.and_then(|e| e.mv), ply);
        // A single legal move costs nothing to search deeper; below the horizon only
        // captures are searched, to their end.
        let child_depth = if moves.len() == 1 || depth <= 0 {
            depth.max(0)
        } else {
            depth - 1
        };
        let start_alpha = *alpha;
        let mut best = -INF;
        let mut best_move = None;
        self.path.push(key);
        for (i, mv) in moves.iter().enumerate() {
            let child = p.after(mv);
            let law = self.next_law(p, mv, law);
            let a = *alpha;
            let mut score;
            if i == 0 {
                score = -self.node(&child, child_depth, -beta, -a, ply + 1, law);
            } else {
                score = -self.node(&child, child_depth, -a - 1, -a, ply + 1, law);
                if score > a && score < beta {
                    score = -self.node(&child, child_depth, -beta, -score, ply + 1, law);
                }
            }
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                best_move = Some(*mv);
                if score > *alpha {
                    *alpha = score;
                    if score >= beta {
                        self.reward(mv, depth, ply);
                        break;
                    }
                }
            }
        }
        self.path.pop();
        if self.aborted {
            return 0;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > start_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let mv = best_move.map(|m| MoveKey::of(&m));
        self.tt
            .store(key, mv, to_tt(best, ply), depth as i16, bound);
        best
    }

    /// One iteration at the root: the best move and its score, or `None` if stopped.
    fn root(&mut self, p: &Position, moves: &mut [Move], depth: i32) -> Option<(Move, i32)> {
        let mut alpha = -INF;
        let score = self.expand_root(p, moves, depth, &mut alpha);
        if self.aborted {
            return None;
        }
        let key = p.key();
        let entry = self.tt.probe(key)?;
        let best = moves
            .iter()
            .find(|m| entry.mv.is_some_and(|k| k.matches(m)))?;
        Some((*best, score))
    }

    fn expand_root(
        &mut self,
        p: &Position,
        moves: &mut [Move],
        depth: i32,
        alpha: &mut i32,
    ) -> i32 {
        let key = p.key();
        // The root is always searched: its stored entry only orders the moves.
        let law = self.plan.law_plies;
        self.expand(p, moves, depth.max(1), alpha, INF, 0, law, key)
    }
}

fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

fn to_score(s: i32) -> Score {
    if s >= MATE_BOUND {
        Score::WinIn(((MATE - s + 1) / 2) as u16)
    } else if s <= -MATE_BOUND {
        Score::LossIn(((MATE + s) / 2) as u16)
    } else {
        Score::Centi(s)
    }
}

/// Iterative deepening from `root` within `plan`.
pub(crate) fn run(
    tt: &mut Table,
    root: &Position,
    history: &[u64],
    plan: &Plan,
) -> Result<Found, EngineError> {
    let start = Instant::now();
    let mut moves = root.legal_moves();
    let Some(&first) = moves.first() else {
        return Err(EngineError::GameOver);
    };
    tt.new_search();
    let mut search = Search::new(tt, plan, history, root.variant());
    let soft = plan.time.map(|(soft, _)| Duration::from_millis(soft));
    let max_depth = if moves.len() == 1 {
        plan.depth.min(4)
    } else {
        plan.depth
    };
    let (mut best, mut score, mut depth) = (first, 0, 0u8);
    for d in 1..=max_depth {
        match search.root(root, &mut moves, i32::from(d)) {
            Some((mv, s)) => {
                best = mv;
                score = s;
                depth = d;
            }
            None => break,
        }
        let mate_found = score.abs() >= MATE_BOUND && (MATE - score.abs()) < i32::from(d);
        if soft.is_some_and(|s| start.elapsed() >= s) || mate_found {
            break;
        }
    }
    if depth == 0 {
        score = eval::evaluate(&root.after(&best)).saturating_neg();
    }
    let nodes = search.nodes;
    let pv = principal_variation(search.tt, root, best, depth);
    Ok(Found {
        best,
        score: to_score(score),
        depth,
        nodes,
        pv,
        elapsed_ms: start.elapsed().as_millis() as u64,
    })
}

/// The expected line: `best`, then the table's moves while they are legal.
fn principal_variation(tt: &Table, root: &Position, best: Move, depth: u8) -> Vec<Move> {
    let mut pv = vec![best];
    let mut pos = root.after(&best);
    let mut seen = vec![root.key(), pos.key()];
    while pv.len() < usize::from(depth.max(1)) {
        let Some(k) = tt.probe(pos.key()).and_then(|e| e.mv) else {
            break;
        };
        let Some(mv) = pos.legal_moves().into_iter().find(|m| k.matches(m)) else {
            break;
        };
        pos = pos.after(&mv);
        if seen.contains(&pos.key()) {
            pv.push(mv);
            break;
        }
        seen.push(pos.key());
        pv.push(mv);
    }
    pv
}

/// A level's deliberate error: every root move is scored by a shallow full-window
/// search, noise of up to `error` hundredths of a man is added to each, and the best
/// noisy score is played. The full-strength choice `deep_best` gets a head start of
/// `error`, so higher levels (small error) rarely leave it.
pub(crate) fn choose_with_error(
    tt: &mut Table,
    root: &Position,
    history: &[u64],
    plan: &Plan,
    error: i32,
    deep_best: Move,
) -> Move {
    let moves = root.legal_moves();
    let depth = i32::from(plan.depth.min(5)) - 1;
    let mut search = Search::new(tt, plan, history, root.variant());
    search.path.push(root.key());
    let mut chosen = (deep_best, i32::MIN);
    for mv in &moves {
        let child = root.after(mv);
        let law = search.next_law(root, mv, plan.law_plies);
        let score = -search.node(&child, depth, -INF, INF, 1, law);
        if search.aborted {
            return deep_best;
        }
        let head_start = if *mv == deep_best { error } else { 0 };
        let noisy = score + head_start + fastrand::i32(-error..=error);
        if noisy > chosen.1 {
            chosen = (*mv, noisy);
        }
    }
    chosen.0
}
