//! Draw offers (IDF s.2 9.2, 22.5; UA rule 1; FRI 21.2), flags (IDF 8.2.2, s.2 7.3.8,
//! 22.8), resignation, abort, and the refusals that change nothing.

#[path = "law_support.rs"]
mod support;

use shared::law::{Game, LawError, OfferRefusal, Outcome, Reason, RulesetId, Settings};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Position, Variant};
use support::*;

/// A deterministic move for ply `i` that does not depend on the generator's move order
/// and keeps the material level: a two-ply material search (both sides play it, so the
/// game trades evenly), ties broken by sorted text from a rotating index.
fn pick(g: &Game, i: usize) -> shared::rules::Move {
    let pos = g.position();
    let me = pos.side_to_move();
    let mut moves = pos.legal_moves();
    moves.sort_by_key(|m| pos.move_text(m));
    let n = moves.len();
    assert!(n > 0, "no legal move at ply {}: {}", g.ply(), pos.fen());
    let balance = |p: &Position| -> i32 {
        match p {
            Position::Draughts(d) => {
                d.pieces(me).count_ones() as i32 - d.pieces(me.opponent()).count_ones() as i32
            }
            Position::Chess(_) => 0,
        }
    };
    let score = |m: &shared::rules::Move| -> i32 {
        let mut next = pos.clone();
        next.play(m).expect("legal");
        let replies = next.legal_moves();
        if replies.is_empty() {
            return -100; // never end the game in the opening
        }
        replies
            .iter()
            .map(|r| {
                let mut after = next.clone();
                after.play(r).expect("legal");
                balance(&after)
            })
            .min()
            .unwrap_or(0)
    };
    let rotated: Vec<&shared::rules::Move> = (0..n).map(|k| &moves[(i * 7 + k) % n]).collect();
    let best = rotated.iter().map(|m| score(m)).max().unwrap_or(0);
    rotated
        .into_iter()
        .find(|m| score(m) == best)
        .unwrap_or(&moves[0])
        .clone()
}

/// Plays `plies` moves from the Russian start, picking deterministically.
fn opening(g: &mut Game, plies: usize) {
    for i in 0..plies {
        assert!(g.outcome().is_none(), "the opening ended at ply {i}");
        let mv = pick(g, i);
        let by = g.side_to_move();
        g.play(by, &mv).expect("legal");
    }
}

fn next_move(g: &Game) -> shared::rules::Move {
    pick(g, g.ply())
}

#[test]
fn idf_s2_9_2_no_offer_before_each_side_has_made_20_moves() {
    let mut g = Game::standard(
        Variant::Draughts(DraughtsVariant::Russian),
        Settings::classical(),
    );
    opening(&mut g, 38);
    // White's 20th move: Black has made only 19.
    let mv = next_move(&g);
    assert_eq!(
        g.play_and_offer(Color::White, &mv),
        Err(LawError::Offer(OfferRefusal::TooEarly { required: 20 }))
    );
    assert_eq!(g.ply(), 38, "nothing changed");
    g.play(Color::White, &mv).expect("legal");
    assert_eq!(
        g.offer_draw(Color::White),
        Err(LawError::Offer(OfferRefusal::TooEarly { required: 20 }))
    );
    // Black's 20th move: each side has made 20.
    let mv = next_move(&g);
    g.play_and_offer(Color::Black, &mv)
        .expect("offer with the 20th move");
    assert_eq!(g.pending_offer(), Some(Color::Black));
    assert!(g.legal_actions(Color::White).accept);
    assert_eq!(
        g.accept_draw(Color::White),
        Ok(Outcome::draw(Reason::Agreement))
    );
}

