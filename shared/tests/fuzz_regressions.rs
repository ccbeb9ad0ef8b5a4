//! Regression tests for what the fuzz targets of `shared/fuzz/` found (docs/fuzzing.md):
//! each input that failed a target, reduced to the smallest case that shows the fault,
//! checked through the public interface as a normal test.

use shared::law::{Game, RulesetId, Settings};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Position, Variant};

/// Fuzz target `play`: a takeback of no moves from a finished game replayed the record
/// without its outcome, and the replay refused the outcome the moves produce
/// (`OutcomeMismatch`). Taking back nothing gives the same game, over or not.
#[test]
fn takeback_of_no_moves_keeps_a_finished_game() {
    // Over by the last move: White takes Black's last piece.
    let start = Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), "W:Wc3:Bd4")
        .expect("legal FEN");
    let mut game = Game::new(
        RulesetId::default_for(Variant::Draughts(DraughtsVariant::Russian)),
        start,
        Settings::classical(),
    )
    .expect("the default rule set governs Russian");
    game.play_text(Color::White, "c3:e5").expect("the capture");
    assert!(game.is_over());
    let same = game.without_last_moves(0).expect("nothing taken back");
    assert_eq!(same.outcome(), game.outcome());
    assert!(same.moves().eq(game.moves()));
    let before = game.without_last_moves(1).expect("the capture taken back");
    assert!(!before.is_over());
    assert_eq!(before.ply(), 0);

    // Over by resignation, after a move.
    let mut game = Game::standard(Variant::Chess, Settings::classical());
    game.play_text(Color::White, "e4").expect("a legal move");
    game.resign(Color::Black).expect("a live game");
    let same = game.without_last_moves(0).expect("nothing taken back");
    assert_eq!(same.outcome(), game.outcome());
    let before = game.without_last_moves(1).expect("e4 taken back");
    assert!(!before.is_over() && before.ply() == 0);
}

/// Fuzz target `client_message`: a structured control whose starting time is no whole
/// number of millionths of a minute (3,182,525 ms) was written as the shorthand
/// `53.04208333333333+0`, which the server itself refuses (at most 6 decimals): a seek
/// or game carrying it could not be read back. Such a control keeps the structured form;
/// one with at most 6 decimals keeps the exact shorthand.
#[test]
fn time_controls_without_an_exact_shorthand_stay_structured() {
    use shared::protocol::{ClientMessage, TimeControl};
    let input = r#"{"type": "seek", "variant": "international", "time_control": {"periods": [{"time_ms": 3182525}]}, "rated": false, "color": "random"}"#;
    let msg = ClientMessage::decode(input).expect("a valid seek");
    let json = serde_json::to_string(&msg).expect("encodes");
    assert!(
        json.contains(r#""time_control":{"periods":[{"time_ms":3182525}]}"#),
        "{json}"
    );
    assert_eq!(ClientMessage::decode(&json), Ok(msg));
    for (ms, shown) in [(3_182_520u64, "53.042+0"), (1_200, "0.02+0"), (1_000, "{")] {
        let tc: TimeControl = format!(r#"{{"periods":[{{"time_ms":{ms}}}]}}"#)
            .parse()
            .expect("a valid control");
        let text = tc.to_string();
        assert!(text.starts_with(shown), "{ms} ms shown as {text}");
        assert_eq!(
            text.parse::<TimeControl>(),
            Ok(tc),
            "{ms} ms shown as {text}"
        );
    }
}
