//! Boundary tests of the Ukrainian profile (UA rules 3-9), Italian (IDF app. 5 art. 8),
//! International (INT 3.5) and Frisian (FRI 18, 21) draw rules.

#[path = "law_support.rs"]
mod support;

use shared::law::{Claim, ClaimRefusal, Outcome, RuleId, RulesetId, Settings, Via};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Variant};
use support::*;

// ---- UA ------------------------------------------------------------------------------

const EIGHT: &str = "W:WKc1,Ke1,a3,h4:BKd8,Kf8,a7,h6";
const SHUFFLE: [&str; 4] = ["c1-d2", "d8-c7", "d2-c1", "c7-d8"];

#[test]
fn ua_3_threefold_repetition_ends_the_game_by_itself() {
    let mut g = ua(EIGHT);
    play_all(&mut g, &SHUFFLE);
    play_all(&mut g, &SHUFFLE[..3]);
    assert_eq!(g.outcome(), None);
    play_all(&mut g, &SHUFFLE[3..]);
    assert_eq!(g.outcome().copied(), auto(RuleId::Ua3));
}

#[test]
fn ua_4_three_kings_v_one_draw_on_the_15th_move() {
    boundary(
        ua("W:WKc1,Ke1,Kg1:BKa7"),
        Driver::new().keep(|p| off_main_road(p, Color::Black)),
        29,
        auto(RuleId::Ua4),
    );
}

#[test]
fn ua_5_fifteen_moves_of_kings_only() {
    boundary(ua(EIGHT), Driver::new(), 30, auto(RuleId::Ua5));
}

#[test]
fn ua_5_applies_to_kings_only_endings_too() {
    // Unlike IDF 8.2.14 as damka reads it: 4 kings v 2 are drawn after 15 moves.
    boundary(
        ua("W:WKa1,Kg1,Kc1,Ke1:BKh4,Kd8"),
        Driver::new(),
        30,
        auto(RuleId::Ua5),
    );
}

#[test]
fn ua_6_four_pieces_draw_after_30_moves_each() {
    boundary(
        ua("W:WKc1,a3:BKf8,h6"),
        Driver::new().men_every(20),
        60,
        auto(RuleId::Ua6),
    );
}

#[test]
fn ua_6_six_pieces_draw_after_60_moves_each() {
    boundary(
        ua("W:WKc1,a3,a1:BKf8,h6,h8"),
        Driver::new().men_every(20),
        120,
        auto(RuleId::Ua6),
    );
}

#[test]
fn ua_7_three_pieces_v_king_on_main_road_draw_on_the_5th_move() {
    boundary(
        ua("W:WKc1,Ke1,Kg1:BKh8"),
        Driver::new(),
        9,
        auto(RuleId::Ua7),
    );
}

#[test]
fn ua_8_king_v_king_draw_on_the_5th_move() {
    boundary(ua("W:WKc1:BKh8"), Driver::new(), 9, auto(RuleId::Ua8));
}

#[test]
fn ua_has_no_idf_8_2_9() {
    let mut g = ua("W:WKc1,g5,h4,h6:BKa1");
    Driver::new().play(&mut g, 12);
    assert_eq!(g.outcome(), None);
}

#[test]
fn ua_9_standard_positions_not_played_without_increment_even_in_classical() {
    let mut s = Settings::classical();
    s.increment = false;
    let g = game(
        RulesetId::RussianUa,
        Variant::Draughts(DraughtsVariant::Russian),
        "W:WKc1,Ke1:BKa7",
        s,
    );
    assert_eq!(
        g.outcome().copied(),
        Some(Outcome::by_rule(RuleId::Ua8, Via::NoIncrement))
    );
}

// ---- Italian -----------------------------------------------------------------------

fn italian(fen: &str) -> shared::law::Game {
    game(
        RulesetId::Italian,
        Variant::Draughts(DraughtsVariant::Italian),
        fen,
        Settings::classical(),
    )
}

#[test]
fn italian_8_2_4_forty_moves_without_change_in_the_balance() {
    boundary(
        italian("W:WKc1,Ke1,a3:BKd8,Kf8,h6"),
        Driver::new().men_every(25),
        80,
        auto(RuleId::Italian8_2_4),
    );
}

