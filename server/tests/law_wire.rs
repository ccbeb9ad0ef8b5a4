//! The game law through the server, over real WebSockets: time controls of every kind
//! on the wire (structured, shorthand, limits and articles in refusals, carried period
//! time, the match clock of a micro-match), draw claims with and without a declared
//! move, the chess claims and automatic endings, the rapid/blitz standard-draw rules
//! (IDF s.2 22.6-22.7), `claim_abandoned`, the closest the server's timer comes to both
//! flags (one flag, always), structured controls in tournament and arena settings, and
//! what `docs/protocol.md` promises.

mod common;
mod wire;

use std::time::Duration;

use common::Client;
use serde_json::{Value, json};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Position, Variant};
use wire::{challenge, id_of, play_line};

/// An `error` answered to `c`, skipping anything else.
async fn error(c: &mut Client) -> Value {
    c.recv_type("error").await
}

#[tokio::test]
async fn time_controls_of_every_kind_on_the_wire() {
    let srv = wire::server_with(|c| {
        c.lobby
            .pools
            .push(r#"chess {"periods":[{"time_ms":300000,"delay_ms":2000}]}"#.into());
    })
    .await;
    let mut a = Client::guest(srv.addr, "Anna").await;
    let mut b = Client::guest(srv.addr, "Boris").await;

    // The shorthand comes back exactly as written: no rounding.
    a.send(json!({"type": "seek", "variant": "russian", "time_control": "0.02+0"}))
        .await;
    let seek = a.recv_type("seek_created").await;
    assert_eq!(seek["seek"]["time_control"], "0.02+0");
    // What cannot be held exactly, or breaks a limit, is refused with the reason.
    for (bad, why) in [
        (json!("0.00001+0"), "does not round"),
        (json!("601+0"), "10 hours"),
        (json!("0.01+0"), "1 second"),
        (
            json!({"periods": [{"time_ms": 60000}, {"time_ms": 60000}]}),
            "INT 3.6.1",
        ),
        (
            json!({"periods": [{"time_ms": 60000, "moves": 0}]}),
            "INT 3.6.1",
        ),
        (
            json!({"periods": [{"time_ms": 60000, "increment_ms": 1000, "delay_ms": 1000}]}),
            "FIDE 6.2",
        ),
    ] {
        a.send(json!({"type": "seek", "variant": "chess", "time_control": bad}))
            .await;
        let err = error(&mut a).await;
        assert_eq!(err["code"], "invalid_message", "{bad}: {err}");
        assert!(
            err["message"].as_str().unwrap().contains(why),
            "{bad}: {err}"
        );
    }
    a.send(json!({"type": "seek", "variant": "chess",
        "time_control": {"periods": [{"time_ms": 60000}, {"time_ms": 60000}]}}))
        .await;
    assert_eq!(
        error(&mut a).await["message"],
        "invalid message: bad time control: period 0 lasts to the end of the game but \
         another follows (INT 3.6.1: only the last period may be open)",
        "word for word as docs/protocol.md shows it"
    );
    // Delay is a chess clock: draughts seeks refuse it, naming the article.
    let delay = json!({"periods": [{"time_ms": 300000, "delay_ms": 2000}]});
    a.send(json!({"type": "seek", "variant": "russian", "time_control": delay}))
        .await;
    let err = error(&mut a).await;
    assert_eq!(err["code"], "invalid_message");
    assert!(
        err["message"].as_str().unwrap().contains("FIDE 6.2"),
        "{err}"
    );

    // INT 3.6.1: two periods with quotas; the last repeats. game_start shows the
    // structured control and the speed it gives.
    let periods =
        json!({"periods": [{"time_ms": 60000, "moves": 2}, {"time_ms": 30000, "moves": 2}]});
    let start = challenge(&mut a, &mut b, "international", periods.clone(), None).await;
    assert_eq!(start["game"]["time_control"], periods);
    // Fits no category of INT 3.6.2-3.6.3 (those take one period): the estimate
    // of its first period decides.
    assert_eq!(start["game"]["speed"], "bullet");
    let id = id_of(&start);
    let mut pos = Position::start(Variant::Draughts(DraughtsVariant::International));
    let (ev, _) = play_line(&mut a, &mut b, &id, &mut pos, &["32-28", "19-23"], 1).await;
    let after_first = ev["event"]["clock"]["white_ms"].as_u64().unwrap();
    assert_eq!(after_first, 60_000, "the first move costs nothing");
    let (ev, _) = play_line(&mut a, &mut b, &id, &mut pos, &["28:19"], 3).await;
    let white = ev["event"]["clock"]["white_ms"].as_u64().unwrap();
    assert!(
        (60_000..=90_000).contains(&white) && white > 85_000,
        "White's 2nd move completes the quota: the next period's 30 s are added to what is left: {white}"
    );

    a.send(json!({"type": "resign", "game_id": id})).await;
    b.recv_event("game_over").await;
    // A delay control through a pool, and a delay game's clock: a quick move costs no
    // main time (FIDE 6.2).
    let pool_tc = json!({"periods": [{"time_ms": 300000, "delay_ms": 2000}]});
    a.send(json!({"type": "pool_join", "variant": "chess", "time_control": pool_tc}))
        .await;
    let joined = a.recv_type("pool_joined").await;
    assert_eq!(joined["time_control"], pool_tc);
    b.send(json!({"type": "pool_join", "variant": "chess", "time_control": pool_tc}))
        .await;
    let start = a.recv_type("game_start").await;
    b.recv_type("game_start").await;
    assert_eq!(start["game"]["time_control"], pool_tc);
    let id = id_of(&start);
    let white_is_a = start["game"]["white"]["id"] == a.user.as_str();
    let (mut w, mut bl) = if white_is_a { (a, b) } else { (b, a) };
    let mut pos = Position::start(Variant::Chess);
    play_line(&mut w, &mut bl, &id, &mut pos, &["e4"], 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (ev, _) = play_line(&mut w, &mut bl, &id, &mut pos, &["e5"], 2).await;
    assert_eq!(
        ev["event"]["clock"]["black_ms"], 300_000,
        "300 ms of thought inside a 2 s delay cost no main time"
    );
}

#[tokio::test]
async fn a_match_clock_carries_the_time_into_the_rematch_until_the_first_win() {
    let srv = wire::server_with(|_| {}).await;
    let mut a = Client::guest(srv.addr, "Anna").await;
    let mut b = Client::guest(srv.addr, "Boris").await;
    let tc = json!({"periods": [{"time_ms": 300000, "increment_ms": 3000}], "match_clock": true});
    let start = challenge(&mut a, &mut b, "chess", tc.clone(), None).await;
    assert_eq!(start["game"]["time_control"], tc);
    let id = id_of(&start);
    let mut pos = Position::start(Variant::Chess);
    play_line(&mut a, &mut b, &id, &mut pos, &["e4"], 1).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    play_line(&mut a, &mut b, &id, &mut pos, &["e5"], 2).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    play_line(&mut a, &mut b, &id, &mut pos, &["Nf3"], 3).await;
    // A draw by agreement: the micro-match goes on with the times as they are.
    b.send(json!({"type": "draw_offer", "game_id": id})).await;
    a.recv_event("draw_offered").await;
    a.send(json!({"type": "draw_accept", "game_id": id})).await;
    let over = b.recv_event("game_over").await;
    let clock = &over["event"]["clock"];
    let (white_left, black_left) = (
        clock["white_ms"].as_u64().unwrap(),
        clock["black_ms"].as_u64().unwrap(),
    );
    assert!(
        black_left != 300_000 && white_left != 300_000 && black_left != white_left,
        "{over}"
    );
    a.send(json!({"type": "rematch", "game_id": id})).await;
    b.recv_event("rematch_offered").await;
    b.send(json!({"type": "rematch", "game_id": id})).await;
    let second = a.recv_type("game_start").await;
    b.recv_type("game_start").await;
    // Colours swap; each player keeps his own time.
    assert_eq!(second["game"]["white"]["id"], b.user.as_str());
    assert_eq!(second["game"]["clock"]["white_ms"], black_left, "{second}");
    assert_eq!(second["game"]["clock"]["black_ms"], white_left, "{second}");
    // A win ends the match: the next rematch starts a new one with full time.
    let id2 = id_of(&second);
    b.send(json!({"type": "resign", "game_id": id2})).await;
    a.recv_event("game_over").await;
    a.send(json!({"type": "rematch", "game_id": id2})).await;
    b.recv_event("rematch_offered").await;
    b.send(json!({"type": "rematch", "game_id": id2})).await;
    let third = a.recv_type("game_start").await;
    assert_eq!(third["game"]["clock"]["white_ms"], 300_000);
    assert_eq!(third["game"]["clock"]["black_ms"], 300_000);
}

#[tokio::test]
async fn chess_claims_with_and_without_a_declared_move_and_the_automatic_endings() {
    let srv = wire::server_with(|_| {}).await;
    let mut w = Client::guest(srv.addr, "Wanda").await;
    let mut b = Client::guest(srv.addr, "Bruno").await;
    let start = challenge(&mut w, &mut b, "chess", json!("5+3"), None).await;
    assert_eq!(start["game"]["speed"], "blitz");
    let id = id_of(&start);
    let mut pos = Position::start(Variant::Chess);
    play_line(&mut w, &mut b, &id, &mut pos, &["Nf3", "Nf6"], 1).await;
    // A wrong claim with a declared move: refused, naming the article; the move is
    // written into the record and played; the claim stands as an offer (FIDE 9.1.2.3).
    w.send(json!({"type": "draw_claim", "game_id": id, "move": "Ng1"}))
        .await;
    let err = error(&mut w).await;
    assert_eq!(err["code"], "claim_refused");
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains("FIDE 9.2") && message.contains("Ng1"),
        "{err}"
    );
    let moved = b.recv_event("move").await;
    assert_eq!(moved["event"]["played"]["move"], "Ng1");
    b.recv_event("draw_offered").await;
    b.send(json!({"type": "draw_decline", "game_id": id})).await;
    w.recv_event("draw_declined").await;
    pos.play(&pos.parse_move("Ng1").unwrap()).unwrap();
    // The move stands in the record; a takeback of it works like any other.
    let back = common::taken_back(&mut w, &mut b, &id).await;
    assert_eq!(back["event"]["plies"], 1);
    let mut pos = Position::start(Variant::Chess);
    pos.play(&pos.parse_move("Nf3").unwrap()).unwrap();
    pos.play(&pos.parse_move("Nf6").unwrap()).unwrap();
    play_line(
        &mut w,
        &mut b,
        &id,
        &mut pos,
        &["Ng1", "Ng8", "Nf3", "Nf6", "Ng1"],
        10,
    )
    .await;
    // Black declares Ng8, which makes the start position for the third time: granted.
    b.send(json!({"type": "draw_claim", "game_id": id, "move": "Ng8"}))
        .await;
    let over = w.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["reason"], "repetition");
    assert!(over["event"]["outcome"]["winner"].is_null());
    assert!(
        over["event"]["outcome"]["detail"]
            .as_str()
            .unwrap()
            .contains("FIDE 9.2")
    );
    let state = {
        w.send(json!({"type": "resume", "game_id": id, "last_version": 0}))
            .await;
        w.recv_type("game_state").await
    };
    assert_eq!(
        state["game"]["moves"].as_array().unwrap().len(),
        7,
        "a granted claim's move is not played"
    );

    // FIDE 9.3: fifty moves, claimed with the 100th half-move declared; a claim one
    // half-move early is refused.
    let fen = "8/8/8/4k3/8/8/4K3/R7 w - - 99 80";
    let start = challenge(&mut w, &mut b, "chess", json!("5+3"), Some(fen)).await;
    let id = id_of(&start);
    w.send(json!({"type": "draw_claim", "game_id": id})).await;
    let err = error(&mut w).await;
    assert_eq!(err["code"], "claim_refused", "{err}");
    b.recv_event("draw_offered").await;
    b.send(json!({"type": "draw_decline", "game_id": id})).await;
    w.recv_event("draw_declined").await;
    w.send(json!({"type": "draw_claim", "game_id": id, "move": "Ra2"}))
        .await;
    let over = b.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["reason"], "move_rule", "{over}");
    assert!(
        over["event"]["outcome"]["detail"]
            .as_str()
            .unwrap()
            .contains("FIDE 9.3")
    );

    // FIDE 9.6.2: the 75-move rule ends the game by itself, with no claim.
    let fen = "8/8/8/4k3/8/8/4K3/R7 w - - 149 80";
    let start = challenge(&mut w, &mut b, "chess", json!("5+3"), Some(fen)).await;
    let id = id_of(&start);
    let mut pos = Position::from_fen(Variant::Chess, fen).unwrap();
    let (_, over) = play_line(&mut w, &mut b, &id, &mut pos, &["Ra2"], 1).await;
    let over = over.expect("the mover sees the end");
    assert_eq!(over["event"]["outcome"]["reason"], "move_rule");
    assert!(
        over["event"]["outcome"]["detail"]
            .as_str()
            .unwrap()
            .contains("FIDE 9.6.2")
    );
    b.recv_event("game_over").await;

    // FIDE 9.6.1: the fifth occurrence ends the game by itself.
    let start = challenge(&mut w, &mut b, "chess", json!("5+3"), None).await;
    let id = id_of(&start);
    let mut pos = Position::start(Variant::Chess);
    let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let line: Vec<&str> = cycle.iter().cycle().take(15).copied().collect();
    let (_, over) = play_line(&mut w, &mut b, &id, &mut pos, &line, 1).await;
    assert!(over.is_none(), "four occurrences: still playing");
    let (_, over) = play_line(&mut w, &mut b, &id, &mut pos, &["Ng8"], 16).await;
    let over = over.expect("the fifth occurrence ends the game");
    assert_eq!(over["event"]["outcome"]["reason"], "repetition");
    assert!(
        over["event"]["outcome"]["detail"]
            .as_str()
            .unwrap()
            .contains("FIDE 9.6.1")
    );
}