#[test]
fn idf_s2_9_2_a_move_declines_and_bars_a_repeat_until_the_opponent_offers() {
    let mut g = Game::standard(
        Variant::Draughts(DraughtsVariant::Russian),
        Settings::classical(),
    );
    opening(&mut g, 40);
    assert_eq!(
        g.offer_draw(Color::White),
        Err(LawError::Offer(OfferRefusal::NotAfterOwnMove)),
        "White is to move: he offers with his move"
    );
    let mv = next_move(&g);
    g.play_and_offer(Color::White, &mv).expect("offer");
    // Black declines by moving.
    let played = g.play(Color::Black, &next_move(&g)).expect("legal");
    assert!(played.declined_offer);
    assert_eq!(g.pending_offer(), None);
    // White may not offer again...
    let mv = next_move(&g);
    assert_eq!(
        g.play_and_offer(Color::White, &mv),
        Err(LawError::Offer(OfferRefusal::Barred))
    );
    g.play(Color::White, &mv).expect("legal");
    assert_eq!(
        g.offer_draw(Color::White),
        Err(LawError::Offer(OfferRefusal::Barred))
    );
    // ...until Black has offered.
    let mv = next_move(&g);
    g.play_and_offer(Color::Black, &mv).expect("black offers");
    g.decline_draw(Color::White).unwrap_or_else(|e| {
        panic!(
            "decline in words: {e:?} {:?} {}",
            g.outcome(),
            g.position().fen()
        )
    });
    assert_eq!(
        g.accept_draw(Color::White),
        Err(LawError::NoOffer),
        "nothing left to accept"
    );
    g.play(Color::White, &next_move(&g)).expect("legal");
    g.offer_draw(Color::White)
        .expect("white's bar was lifted by black's offer");
    // Black was declined, but White's offer lifted that bar too; Black's move declines
    // White's offer and makes his own.
    let played = g
        .play_and_offer(Color::Black, &next_move(&g))
        .expect("offer");
    assert!(played.declined_offer);
    assert_eq!(g.pending_offer(), Some(Color::Black));
}

#[test]
fn idf_s2_9_2_offer_right_after_ones_own_move() {
    let mut g = Game::standard(
        Variant::Draughts(DraughtsVariant::Russian),
        Settings::classical(),
    );
    opening(&mut g, 40);
    g.play(Color::White, &next_move(&g)).expect("legal");
    assert!(g.legal_actions(Color::White).offer_now);
    g.offer_draw(Color::White).expect("offer after own move");
    assert_eq!(
        g.offer_draw(Color::White),
        Err(LawError::Offer(OfferRefusal::AlreadyOffered))
    );
}

#[test]
fn idf_s2_22_5_unrecorded_blitz_agreement_refused_with_7_pieces() {
    let mut g = game(
        RulesetId::RussianIdf,
        Variant::Draughts(DraughtsVariant::Russian),
        "W:Wa1,c1,e1,g1,b2,d2,f2:Bb8,d8,f8,h8,a7,c7",
        Settings::blitz(true),
    );
    let mv = g.position().parse_move("b2-c3").expect("move");
    assert_eq!(
        g.play_and_offer(Color::White, &mv),
        Err(LawError::Offer(OfferRefusal::TooManyPieces { max: 6 }))
    );
}

#[test]
fn idf_s2_22_5_unrecorded_blitz_agreement_with_6_pieces_no_20_move_limit() {
    let mut g = game(
        RulesetId::RussianIdf,
        Variant::Draughts(DraughtsVariant::Russian),
        "W:Wa1,c1,e1,g1,b2,d2:Bb8,d8,f8,h8,a7,c7",
        Settings::blitz(true),
    );
    let mv = g.position().parse_move("b2-c3").expect("move");
    g.play_and_offer(Color::White, &mv)
        .expect("offer with move 1");
    assert_eq!(
        g.accept_draw(Color::Black),
        Ok(Outcome::draw(Reason::Agreement))
    );
}

#[test]
fn idf_s2_22_5_recorded_blitz_keeps_the_20_move_limit() {
    let mut s = Settings::blitz(true);
    s.recorded = true;
    let mut g = game(
        RulesetId::RussianIdf,
        Variant::Draughts(DraughtsVariant::Russian),
        "W:Wa1,c1,e1,g1,b2,d2:Bb8,d8,f8,h8,a7,c7",
        s,
    );
    let mv = g.position().parse_move("b2-c3").expect("move");
    assert_eq!(
        g.play_and_offer(Color::White, &mv),
        Err(LawError::Offer(OfferRefusal::TooEarly { required: 20 }))
    );
}

