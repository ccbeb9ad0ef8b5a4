//! The level ladder, as a test: level n+1 scores more than half against level n, for
//! every n, in Russian draughts. Each move gets a node budget in proportion to its
//! level's think time and the deliberate error's noise comes from a seeded generator,
//! so the matches play the same games on any machine at any load. (International at
//! this budget, two openings: L6 and L5 share the points, 4 of 8, so the 10x10 ladder
//! is left to the wider, slower matches of `examples/match.rs` behind
//! `docs/engine.md`'s table.)

use engine::{Level, Limits};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Move, Position, Variant};

/// Nodes a move gets per millisecond of its level's think time: a twentieth of what
/// this box searches, so that the ladder costs seconds, not minutes.
const NODES_PER_MS: f64 = 50.0;

/// Plies after which an undecided game is a draw.
const MAX_PLIES: u32 = 300;

/// Plies of kings only (no capture, no man moved) after which the game is a draw.
const KINGS_ONLY_DRAW: u16 = 60;

/// Plays one game from a seeded random two-ply opening: 1 if White wins, 0 for a draw,
/// -1 if Black wins.
fn game(v: DraughtsVariant, white: Level, black: Level, opening: u64) -> i32 {
    let mut rng = fastrand::Rng::with_seed(opening);
    let mut pos = Position::start(Variant::Draughts(v));
    let mut history = Vec::new();
    let mut kings_only = 0u16;
    for ply in 0..MAX_PLIES {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.side_to_move() == Color::White {
                -1
            } else {
                1
            };
        }
        let mv = if ply < 2 {
            moves[rng.usize(..moves.len())].clone()
        } else {
            let level = if pos.side_to_move() == Color::White {
                white
            } else {
                black
            };
            let limits = Limits {
                nodes: Some((level.spec().movetime_ms as f64 * NODES_PER_MS).max(500.0) as u64),
                law_plies: kings_only,
                ..Limits::default()
            };
            match engine::think(&pos, &history, level, &limits) {
                Ok(t) => t.best,
                Err(e) => panic!("{v:?} ply {ply}: {e}"),
            }
        };
        let (Move::Draughts(m), Position::Draughts(p)) = (&mv, &pos) else {
            panic!("{v:?}: not a draughts move");
        };
        let king = p.kings() & (1u64 << m.from()) != 0;
        kings_only = if m.is_capture() || !king {
            0
        } else {
            kings_only + 1
        };
        if kings_only >= KINGS_ONLY_DRAW {
            return 0;
        }
        history.push(pos.key());
        assert!(pos.play(&mv).is_ok(), "{v:?}: an illegal move");
    }
    0
}

/// `higher`'s points (2 a win, 1 a draw) over `openings` pairs of games against
/// `lower`, colours swapped within each pair.
fn points(v: DraughtsVariant, higher: Level, lower: Level, openings: u64) -> u32 {
    let mut points = 0;
    for opening in 1..=openings {
        let as_white = game(v, higher, lower, opening);
        let as_black = -game(v, lower, higher, opening);
        for r in [as_white, as_black] {
            points += (r + 1) as u32;
        }
    }
    points
}

fn ladder(v: DraughtsVariant, openings: u64) {
    fastrand::seed(19);
    let mut failed = Vec::new();
    for n in 1..8u8 {
        let (Ok(lower), Ok(higher)) = (Level::new(n), Level::new(n + 1)) else {
            panic!("levels 1-8 exist");
        };
        let got = points(v, higher, lower, openings);
        let of = (4 * openings) as u32;
        if 2 * got <= of {
            failed.push(format!("L{} vs L{n}: {got} of {of} points", n + 1));
        }
    }
    assert!(failed.is_empty(), "{v:?}: {failed:?}");
}

#[test]
fn each_level_beats_the_one_below_in_russian() {
    ladder(DraughtsVariant::Russian, 3);
}
