//! Fuzz target: move-text parsing of every variant. The input picks a variant, plays a
//! few random legal moves from its start position, and types the rest as a move.
//! Parsing never panics; an accepted text names a legal move whose own notation reads
//! back to it; an ambiguous one lists candidates that each name a legal move; the law's
//! `play_text` agrees with the position on whether the text is a move.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::law::{Game, LawError, RulesetId, Settings};
use shared::rules::{MoveParseError, Position, Variant};

fuzz_target!(|data: &[u8]| {
    let [pick, plies, rest @ ..] = data else {
        return;
    };
    let variant = Variant::ALL[usize::from(*pick) % Variant::ALL.len()];
    let plies = usize::from(*plies % 48).min(rest.len());
    let (choices, text) = rest.split_at(plies);
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let mut pos = Position::start(variant);
    for &c in choices {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = &moves[usize::from(c) % moves.len()];
        pos.play(mv).expect("a listed move is legal");
    }
    let parsed = pos.parse_move(text);
    match &parsed {
        Ok(mv) => {
            assert!(pos.is_legal(mv), "{variant} `{text}`");
            let own = pos.move_text(mv);
            assert_eq!(pos.parse_move(&own).as_ref(), Ok(mv), "{variant} `{text}`");
            let mut after = pos.clone();
            after.play(mv).expect("a parsed move is legal");
        }
        Err(MoveParseError::Ambiguous { candidates, .. }) => {
            assert!(candidates.len() >= 2, "{variant} `{text}`");
            for c in candidates {
                let mv = pos
                    .parse_move(c)
                    .unwrap_or_else(|e| panic!("{variant} `{text}`: candidate `{c}`: {e}"));
                assert!(pos.is_legal(&mv));
            }
        }
        Err(MoveParseError::Malformed(_) | MoveParseError::NoSuchMove(_)) => {}
    }
    // The law reads the same text the same way.
    let Ok(mut game) = Game::new(
        RulesetId::default_for(variant),
        pos.clone(),
        Settings::classical(),
    ) else {
        panic!("{variant}: the default rule set governs its own variant");
    };
    if game.is_over() {
        return;
    }
    let side = pos.side_to_move();
    let before = game.position().fen();
    match (game.play_text(side, text), &parsed) {
        (Ok(_), Ok(_)) => {}
        (Err(LawError::BadMove(e)), Err(p)) => assert_eq!(&e, p, "{variant} `{text}`"),
        (got, want) => panic!("{variant} `{text}`: law {got:?}, position {want:?}"),
    }
    if parsed.is_err() {
        assert_eq!(
            game.position().fen(),
            before,
            "a refused move changed nothing"
        );
    }
});
