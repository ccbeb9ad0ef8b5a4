//! Fuzz target: FEN parsing of every variant (the eight draughts variants, chess and
//! Chess960). The first byte picks the variant, the rest is the FEN. Parsing never
//! panics; an accepted FEN writes back to a FEN that reads to the same position, and
//! the position answers the questions the server asks of it without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::rules::{Position, Variant};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let variant = Variant::ALL[usize::from(pick) % Variant::ALL.len()];
    let Ok(fen) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(pos) = Position::from_fen(variant, fen) else {
        return;
    };
    assert_eq!(pos.variant(), variant);
    let written = pos.fen();
    let again = Position::from_fen(variant, &written)
        .unwrap_or_else(|e| panic!("{variant}: `{fen}` wrote `{written}`, refused: {e}"));
    assert_eq!(again.fen(), written, "{variant}: `{fen}`");
    assert_eq!(again.key(), pos.key(), "{variant}: `{fen}`");
    let moves = pos.legal_moves();
    assert_eq!(pos.perft(1), moves.len() as u64, "{variant}: `{fen}`");
    for mv in sample(&moves) {
        let _ = pos.move_info(mv);
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
        assert!(pos.is_legal(&mv));
    }
});

/// At most 32 items spread evenly over `all`: a king-rich draughts position can have
/// hundreds of capture routes, and checking every one with `parse_move` (itself linear
/// in the routes) would make one input take seconds.
fn sample<T>(all: &[T]) -> impl Iterator<Item = &T> {
    let step = all.len().div_ceil(32).max(1);
    all.iter().step_by(step)
}