/// IDF s.2 22.6 and 22.7 on a position where a capture leaves two kings against one
/// (IDF 8.2.5, a standard draw).
#[tokio::test]
async fn idf_22_6_and_22_7_standard_draws_in_blitz() {
    let srv = wire::server_with(|_| {}).await;
    let mut w = Client::guest(srv.addr, "Wanda").await;
    let mut b = Client::guest(srv.addr, "Bruno").await;
    let fen = "W:WKa1,Kg1:BKa7,d4";

    // Blitz with increment: the game goes on, and either player may claim (22.6).
    let start = challenge(&mut w, &mut b, "russian", json!("3+2"), Some(fen)).await;
    assert_eq!(start["game"]["speed"], "blitz");
    let id = id_of(&start);
    let mut pos = Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), fen).unwrap();
    let (_, over) = play_line(&mut w, &mut b, &id, &mut pos, &["a1:e5"], 1).await;
    assert!(
        over.is_none(),
        "with an increment the standard position is played"
    );
    // White claims though it is Black's turn: 22.6 lets any player claim.
    w.send(json!({"type": "draw_claim", "game_id": id})).await;
    let over = b.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["reason"], "rule_draw", "{over}");
    assert!(
        over["event"]["outcome"]["detail"]
            .as_str()
            .unwrap()
            .contains("IDF 8.2.5")
    );

    // Blitz without increment: the standard position is not played on (22.7).
    let start = challenge(&mut w, &mut b, "russian", json!("3+0"), Some(fen)).await;
    let id = id_of(&start);
    let mut pos = Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), fen).unwrap();
    let (_, over) = play_line(&mut w, &mut b, &id, &mut pos, &["a1:e5"], 1).await;
    let over = over.expect("drawn at once");
    assert_eq!(over["event"]["outcome"]["reason"], "rule_draw", "{over}");

    // Classical: 22.6 does not apply; the claim is refused with the article.
    let start = challenge(&mut w, &mut b, "russian", json!("45+30"), Some(fen)).await;
    assert_eq!(start["game"]["speed"], "classical");
    let id = id_of(&start);
    let mut pos = Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), fen).unwrap();
    play_line(&mut w, &mut b, &id, &mut pos, &["a1:e5"], 1).await;
    b.send(json!({"type": "draw_claim", "game_id": id})).await;
    let err = error(&mut b).await;
    assert_eq!(err["code"], "claim_refused");
    assert!(err["message"].as_str().unwrap().contains("IDF"), "{err}");
}

