//! Chess law (FIDE 5, 6.9, 9): mate, stalemate, dead position, threefold and 50-move
//! claims, fivefold and 75-move automatic draws, flags against a lone king, draw offers.

use shared::law::{
    Claim, ClaimRefusal, Game, Outcome, Reason, RuleId, RulesetId, Settings, Verdict, Via,
};
use shared::rules::{Color, Position, Variant};

fn chess(fen: &str) -> Game {
    let pos = Position::from_fen(Variant::Chess, fen).expect("fen");
    Game::new(RulesetId::Fide, pos, Settings::classical()).expect("game")
}

fn play(g: &mut Game, moves: &[&str]) {
    for m in moves {
        let by = g.side_to_move();
        g.play_text(by, m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

const KNIGHTS: [&str; 4] = ["Nf3", "Nf6", "Ng1", "Ng8"];

#[test]
fn fide_5_1_checkmate_wins() {
    let mut g = Game::standard(Variant::Chess, Settings::classical());
    play(&mut g, &["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(
        g.outcome().copied(),
        Some(Outcome::win(Color::Black, Reason::Checkmate))
    );
}

#[test]
fn fide_5_2_1_stalemate_by_queen_move() {
    let mut g = chess("7k/8/6K1/8/8/8/8/5Q2 w - - 0 1");
    play(&mut g, &["Qf7"]);
    assert_eq!(g.outcome().copied(), Some(Outcome::draw(Reason::Stalemate)));
}

#[test]
fn fide_5_2_2_dead_position_draws_at_once() {
    let mut g = chess("8/8/8/4k3/8/8/3q4/4K3 w - - 0 1");
    play(&mut g, &["Kxd2"]);
    assert_eq!(
        g.outcome().copied(),
        Some(Outcome::by_rule(RuleId::FideDeadPosition, Via::Automatic))
    );
}

#[test]
fn fide_9_2_threefold_is_claimed_by_the_player_to_move() {
    let mut g = Game::standard(Variant::Chess, Settings::classical());
    play(&mut g, &KNIGHTS);
    // A refused claim stands as a draw offer (FIDE 9.1.2.3).
    assert_eq!(
        g.claim_draw(Color::White, None),
        Ok(Claim::Refused {
            refusal: ClaimRefusal::NothingToClaim,
            played: None,
            offered: true
        })
    );
    assert_eq!(g.pending_offer(), Some(Color::White));
    play(&mut g, &KNIGHTS);
    assert_eq!(g.pending_offer(), None, "Black's move declined it");
    assert_eq!(g.outcome(), None);
    assert_eq!(
        g.claim_draw(Color::White, None),
        Ok(Claim::Granted(Outcome::by_rule(
            RuleId::Fide9_2,
            Via::Claim
        )))
    );
}

#[test]
fn fide_9_2_claim_with_the_intended_move() {
    let mut g = Game::standard(Variant::Chess, Settings::classical());
    play(&mut g, &KNIGHTS);
    play(&mut g, &KNIGHTS[..3]);
    let mv = g.position().parse_move("Ng8").expect("move");
    assert_eq!(
        g.claim_draw(Color::Black, Some(&mv)),
        Ok(Claim::Granted(Outcome::by_rule(
            RuleId::Fide9_2,
            Via::Claim
        )))
    );
}

#[test]
fn fide_9_6_1_fivefold_ends_the_game_on_the_16th_ply() {
    let mut g = Game::standard(Variant::Chess, Settings::classical());
    for _ in 0..3 {
        play(&mut g, &KNIGHTS);
    }
    play(&mut g, &KNIGHTS[..3]);
    assert_eq!(g.outcome(), None);
    play(&mut g, &KNIGHTS[3..]);
    assert_eq!(
        g.outcome().copied(),
        Some(Outcome::by_rule(RuleId::Fide9_6_1, Via::Automatic))
    );
}

#[test]
fn fide_9_3_fifty_moves_claim_at_the_100th_ply() {
    let mut g = chess("8/8/8/8/8/4k3/8/R3K3 w - - 98 80");
    play(&mut g, &["Ra2"]);
    assert!(matches!(
        g.claim_draw(Color::Black, None),
        Ok(Claim::Refused { .. })
    ));
    let mv = g.position().parse_move("Kd3").expect("move");
    // Black may claim with the move that makes the 100th ply.
    assert_eq!(
        g.claim_draw(Color::Black, Some(&mv)),
        Ok(Claim::Granted(Outcome::by_rule(
            RuleId::Fide9_3,
            Via::Claim
        )))
    );
}

#[test]
fn fide_9_6_2_seventy_five_moves_end_the_game_at_the_150th_ply() {
    let mut g = chess("8/8/8/8/8/4k3/8/R3K3 w - - 148 80");
    play(&mut g, &["Ra2"]);
    assert_eq!(g.outcome(), None);
    play(&mut g, &["Kd3"]);
    assert_eq!(
        g.outcome().copied(),
        Some(Outcome::by_rule(RuleId::Fide9_6_2, Via::Automatic))
    );
}

#[test]
fn fide_6_9_flag_against_a_lone_king_is_a_draw() {
    let mut g = chess("8/8/8/8/8/4k3/8/R3K3 b - - 0 1");
    assert_eq!(
        g.flag(Color::White),
        Ok(Outcome::draw(Reason::TimeForfeitCannotWin))
    );
}

#[test]
fn fide_6_9_flag_against_mating_material_loses() {
    let mut g = chess("8/8/8/8/8/4k3/8/R3K3 b - - 0 1");
    assert_eq!(
        g.flag(Color::Black),
        Ok(Outcome::win(Color::White, Reason::TimeForfeit))
    );
}

#[test]
fn fide_9_1_2_offer_stands_until_the_opponent_moves() {
    let mut g = Game::standard(Variant::Chess, Settings::classical());
    // An offer may be made at any time in chess, even before a move.
    g.offer_draw(Color::White).expect("offer");
    play(&mut g, &["e4"]);
    assert_eq!(
        g.pending_offer(),
        Some(Color::White),
        "one's own move keeps it"
    );
    play(&mut g, &["e5"]);
    assert_eq!(g.pending_offer(), None);
    // No bar after a decline in chess.
    g.offer_draw(Color::White).expect("offer again");
    assert_eq!(
        g.accept_draw(Color::Black),
        Ok(Outcome::draw(Reason::Agreement))
    );
    assert_eq!(g.outcome().map(|o| o.result), Some(Verdict::Draw));
}

#[test]
fn fide_9_1_2_an_offer_made_before_ones_move_stands_through_it() {
    // An offer made on one's own turn is still valid (FIDE 9.1.2.1); moving with the
    // offer flag set again plays the move and leaves the offer standing.
    let mut g = Game::standard(Variant::Chess, Settings::classical());
    g.offer_draw(Color::White)
        .expect("an offer at any time is valid in chess");
    let e4 = g.position().parse_move("e4").unwrap();
    g.play_and_offer(Color::White, &e4)
        .expect("the move is played");
    assert_eq!(g.pending_offer(), Some(Color::White));
    assert_eq!(g.ply(), 1);
    assert_eq!(
        g.accept_draw(Color::Black),
        Ok(Outcome::draw(Reason::Agreement))
    );
}

#[test]
fn a_takeback_keeps_the_offers_made_before_the_moves_taken_back() {
    let mut g = Game::standard(Variant::Chess, Settings::classical());
    let e4 = g.position().parse_move("e4").unwrap();
    g.play_and_offer(Color::White, &e4).unwrap();
    play(&mut g, &["e5", "Nf3"]);
    let back = g.without_last_moves(1).unwrap();
    assert_eq!(back.moves().collect::<Vec<_>>(), ["e4", "e5"]);
    assert_eq!(back.actions().len(), 2);
    assert!(matches!(
        &back.actions()[0],
        shared::law::Action::Move { offer: true, .. }
    ));
    assert_eq!(back.side_to_move(), Color::White);
    assert!(g.without_last_moves(9).unwrap().moves().next().is_none());
}

#[test]
fn a_move_played_by_a_refused_claim_is_taken_back_like_any_move() {
    let mut g = Game::standard(Variant::Chess, Settings::classical());
    play(&mut g, &["Nf3", "Nf6"]);
    let mv = g.position().parse_move("Ng1").expect("legal");
    let claim = g.claim_draw(Color::White, Some(&mv)).expect("a claim");
    assert!(matches!(
        claim,
        Claim::Refused {
            played: Some(_),
            ..
        }
    ));
    play(&mut g, &["Ng8"]);
    assert_eq!(g.moves().collect::<Vec<_>>(), ["Nf3", "Nf6", "Ng1", "Ng8"]);
    let back = g.without_last_moves(2).expect("replays");
    assert_eq!(back.moves().collect::<Vec<_>>(), ["Nf3", "Nf6"]);
    let back = g.without_last_moves(1).expect("replays");
    assert_eq!(back.moves().collect::<Vec<_>>(), ["Nf3", "Nf6", "Ng1"]);
}