#[test]
fn ua_1_same_offer_rules_as_idf() {
    let mut g = game(
        RulesetId::RussianUa,
        Variant::Draughts(DraughtsVariant::Russian),
        "W:Wa1,c1,e1,g1,b2,d2,f2:Bb8,d8,f8,h8,a7,c7",
        Settings::rapid(true),
    );
    let mv = g.position().parse_move("b2-c3").expect("move");
    assert_eq!(
        g.play_and_offer(Color::White, &mv),
        Err(LawError::Offer(OfferRefusal::TooManyPieces { max: 6 }))
    );
}

#[test]
fn fri_21_2_agreement_only_in_the_endgame() {
    let mut g = Game::standard(
        Variant::Draughts(DraughtsVariant::Frisian),
        Settings::classical(),
    );
    let mv = next_move(&g);
    assert_eq!(
        g.play_and_offer(Color::White, &mv),
        Err(LawError::Offer(OfferRefusal::NotEndgame))
    );
}

// ---- flags, resignation, abort --------------------------------------------------------

#[test]
fn idf_s2_7_3_8_a_flag_after_the_opponent_was_left_without_pieces_does_not_matter() {
    let mut g = idf("W:Wc3:Bd4");
    play_all(&mut g, &["c3:e5"]);
    let won = Some(Outcome::win(Color::White, Reason::NoPieces));
    assert_eq!(g.outcome().copied(), won);
    assert_eq!(g.flag(Color::White), Err(LawError::GameOver));
    assert_eq!(g.outcome().copied(), won);
}

#[test]
fn idf_s2_7_3_8_a_flag_after_the_opponent_was_left_without_moves_does_not_matter() {
    // a5-b6 blocks Black's only man on a7: b6 is taken and c5 behind it too.
    let mut g = idf("W:Wa5,c5:Ba7");
    play_all(&mut g, &["a5-b6"]);
    let won = Some(Outcome::win(Color::White, Reason::NoLegalMove));
    assert_eq!(g.outcome().copied(), won);
    assert_eq!(g.flag(Color::White), Err(LawError::GameOver));
    assert_eq!(g.outcome().copied(), won);
}

#[test]
fn idf_8_2_2_both_flags_is_a_draw() {
    let mut g = Game::standard(
        Variant::Draughts(DraughtsVariant::Russian),
        Settings::blitz(true),
    );
    opening(&mut g, 6);
    assert_eq!(g.both_flags(), Ok(Outcome::draw(Reason::BothFlags)));
    assert_eq!(g.resign(Color::White), Err(LawError::GameOver));
}

#[test]
fn idf_8_1_flag_loses_in_draughts_whatever_the_material() {
    let mut g = idf("W:WKc1:BKh8,a7");
    assert_eq!(
        g.flag(Color::Black),
        Ok(Outcome::win(Color::White, Reason::TimeForfeit))
    );
}

#[test]
fn idf_8_1_resignation() {
    let mut g = Game::standard(
        Variant::Draughts(DraughtsVariant::Russian),
        Settings::classical(),
    );
    assert_eq!(
        g.resign(Color::Black),
        Ok(Outcome::win(Color::White, Reason::Resignation))
    );
}

#[test]
fn abort_only_before_both_sides_have_moved() {
    let mut g = Game::standard(
        Variant::Draughts(DraughtsVariant::Russian),
        Settings::classical(),
    );
    opening(&mut g, 1);
    assert!(g.legal_actions(Color::Black).abort);
    let mut h = g.clone();
    assert_eq!(h.abort(Color::Black).map(|o| o.reason), Ok(Reason::Aborted));
    opening(&mut g, 1);
    assert_eq!(g.abort(Color::White), Err(LawError::TooLateToAbort));
}