#[tokio::test]
async fn idf_8_2_3_repetition_claim_with_the_declared_move_in_classical_only() {
    let srv = wire::server_with(|_| {}).await;
    let mut w = Client::guest(srv.addr, "Wanda").await;
    let mut b = Client::guest(srv.addr, "Bruno").await;
    // Kings that shuffle; many pieces so no 5-move rule applies.
    let fen = "W:WKa1,c1,e1,g1:BKh4,b8,d8,f8";
    let shuffle = [
        "a1-b2", "h4-g5", "b2-a1", "g5-h4", "a1-b2", "h4-g5", "b2-a1",
    ];
    for (tc, granted) in [("45+30", true), ("3+2", false)] {
        let start = challenge(&mut w, &mut b, "russian", json!(tc), Some(fen)).await;
        let id = id_of(&start);
        let mut pos = Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), fen).unwrap();
        play_line(&mut w, &mut b, &id, &mut pos, &shuffle, 1).await;
        // Black declares g5-h4: the start position, White to move, a third time.
        b.send(json!({"type": "draw_claim", "game_id": id, "move": "g5-h4"}))
            .await;
        if granted {
            let over = w.recv_event("game_over").await;
            assert_eq!(over["event"]["outcome"]["reason"], "repetition", "{over}");
        } else {
            let err = error(&mut b).await;
            assert_eq!(err["code"], "claim_refused");
            // Word for word as docs/protocol.md shows it.
            assert_eq!(
                err["message"],
                "repetition is recorded only in classical games (IDF 8.2.3); the declared \
                 move g5-h4 stands as played (IDF s.2 13, FIDE 9.5)"
            );
            // The declared move is written into the record and played.
            let moved = w.recv_event("move").await;
            assert_eq!(moved["event"]["played"]["move"], "g5-h4");
            w.send(json!({"type": "resign", "game_id": id})).await;
            b.recv_event("game_over").await;
        }
    }
}

