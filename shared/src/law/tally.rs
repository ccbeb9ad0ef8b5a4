//! The running counts behind every draw rule: occurrences of each position, moves since
//! the balance of forces was established, quiet (kings-only / no pawn move) plies, and
//! which situations have held since the last change. Owns deciding whether a rule of the
//! rule book is met in the current position.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::outcome::RuleId;
use super::rulebook::{DrawRule, Ruleset, Trigger};
use crate::clock::Category;
use crate::rules::draughts::Position as DPos;
use crate::rules::{Color, Move, Position};

/// What a rule's count counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountUnit {
    /// Moves of the stronger side.
    StrongerSideMoves,
    /// Plies, both sides' moves together (a rule of N moves needs 2N).
    Plies,
    /// Occurrences of the current position.
    Occurrences,
}

/// How far a counted rule has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// The rule.
    pub rule: RuleId,
    /// The stronger side, for rules that have one.
    pub stronger: Option<Color>,
    /// The count so far.
    pub done: u16,
    /// The count that meets the rule.
    pub needed: u16,
    /// What is counted.
    pub unit: CountUnit,
}

/// The counts of a game in progress.
#[derive(Clone, Debug)]
pub(crate) struct Tally {
    /// Moves by each colour since the balance of forces was established.
    own_moves: [u16; 2],
    /// Plies since the balance of forces was established.
    plies_since_balance: u16,
    /// Consecutive plies without a man (pawn) move or a capture.
    quiet_plies: u16,
    /// Per rule of the rule book, per stronger colour: has its situation held since the
    /// balance of forces was established?
    armed: Vec<[bool; 2]>,
    /// Occurrences of each position key.
    seen: HashMap<u64, u8>,
    /// Occurrences of each placement, whoever is to move.
    seen_placement: HashMap<u64, u8>,
}

fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A key of the placement of the pieces, whoever is to move.
fn placement_key(pos: &Position) -> u64 {
    match pos {
        Position::Draughts(p) => {
            let h = mix(p.pieces(Color::White) ^ 0x2545_f491_4f6c_dd1d);
            let h = mix(h ^ p.pieces(Color::Black));
            mix(h ^ p.kings().rotate_left(23))
        }
        // Not used by any chess rule; the full key is a fine stand-in.
        Position::Chess(c) => c.key(),
    }
}

impl Tally {
    /// The counts at the start of a record: every count at zero, the start position seen
    /// once.
    pub fn new(rules: &Ruleset, pos: &Position) -> Tally {
        let mut t = Tally {
            own_moves: [0; 2],
            plies_since_balance: 0,
            quiet_plies: match pos {
                Position::Chess(c) => u16::try_from(c.halfmove_clock()).unwrap_or(u16::MAX),
                Position::Draughts(_) => 0,
            },
            armed: vec![[false; 2]; rules.draws.len()],
            seen: HashMap::new(),
            seen_placement: HashMap::new(),
        };
        t.observe(rules, pos);
        t
    }

    fn observe(&mut self, rules: &Ruleset, pos: &Position) {
        // Saturating: an endless shuffle in a game no rule ends must not overflow.
        let seen = self.seen.entry(pos.key()).or_insert(0);
        *seen = seen.saturating_add(1);
        let placed = self.seen_placement.entry(placement_key(pos)).or_insert(0);
        *placed = placed.saturating_add(1);
        if let Position::Draughts(p) = pos {
            for (rule, armed) in rules.draws.iter().zip(self.armed.iter_mut()) {
                if let Trigger::OwnMoves { situation, .. }
                | Trigger::EachSideMoves { situation, .. } = rule.trigger
                {
                    for c in [Color::White, Color::Black] {
                        armed[c.index()] |= situation.holds(p, c);
                    }
                }
            }
        }
    }

