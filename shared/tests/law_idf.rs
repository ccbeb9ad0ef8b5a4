//! Boundary tests of the IDF draw law for Russian draughts (IDF section 1 art. 8.2.3 -
//! 8.2.25), the same law under Brazilian, Pool and Czech, and the Portuguese subset.

#[path = "law_support.rs"]
mod support;

use shared::law::{Claim, ClaimRefusal, Outcome, RuleId, RulesetId, Settings, Via};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Variant};
use support::*;

// ---- 5-move rules ------------------------------------------------------------------
// The stronger side moves first in these positions, so its 5th move is ply 9.

#[test]
fn idf_8_2_4_three_kings_v_king_on_main_road_draw_on_the_5th_move() {
    boundary(
        idf("W:WKc1,Ke1,Kg1:BKh8"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_4),
    );
}

#[test]
fn idf_8_2_4_king_and_two_men_v_king_on_main_road_black_stronger() {
    // Mirror: Black king and two men against White's king on the main road.
    boundary(
        idf("B:WKa1:BKf8,a5,a7"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_4),
    );
}

#[test]
fn idf_8_2_4_weaker_side_first_draw_on_the_stronger_sides_5th_move_ply_10() {
    boundary(
        idf("B:WKc1,Ke1,Kg1:BKh8"),
        Driver::new(),
        10,
        auto(RuleId::Idf8_2_4),
    );
}

#[test]
fn idf_8_2_5_two_kings_v_king_draw_on_the_5th_move() {
    boundary(
        idf("W:WKc1,Ke1:BKa7"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_5),
    );
}

#[test]
fn idf_8_2_5_king_and_man_v_king_draw_on_the_5th_move() {
    boundary(
        idf("W:WKe1,a3:BKh8"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_5),
    );
}

#[test]
fn idf_8_2_6_three_kings_v_two_kings_draw_on_the_5th_move() {
    boundary(
        idf("W:WKc1,Ke1,Kg1:BKh8,Kb8"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_6),
    );
}

#[test]
fn idf_8_2_7_four_kings_v_two_kings_one_on_main_road_draw_on_the_5th_move() {
    boundary(
        idf("W:WKc1,Ke1,Kg1,Kh4:BKh8,Kb8"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_7),
    );
}

#[test]
fn idf_8_2_7_four_kings_v_two_kings_on_both_doubles_draw_on_the_5th_move() {
    boundary(
        idf("W:WKc1,Ke1,Kh4,Kh6:BKa7,Kb8"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_7),
    );
}

#[test]
fn idf_8_2_9_king_and_men_g5_h4_h6_v_king_on_main_road_draw_on_the_5th_move() {
    boundary(
        idf("W:WKc1,g5,h4,h6:BKa1"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_9),
    );
}

#[test]
fn idf_8_2_9_black_mirror_a3_b4_a5() {
    boundary(
        idf("B:WKh8:BKf8,a3,b4,a5"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_9),
    );
}

#[test]
fn idf_8_2_9_other_squares_play_on() {
    // Men on g3, h4, h6: not the position of 8.2.9; no 5-move rule.
    let mut g = idf("W:WKc1,g3,h4,h6:BKa1");
    Driver::new().play(&mut g, 12);
    assert_eq!(g.outcome(), None);
}

#[test]
fn idf_8_2_10_two_kings_and_a7_v_king_and_b8_draw_on_the_5th_move() {
    boundary(
        idf("W:WKc1,Kd4,a7:BKh4,b8"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_10),
    );
}

#[test]
fn idf_8_2_10_black_mirror_h2_v_g1() {
    boundary(
        idf("B:WKa5,g1:BKe5,Kf8,h2"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_10),
    );
}

#[test]
fn idf_8_2_11_two_kings_and_g1_v_king_and_h2_draw_on_the_5th_move() {
    boundary(
        idf("W:WKc1,Kd4,g1:BKa5,h2"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_11),
    );
}

#[test]
fn idf_8_2_12_two_kings_and_h6_v_king_and_f8_draw_on_the_5th_move() {
    boundary(
        idf("W:WKc1,Kd4,h6:BKa5,f8"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_12),
    );
}

#[test]
fn idf_8_2_12_without_a_king_on_the_main_road_plays_on() {
    let mut g = idf("W:WKc1,Ke3,h6:BKa5,f8");
    let mut d = Driver::new().keep(|p| off_main_road(p, Color::White));
    d.play(&mut g, 10);
    assert_eq!(g.outcome(), None);
}

#[test]
fn idf_8_2_13_king_h6_and_two_men_right_of_main_road_v_king_on_road_and_f8() {
    boundary(
        idf("W:WKb4,c1,h4,h6:BKa1,f8"),
        Driver::new(),
        9,
        auto(RuleId::Idf8_2_13),
    );
}