#[tokio::test]
async fn claim_abandoned_wins_or_draws_after_the_disconnect_timeout() {
    let srv = wire::server_with(|c| c.game.disconnect_blitz_secs = 1).await;
    for (claim, winner) in [("win", json!("white")), ("draw", Value::Null)] {
        let mut w = Client::guest(srv.addr, "Wanda").await;
        let mut b = Client::guest(srv.addr, "Bruno").await;
        let start = challenge(&mut w, &mut b, "russian", json!("3+2"), None).await;
        let id = id_of(&start);
        let mut pos = Position::start(Variant::Draughts(DraughtsVariant::Russian));
        play_line(&mut w, &mut b, &id, &mut pos, &["c3-d4", "f6-g5"], 1).await;
        drop(b);
        let left = w.recv_event("player_left").await;
        assert_eq!(left["event"]["claim_after_ms"], 1000);
        w.send(json!({"type": "claim_abandoned", "game_id": id, "result": claim}))
            .await;
        let err = error(&mut w).await;
        assert_eq!(err["code"], "claim_refused", "too early: {err}");
        tokio::time::sleep(Duration::from_millis(1100)).await;
        w.send(json!({"type": "claim_abandoned", "game_id": id, "result": claim}))
            .await;
        let over = w.recv_event("game_over").await;
        assert_eq!(over["event"]["outcome"]["reason"], "abandoned");
        assert_eq!(over["event"]["outcome"]["winner"], winner);
    }
}