    /// Updates the counts for `mv`, played by the side to move of `before`, which led to
    /// `after`.
    pub fn advance(&mut self, rules: &Ruleset, before: &Position, mv: &Move, after: &Position) {
        let mover = before.side_to_move();
        let (balance_changed, quiet) = match (before, mv, after) {
            (Position::Draughts(p), Move::Draughts(m), _) => {
                let man = p.men_of(mover) & (1u64 << m.from()) != 0;
                (m.is_capture() || m.crowns(), !m.is_capture() && !man)
            }
            (_, _, Position::Chess(c)) => (false, c.halfmove_clock() > 0),
            _ => (false, false),
        };
        if balance_changed {
            self.own_moves = [0; 2];
            self.plies_since_balance = 0;
            self.armed.iter_mut().for_each(|a| *a = [false; 2]);
        } else {
            let own = &mut self.own_moves[mover.index()];
            *own = own.saturating_add(1);
            self.plies_since_balance = self.plies_since_balance.saturating_add(1);
        }
        self.quiet_plies = match after {
            Position::Chess(c) => u16::try_from(c.halfmove_clock()).unwrap_or(u16::MAX),
            Position::Draughts(_) if quiet => self.quiet_plies.saturating_add(1),
            Position::Draughts(_) => 0,
        };
        // A man (pawn) move or a capture cannot be undone: no position before it can
        // occur again, so a game's tables hold only the plies since its last such move.
        if self.quiet_plies == 0 {
            self.seen.clear();
            self.seen_placement.clear();
        }
        self.observe(rules, after);
    }

    /// Occurrences of the position so far, the current one included.
    pub fn occurrences(&self, pos: &Position, ignore_side_to_move: bool) -> u8 {
        let found = if ignore_side_to_move {
            self.seen_placement.get(&placement_key(pos))
        } else {
            self.seen.get(&pos.key())
        };
        found.copied().unwrap_or(0)
    }

    fn any_own_moves_armed(&self, rules: &Ruleset) -> bool {
        rules
            .draws
            .iter()
            .zip(&self.armed)
            .any(|(r, a)| matches!(r.trigger, Trigger::OwnMoves { .. }) && (a[0] || a[1]))
    }

    /// Is rule number `index` of the rule book met in `pos` (the current position)?
    pub fn met(&self, rules: &Ruleset, index: usize, pos: &Position, category: Category) -> bool {
        let Some(rule) = rules.draws.get(index) else {
            return false;
        };
        let armed = self.armed.get(index).copied().unwrap_or([false; 2]);
        match rule.trigger {
            Trigger::Repetition {
                times,
                ignore_side_to_move,
                only_classical,
            } => {
                !(only_classical && category != Category::Classical)
                    && self.occurrences(pos, ignore_side_to_move) >= times
            }
            Trigger::OwnMoves { moves, .. } => [Color::White, Color::Black]
                .into_iter()
                .any(|c| armed[c.index()] && self.own_moves[c.index()] >= moves),
            Trigger::EachSideMoves { moves, yields, .. } => {
                (armed[0] || armed[1])
                    && self.plies_since_balance >= 2 * moves
                    && !(yields && self.any_own_moves_armed(rules))
            }
            Trigger::QuietMoves { moves, needs_men } => {
                self.quiet_plies >= 2 * moves
                    && !(needs_men
                        && matches!(pos, Position::Draughts(p) if p.occupied() & !p.kings() == 0))
            }
            Trigger::LoneKings => match pos {
                Position::Draughts(p) => lone_kings_draw(p),
                Position::Chess(_) => false,
            },
            Trigger::DeadPosition => match pos {
                Position::Chess(c) => c.is_dead_position(),
                Position::Draughts(_) => false,
            },
        }
    }

    /// The progress of every counted rule whose count is running.
    pub fn progress(&self, rules: &Ruleset, pos: &Position) -> Vec<Progress> {
        let mut out = Vec::new();
        for (rule, armed) in rules.draws.iter().zip(&self.armed) {
            match rule.trigger {
                Trigger::Repetition {
                    times,
                    ignore_side_to_move,
                    ..
                } => out.push(Progress {
                    rule: rule.id,
                    stronger: None,
                    done: u16::from(self.occurrences(pos, ignore_side_to_move)),
                    needed: u16::from(times),
                    unit: CountUnit::Occurrences,
                }),
                Trigger::OwnMoves { moves, .. } => {
                    for c in [Color::White, Color::Black] {
                        if armed[c.index()] {
                            out.push(Progress {
                                rule: rule.id,
                                stronger: Some(c),
                                done: self.own_moves[c.index()],
                                needed: moves,
                                unit: CountUnit::StrongerSideMoves,
                            });
                        }
                    }
                }
                Trigger::EachSideMoves { moves, .. } if armed[0] || armed[1] => {
                    out.push(Progress {
                        rule: rule.id,
                        stronger: None,
                        done: self.plies_since_balance,
                        needed: 2 * moves,
                        unit: CountUnit::Plies,
                    })
                }
                Trigger::QuietMoves { moves, .. } => out.push(Progress {
                    rule: rule.id,
                    stronger: None,
                    done: self.quiet_plies,
                    needed: 2 * moves,
                    unit: CountUnit::Plies,
                }),
                _ => {}
            }
        }
        out
    }
}