// ---- 15-move rules -----------------------------------------------------------------

#[test]
fn idf_8_2_14_fifteen_moves_of_kings_only_draw_on_the_30th_ply() {
    boundary(
        idf("W:WKc1,Ke1,a3,h4:BKd8,Kf8,a7,h6"),
        Driver::new(),
        30,
        auto(RuleId::Idf8_2_14),
    );
}

#[test]
fn idf_8_2_14_a_man_move_restarts_the_count() {
    let mut g = idf("W:WKc1,Ke1,a3,h4:BKd8,Kf8,a7,h6");
    // One man move after 20 quiet plies; the count starts again and ends 30 plies later.
    let mut d = Driver::new().men_every(20).men_limit(1);
    let quiet = |g: &shared::law::Game| {
        g.progress()
            .iter()
            .find(|p| p.rule == RuleId::Idf8_2_14)
            .map(|p| p.done)
    };
    d.play(&mut g, 20);
    assert_eq!(quiet(&g), Some(20));
    while quiet(&g) != Some(0) {
        d.play(&mut g, 1);
    }
    d.play(&mut g, 29);
    assert_eq!(g.outcome(), None);
    d.step(&mut g);
    assert_eq!(g.outcome().copied(), auto(RuleId::Idf8_2_14));
}

#[test]
fn idf_8_2_15_three_kings_v_one_draw_on_the_15th_move() {
    // The lone king keeps off the main road, or 8.2.4 would apply after 5 moves.
    boundary(
        idf("W:WKc1,Ke1,Kg1:BKa7"),
        Driver::new().keep(|p| off_main_road(p, Color::Black)),
        29,
        auto(RuleId::Idf8_2_15),
    );
}

#[test]
fn idf_8_2_15_four_kings_v_one_draw_on_the_15th_move() {
    boundary(
        idf("W:WKc1,Ke1,Kg1,Kh2:BKa7"),
        Driver::new().keep(|p| off_main_road(p, Color::Black)),
        29,
        auto(RuleId::Idf8_2_15),
    );
}

#[test]
fn idf_8_2_16_three_kings_v_king_and_h2_draw_on_the_15th_move() {
    boundary(
        idf("W:WKc1,Ke1,Kg1:BKa5,h2"),
        Driver::new(),
        29,
        auto(RuleId::Idf8_2_16),
    );
}

#[test]
fn idf_8_2_17_two_kings_and_a1_v_king_and_a3_draw_on_the_15th_move() {
    boundary(
        idf("W:WKe1,Kg1,a1:BKh8,a3"),
        Driver::new(),
        29,
        auto(RuleId::Idf8_2_17),
    );
}

// ---- 30-move rules -----------------------------------------------------------------
// Men move now and then, or 8.2.14 (15 moves of kings only) would come first.

fn thirty(fen: &str, rule: RuleId) {
    boundary(idf(fen), Driver::new().men_every(20), 59, auto(rule));
}

#[test]
fn idf_8_2_18_two_kings_and_c1_v_king_a3_a5_draw_on_the_30th_move() {
    thirty("W:WKd4,Kh2,c1:BKe7,a3,a5", RuleId::Idf8_2_18);
}

#[test]
fn idf_8_2_19_two_kings_and_c1_v_king_a3_h6_draw_on_the_30th_move() {
    thirty("W:WKd4,Kh2,c1:BKe7,a3,h6", RuleId::Idf8_2_19);
}

#[test]
fn idf_8_2_20_two_kings_and_c1_v_king_a3_h4_draw_on_the_30th_move() {
    thirty("W:WKd4,Kh2,c1:BKe7,a3,h4", RuleId::Idf8_2_20);
}

#[test]
fn idf_8_2_21_two_kings_and_c1_v_king_a3_f8_draw_on_the_30th_move() {
    thirty("W:WKd4,Kh2,c1:BKe7,a3,f8", RuleId::Idf8_2_21);
}

#[test]
fn idf_8_2_22_two_kings_and_e1_v_king_a3_a5_draw_on_the_30th_move() {
    thirty("W:WKd4,Kh2,e1:BKe7,a3,a5", RuleId::Idf8_2_22);
}

#[test]
fn idf_8_2_23_two_kings_and_g1_v_king_a3_a5_draw_on_the_30th_move() {
    thirty("W:WKd4,Kh2,g1:BKe7,a3,a5", RuleId::Idf8_2_23);
}

#[test]
fn idf_8_2_18_without_man_moves_8_2_14_comes_first() {
    boundary(
        idf("W:WKd4,Kh2,c1:BKe7,a3,a5"),
        Driver::new(),
        30,
        auto(RuleId::Idf8_2_14),
    );
}

