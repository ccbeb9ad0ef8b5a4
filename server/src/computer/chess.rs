//! The computer's chess: an external UCI engine (Stockfish, `computer.uci_engine`) at
//! lichess's eight levels (skill level, depth and move time growing with the level),
//! one short-lived process per search so a crashed engine costs one search, never a
//! game; and a small built-in search that plays when no UCI engine runs here, so chess
//! against the computer never answers `engine_unavailable`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use shakmaty::{Position as _, Role};
use shared::rules::Color;
use shared::rules::chess::ChessPosition;

/// Lichess-style levels: Stockfish's skill level, depth and move time per level 1-8.
const SKILL: [u8; 8] = [0, 2, 4, 7, 10, 13, 16, 20];
const DEPTH: [u8; 8] = [1, 2, 3, 5, 8, 10, 13, 20];
const MOVETIME_MS: [u64; 8] = [50, 100, 150, 200, 300, 400, 500, 1_000];

/// A chess move the computer chose.
pub(crate) struct Choice {
    /// The move in UCI.
    pub text: String,
    /// Its score in centipawns for the side to move, when known.
    pub score: Option<i32>,
    /// Chosen by the external UCI engine (not the built-in search).
    pub by_uci: bool,
}

/// The move the computer plays at `level` (1-8) in `pos`.
pub(crate) fn best_move(
    uci_engine: &str,
    pos: &ChessPosition,
    level: u8,
    budget_ms: u64,
) -> Choice {
    let i = usize::from(level.clamp(1, 8) - 1);
    let movetime = MOVETIME_MS[i].min(budget_ms.max(20));
    if !uci_engine.is_empty() {
        match uci(uci_engine, pos, SKILL[i], DEPTH[i], movetime) {
            Ok((text, score)) => {
                return Choice {
                    text,
                    score,
                    by_uci: true,
                };
            }
            Err(e) => {
                tracing::warn!(engine = uci_engine, error = %e, "UCI engine failed; the built-in search plays")
            }
        }
    }
    let (text, score) = builtin(pos, level);
    Choice {
        text,
        score,
        by_uci: false,
    }
}

fn uci(
    path: &str,
    pos: &ChessPosition,
    skill: u8,
    depth: u8,
    movetime: u64,
) -> Result<(String, Option<i32>), String> {
    let mut child = Command::new(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    let result = converse(&mut child, pos, skill, depth, movetime);
    let _ = child.kill();
    let _ = child.wait();
    result
}

fn converse(
    child: &mut std::process::Child,
    pos: &ChessPosition,
    skill: u8,
    depth: u8,
    movetime: u64,
) -> Result<(String, Option<i32>), String> {
    let (Some(mut input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("no pipes".into());
    };
    let chess960 = pos.is_chess960();
    let script = format!(
        "uci\nsetoption name UCI_Chess960 value {chess960}\nsetoption name Skill Level value {skill}\nisready\nposition fen {}\ngo depth {depth} movetime {movetime}\n",
        pos.fen()
    );
    input
        .write_all(script.as_bytes())
        .map_err(|e| e.to_string())?;
    input.flush().map_err(|e| e.to_string())?;
    // The lines are read on a thread of their own, so that an engine that hangs
    // without a word is noticed at the deadline (and killed by the caller).
    let (tx, rx) = std::sync::mpsc::sync_channel::<String>(64);
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_millis(movetime) + Duration::from_secs(5);
    let mut score = None;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = match rx.recv_timeout(left) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => return Err("no bestmove in time".into()),
            Err(RecvTimeoutError::Disconnected) => {
                return Err("the engine closed its output".into());
            }
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(i) = words.iter().position(|w| *w == "cp") {
            score = words.get(i + 1).and_then(|v| v.parse().ok());
        } else if let Some(i) = words.iter().position(|w| *w == "mate") {
            score = words
                .get(i + 1)
                .and_then(|v| v.parse::<i32>().ok())
                .map(|n| if n > 0 { 10_000 - n } else { -10_000 - n });
        }
        if words.first() == Some(&"bestmove") {
            let mv = words.get(1).ok_or("bestmove without a move")?;
            // The engine's move must be legal here (and in our notation).
            if pos.parse_move(mv).is_err() {
                return Err(format!("illegal bestmove {mv}"));
            }
            return Ok(((*mv).to_string(), score));
        }
    }
}

/// Material in centipawns for `color`.
fn material(pos: &ChessPosition, color: Color) -> i32 {
    let m = pos.inner().board().material();
    let side = |c: shakmaty::Color| {
        let r = m.get(c);
        i32::from(r.pawn) * 100
            + i32::from(r.knight) * 300
            + i32::from(r.bishop) * 310
            + i32::from(r.rook) * 500
            + i32::from(r.queen) * 900
    };
    let (us, them) = match color {
        Color::White => (shakmaty::Color::White, shakmaty::Color::Black),
        Color::Black => (shakmaty::Color::Black, shakmaty::Color::White),
    };
    side(us) - side(them)
}

const MATE: i32 = 100_000;

fn negamax(pos: &ChessPosition, depth: u8, mut alpha: i32, beta: i32) -> i32 {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return if pos.is_check() { -MATE } else { 0 };
    }
    if depth == 0 {
        return material(pos, pos.side_to_move());
    }
    let mut best = -MATE - 1;
    for mv in &moves {
        let score = -negamax(&pos.after(mv), depth - 1, -beta, -alpha);
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The built-in search: material, two plies (three from level 5), captures of the
/// more valuable pieces first, a level's noise on top.
fn builtin(pos: &ChessPosition, level: u8) -> (String, Option<i32>) {
    let depth = if level >= 5 { 2 } else { 1 };
    let noise = i32::from(8 - level.clamp(1, 8)) * 40;
    let mut moves = pos.legal_moves();
    moves.sort_by_key(|m| std::cmp::Reverse(m.0.capture().map_or(0, value)));
    let mut best: Option<(String, i32, i32)> = None;
    for mv in &moves {
        let score = -negamax(&pos.after(mv), depth, -MATE - 1, MATE + 1);
        let noisy = score
            + if noise > 0 {
                fastrand::i32(-noise..=noise)
            } else {
                0
            };
        if best.as_ref().is_none_or(|b| noisy > b.2) {
            best = Some((pos.uci(mv), score, noisy));
        }
    }
    best.map_or((String::new(), None), |(mv, score, _)| (mv, Some(score)))
}

fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 0,
    }
}

/// Does the computer, playing `color`, accept a draw offered in `pos`? When it is at
/// least three pawns down in material.
pub(crate) fn accepts_draw(pos: &ChessPosition, color: Color) -> bool {
    material(pos, color) <= -300
}

/// Full-strength analysis of `pos` for `ms` milliseconds: the best move (UCI) and the
/// score for the side to move in centipawns (a mate as ±10,000 minus its moves).
pub(crate) fn analyse(uci_engine: &str, pos: &ChessPosition, ms: u64) -> (String, i32) {
    if !uci_engine.is_empty()
        && let Ok((text, score)) = uci(uci_engine, pos, 20, 30, ms)
    {
        return (text, score.unwrap_or(0));
    }
    let (text, score) = builtin(pos, 8);
    (text, score.unwrap_or(0).clamp(-10_000, 10_000))
}
