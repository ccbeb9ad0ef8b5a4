//! Helpers shared by the `law_*` tests (included with `#[path]`): building games from
//! FEN written in algebraic squares of the internal board, and a driver that plays quiet,
//! safe moves (no capture, no crowning, nothing left en prise, no position repeated if it
//! can be helped) so that a count can be run up to its boundary.
#![allow(dead_code)]

use std::collections::HashSet;

use shared::law::{Game, Outcome, RuleId, RulesetId, Settings, Via};
use shared::rules::draughts::{DraughtsVariant, parse_square, square_name};
use shared::rules::{Move, Position, Variant};

/// Rewrites a draughts FEN written with internal algebraic squares (`Kc1`) into the
/// numbering of an 8x8 variant (identity for the algebraic variants; 10x10 FENs are
/// passed through).
pub fn fen_in(variant: Variant, fen: &str) -> String {
    let Some(dv) = variant.draughts() else {
        return fen.to_string();
    };
    if matches!(
        variant,
        Variant::Draughts(DraughtsVariant::International)
            | Variant::Draughts(DraughtsVariant::Frisian)
    ) {
        return fen.to_string();
    }
    let russian = DraughtsVariant::Russian.rules();
    fen.split(':')
        .map(|field| {
            let mut chars = field.chars();
            match chars.next() {
                Some(c @ ('W' | 'B')) if field.len() > 1 => {
                    let list: Vec<String> = chars
                        .as_str()
                        .split(',')
                        .map(|item| {
                            let (k, name) = match item.strip_prefix('K') {
                                Some(n) => ("K", n),
                                None => ("", item),
                            };
                            let sq = parse_square(russian, name).expect("square");
                            format!("{k}{}", square_name(dv.rules(), sq))
                        })
                        .collect();
                    format!("{c}{}", list.join(","))
                }
                _ => field.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// A game from a FEN (algebraic internal squares for 8x8 variants, numbers for 10x10).
pub fn game(ruleset: RulesetId, variant: Variant, fen: &str, settings: Settings) -> Game {
    let pos = Position::from_fen(variant, &fen_in(variant, fen)).expect("fen");
    Game::new(ruleset, pos, settings).expect("game")
}

/// A Russian IDF classical game.
pub fn idf(fen: &str) -> Game {
    game(
        RulesetId::RussianIdf,
        Variant::Draughts(DraughtsVariant::Russian),
        fen,
        Settings::classical(),
    )
}

/// A Russian game under the Ukrainian profile.
pub fn ua(fen: &str) -> Game {
    game(
        RulesetId::RussianUa,
        Variant::Draughts(DraughtsVariant::Russian),
        fen,
        Settings::classical(),
    )
}

/// The draw `rule` applied automatically.
pub fn auto(rule: RuleId) -> Option<Outcome> {
    Some(Outcome::by_rule(rule, Via::Automatic))
}

/// A position predicate for [`Driver::keep`].
pub type Keep = Box<dyn Fn(&Position) -> bool>;

/// Plays quiet moves; see the module doc.
pub struct Driver {
    seen: HashSet<u64>,
    keep: Keep,
    man_every: Option<u16>,
    men_left: u32,
    quiet: u16,
}

impl Default for Driver {
    fn default() -> Driver {
        Driver::new()
    }
}

impl Driver {
    /// A driver that keeps every position.
    pub fn new() -> Driver {
        Driver {
            seen: HashSet::new(),
            keep: Box::new(|_| true),
            man_every: None,
            men_left: u32::MAX,
            quiet: 0,
        }
    }

    /// Keeps positions satisfying `f`.
    pub fn keep(mut self, f: impl Fn(&Position) -> bool + 'static) -> Driver {
        self.keep = Box::new(f);
        self
    }

    /// Makes at most `n` man moves.
    pub fn men_limit(mut self, n: u32) -> Driver {
        self.men_left = n;
        self
    }

    /// Moves a man every `n` quiet plies.
    pub fn men_every(mut self, n: u16) -> Driver {
        self.man_every = Some(n);
        self
    }

    fn safe(pos: &Position) -> bool {
        match pos {
            Position::Draughts(p) => !p.has_capture() && !p.legal_moves().is_empty(),
            Position::Chess(_) => true,
        }
    }

    /// Chooses the next move.
    pub fn choose(&self, g: &Game) -> Move {
        let Position::Draughts(p) = g.position() else {
            panic!("the driver plays draughts");
        };
        let us = p.side_to_move();
        let want_man = self.men_left > 0 && self.man_every.is_some_and(|n| self.quiet >= n);
        let mut best: Option<(i32, shared::rules::draughts::Move)> = None;
        for m in p.legal_moves() {
            if m.is_capture() || m.crowns() {
                continue;
            }
            let is_man = p.men_of(us) & (1u64 << m.from()) != 0;
            if is_man && !want_man {
                continue;
            }
            let next = p.after(&m);
            let pos = Position::Draughts(next);
            if !(self.keep)(&pos) || !Self::safe(&pos) {
                continue;
            }
            // The opponent must have a quiet king reply that keeps everything and is safe.
            let reply_ok = next.legal_moves().iter().any(|r| {
                let after = Position::Draughts(next.after(r));
                !r.is_capture()
                    && !r.crowns()
                    && next.men_of(us.opponent()) & (1u64 << r.from()) == 0
                    && (self.keep)(&after)
                    && Self::safe(&after)
            });
            if !reply_ok {
                continue;
            }
            let mut score = 0;
            if !self.seen.contains(&pos.key()) {
                score += 10;
            }
            if is_man {
                score += 5;
            }
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, m));
            }
        }
        let (_, m) = best.unwrap_or_else(|| panic!("no quiet move in {}", g.position().fen()));
        Move::Draughts(m)
    }

    /// Plays `plies` quiet moves, asserting the game goes on before each.
    pub fn play(&mut self, g: &mut Game, plies: usize) {
        for i in 0..plies {
            assert!(
                g.outcome().is_none(),
                "over after {i} plies: {:?}",
                g.outcome()
            );
            self.step(g);
        }
    }

    /// Plays one quiet move and returns what it did.
    pub fn step(&mut self, g: &mut Game) -> shared::law::Played {
        if self.seen.is_empty() {
            self.seen.insert(g.position().key());
        }
        let mv = self.choose(g);
        let is_man = match (g.position(), &mv) {
            (Position::Draughts(p), Move::Draughts(m)) => {
                p.men_of(p.side_to_move()) & (1u64 << m.from()) != 0
            }
            _ => false,
        };
        let by = g.side_to_move();
        let played = g.play(by, &mv).expect("legal");
        self.quiet = if is_man { 0 } else { self.quiet + 1 };
        if is_man {
            self.men_left -= 1;
        }
        self.seen.insert(g.position().key());
        played
    }
}

/// Plays `plies - 1` quiet plies and checks the game goes on, then one more and checks
/// it ends with `expected`.
pub fn boundary(mut g: Game, mut d: Driver, plies: usize, expected: Option<Outcome>) -> Game {
    d.play(&mut g, plies - 1);
    assert_eq!(g.outcome(), None, "still playing after {} plies", plies - 1);
    let played = d.step(&mut g);
    assert_eq!(
        played.outcome,
        expected,
        "after {plies} plies ({})",
        g.position().fen()
    );
    assert_eq!(g.outcome().copied(), expected);
    g
}

/// Plays the moves written in `moves`, each by the side to move.
pub fn play_all(g: &mut Game, moves: &[&str]) {
    for m in moves {
        let by = g.side_to_move();
        g.play_text(by, m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

/// Does the lone king of `color` stand off the main road a1-h8?
pub fn off_main_road(pos: &Position, color: shared::rules::Color) -> bool {
    match pos {
        Position::Draughts(p) => p.kings_of(color) & shared::law::situation::main_road() == 0,
        Position::Chess(_) => true,
    }
}