/// The first standard-draw rule (IDF 8.2.8, UA 10) whose situation is on the board now.
pub(crate) fn standard_on_board(rules: &Ruleset, pos: &Position) -> Option<RuleId> {
    let Position::Draughts(p) = pos else {
        return None;
    };
    rules.draws.iter().find_map(|r: &DrawRule| match r.trigger {
        Trigger::OwnMoves { situation, .. } if r.id.is_standard() && situation.holds_either(p) => {
            Some(r.id)
        }
        _ => None,
    })
}

/// FRI 21.1: one king each, neither king can capture, and the side to move has no move
/// after which every reply leaves it a capture ("следующий ход не приводит к вынужденному
/// удару").
fn lone_kings_draw(p: &DPos) -> bool {
    let (w, b) = (p.pieces(Color::White), p.pieces(Color::Black));
    if (w | b) & !p.kings() != 0 || w.count_ones() != 1 || b.count_ones() != 1 {
        return false;
    }
    if p.has_capture() {
        return false;
    }
    let runs = [p.king_run(Color::White), p.king_run(Color::Black)];
    match DPos::new(
        p.variant(),
        w,
        b,
        p.kings(),
        p.side_to_move().opponent(),
        runs,
    ) {
        Ok(other) if !other.has_capture() => {}
        _ => return false,
    }
    p.legal_moves().iter().all(|m| {
        let q = p.after(m);
        let replies = q.legal_moves();
        !replies.is_empty() && !replies.iter().all(|r| q.after(r).has_capture())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::law::RulesetId;
    use crate::rules::Variant;
    use crate::rules::draughts::DraughtsVariant;

    /// Plays `moves` from `fen`, returning the tally and the final position.
    fn tally_after(fen: &str, moves: &[&str]) -> (Tally, Position) {
        let rules = RulesetId::RussianIdf.rules();
        let mut pos = Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), fen)
            .expect("a position");
        let mut tally = Tally::new(rules, &pos);
        for text in moves {
            let mv = pos.parse_move(text).expect("a legal move");
            let mut after = pos.clone();
            after.play(&mv).expect("played");
            tally.advance(rules, &pos, &mv, &after);
            pos = after;
        }
        (tally, pos)
    }

    #[test]
    fn positions_before_a_man_move_are_forgotten_and_repetitions_still_counted() {
        // Kings shuffle: the start position comes back twice.
        let shuffle = [
            "c1-d2", "h8-g7", "d2-c1", "g7-h8", "c1-d2", "h8-g7", "d2-c1", "g7-h8",
        ];
        let (tally, pos) = tally_after("W:WKc1,e3:BKh8,a7", &shuffle);
        assert_eq!(tally.occurrences(&pos, false), 3);
        assert_eq!(tally.seen.len(), 4);
        // A man moves: nothing before it can recur, the tables start again.
        let mut moves = shuffle.to_vec();
        moves.push("e3-f4");
        let (tally, pos) = tally_after("W:WKc1,e3:BKh8,a7", &moves);
        assert_eq!(tally.seen.len(), 1);
        assert_eq!(tally.seen_placement.len(), 1);
        assert_eq!(tally.occurrences(&pos, false), 1);
        // And counting goes on from there.
        moves.extend(["h8-g7", "c1-d2", "g7-h8", "d2-c1"]);
        let (tally, pos) = tally_after("W:WKc1,e3:BKh8,a7", &moves);
        assert_eq!(tally.occurrences(&pos, false), 2);
    }
}
