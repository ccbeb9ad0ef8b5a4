//! Property tests of the game law: random legal games in every rule set never panic,
//! end with exactly one outcome or go on, refuse every action once over, replay from
//! their move list to the same outcome, and survive a serde round trip.

use proptest::prelude::*;
use shared::law::{Game, GameRecord, LawError, RulesetId, Settings};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Position, Variant};

fn rulesets() -> impl Strategy<Value = (RulesetId, Variant)> {
    prop::sample::select(vec![
        (
            RulesetId::RussianIdf,
            Variant::Draughts(DraughtsVariant::Russian),
        ),
        (
            RulesetId::RussianUa,
            Variant::Draughts(DraughtsVariant::Russian),
        ),
        (
            RulesetId::Brazilian,
            Variant::Draughts(DraughtsVariant::Brazilian),
        ),
        (RulesetId::Pool, Variant::Draughts(DraughtsVariant::Pool)),
        (RulesetId::Czech, Variant::Draughts(DraughtsVariant::Czech)),
        (
            RulesetId::Portuguese,
            Variant::Draughts(DraughtsVariant::Portuguese),
        ),
        (
            RulesetId::Italian,
            Variant::Draughts(DraughtsVariant::Italian),
        ),
        (
            RulesetId::International,
            Variant::Draughts(DraughtsVariant::International),
        ),
        (
            RulesetId::Frisian,
            Variant::Draughts(DraughtsVariant::Frisian),
        ),
        (RulesetId::Fide, Variant::Chess),
    ])
}

fn settings() -> impl Strategy<Value = Settings> {
    prop::sample::select(vec![
        Settings::classical(),
        Settings::rapid(true),
        Settings::blitz(false),
    ])
}

fn assert_all_refused(g: &mut Game) {
    let before = g.record();
    let c = g.side_to_move();
    let mv = g.position().legal_moves().into_iter().next();
    if let Some(mv) = mv {
        assert_eq!(g.play(c, &mv), Err(LawError::GameOver));
        assert_eq!(g.play_and_offer(c, &mv), Err(LawError::GameOver));
    }
    for c in [Color::White, Color::Black] {
        assert_eq!(g.offer_draw(c), Err(LawError::GameOver));
        assert_eq!(g.accept_draw(c), Err(LawError::GameOver));
        assert_eq!(g.decline_draw(c), Err(LawError::GameOver));
        assert_eq!(g.claim_draw(c, None), Err(LawError::GameOver));
        assert_eq!(g.resign(c), Err(LawError::GameOver));
        assert_eq!(g.flag(c), Err(LawError::GameOver));
        assert_eq!(g.abort(c), Err(LawError::GameOver));
        let a = g.legal_actions(c);
        assert!(!a.play && !a.offer_now && !a.accept && !a.resign && !a.abort);
    }
    assert_eq!(g.both_flags(), Err(LawError::GameOver));
    assert_eq!(g.record(), before);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_games_end_once_and_replay(
        (ruleset, variant) in rulesets(),
        settings in settings(),
        picks in prop::collection::vec(any::<u16>(), 1..160),
    ) {
        let mut g = Game::new(ruleset, Position::start(variant), settings).expect("game");
        for pick in &picks {
            if g.is_over() {
                break;
            }
            let moves = g.position().legal_moves();
            prop_assert!(!moves.is_empty(), "a live game has a move");
            let mv = &moves[*pick as usize % moves.len()];
            let by = g.side_to_move();
            let played = g.play(by, mv).expect("legal");
            prop_assert_eq!(played.outcome.as_ref(), g.outcome());
        }
        let replayed = Game::replay(ruleset, Position::start(variant), settings, &g.moves().collect::<Vec<_>>())
            .expect("replay");
        prop_assert_eq!(replayed.outcome(), g.outcome());
        prop_assert_eq!(replayed.position().fen(), g.position().fen());
        if g.is_over() {
            assert_all_refused(&mut g);
        }
    }

    #[test]
    fn random_actions_never_panic_and_round_trip(
        (ruleset, variant) in rulesets(),
        settings in settings(),
        picks in prop::collection::vec((any::<u16>(), 0u8..24), 1..120),
    ) {
        let mut g = Game::new(ruleset, Position::start(variant), settings).expect("game");
        for (pick, action) in &picks {
            let by = if pick % 2 == 0 { Color::White } else { Color::Black };
            let was_over = g.is_over();
            let before = g.outcome().copied();
            let moves = g.position().legal_moves();
            let mv = (!moves.is_empty()).then(|| moves[*pick as usize % moves.len()].clone());
            let _ = match (action, mv) {
                (0, Some(mv)) => g.play_and_offer(g.side_to_move(), &mv).map(|_| ()),
                (1, _) => g.offer_draw(by),
                (2, _) => g.accept_draw(by).map(|_| ()),
                (3, _) => g.decline_draw(by),
                (4, _) => g.claim_draw(by, None).map(|_| ()),
                (5, Some(mv)) => g.claim_draw(g.side_to_move(), Some(&mv)).map(|_| ()),
                (6, _) if pick % 97 == 0 => g.resign(by).map(|_| ()),
                (7, _) if pick % 89 == 0 => g.flag(by).map(|_| ()),
                (8, _) if pick % 83 == 0 => g.abort(by).map(|_| ()),
                (_, Some(mv)) => g.play(g.side_to_move(), &mv).map(|_| ()),
                _ => Ok(()),
            };
            if was_over {
                prop_assert_eq!(g.outcome().copied(), before, "an outcome never changes");
            }
        }
        let json = serde_json::to_string(&g).expect("serialize");
        let back: Game = serde_json::from_str(&json).expect("deserialize");
        prop_assert_eq!(back.record(), g.record());
        let record: GameRecord = serde_json::from_str(&json).expect("record");
        prop_assert_eq!(record.outcome, g.outcome().copied());
        if g.is_over() {
            assert_all_refused(&mut g);
        }
    }
}

#[test]
fn a_finished_record_round_trips_through_json() {
    let mut g = Game::standard(Variant::Chess, Settings::classical());
    for m in ["f3", "e5", "g4", "Qh4#"] {
        let by = g.side_to_move();
        g.play_text(by, m).expect("move");
    }
    let json = serde_json::to_string(&g).expect("serialize");
    let back: Game = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back.outcome(), g.outcome());
    assert!(back.moves().eq(g.moves()));
}

#[test]
fn a_tampered_record_is_refused() {
    let mut g = Game::standard(
        Variant::Draughts(DraughtsVariant::Russian),
        Settings::classical(),
    );
    g.play_text(Color::White, "c3-d4").expect("move");
    let mut record = g.record();
    record.outcome = Some(shared::law::Outcome::draw(shared::law::Reason::Agreement));
    assert!(record.replay().is_err());
}