#[tokio::test]
async fn what_the_protocol_document_promises() {
    let srv = wire::server_with(|_| {}).await;
    // Every message before `hello` is answered `hello_required`, `auth` included.
    let (token, _) = common::guest(srv.addr, "Early").await;
    let mut early = Client {
        ws: common::connect_raw(srv.addr, &token)
            .await
            .expect("upgrade"),
        user: String::new(),
    };
    for msg in [
        json!({"type": "auth", "token": token}),
        json!({"type": "ping", "id": 1}),
        json!({"type": "list_seeks"}),
    ] {
        early.send(msg.clone()).await;
        let err = early.recv().await;
        assert_eq!(err["code"], "hello_required", "{msg}: {err}");
    }

    // game_start shows the speed; refusals of the law name the article.
    let mut w = Client::guest(srv.addr, "Wanda").await;
    let mut b = Client::guest(srv.addr, "Bruno").await;
    for (variant, tc, speed) in [
        ("russian", "10+5", "rapid"),
        ("international", "90+30", "classical"),
        ("chess", "1+0", "bullet"),
    ] {
        let start = challenge(&mut w, &mut b, variant, json!(tc), None).await;
        assert_eq!(start["game"]["speed"], speed, "{variant} {tc}");
        w.send(json!({"type": "abort", "game_id": id_of(&start)}))
            .await;
        w.recv_event("game_over").await;
        b.recv_event("game_over").await;
    }
    let start = challenge(&mut w, &mut b, "russian", json!("45+30"), None).await;
    let id = id_of(&start);
    let mut pos = Position::start(Variant::Draughts(DraughtsVariant::Russian));
    play_line(&mut w, &mut b, &id, &mut pos, &["c3-d4"], 1).await;
    w.send(json!({"type": "draw_offer", "game_id": id})).await;
    let err = error(&mut w).await;
    assert_eq!(err["code"], "draw_offer_not_allowed");
    assert_eq!(
        err["message"],
        "a draw may be offered only once each side has made 20 moves (IDF s.2 9.2)"
    );
    // A move with a refused offer is refused whole: the move is not played.
    b.send(
        json!({"type": "move", "game_id": id, "move": "f6-g5", "move_id": 2, "offer_draw": true}),
    )
    .await;
    let err = error(&mut b).await;
    assert_eq!(err["code"], "draw_offer_not_allowed");
    b.send(json!({"type": "resume", "game_id": id, "last_version": 0}))
        .await;
    let state = b.recv_type("game_state").await;
    assert_eq!(state["game"]["moves"], json!(["c3-d4"]));
}

#[tokio::test]
async fn guest_names_follow_the_documented_rule() {
    let srv = wire::server_with(|_| {}).await;
    for (name, ok) in [
        ("Al", true),
        ("Ölga_2", true),
        ("Алиса-9", true),
        ("A", false),
        ("a b", false),
        ("abcdefghijklmnopqrstu", false),
        ("semi;colon", false),
    ] {
        let (status, body) = common::http(
            srv.addr,
            "POST",
            "/api/auth/guest",
            &json!({ "name": name }).to_string(),
        )
        .await;
        if ok {
            assert_eq!(status, 200, "{name}: {body}");
        } else {
            assert_eq!(status, 400, "{name}: {body}");
            assert!(body.contains("invalid_message"), "{name}: {body}");
        }
    }
}

/// The server's own timer settles flags one at a time (never both flags, see
/// docs/law.md): the flagged side loses, or draws when the opponent cannot mate (FIDE
/// 6.9).
#[tokio::test]
async fn the_servers_timer_flags_one_side_and_fide_6_9_draws_when_mate_is_impossible() {
    let srv = wire::server_with(|_| {}).await;
    let mut w = Client::guest(srv.addr, "Wanda").await;
    let mut b = Client::guest(srv.addr, "Bruno").await;
    // White has the rook. Black flags: White wins; White flags: Black, with a lone
    // king, cannot mate: drawn.
    let fen = "8/8/8/4k3/8/8/4K3/R7 w - - 0 1";
    for (white_flags, winner) in [(false, json!("white")), (true, Value::Null)] {
        let start = challenge(&mut w, &mut b, "chess", json!("0.02+0"), Some(fen)).await;
        let id = id_of(&start);
        let mut pos = Position::from_fen(Variant::Chess, fen).unwrap();
        let line: &[&str] = if white_flags {
            &["Ra2", "Kd5"]
        } else {
            &["Ra2"]
        };
        play_line(&mut w, &mut b, &id, &mut pos, line, 1).await;
        let over = tokio::time::timeout(Duration::from_secs(4), w.recv_event("game_over"))
            .await
            .expect("the timer flags");
        let outcome = &over["event"]["outcome"];
        assert_eq!(outcome["reason"], "timeout", "{over}");
        assert_eq!(outcome["winner"], winner, "{over}");
        let clock = &over["event"]["clock"];
        let (flagged, other) = if white_flags {
            (&clock["white_ms"], &clock["black_ms"])
        } else {
            (&clock["black_ms"], &clock["white_ms"])
        };
        assert_eq!(flagged, 0, "{over}");
        assert!(other.as_u64().unwrap() > 0, "one flag only: {over}");
        if white_flags {
            assert!(
                outcome["detail"].as_str().unwrap().contains("FIDE 6.9"),
                "{over}"
            );
        }
        b.recv_event("game_over").await;
    }
}