#[test]
fn italian_8_2_3_fourfold_repetition_claimed_by_either_player() {
    let mut g = italian(EIGHT);
    for _ in 0..2 {
        play_all(
            &mut g,
            &fen_moves(Variant::Draughts(DraughtsVariant::Italian), &SHUFFLE),
        );
    }
    play_all(
        &mut g,
        &fen_moves(Variant::Draughts(DraughtsVariant::Italian), &SHUFFLE[..3]),
    );
    // Three occurrences so far: not yet.
    assert!(matches!(
        g.claim_draw(Color::White, None),
        Ok(Claim::Refused {
            refusal: ClaimRefusal::NothingToClaim,
            ..
        })
    ));
    play_all(
        &mut g,
        &fen_moves(Variant::Draughts(DraughtsVariant::Italian), &SHUFFLE[3..]),
    );
    assert_eq!(g.outcome(), None, "fourfold waits for a claim");
    // Black made the move, and may still claim: the position counts whoever moves.
    assert_eq!(
        g.claim_draw(Color::Black, None),
        Ok(Claim::Granted(Outcome::by_rule(
            RuleId::Italian8_2_3,
            Via::Claim
        )))
    );
}

/// Move texts in internal algebraic squares, rewritten into a variant's numbering.
fn fen_moves(variant: Variant, moves: &[&str]) -> Vec<String> {
    moves
        .iter()
        .map(|m| {
            let (a, b) = m.split_once('-').expect("quiet move");
            let f = fen_in(variant, &format!("W:W{a},{b}:B"));
            let list = f.trim_start_matches("W:W").trim_end_matches(":B");
            list.replace(',', "-")
        })
        .collect()
}

fn play_all(g: &mut shared::law::Game, moves: &[impl AsRef<str>]) {
    for m in moves {
        let by = g.side_to_move();
        g.play_text(by, m.as_ref())
            .unwrap_or_else(|e| panic!("{}: {e}", m.as_ref()));
    }
}

// ---- International -------------------------------------------------------------------

fn int(fen: &str) -> shared::law::Game {
    game(
        RulesetId::International,
        Variant::Draughts(DraughtsVariant::International),
        fen,
        Settings::classical(),
    )
}

#[test]
fn int_3_5_twenty_five_moves_of_kings_only() {
    boundary(
        int("W:WK47,K49,36,45:BK2,K4,6,15"),
        Driver::new(),
        50,
        auto(RuleId::Int3_5KingsOnly25),
    );
}

#[test]
fn int_3_5_three_kings_v_king_draw_on_the_16th_move() {
    boundary(
        int("W:WK47,K48,K49:BK3"),
        Driver::new(),
        31,
        auto(RuleId::Int3_5Sixteen),
    );
}

#[test]
fn int_3_5_king_and_two_men_v_king_draw_on_the_16th_move() {
    boundary(
        int("W:WK47,36,45:BK3"),
        Driver::new(),
        31,
        auto(RuleId::Int3_5Sixteen),
    );
}

#[test]
fn int_3_5_two_kings_v_king_draw_on_the_5th_move() {
    boundary(
        int("W:WK47,K49:BK3"),
        Driver::new(),
        9,
        auto(RuleId::Int3_5Five),
    );
}

#[test]
fn int_3_5_threefold_repetition_is_claimed() {
    let mut g = int("W:WK47,K49,36,45:BK2,K4,6,15");
    let cycle = ["47-41", "2-7", "41-47", "7-2"];
    play_all(&mut g, &cycle);
    play_all(&mut g, &cycle);
    assert_eq!(g.outcome(), None);
    assert_eq!(
        g.claim_draw(Color::White, None),
        Ok(Claim::Granted(Outcome::by_rule(
            RuleId::IntRepetition,
            Via::Claim
        )))
    );
}

// ---- Frisian -------------------------------------------------------------------------

fn frisian(fen: &str) -> shared::law::Game {
    game(
        RulesetId::Frisian,
        Variant::Draughts(DraughtsVariant::Frisian),
        fen,
        Settings::classical(),
    )
}

#[test]
fn fri_18_two_kings_v_king_draw_after_7_moves() {
    boundary(
        frisian("W:WK46,K50:BK3"),
        Driver::new(),
        14,
        auto(RuleId::Fri18),
    );
}

#[test]
fn fri_21_1_one_king_each_no_capture_is_a_draw_at_once() {
    let g = frisian("W:WK46:BK5");
    assert_eq!(g.outcome().copied(), auto(RuleId::Fri21_1));
}

#[test]
fn fri_21_1_not_while_a_capture_is_possible() {
    // White's king on 46 can take 37 along the long diagonal, landing on 28 or beyond.
    let g = frisian("W:WK46:BK37");
    assert_eq!(g.outcome(), None);
}

#[test]
fn fri_20_taking_the_last_piece_wins_not_21_1() {
    let mut g = frisian("W:WK46,K50:BK28");
    assert_eq!(g.outcome(), None);
    let mv = g
        .position()
        .legal_moves()
        .into_iter()
        .find(|m| g.position().move_info(m).captures.len() == 1)
        .expect("a capture");
    let by = g.side_to_move();
    let played = g.play(by, &mv).expect("legal");
    // Now one king against none: White wins; the lone-kings rule needs a king each.
    assert!(played.outcome.is_some());
}
