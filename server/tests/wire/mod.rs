//! Helpers for the law-over-the-wire tests: start a game by challenge (from a position
//! if asked), play moves and check each event against the client's own copy of the
//! law, and play a game to its end by a deterministic policy.
#![allow(dead_code)]

use serde_json::{Value, json};
use shared::law::{self, RulesetId};
use shared::protocol::TimeControl;
use shared::rules::{Color, Position, Variant};

use crate::common::{self, Client, TestServer};
use damka::game::clock::speed_of;
use damka::game::record::settings_for;

/// A server with the test configuration, generous rate limits, and `tweak` applied.
pub async fn server_with(tweak: impl FnOnce(&mut damka::Config)) -> TestServer {
    let mut config = common::config();
    config.ws.rate_per_sec = 2000.0;
    config.ws.rate_burst = 4000.0;
    tweak(&mut config);
    common::start(config).await
}

/// A challenge from `a` (White) to `b`, accepted: `a`'s `game_start`.
pub async fn challenge(
    a: &mut Client,
    b: &mut Client,
    variant: &str,
    tc: impl Into<Value>,
    fen: Option<&str>,
) -> Value {
    let tc: Value = tc.into();
    let mut msg = json!({"type": "challenge", "user": b.user, "variant": variant,
        "time_control": tc, "color": "white"});
    if let Some(fen) = fen {
        msg["fen"] = json!(fen);
    }
    a.send(msg).await;
    let sent = a.recv_type("challenge_sent").await;
    b.recv_type("challenge_received").await;
    b.send(json!({"type": "accept_challenge", "challenge_id": sent["challenge"]["challenge_id"]}))
        .await;
    b.recv_type("game_start").await;
    a.recv_type("game_start").await
}

/// The game id of a `game_start`.
pub fn id_of(start: &Value) -> String {
    start["game"]["game_id"]
        .as_str()
        .expect("game id")
        .to_string()
}

/// The server's law for a game: the same rule set and settings the actor uses.
pub fn local_law(variant: Variant, tc: &str, initial_fen: &str) -> law::Game {
    let tc: TimeControl = tc.parse().expect("time control");
    let settings = settings_for(speed_of(variant, tc), tc.has_increment());
    let start = Position::from_fen(variant, initial_fen).expect("initial FEN");
    law::Game::new(RulesetId::default_for(variant), start, settings).expect("law game")
}

/// Plays one move: the mover sends it and gets its ack (for this `move_id`); both see the
/// move event, whose FEN must match `expected_fen`. The event as the opponent saw it
/// (with the legal moves it now has), and a `game_over` the mover received.
pub async fn play(
    mover: &mut Client,
    other: &mut Client,
    game_id: &str,
    text: &str,
    move_id: u64,
    expected_fen: &str,
) -> (Value, Option<Value>) {
    mover
        .send(json!({"type": "move", "game_id": game_id, "move": text, "move_id": move_id}))
        .await;
    // The ack and the mover's own copy of the event may come in either order.
    let (mut ack, mut own, mut over) = (None, None, None);
    while ack.is_none() || own.is_none() {
        let m = mover.recv().await;
        match m["type"].as_str() {
            Some("move_ack") => ack = Some(m),
            Some("game_event") if m["event"]["kind"] == "move" => own = Some(m),
            Some("game_event") if m["event"]["kind"] == "game_over" => over = Some(m),
            Some("error") => panic!("{text}: {m}"),
            _ => {}
        }
    }
    assert_eq!(ack.expect("an ack")["move_id"], move_id, "{text}");
    let seen = other.recv_event("move").await;
    // The opponent, now to move, gets the event with its legal moves; the mover gets
    // everyone's copy, without them.
    let own = own.expect("the mover's event");
    assert!(own["event"].get("legal_moves").is_none(), "{own}");
    assert!(own["event"].get("draw_offer_refusal").is_none(), "{own}");
    let mut shared = seen.clone();
    if let Some(event) = shared["event"].as_object_mut() {
        event.remove("legal_moves");
        event.remove("draw_offer_refusal");
    }
    assert_eq!(shared, own);
    assert_eq!(seen["event"]["fen"], expected_fen, "{text}");
    (seen, over)
}