/// INT 3.6.4 in a tournament: on a match clock the second game of a micro-match starts
/// with the times the first game left the players (colours swapped), to the
/// millisecond, and with the moves each has made: a player who completed 2 moves of a
/// 3-move quota in game 1 gets the next period's time with his first move of game 2.
#[tokio::test]
async fn a_micro_match_on_a_match_clock_carries_times_and_quotas_into_game_two() {
    let srv = wire::server_with(|c| c.tournaments.organisers = vec!["organiser".into()]).await;
    let organiser = common::token("organiser", damka::auth::unix_now() + 3600);
    let mut a = Client::guest(srv.addr, "Astrid").await;
    let mut b = Client::guest(srv.addr, "Bogdan").await;
    let tc = json!({"periods": [{"time_ms": 60000, "moves": 3}], "match_clock": true});
    let spec = json!({"name": "match clock", "variant": "russian", "time_control": tc,
        "system": {"kind": "round_robin", "cycles": 1},
        "players": [{"id": a.user, "name": "Astrid", "guest": true},
                    {"id": b.user, "name": "Bogdan", "guest": true}],
        // No break: a 7.3.10 break would add its time to White's clock of game 2 and
        // charge him what it ran (e2e_tournament.rs tests the break).
        "break_ms": 0, "round_gap_ms": 0});
    let (status, body) = common::request(
        srv.addr,
        "POST",
        "/api/tournaments",
        Some(&organiser),
        &spec.to_string(),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let start = a.recv_type("game_start").await;
    b.recv_type("game_start").await;
    let id = id_of(&start);
    let a_white = start["game"]["white"]["id"] == json!(a.user);
    let (w, bl) = if a_white {
        (&mut a, &mut b)
    } else {
        (&mut b, &mut a)
    };
    // Game 1: two moves each, every one after 150 ms of thought; then White resigns.
    let mut pos = Position::start(Variant::Draughts(DraughtsVariant::Russian));
    for (i, text) in ["c3-d4", "f6-g5", "b2-c3", "g7-f6"].iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(150)).await;
        play_line(w, bl, &id, &mut pos, &[text], i as u64 + 1).await;
    }
    w.send(json!({"type": "resign", "game_id": id})).await;
    let over = w.recv_event("game_over").await;
    bl.recv_event("game_over").await;
    let left = &over["event"]["clock"];
    let (w1, b1) = (
        left["white_ms"].as_u64().unwrap(),
        left["black_ms"].as_u64().unwrap(),
    );
    assert!(w1 < 60_000 && b1 < 60_000, "time was used: {over}");
    // Game 2: colours swapped, each player's time as game 1 left it.
    let start2 = bl.recv_type("game_start").await;
    w.recv_type("game_start").await;
    let id2 = id_of(&start2);
    assert_eq!(start2["game"]["white"], start["game"]["black"], "{start2}");
    let clock = &start2["game"]["clock"];
    assert_eq!(clock["white_ms"], b1, "{start2} after {over}");
    assert_eq!(clock["black_ms"], w1, "{start2} after {over}");
    // Each has made 2 moves of the 3-move quota: the first move of game 2 completes it
    // and adds the next period's 60 s (the game's first move is charged nothing).
    let (w2, b2) = (&mut *bl, &mut *w);
    let mut pos = Position::start(Variant::Draughts(DraughtsVariant::Russian));
    let (moved, _) = play_line(w2, b2, &id2, &mut pos, &["c3-d4"], 1).await;
    assert_eq!(moved["event"]["clock"]["white_ms"], b1 + 60_000, "{moved}");
    tokio::time::sleep(Duration::from_millis(150)).await;
    let (moved, _) = play_line(w2, b2, &id2, &mut pos, &["f6-g5"], 2).await;
    let black = moved["event"]["clock"]["black_ms"].as_u64().unwrap();
    assert!(
        black > w1 + 50_000 && black < w1 + 60_000 - 100,
        "the quota carried: {moved}"
    );
}

/// A Russian game at 3 s each (`0.05+0`) between `w` (White) and `b`: c3-d4 (the first
/// move is free), Black thinks `black_ms`, f6-g5, White thinks 2 s, b2-c3. The game id
/// and the event of White's last move.
async fn near_zero(w: &mut Client, b: &mut Client, black_ms: u64) -> (String, Value) {
    let start = challenge(w, b, "russian", json!("0.05+0"), None).await;
    let id = id_of(&start);
    let mut pos = Position::start(Variant::Draughts(DraughtsVariant::Russian));
    play_line(w, b, &id, &mut pos, &["c3-d4"], 1).await;
    tokio::time::sleep(Duration::from_millis(black_ms)).await;
    play_line(w, b, &id, &mut pos, &["f6-g5"], 2).await;
    tokio::time::sleep(Duration::from_millis(2000)).await;
    let (moved, _) = play_line(w, b, &id, &mut pos, &["b2-c3"], 3).await;
    (id, moved)
}