#[test]
fn out_of_turn_and_illegal_moves_change_nothing() {
    let mut g = Game::standard(
        Variant::Draughts(DraughtsVariant::Russian),
        Settings::classical(),
    );
    let before = g.record();
    let mv = g.position().parse_move("c3-d4").expect("move");
    assert_eq!(
        g.play(Color::Black, &mv),
        Err(LawError::NotYourTurn(Color::White))
    );
    assert!(matches!(
        g.play_text(Color::White, "c3-c4"),
        Err(LawError::BadMove(_))
    ));
    let foreign = Position::start(Variant::Chess).legal_moves()[0].clone();
    assert_eq!(g.play(Color::White, &foreign), Err(LawError::IllegalMove));
    assert_eq!(g.record(), before);
}

#[test]
fn wrong_variant_for_the_ruleset_is_refused() {
    let pos = Position::start(Variant::Draughts(DraughtsVariant::Italian));
    assert!(matches!(
        Game::new(RulesetId::RussianIdf, pos, Settings::classical()),
        Err(LawError::WrongVariant { .. })
    ));
}

// ---- the permission told beforehand ----------------------------------------------------

/// What [`Game::offer_refusal`] says for the side to move agrees with what an offer with
/// its next move gets, and for the other side with what an offer now gets.
fn agrees(g: &Game) {
    let to_move = g.side_to_move();
    let mut with_move = g.clone();
    let got = with_move
        .play_and_offer(to_move, &next_move(g))
        .err()
        .map(|e| match e {
            LawError::Offer(r) => r,
            e => panic!("{e:?}"),
        });
    assert_eq!(
        g.offer_refusal(to_move),
        got,
        "{to_move:?} at ply {}",
        g.ply()
    );
    let other = to_move.opponent();
    let got = g.clone().offer_draw(other).err().map(|e| match e {
        LawError::Offer(r) => r,
        e => panic!("{e:?}"),
    });
    assert_eq!(g.offer_refusal(other), got, "{other:?} at ply {}", g.ply());
}

#[test]
fn the_permission_told_beforehand_is_what_an_offer_would_get() {
    let mut g = Game::standard(
        Variant::Draughts(DraughtsVariant::Russian),
        Settings::classical(),
    );
    assert_eq!(
        g.offer_refusal(Color::White),
        Some(OfferRefusal::TooEarly { required: 20 })
    );
    assert_eq!(
        g.offer_refusal(Color::Black),
        Some(OfferRefusal::NotAfterOwnMove)
    );
    for i in 0..41 {
        agrees(&g);
        let by = g.side_to_move();
        g.play(by, &pick(&g, i)).expect("legal");
    }
    // Black offers with his 21st move: while it stands his permission shows the bar a
    // decline will bring; White's is not affected by it.
    g.play_and_offer(Color::Black, &next_move(&g))
        .expect("offer");
    assert_eq!(g.offer_refusal(Color::Black), Some(OfferRefusal::Barred));
    assert_eq!(g.offer_refusal(Color::White), None);
    g.decline_draw(Color::White).expect("decline");
    agrees(&g);
    assert_eq!(g.offer_refusal(Color::Black), Some(OfferRefusal::Barred));
    // White's offer lifts Black's bar.
    g.play_and_offer(Color::White, &next_move(&g))
        .expect("offer");
    assert_eq!(g.offer_refusal(Color::Black), None);

    // Unrecorded blitz: the piece limit (22.5); Frisian: the endgame (21.2); chess: free.
    let blitz = Game::standard(
        Variant::Draughts(DraughtsVariant::Russian),
        Settings::blitz(true),
    );
    agrees(&blitz);
    assert_eq!(
        blitz.offer_refusal(Color::White),
        Some(OfferRefusal::TooManyPieces { max: 6 })
    );
    let frisian = Game::standard(
        Variant::Draughts(DraughtsVariant::Frisian),
        Settings::classical(),
    );
    agrees(&frisian);
    assert_eq!(
        frisian.offer_refusal(Color::White),
        Some(OfferRefusal::NotEndgame)
    );
    let chess = Game::standard(Variant::Chess, Settings::classical());
    agrees(&chess);
    assert_eq!(chess.offer_refusal(Color::Black), None);
}