#[test]
fn idf_8_2_24_four_kings_holding_road_and_double_v_two_draw_on_the_30th_move() {
    // Black's kings keep off the main road and the doubles, or 8.2.7 would apply.
    let keep = |p: &shared::rules::Position| match p {
        shared::rules::Position::Draughts(d) => {
            let k = d.kings_of(Color::Black);
            let s = &shared::law::situation::main_road;
            k & (s()
                | shared::law::situation::double_g1_a7()
                | shared::law::situation::double_h2_b8())
                == 0
        }
        _ => true,
    };
    boundary(
        idf("W:WKa1,Kg1,Kc1,Ke1:BKh4,Kd8"),
        Driver::new().keep(keep),
        59,
        auto(RuleId::Idf8_2_24),
    );
}

// ---- 8.2.25 ------------------------------------------------------------------------

#[test]
fn idf_8_2_25_four_pieces_kings_both_sides_draw_after_30_moves_each() {
    boundary(
        idf("W:WKc1,a3:BKf8,h6"),
        Driver::new().men_every(20),
        60,
        auto(RuleId::Idf8_2_25),
    );
}

#[test]
fn idf_8_2_25_six_pieces_draw_after_40_moves_each() {
    boundary(
        idf("W:WKc1,a3,a1:BKf8,h6,h8"),
        Driver::new().men_every(20),
        80,
        auto(RuleId::Idf8_2_25),
    );
}

#[test]
fn idf_8_2_25_does_not_apply_with_eight_pieces() {
    let mut g = idf("W:WKc1,a3,a1,e1:BKf8,h6,h8,d8");
    Driver::new().men_every(20).play(&mut g, 90);
    assert_eq!(g.outcome(), None);
}

// ---- 8.2.3 repetition (claim) --------------------------------------------------------

const SHUFFLE: [&str; 4] = ["c1-d2", "d8-c7", "d2-c1", "c7-d8"];
const EIGHT: &str = "W:WKc1,Ke1,a3,h4:BKd8,Kf8,a7,h6";

#[test]
fn idf_8_2_3_threefold_repetition_claimed_by_the_player_to_move() {
    let mut g = idf(EIGHT);
    play_all(&mut g, &SHUFFLE);
    assert_eq!(g.repetitions(), 2);
    assert_eq!(
        g.claim_draw(Color::White, None),
        Ok(Claim::Refused {
            refusal: ClaimRefusal::NothingToClaim,
            played: None,
            offered: false
        })
    );
    play_all(&mut g, &SHUFFLE);
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.outcome(), None, "8.2.3 waits for a claim");
    // Black made the repeating move himself: he has lost the right to claim.
    assert!(matches!(
        g.claim_draw(Color::Black, None),
        Ok(Claim::Refused {
            refusal: ClaimRefusal::NotOnTurn,
            ..
        })
    ));
    let granted = Outcome::by_rule(RuleId::Idf8_2_3, Via::Claim);
    assert_eq!(
        g.claim_draw(Color::White, None),
        Ok(Claim::Granted(granted))
    );
}

#[test]
fn idf_8_2_3_claim_with_the_move_that_would_repeat() {
    let mut g = idf(EIGHT);
    play_all(&mut g, &SHUFFLE);
    play_all(&mut g, &SHUFFLE[..3]);
    let mv = g.position().parse_move("c7-d8").expect("move");
    let granted = Outcome::by_rule(RuleId::Idf8_2_3, Via::Claim);
    assert_eq!(
        g.claim_draw(Color::Black, Some(&mv)),
        Ok(Claim::Granted(granted))
    );
    assert_eq!(g.ply(), 7, "the declared move is not played");
}

#[test]
fn idf_s2_13_a_wrong_claim_with_a_move_lets_the_move_stand() {
    let mut g = idf(EIGHT);
    let mv = g.position().parse_move("c1-d2").expect("move");
    let claim = g.claim_draw(Color::White, Some(&mv)).expect("claim");
    assert!(matches!(
        claim,
        Claim::Refused {
            refusal: ClaimRefusal::NothingToClaim,
            played: Some(_),
            ..
        }
    ));
    assert_eq!(g.moves().collect::<Vec<_>>(), ["c1-d2"]);
}

#[test]
fn idf_8_2_3_repetition_is_not_recorded_in_rapid_games() {
    let mut g = game(
        RulesetId::RussianIdf,
        Variant::Draughts(DraughtsVariant::Russian),
        EIGHT,
        Settings::rapid(true),
    );
    play_all(&mut g, &SHUFFLE);
    play_all(&mut g, &SHUFFLE);
    assert!(matches!(
        g.claim_draw(Color::White, None),
        Ok(Claim::Refused {
            refusal: ClaimRefusal::OnlyInClassical,
            ..
        })
    ));
}