/// Both flags (IDF 8.2.2, 22.8; FIDE 6.8) are out of the server's reach (docs/law.md,
/// "Both flags"); this drives the closest it comes, both players about a second from
/// zero. A move sent after the mover's time ran out is that mover's flag alone, at its
/// instant, and the opponent keeps his time; a game persisted at shutdown in that state
/// is resumed with the outage given back and is decided by the running player's flag
/// alone, the other player's time unchanged to the millisecond.
#[tokio::test]
async fn both_players_near_zero_a_late_move_and_a_restart_give_one_flag_never_two() {
    let srv = wire::server_with(|_| {}).await;
    let mut w = Client::guest(srv.addr, "Wilma").await;
    let mut b = Client::guest(srv.addr, "Bert").await;
    // 3 s each; the first move is free: both are left with about 1 s.
    let (id, moved) = near_zero(&mut w, &mut b, 2000).await;
    let white_left = moved["event"]["clock"]["white_ms"].as_u64().unwrap();
    assert!(white_left > 0 && white_left <= 1_000, "{moved}");
    // Black moves half a second after his time ran out.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    b.send(json!({"type": "move", "game_id": id, "move": "g7-f6", "move_id": 4}))
        .await;
    let over = w.recv_event("game_over").await;
    let outcome = &over["event"]["outcome"];
    assert_eq!(outcome["reason"], "timeout", "{over}");
    assert_eq!(outcome["winner"], "white", "one flag, Black's: {over}");
    assert_eq!(over["event"]["clock"]["black_ms"], 0, "{over}");
    assert_eq!(over["event"]["clock"]["white_ms"], white_left, "{over}");
    assert!(!over.to_string().contains("both flags"), "{over}");

    // The same corner across a restart: stored with Black's time running.
    let mut c = common::config();
    c.shutdown.grace_secs = 0;
    let s = common::start(c.clone()).await;
    let (wt, wu) = common::guest(s.addr, "Wilma").await;
    let (bt, bu) = common::guest(s.addr, "Bert").await;
    let mut w = Client::with_token(s.addr, &wt, &wu).await;
    let mut b = Client::with_token(s.addr, &bt, &bu).await;
    let (id, moved) = near_zero(&mut w, &mut b, 1000).await;
    let white_left = moved["event"]["clock"]["white_ms"].as_u64().unwrap();
    let black_left = moved["event"]["clock"]["black_ms"].as_u64().unwrap();
    assert!(white_left <= 1_000 && black_left <= 2_000, "{moved}");
    s.server.shutdown();
    s.server.wait().await.unwrap();
    // Down for longer than Black had left: the outage is given back on resumption.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    c.listen = s.addr;
    let s = common::start(c).await;
    let mut w = Client::with_token(s.addr, &wt, &wu).await;
    w.send(json!({"type": "resume", "game_id": id, "last_version": 0}))
        .await;
    let state = w.recv_type("game_state").await;
    let clock = &state["game"]["clock"];
    assert!(
        state["game"].get("outcome").is_none_or(Value::is_null),
        "{state}"
    );
    assert_eq!(clock["white_ms"], white_left, "{state}");
    assert_eq!(clock["running"], "black", "{state}");
    assert!(clock["black_ms"].as_u64().unwrap() > 0, "{state}");
    let over = w.recv_event("game_over").await;
    let outcome = &over["event"]["outcome"];
    assert_eq!(outcome["reason"], "timeout", "{over}");
    assert_eq!(outcome["winner"], "white", "one flag, Black's: {over}");
    assert_eq!(over["event"]["clock"]["black_ms"], 0, "{over}");
    assert_eq!(over["event"]["clock"]["white_ms"], white_left, "{over}");
    s.server.shutdown();
    s.server.wait().await.unwrap();
}

/// Arena settings (`POST /api/arenas`) take the structured time control too: the arena
/// shows it as given, the games it pairs run it, and a delay control is refused for
/// draughts naming the article.
#[tokio::test]
async fn arena_settings_take_structured_time_controls() {
    let srv = wire::server_with(|c| c.arena.wave_ms = 200).await;
    let org = common::token("org", damka::auth::unix_now() + 3600);
    let auth = format!("Authorization: Bearer {org}\r\n");
    let arena = |tc: Value| {
        json!({"name": "Periods", "variant": "russian", "time_control": tc,
            "starts_in_secs": 1, "duration_secs": 1800})
        .to_string()
    };
    let delay = json!({"periods": [{"time_ms": 300000, "delay_ms": 2000}]});
    let (status, body) =
        common::http_with(srv.addr, "POST", "/api/arenas", &arena(delay), &auth).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("FIDE 6.2"), "{body}");
    let periods = json!({"periods": [{"time_ms": 120000, "moves": 10}, {"time_ms": 60000}]});
    let (status, body) = common::http_with(
        srv.addr,
        "POST",
        "/api/arenas",
        &arena(periods.clone()),
        &auth,
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(created["time_control"], periods, "{body}");
    let id = created["id"].as_str().unwrap().to_string();
    let mut players = Vec::new();
    for name in ["ana", "ben"] {
        let t = common::token(name, damka::auth::unix_now() + 3600);
        let mut c = Client::with_token(srv.addr, &t, name).await;
        c.send(json!({"type": "arena_join", "arena_id": id})).await;
        assert_eq!(c.recv_type("arena_member").await["membership"], "active");
        players.push(c);
    }
    for p in &mut players {
        let start = p.recv_type("game_start").await;
        assert_eq!(start["game"]["time_control"], periods, "{start}");
        assert_eq!(start["game"]["clock"]["white_ms"], 120_000, "{start}");
        assert_eq!(start["game"]["clock"]["black_ms"], 120_000, "{start}");
    }
}

