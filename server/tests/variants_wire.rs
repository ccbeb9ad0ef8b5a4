//! Every draughts variant over the wire: Brazilian, Pool, Czech and Portuguese games
//! played to a result by the rules, and the N-move draw rules of International (INT 3.5:
//! 25, 16 and 5 moves) and of IDF 8.2 (5-move standard draws, 15-move and 30-move
//! families) reached through the server from positions, each on the exact ply the rule
//! names: the game is still on one ply earlier.

mod common;
mod wire;

use common::Client;
use serde_json::json;
use shared::rules::Variant;
use wire::{challenge, id_of, local_law, play_out};

#[tokio::test]
async fn brazilian_pool_czech_and_portuguese_games_end_by_the_rules() {
    let srv = wire::server_with(|_| {}).await;
    let mut w = Client::guest(srv.addr, "Wanda").await;
    let mut b = Client::guest(srv.addr, "Bruno").await;
    for variant in ["brazilian", "pool", "czech", "portuguese"] {
        let tc = "10+5";
        let start = challenge(&mut w, &mut b, variant, json!(tc), None).await;
        let id = id_of(&start);
        let v: Variant = variant.parse().unwrap();
        let mut game = local_law(v, tc, start["game"]["initial_fen"].as_str().unwrap());
        let (over, plies) = play_out(&mut w, &mut b, &id, &mut game, wire::rotating).await;
        eprintln!(
            "{variant}: {} after {plies} plies",
            over["event"]["outcome"]
        );
        let reason = over["event"]["outcome"]["reason"].as_str().unwrap();
        assert!(
            [
                "no_pieces",
                "no_moves",
                "move_rule",
                "rule_draw",
                "repetition"
            ]
            .contains(&reason),
            "{variant}: {over}"
        );
    }
}

/// Plays `fen` out under `tc` with the endgame policy; the `game_over` event and the
/// plies played.
async fn endgame(
    w: &mut Client,
    b: &mut Client,
    variant: &str,
    tc: &str,
    fen: &str,
) -> (serde_json::Value, u64) {
    let start = challenge(w, b, variant, json!(tc), Some(fen)).await;
    let id = id_of(&start);
    let v: Variant = variant.parse().unwrap();
    let mut game = local_law(v, tc, fen);
    play_out(w, b, &id, &mut game, wire::shuffle).await
}

#[tokio::test]
async fn international_25_16_and_5_move_rules_through_the_server() {
    let srv = wire::server_with(|_| {}).await;
    let mut w = Client::guest(srv.addr, "Wanda").await;
    let mut b = Client::guest(srv.addr, "Bruno").await;
    // (position, rule, ply on which it must end: White, the stronger side, moves first)
    for (fen, article, ply) in [
        // Two kings against one: drawn with the stronger side's 5th move.
        (
            "W:WK48,K49:BK3",
            "INT 3.5 (up to 2 pieces v king, 5th move)",
            9,
        ),
        // Three kings against one: drawn with its 16th move.
        (
            "W:WK46,K48,K49:BK3",
            "INT 3.5 (3 pieces v king, 16th move)",
            31,
        ),
        // Two kings each: 25 moves of kings only.
        ("W:WK46,K47:BK2,K4", "INT 3.5 (25 moves of kings only)", 50),
    ] {
        let (over, plies) = endgame(&mut w, &mut b, "international", "90+30", fen).await;
        assert_eq!(over["event"]["outcome"]["detail"], article, "{fen}: {over}");
        assert!(over["event"]["outcome"]["winner"].is_null());
        assert_eq!(plies, ply, "{fen}: the rule's exact move");
    }
}

#[tokio::test]
async fn idf_8_2_rule_families_through_the_server() {
    let srv = wire::server_with(|_| {}).await;
    let mut w = Client::guest(srv.addr, "Wanda").await;
    let mut b = Client::guest(srv.addr, "Bruno").await;
    for (fen, article, ply) in [
        // 8.2.5: two kings against one, the stronger side's 5 own moves.
        (
            "W:WKc1,Ke1:BKh6",
            "IDF 8.2.5 (standard draw: up to 2 pieces v king, 5 moves)",
            9,
        ),
        // 8.2.15: four kings against one, 15 own moves.
        (
            "W:WKa1,Kc1,Ke1,Kg1:BKh6",
            "IDF 8.2.15 (3 or more kings v king, 15 moves)",
            29,
        ),
        // 8.2.25: kings on both sides, 4 pieces, 30 moves without a capture.
        (
            "W:WKc1,Ke1:BKa7,Kh8",
            "IDF 8.2.25 (30/40 moves without change in the balance of forces)",
            60,
        ),
    ] {
        let (over, plies) = endgame(&mut w, &mut b, "russian", "45+30", fen).await;
        assert_eq!(over["event"]["outcome"]["detail"], article, "{fen}: {over}");
        assert_eq!(plies, ply, "{fen}: the rule's exact move");
    }
}