// ---- rapid and blitz (IDF s.2 22.6, 22.7) --------------------------------------------

#[test]
fn idf_s2_22_7_standard_draw_at_once_without_increment_in_blitz() {
    let g = game(
        RulesetId::RussianIdf,
        Variant::Draughts(DraughtsVariant::Russian),
        "W:WKc1,Ke1,Kg1:BKh8",
        Settings::blitz(false),
    );
    assert_eq!(
        g.outcome().copied(),
        Some(Outcome::by_rule(RuleId::Idf8_2_4, Via::NoIncrement))
    );
}

#[test]
fn idf_s2_22_7_not_in_classical_games() {
    let mut s = Settings::classical();
    s.increment = false;
    let g = game(
        RulesetId::RussianIdf,
        Variant::Draughts(DraughtsVariant::Russian),
        "W:WKc1,Ke1,Kg1:BKh8",
        s,
    );
    assert_eq!(g.outcome(), None);
}

#[test]
fn idf_s2_22_7_arising_by_a_capture_ends_the_game_at_once() {
    let mut g = game(
        RulesetId::RussianIdf,
        Variant::Draughts(DraughtsVariant::Russian),
        "W:WKc1,Ke1,Ka3:BKh8,b4",
        Settings::rapid(false),
    );
    assert_eq!(g.outcome(), None);
    play_all(&mut g, &["a3:c5"]);
    assert_eq!(
        g.outcome().copied(),
        Some(Outcome::by_rule(RuleId::Idf8_2_4, Via::NoIncrement))
    );
}

#[test]
fn idf_s2_22_6_standard_draw_claimed_in_rapid_with_increment() {
    let mut g = game(
        RulesetId::RussianIdf,
        Variant::Draughts(DraughtsVariant::Russian),
        "W:WKc1,Ke1:BKa7",
        Settings::rapid(true),
    );
    assert_eq!(g.outcome(), None);
    assert_eq!(
        g.claim_draw(Color::Black, None),
        Ok(Claim::Granted(Outcome::by_rule(
            RuleId::Idf8_2_5,
            Via::RapidClaim
        )))
    );
}

#[test]
fn idf_s2_22_6_no_standard_claim_in_classical() {
    let mut g = idf("W:WKc1,Ke1:BKa7");
    assert!(matches!(
        g.claim_draw(Color::Black, None),
        Ok(Claim::Refused { .. })
    ));
}

// ---- the same article 8 under Brazilian, Pool, Czech; Portuguese subset ---------------

#[test]
fn idf_app1_3_brazilian_pool_czech_apply_8_2_9() {
    for (rs, v) in [
        (
            RulesetId::Brazilian,
            Variant::Draughts(DraughtsVariant::Brazilian),
        ),
        (RulesetId::Pool, Variant::Draughts(DraughtsVariant::Pool)),
        (RulesetId::Czech, Variant::Draughts(DraughtsVariant::Czech)),
    ] {
        let g = game(rs, v, "W:WKc1,g5,h4,h6:BKa1", Settings::classical());
        boundary(g, Driver::new(), 9, auto(RuleId::Idf8_2_9));
    }
}

#[test]
fn idf_app4_8_portuguese_applies_8_2_13_on_the_mirrored_board() {
    let g = game(
        RulesetId::Portuguese,
        Variant::Draughts(DraughtsVariant::Portuguese),
        "W:WKb4,c1,h4,h6:BKa1,f8",
        Settings::classical(),
    );
    boundary(g, Driver::new(), 9, auto(RuleId::Idf8_2_13));
}

#[test]
fn idf_app4_8_portuguese_has_no_8_2_9() {
    let mut g = game(
        RulesetId::Portuguese,
        Variant::Draughts(DraughtsVariant::Portuguese),
        "W:WKc1,g5,h4,h6:BKa1",
        Settings::classical(),
    );
    Driver::new().play(&mut g, 12);
    assert_eq!(g.outcome(), None);
}

#[test]
fn idf_app4_8_portuguese_has_no_8_2_15_but_8_2_25() {
    // Three kings v one off the main road: no 15-move rule in the Portuguese subset, so
    // 8.2.25 (kings on both sides, 4 pieces, 30 moves each) decides.
    let g = game(
        RulesetId::Portuguese,
        Variant::Draughts(DraughtsVariant::Portuguese),
        "W:WKc1,Ke1,Kg1:BKa7",
        Settings::classical(),
    );
    boundary(
        g,
        Driver::new().keep(|p| off_main_road(p, Color::Black)),
        60,
        auto(RuleId::Idf8_2_25),
    );
}