/// Tournament settings (`POST /api/tournaments`) take every form of time control; the
/// games they start run it, and a delay control is refused for draughts.
#[tokio::test]
async fn tournament_settings_take_structured_time_controls() {
    let srv = wire::server_with(|c| c.tournaments.organisers = vec!["organiser".into()]).await;
    let organiser = common::token("organiser", damka::auth::unix_now() + 3600);
    let mut w = Client::guest(srv.addr, "Wanda").await;
    let mut b = Client::guest(srv.addr, "Bruno").await;
    let players = json!([
        {"id": w.user, "name": "Wanda", "guest": true},
        {"id": b.user, "name": "Bruno", "guest": true},
    ]);
    let post = |tc: Value| {
        json!({"name": "cup", "variant": "russian", "time_control": tc,
            "system": {"kind": "round_robin", "cycles": 1}, "players": players,
            "scoring": {"points": {"win": 2, "draw": 1, "loss": 0}, "unit": "game", "games": 1, "bye": "win"},
            "break_ms": 0, "round_gap_ms": 0})
        .to_string()
    };
    let delay = json!({"periods": [{"time_ms": 300000, "delay_ms": 2000}]});
    let (status, body) = common::request(
        srv.addr,
        "POST",
        "/api/tournaments",
        Some(&organiser),
        &post(delay),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("FIDE 6.2"), "{body}");
    let periods = json!({"periods": [{"time_ms": 600000, "moves": 20}, {"time_ms": 300000}]});
    let (status, body) = common::request(
        srv.addr,
        "POST",
        "/api/tournaments",
        Some(&organiser),
        &post(periods.clone()),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let created: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(created["summary"]["time_control"], periods, "{body}");
    let start = w.recv_type("game_start").await;
    assert_eq!(start["game"]["time_control"], periods);
    assert_eq!(start["game"]["clock"]["white_ms"], 600_000);
    b.recv_type("game_start").await;
}

/// IDF s.2 art. 7.3.9 through the server: in a control to the end of the game without
/// increment (`1+0`), a player with less than a minute left in a won position claims
/// (`draw_claim`) and the game is drawn, the outcome naming the article; a claim with a
/// minute left is refused with the article and the reason in the answer. The position:
/// White's lone man on c3 to move; whichever way it goes, Black captures it (a5xc3 or
/// Kh8xc3...), so Black's position is a forced win.
#[tokio::test]
async fn a_player_short_of_time_in_a_won_position_records_a_draw_7_3_9() {
    let srv = wire::server_with(|_| {}).await;
    let mut w = Client::guest(srv.addr, "Wanda").await;
    let mut b = Client::guest(srv.addr, "Boris").await;
    let start = challenge(&mut w, &mut b, "russian", "1+0", Some("W:Wc3:Ba5,Kh8")).await;
    let id = id_of(&start);
    // White's clock has not started: a full minute, refused, the answer says why.
    w.send(json!({"type": "draw_claim", "game_id": id})).await;
    let e = w.recv_type("error").await;
    assert_eq!(e["code"], "claim_refused", "{e}");
    let msg = e["message"].as_str().unwrap();
    assert!(msg.contains("IDF s.2 art. 7.3.9 does not apply"), "{msg}");
    assert!(msg.contains("not less than a minute"), "{msg}");
    // White moves; Black's clock runs from 60 s: under a minute, and Black wins by force.
    w.move_acked(&id, "c3-d4", 1).await;
    b.recv_event("move").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    b.send(json!({"type": "draw_claim", "game_id": id})).await;
    let over = loop {
        let m = b.recv().await;
        assert_ne!(m["type"], "error", "{m}");
        if m["type"] == "game_event" && m["event"]["kind"] == "game_over" {
            break m;
        }
    };
    let outcome = &over["event"]["outcome"];
    assert!(outcome.get("winner").is_none_or(Value::is_null), "{over}");
    assert_eq!(outcome["reason"], "rule_draw", "{over}");
    let detail = outcome["detail"].as_str().unwrap();
    assert!(detail.starts_with("IDF s.2 art. 7.3.9"), "{detail}");
    assert!(detail.contains("forced win"), "{detail}");
    w.recv_event("game_over").await;
    // The archive keeps it.
    let (status, game) = common::get_json(srv.addr, &format!("/api/games/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(game["result"], "1/2-1/2", "{game}");
    assert!(
        game["rule"].as_str().unwrap_or("").contains("7.3.9"),
        "{game}"
    );
}