/// Plays `line` from `pos`, each move by the side to move; move ids from `first_id`.
/// The last move event and a `game_over` a mover received.
pub async fn play_line(
    white: &mut Client,
    black: &mut Client,
    game_id: &str,
    pos: &mut Position,
    line: &[&str],
    first_id: u64,
) -> (Value, Option<Value>) {
    let (mut last, mut over) = (Value::Null, None);
    for (i, text) in line.iter().enumerate() {
        let by = pos.side_to_move();
        let mv = pos
            .parse_move(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        pos.play(&mv).expect("legal");
        let fen = pos.fen();
        let (mover, other) = if by == Color::White {
            (&mut *white, &mut *black)
        } else {
            (&mut *black, &mut *white)
        };
        let (event, ended) = play(mover, other, game_id, text, first_id + i as u64, &fen).await;
        last = event;
        over = ended.or(over);
    }
    (last, over)
}

/// Both players move by `policy` (from their own copy of the law) until the server's
/// law ends the game; the local law must end it on the same move with the same
/// result. Returns the `game_over` event and the number of plies played.
pub async fn play_out(
    white: &mut Client,
    black: &mut Client,
    game_id: &str,
    game: &mut law::Game,
    policy: impl Fn(&Position, u64) -> shared::rules::Move,
) -> (Value, u64) {
    let mut mover_saw_the_end = None;
    let mut ply = 0u64;
    while game.outcome().is_none() {
        assert!(ply < 3000, "no end within 3000 plies");
        let pos = game.position().clone();
        let mv = policy(&pos, ply);
        let text = pos.move_text(&mv);
        let by = pos.side_to_move();
        game.play(by, &mv).expect("legal locally");
        let fen = game.position().fen();
        let (mover, other) = if by == Color::White {
            (&mut *white, &mut *black)
        } else {
            (&mut *black, &mut *white)
        };
        let (_, over) = play(mover, other, game_id, &text, ply + 1, &fen).await;
        ply += 1;
        if let Some(over) = over {
            assert!(
                game.outcome().is_some(),
                "the server ended the game first: {over}"
            );
            mover_saw_the_end = Some((by, over));
        }
    }
    let (over_w, over_b) = match mover_saw_the_end {
        Some((Color::White, over)) => (over, black.recv_event("game_over").await),
        Some((Color::Black, over)) => (white.recv_event("game_over").await, over),
        None => (
            white.recv_event("game_over").await,
            black.recv_event("game_over").await,
        ),
    };
    assert_eq!(over_w, over_b);
    let outcome = game.outcome().expect("over");
    match outcome.result {
        law::Verdict::Win(c) => {
            assert_eq!(over_w["event"]["outcome"]["winner"], json!(c.to_string()))
        }
        _ => assert!(over_w["event"]["outcome"]["winner"].is_null(), "{over_w}"),
    }
    (over_w, ply)
}

/// A deterministic policy: the legal moves sorted by text, one picked by a rotating
/// index.
pub fn rotating(pos: &Position, ply: u64) -> shared::rules::Move {
    let mut moves = pos.legal_moves();
    moves.sort_by_key(|m| pos.move_text(m));
    moves[(ply as usize * 7 + 3) % moves.len()].clone()
}

/// A policy for endgames: never a capture the opponent can answer by taking back, and
/// never a move that lets the opponent capture, when another move exists; ties by a
/// rotating index.
pub fn shuffle(pos: &Position, ply: u64) -> shared::rules::Move {
    let mut moves = pos.legal_moves();
    moves.sort_by_key(|m| pos.move_text(m));
    let safe: Vec<_> = moves
        .iter()
        .filter(|m| {
            let mut next = pos.clone();
            next.play(m).expect("legal");
            match &next {
                Position::Draughts(d) => !d.has_capture(),
                Position::Chess(_) => true,
            }
        })
        .cloned()
        .collect();
    let pool = if safe.is_empty() { &moves } else { &safe };
    pool[(ply as usize * 5 + 1) % pool.len()].clone()
}
