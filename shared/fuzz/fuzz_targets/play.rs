//! Fuzz target: random legal play through the rules and the law, from a start position
//! (Chess960: any of the 960) or from a fuzzed FEN. Nothing panics; at every ply perft-1
//! equals the number of legal moves, every move's notation parses back to that move,
//! every listed move text names a legal move, FEN round-trips, and the law's game keeps
//! the same position as the rules. At the end the game record replays to the same game,
//! and a takeback gives the position from before the moves taken back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::law::{Game, RulesetId, Settings};
use shared::rules::{Color, Position, Variant};

/// The most plies one input plays (keeps an execution in the milliseconds).
const MAX_PLIES: usize = 150;

fuzz_target!(|data: &[u8]| {
    let [pick, mode, rest @ ..] = data else {
        return;
    };
    let variant = Variant::ALL[usize::from(*pick) % Variant::ALL.len()];
    let Some((start, choices)) = start_position(variant, *mode, rest) else {
        return;
    };
    let settings = match mode >> 2 & 3 {
        0 => Settings::classical(),
        1 => Settings::rapid(true),
        2 => Settings::blitz(false),
        _ => Settings::rapid(false),
    };
    let mut game = Game::new(RulesetId::default_for(variant), start.clone(), settings)
        .expect("the default rule set governs its own variant");
    let mut pos = start;
    let mut fens = vec![pos.fen()];
    for &c in choices.iter().take(MAX_PLIES) {
        let moves = check_position(&pos);
        if moves.is_empty() {
            break;
        }
        let mv = &moves[usize::from(c) % moves.len()];
        let side = pos.side_to_move();
        pos.play(mv).expect("a listed move is legal");
        if !game.is_over() {
            // Some bytes also try the law's other actions; a refusal changes nothing.
            if c & 0x80 != 0 {
                let before = game.actions().len();
                if game.claim_draw(side, None).is_err() {
                    assert_eq!(game.actions().len(), before);
                }
                if game.is_over() {
                    continue;
                }
            }
            game.play(side, mv)
                .expect("a legal move on turn is accepted");
            assert_eq!(game.position().fen(), pos.fen());
            fens.push(pos.fen());
        }
    }
    // The record replays to the same game.
    let json = serde_json::to_string(&game).expect("a game encodes");
    let back: Game = serde_json::from_str(&json).expect("a record replays");
    assert!(back.moves().eq(game.moves()));
    assert_eq!(back.position().fen(), game.position().fen());
    assert_eq!(back.outcome(), game.outcome());
    // A takeback of n plies gives the position from before them.
    let n = usize::from(*mode >> 4).min(game.ply());
    let earlier = game.without_last_moves(n).expect("a takeback replays");
    assert_eq!(earlier.position().fen(), fens[game.ply() - n]);
    let _ = (
        game.progress(),
        game.legal_actions(Color::White),
        game.legal_actions(Color::Black),
    );
});

/// The start position and the bytes left for the moves: bit 0 of `mode` reads a FEN
/// (up to a NUL byte), bit 1 a Chess960 start index; otherwise the variant's start.
fn start_position(variant: Variant, mode: u8, rest: &[u8]) -> Option<(Position, &[u8])> {
    if mode & 1 != 0 {
        let end = rest.iter().position(|&b| b == 0)?;
        let fen = std::str::from_utf8(&rest[..end]).ok()?;
        let pos = Position::from_fen(variant, fen).ok()?;
        return Some((pos, &rest[end + 1..]));
    }
    if mode & 2 != 0 && variant == Variant::Chess960 {
        let [hi, lo, moves @ ..] = rest else {
            return None;
        };
        let index = u32::from(u16::from_be_bytes([*hi, *lo])) % 960;
        return Some((Position::start960(index).expect("index below 960"), moves));
    }
    Some((Position::start(variant), rest))
}

/// Checks the position's invariants and returns its legal moves.
fn check_position(pos: &Position) -> Vec<shared::rules::Move> {
    let variant = pos.variant();
    let fen = pos.fen();
    let again = Position::from_fen(variant, &fen)
        .unwrap_or_else(|e| panic!("{variant}: `{fen}` refused: {e}"));
    assert_eq!(again.fen(), fen);
    assert_eq!(again.key(), pos.key(), "{variant}: `{fen}`");
    let moves = pos.legal_moves();
    assert_eq!(pos.perft(1), moves.len() as u64, "{variant}: `{fen}`");
    for mv in sample(&moves) {
        let text = pos.move_text(mv);
        assert_eq!(
            pos.parse_move(&text).as_ref(),
            Ok(mv),
            "{variant}: `{fen}` move `{text}`"
        );
    }
    for text in sample(&pos.legal_move_texts()) {
        let mv = pos
            .parse_move(text)
            .unwrap_or_else(|e| panic!("{variant}: `{fen}` listed `{text}`: {e}"));
        assert!(pos.is_legal(&mv), "{variant}: `{fen}` listed `{text}`");
    }
    moves
}

/// At most 32 items spread evenly over `all`: a king-rich draughts position can have
/// hundreds of capture routes, and checking every one with `parse_move` (itself linear
/// in the routes) would make one input take seconds.
fn sample<T>(all: &[T]) -> impl Iterator<Item = &T> {
    let step = all.len().div_ceil(32).max(1);
    all.iter().step_by(step)
}
