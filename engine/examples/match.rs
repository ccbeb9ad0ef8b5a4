//! Engine matches for `docs/engine.md` (a benchmark, not a test): level n against level
//! n+1, and level 8 against a random mover, in one variant, colours alternating, each
//! pair of games from the same random two-move opening. A game ends when a side has no
//! move (a win) or by the draw law's stand-in: 60 plies of kings only, or 400 plies.
//!
//! `cargo run --release -p damka-engine --example match -- <variant> <games per pair> <time scale> [first level]`
//! (each move gets about 1,000 nodes per millisecond of its level's time, times the
//! scale; the level's time remains the cap).

use engine::{Level, Limits};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Position, Variant};

/// 1 for a White win, 0 for a draw, -1 for a Black win.
fn game(
    v: DraughtsVariant,
    white: Option<Level>,
    black: Option<Level>,
    scale: f64,
    seed: u64,
) -> i32 {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut pos = Position::start(Variant::Draughts(v));
    let mut history = Vec::new();
    let mut kings_only = 0u16;
    for ply in 0..400 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.side_to_move() == Color::White {
                -1
            } else {
                1
            };
        }
        let side = if pos.side_to_move() == Color::White {
            white
        } else {
            black
        };
        let mv = match side {
            Some(level) if ply >= 2 => {
                // Node budgets (about a thousand nodes per millisecond of the level's
                // time, scaled) keep the match independent of the machine's load; the
                // level's own time stays the cap.
                let nodes = (level.spec().movetime_ms as f64 * 1000.0 * scale).max(500.0) as u64;
                let limits = Limits {
                    nodes: Some(nodes),
                    law_plies: kings_only,
                    ..Limits::default()
                };
                match engine::think(&pos, &history, level, &limits) {
                    Ok(t) => t.best,
                    Err(_) => return 0,
                }
            }
            _ => moves[rng.usize(..moves.len())].clone(),
        };
        let shared::rules::Move::Draughts(m) = &mv else {
            return 0;
        };
        let Position::Draughts(p) = &pos else {
            return 0;
        };
        let king = p.kings() & (1u64 << m.from()) != 0;
        kings_only = if m.is_capture() || !king {
            0
        } else {
            kings_only + 1
        };
        if kings_only >= 60 {
            return 0;
        }
        history.push(pos.key());
        if pos.play(&mv).is_err() {
            return 0;
        }
    }
    0
}

/// Plays `games` games between `a` and `b` (`None` = random), colours alternating;
/// returns b's wins, draws, losses.
fn pair(
    v: DraughtsVariant,
    a: Option<Level>,
    b: Option<Level>,
    games: u32,
    scale: f64,
) -> (u32, u32, u32) {
    let (mut w, mut d, mut l) = (0, 0, 0);
    for g in 0..games {
        let seed = u64::from(g / 2) + 1;
        let b_white = g % 2 == 0;
        let r = if b_white {
            game(v, b, a, scale, seed)
        } else {
            -game(v, a, b, scale, seed)
        };
        match r {
            1 => w += 1,
            0 => d += 1,
            _ => l += 1,
        }
    }
    (w, d, l)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let variant: Variant = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(Variant::Draughts(DraughtsVariant::Russian));
    let games: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let scale: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.2);
    let first: u8 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let Some(v) = variant.draughts() else {
        eprintln!("a draughts variant, please");
        return;
    };
    println!(
        "variant {} games {games} per pair, time scale {scale}",
        v.name()
    );
    let r = pair(v, None, Some(Level::full()), games, scale);
    println!("L8 vs random: +{} ={} -{}", r.0, r.1, r.2);
    for n in first.max(1)..8u8 {
        let (Ok(a), Ok(b)) = (Level::new(n), Level::new(n + 1)) else {
            continue;
        };
        let r = pair(v, Some(a), Some(b), games, scale);
        let score = (f64::from(r.0) + f64::from(r.1) / 2.0) / f64::from(games) * 100.0;
        println!(
            "L{} vs L{}: +{} ={} -{} ({score:.0}%)",
            n + 1,
            n,
            r.0,
            r.1,
            r.2
        );
    }
}
