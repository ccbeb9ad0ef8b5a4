//! End-to-end: a server on 127.0.0.1:0 and real WebSocket clients. HTTP endpoints,
//! hello, seeks, challenges (and their list for a later connection), pools, moves,
//! spectators, reconnection, flags, shutdown, and what a move costs in socket writes.

mod common;

use std::time::Duration;

use common::*;
use serde_json::json;

#[tokio::test]
async fn http_endpoints() {
    let s = start(config()).await;
    let (status, body) = http(s.addr, "GET", "/healthz", "").await;
    assert_eq!(status, 200);
    assert!(body.contains(r#""status":"ok""#), "{body}");
    let (status, body) = http(s.addr, "GET", "/metrics", "").await;
    assert_eq!(status, 200);
    assert!(
        body.contains("# TYPE damka_connections_open gauge"),
        "{body}"
    );
    assert!(body.contains("damka_ws_lag_milliseconds_bucket"), "{body}");
    let (status, body) = http(s.addr, "POST", "/api/auth/guest", r#"{"name":"x y"}"#).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("invalid_message"));
    let (status, _) = http(s.addr, "POST", "/api/auth/guest", "not json").await;
    assert_eq!(status, 400);
    let (status, body) = http(s.addr, "GET", "/api/tv", "").await;
    assert_eq!((status, body.as_str()), (200, "{}"));
    let (token, user) = guest(s.addr, "Carol").await;
    assert!(user.starts_with("guest:"));
    assert_eq!(token.split('.').count(), 3);
}

#[tokio::test]
async fn guest_tokens_can_be_disabled() {
    let mut c = config();
    c.auth.guest_enabled = false;
    let s = start(c).await;
    let (status, body) = http(s.addr, "POST", "/api/auth/guest", r#"{"name":"Dan"}"#).await;
    assert_eq!(status, 403, "{body}");
}

#[tokio::test]
async fn hello_ping_and_token_in_query() {
    let s = start(config()).await;
    let (token, _) = guest(s.addr, "Eve").await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws?token={token}", s.addr))
        .await
        .unwrap();
    let mut c = Client {
        ws: {
            use futures_util::SinkExt;
            ws.send(tokio_tungstenite::tungstenite::Message::Text(
                json!({"type": "ping", "id": 1}).to_string().into(),
            ))
            .await
            .unwrap();
            ws
        },
        user: String::new(),
    };
    let v = c.recv().await;
    assert_eq!(v["code"], "hello_required");
    c.send(json!({"type": "hello", "protocol": 1, "client": "test"}))
        .await;
    let w = c.recv_type("welcome").await;
    assert_eq!(w["protocol"], 1);
    assert_eq!(w["max_message_bytes"], 4096);
    c.send(json!({"type": "ping", "id": 7})).await;
    let p = c.recv_type("pong").await;
    assert_eq!(p["id"], 7);
    c.send(json!({"type": "hello", "protocol": 99})).await;
    assert_eq!(c.recv().await["code"], "unsupported_protocol");
    assert_eq!(c.closed().await, (4002, "unsupported protocol".into()));
}

#[tokio::test]
async fn seek_accept_move_and_spectator() {
    let s = start(config()).await;
    let (mut a, mut b, id) = game(s.addr, "russian", "3+2").await;

    // Black may not move first; White's illegal move is refused; nothing changes.
    b.send(json!({"type": "move", "game_id": id, "move": "f6-g5", "move_id": 1}))
        .await;
    let e = b.recv_type("error").await;
    assert_eq!(
        (e["code"].as_str(), e["move_id"].as_u64()),
        (Some("not_your_turn"), Some(1))
    );
    a.send(json!({"type": "move", "game_id": id, "move": "c3-c4", "move_id": 1}))
        .await;
    let e = a.recv_type("error").await;
    assert_eq!(e["code"], "illegal_move");

    let ack = a.move_acked(&id, "c3-d4", 2).await;
    assert_eq!(ack["move_id"], 2);
    let version = ack["version"].as_u64().unwrap();
    let seen = b.recv_event("move").await;
    assert_eq!(seen["version"].as_u64(), Some(version));
    assert_eq!(seen["event"]["played"]["move"], "c3-d4");
    assert_eq!(seen["event"]["clock"]["running"], "black");

    // A spectator joining mid-game sees the players' state.
    let mut c = Client::guest(s.addr, "Carol").await;
    c.send(json!({"type": "watch", "game_id": id})).await;
    let state = c.recv_type("game_state").await;
    assert_eq!(state["game"]["moves"], json!(["c3-d4"]));
    assert_eq!(state["game"]["fen"], seen["event"]["fen"]);
    assert_eq!(state["game"]["spectators"], 1);
    assert_eq!(state["game"]["turn"], "black");
    let spectators = a.recv_event("spectators").await;
    assert_eq!(spectators["event"]["count"], 1);

    // Another player's game: the spectator cannot move in it.
    c.send(json!({"type": "move", "game_id": id, "move": "f6-g5", "move_id": 1}))
        .await;
    assert_eq!(c.recv_type("error").await["code"], "not_a_player");

    let ack = b.move_acked(&id, "f6-g5", 9).await;
    let ev = c.recv_event("move").await;
    assert_eq!(ev["version"], ack["version"]);
    assert_eq!(ev["event"]["by"], "black");

    // TV shows this game.
    let (_, tv) = http(s.addr, "GET", "/api/tv", "").await;
    assert!(tv.contains(&id), "{tv}");
    c.send(json!({"type": "unwatch", "game_id": id})).await;
    c.recv_type("unwatched").await;
    c.send(json!({"type": "tv", "variant": "russian"})).await;
    let tv_state = c.recv_type("game_state").await;
    assert_eq!(tv_state["game"]["game_id"], id.as_str());
    c.send(json!({"type": "tv", "variant": "frisian"})).await;
    assert_eq!(c.recv_type("error").await["code"], "no_tv_game");

    // Resignation ends it for everyone.
    a.send(json!({"type": "resign", "game_id": id})).await;
    let over = b.recv_event("game_over").await;
    assert_eq!(
        over["event"]["outcome"],
        json!({"winner": "black", "reason": "resignation"})
    );
    c.recv_event("game_over").await;
    a.send(json!({"type": "move", "game_id": id, "move": "d4-e5", "move_id": 3}))
        .await;
    assert_eq!(a.recv_type("error").await["code"], "game_over");
}

#[tokio::test]
async fn challenge_and_pool_pairing() {
    let s = start(config()).await;
    let mut a = Client::guest(s.addr, "Alice").await;
    let mut b = Client::guest(s.addr, "Bob").await;
    a.send(json!({"type": "challenge", "user": "guest:nobody", "variant": "chess", "time_control": "5+3"}))
        .await;
    assert_eq!(a.recv_type("error").await["code"], "user_offline");
    a.send(json!({"type": "challenge", "user": b.user, "variant": "chess", "time_control": "5+3", "color": "black"}))
        .await;
    let sent = a.recv_type("challenge_sent").await;
    let got = b.recv_type("challenge_received").await;
    assert_eq!(sent["challenge"], got["challenge"]);
    b.send(json!({"type": "accept_challenge", "challenge_id": got["challenge"]["challenge_id"]}))
        .await;
    let ga = a.recv_type("game_start").await;
    assert_eq!(ga["game"]["black"]["id"], a.user.as_str());
    assert_eq!(ga["game"]["variant"], "chess");
    let gb = b.recv_type("game_start").await;
    assert_eq!(ga["game"]["game_id"], gb["game"]["game_id"]);

    // Quick pairing: both join the same pool and a game starts.
    a.send(json!({"type": "pool_join", "variant": "russian", "time_control": "3+2"}))
        .await;
    a.recv_type("pool_joined").await;
    b.send(json!({"type": "pool_join", "variant": "russian", "time_control": "5+0"}))
        .await;
    assert_eq!(b.recv_type("error").await["code"], "unknown_pool");
    // The join that pairs at once is still answered `pool_joined` first (held to
    // leave with the game's start), and a request sent right behind it is answered
    // after it.
    b.send(json!({"type": "pool_join", "variant": "russian", "time_control": "3+2"}))
        .await;
    b.send(json!({"type": "list_challenges"})).await;
    assert_eq!(b.recv().await["type"], "pool_joined");
    let mut gb = None;
    while gb.is_none() {
        let v = b.recv().await;
        match v["type"].as_str() {
            Some("game_start") => gb = Some(v),
            Some("challenges") => {}
            other => panic!("unexpected {other:?}: {v}"),
        }
    }
    let gb = gb.unwrap_or_default();
    let ga = a.recv_type("game_start").await;
    assert_eq!(ga["game"]["game_id"], gb["game"]["game_id"]);
    assert_eq!(ga["game"]["variant"], "russian");
    assert_eq!(ga["game"]["time_control"], "3+2");

    // Each player of both games was shown the `game_start` its game's actor made once
    // the start was stored, with no join to the actor behind it.
    let (_, metrics) = http(s.addr, "GET", "/metrics", "").await;
    assert!(
        metrics
            .lines()
            .any(|l| l == "damka_game_start_direct_total 4"),
        "{metrics}"
    );
    // And follows the game from it: White's first move reaches both, White's
    // `game_start` alone had legal moves.
    let a_white = ga["game"]["white"]["id"] == a.user.as_str();
    let (white, black, start) = if a_white {
        (&mut a, &mut b, &ga)
    } else {
        (&mut b, &mut a, &gb)
    };
    let other = if a_white { &gb } else { &ga };
    assert!(other["game"]["legal_moves"].is_null(), "{other}");
    let first = start["game"]["legal_moves"][0]
        .as_str()
        .expect("legal moves");
    let id = start["game"]["game_id"].as_str().expect("an id");
    white
        .send(json!({"type": "move", "game_id": id, "move": first, "move_id": 1}))
        .await;
    let seen = black.recv_event("move").await;
    assert_eq!(
        seen["version"],
        start["game"]["version"].as_u64().unwrap() + 1
    );
    assert_eq!(
        white.recv_event("move").await["event"]["played"]["move"],
        first
    );
}

/// Challenges reach the connections open when they are made; a connection opened later
/// (another tab, a reload) asks for them with `list_challenges`.
#[tokio::test]
async fn a_later_connection_lists_the_open_challenges() {
    let s = start(config()).await;
    let mut a = Client::guest(s.addr, "Alice").await;
    let (token, bob) = guest(s.addr, "Bob").await;
    let mut b1 = Client::with_token(s.addr, &token, &bob).await;
    b1.send(json!({"type": "list_challenges"})).await;
    assert_eq!(b1.recv_type("challenges").await["challenges"], json!([]));
    a.send(json!({"type": "challenge", "user": bob, "variant": "russian", "time_control": "5+3"}))
        .await;
    let sent = a.recv_type("challenge_sent").await["challenge"].clone();
    assert_eq!(b1.recv_type("challenge_received").await["challenge"], sent);

    let mut b2 = Client::with_token(s.addr, &token, &bob).await;
    b2.send(json!({"type": "list_challenges"})).await;
    assert_eq!(
        b2.recv_type("challenges").await["challenges"],
        json!([sent.clone()])
    );
    a.send(json!({"type": "list_challenges"})).await;
    assert_eq!(
        a.recv_type("challenges").await["challenges"],
        json!([sent.clone()]),
        "the challenger's list has it too"
    );
    b1.send(json!({"type": "decline_challenge", "challenge_id": sent["challenge_id"]}))
        .await;
    b2.recv_type("challenge_removed").await;
    b2.send(json!({"type": "list_challenges"})).await;
    assert_eq!(b2.recv_type("challenges").await["challenges"], json!([]));
}

#[tokio::test]
async fn draw_takeback_abort_and_rematch() {
    let s = start(config()).await;
    let (mut a, mut b, id) = game(s.addr, "russian", "3+2").await;
    a.send(json!({"type": "abort", "game_id": id})).await;
    let over = b.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["reason"], "aborted");

    // Rematch: colours swap.
    a.send(json!({"type": "rematch", "game_id": id})).await;
    b.recv_event("rematch_offered").await;
    b.send(json!({"type": "rematch", "game_id": id})).await;
    let started = a.recv_event("rematch_started").await;
    let g2 = started["event"]["game_id"].as_str().unwrap().to_string();
    let gs = b.recv_type("game_start").await;
    assert_eq!(gs["game"]["game_id"], g2.as_str());
    assert_eq!(gs["game"]["white"]["id"], b.user.as_str());
    a.recv_type("game_start").await;

    // Casual takeback.
    b.move_acked(&g2, "c3-d4", 1).await;
    let back = common::taken_back(&mut b, &mut a, &g2).await;
    assert_eq!(back["event"]["plies"], 1);
    b.move_acked(&g2, "e3-f4", 2).await;
    a.move_acked(&g2, "f6-g5", 1).await;

    // The law of the variant decides on offers: a Russian blitz game is unrecorded, so
    // a draw needs 6 or fewer pieces each (IDF 22.5); with 12 the offer is refused.
    a.send(json!({"type": "draw_accept", "game_id": g2})).await;
    assert_eq!(a.recv_type("error").await["code"], "no_offer");
    a.send(json!({"type": "draw_offer", "game_id": g2})).await;
    let e = a.recv_type("error").await;
    assert_eq!(e["code"], "draw_offer_not_allowed", "{e}");
    b.send(json!({"type": "abort", "game_id": g2})).await;
    assert_eq!(b.recv_type("error").await["code"], "abort_not_allowed");

    // Chess: offered, declined, offered with a move, accepted.
    let (mut w, mut k, g3) = game(s.addr, "chess", "5+3").await;
    w.move_acked(&g3, "e4", 1).await;
    w.send(json!({"type": "draw_offer", "game_id": g3})).await;
    k.recv_event("draw_offered").await;
    k.send(json!({"type": "draw_decline", "game_id": g3})).await;
    w.recv_event("draw_declined").await;
    k.send(json!({"type": "move", "game_id": g3, "move": "e5", "move_id": 1, "offer_draw": true}))
        .await;
    k.recv_type("move_ack").await;
    let offered = w.recv_event("draw_offered").await;
    assert_eq!(offered["event"]["by"], "black");
    w.send(json!({"type": "draw_accept", "game_id": g3})).await;
    let over = k.recv_event("game_over").await;
    assert_eq!(
        over["event"]["outcome"],
        json!({"winner": null, "reason": "agreement"})
    );
}

#[tokio::test]
async fn rated_games_refuse_takebacks() {
    let s = start(config()).await;
    let (ta, ua) = common::register(s.addr, "alice", "alice-password").await;
    let (tb, ub) = common::register(s.addr, "bob", "bob-password").await;
    let mut a = Client::with_token(s.addr, &ta, &ua).await;
    let mut b = Client::with_token(s.addr, &tb, &ub).await;
    a.send(json!({"type": "seek", "variant": "chess", "time_control": "3+2", "rated": true, "color": "white"}))
        .await;
    let seek = a.recv_type("seek_created").await;
    b.send(json!({"type": "list_seeks"})).await;
    let seeks = b.recv_type("seeks").await;
    assert_eq!(seeks["seeks"][0], seek["seek"]);
    b.send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    let g = a.recv_type("game_start").await;
    let id = g["game"]["game_id"].as_str().unwrap().to_string();
    a.move_acked(&id, "e4", 1).await;
    a.send(json!({"type": "takeback_offer", "game_id": id}))
        .await;
    assert_eq!(a.recv_type("error").await["code"], "takeback_not_allowed");
    b.send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    assert_eq!(b.recv_type("error").await["code"], "seek_not_found");
}

#[tokio::test]
async fn server_timer_flags_silent_player() {
    let s = start(config()).await;
    // 0.05 minutes = 3 seconds each.
    let (mut a, mut b, id) = game(s.addr, "chess", "0.05+0").await;
    a.move_acked(&id, "e4", 1).await;
    // Black's clock runs; nobody sends anything more.
    let over = tokio::time::timeout(Duration::from_secs(6), a.recv_event("game_over"))
        .await
        .expect("flag within the clock time");
    assert_eq!(
        over["event"]["outcome"],
        json!({"winner": "white", "reason": "timeout"})
    );
    assert_eq!(over["event"]["clock"]["black_ms"], 0);
    b.recv_event("game_over").await;
}

#[tokio::test]
async fn reconnect_with_version_loses_nothing() {
    let s = start(config()).await;
    let (mut a, mut b, id) = game(s.addr, "russian", "3+2").await;
    a.send(json!({"type": "move", "game_id": id, "move": "c3-d4", "move_id": 1}))
        .await;
    let last = a.recv_type("move_ack").await["version"].as_u64().unwrap();
    b.recv_event("move").await;

    // Alice drops; Bob sees it and moves while she is away.
    a.ws.close(None).await.unwrap();
    let left = b.recv_event("player_left").await;
    assert_eq!(left["event"]["color"], "white");
    assert_eq!(left["event"]["claim_after_ms"], 30_000);
    b.send(json!({"type": "claim_abandoned", "game_id": id, "result": "win"}))
        .await;
    assert_eq!(b.recv_type("error").await["code"], "claim_refused");
    b.move_acked(&id, "f6-g5", 1).await;

    // Alice comes back with her last version and gets exactly what she missed.
    let token = common::token(&a.user, damka::auth::unix_now() + 600);
    let mut a2 = Client {
        ws: connect_raw(s.addr, &token).await.unwrap(),
        user: a.user.clone(),
    };
    a2.send(json!({"type": "hello", "protocol": 1})).await;
    a2.recv_type("welcome").await;
    a2.send(json!({"type": "resume", "game_id": id, "last_version": last}))
        .await;
    let first = a2.recv().await;
    assert_eq!(first["version"].as_u64(), Some(last + 1));
    assert_eq!(first["event"]["kind"], "player_left");
    let second = a2.recv().await;
    assert_eq!(second["version"].as_u64(), Some(last + 2));
    assert_eq!(second["event"]["played"]["move"], "f6-g5");
    let back = b.recv_event("player_returned").await;
    assert_eq!(back["version"].as_u64(), Some(last + 3));
    let own = a2.recv().await;
    assert_eq!(own["version"].as_u64(), Some(last + 3));
    // The game goes on.
    a2.send(json!({"type": "move", "game_id": id, "move": "d4-e5", "move_id": 2}))
        .await;
    assert_eq!(
        a2.recv_type("move_ack").await["version"].as_u64(),
        Some(last + 4)
    );
}

/// Another connection of `user`, said hello.
async fn again(addr: std::net::SocketAddr, user: &str) -> Client {
    let token = common::token(user, damka::auth::unix_now() + 600);
    let mut c = Client {
        ws: connect_raw(addr, &token).await.unwrap(),
        user: user.to_string(),
    };
    c.send(json!({"type": "hello", "protocol": 1})).await;
    c.recv_type("welcome").await;
    c
}

/// A game holds only its recent events: a `resume` from long ago gets the full state,
/// one from a moment ago the events missed.
#[tokio::test]
async fn a_resume_from_long_ago_gets_the_state() {
    let s = start(config()).await;
    let (mut a, mut b, id) = game(s.addr, "chess", "3+2").await;
    let plies = [
        "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6", "a3", "a6", "h3", "h6",
        "b4", "b5", "g4", "g5",
    ];
    let mut first = None;
    let mut last = 0;
    for (i, mv) in plies.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut a, &mut b)
        } else {
            (&mut b, &mut a)
        };
        last = mover.move_acked(&id, mv, i as u64 + 1).await["version"]
            .as_u64()
            .unwrap();
        first.get_or_insert(last);
        let seen = other.recv_event("move").await;
        assert_eq!(seen["version"].as_u64(), Some(last));
    }
    let first = first.unwrap();
    assert!(last >= first + 17, "{first}..{last}");

    // From the first move on: more events than a game holds, so the state.
    let mut a2 = again(s.addr, &a.user).await;
    a2.send(json!({"type": "resume", "game_id": id, "last_version": first}))
        .await;
    let state = a2.recv().await;
    assert_eq!(state["type"], "game_state", "{state}");
    assert_eq!(state["game"]["version"].as_u64(), Some(last));
    assert_eq!(
        state["game"]["moves"].as_array().map(Vec::len),
        Some(plies.len()),
        "{state}"
    );

    // From two versions ago: exactly the two events missed.
    let mut a3 = again(s.addr, &a.user).await;
    a3.send(json!({"type": "resume", "game_id": id, "last_version": last - 2}))
        .await;
    let mut replay = Vec::new();
    for v in [last - 1, last] {
        let e = a3.recv().await;
        assert_eq!(e["type"], "game_event", "{e}");
        assert_eq!(e["version"].as_u64(), Some(v));
        replay.push(e);
    }
    // The last carries White's legal moves, White being to move; the game goes on.
    assert!(
        replay[1]["event"]["legal_moves"]
            .as_array()
            .is_some_and(|m| !m.is_empty())
    );
    a3.send(json!({"type": "move", "game_id": id, "move": "Nh4", "move_id": 99}))
        .await;
    assert_eq!(
        a3.recv_type("move_ack").await["version"].as_u64(),
        Some(last + 1)
    );
}

#[tokio::test]
async fn connection_limit_answers_503() {
    let mut c = config();
    c.max_connections = 1;
    let s = start(c).await;
    let _a = Client::guest(s.addr, "Alice").await;
    let (token, _) = guest(s.addr, "Bob").await;
    assert_eq!(connect_raw(s.addr, &token).await.err(), Some(503));
}

#[tokio::test]
async fn graceful_shutdown_lets_games_finish() {
    let mut c = config();
    c.shutdown.grace_secs = 5;
    let s = start(c).await;
    let addr = s.addr;
    let (mut a, mut b, id) = game(addr, "russian", "3+2").await;
    let mut idle = Client::guest(addr, "Idle").await;
    s.server.shutdown();
    let waiter = tokio::spawn(s.server.wait());
    // Sessions without a game close; players keep playing.
    assert_eq!(idle.closed().await, (1001, "server shutting down".into()));
    a.send(json!({"type": "seek", "variant": "russian", "time_control": "3+2"}))
        .await;
    assert_eq!(a.recv_type("error").await["code"], "shutting_down");
    a.move_acked(&id, "c3-d4", 1).await;
    b.send(json!({"type": "resign", "game_id": id})).await;
    b.recv_event("game_over").await;
    // With no live game left the server stops well before the grace period ends.
    tokio::time::timeout(Duration::from_secs(3), waiter)
        .await
        .expect("stops")
        .unwrap()
        .unwrap();
    assert_eq!(a.closed().await.0, 1001);
}

#[tokio::test]
async fn a_resume_on_the_same_session_shows_the_opponent_nothing() {
    let s = start(config()).await;
    let (mut a, mut b, id) = game(s.addr, "russian", "3+2").await;
    a.send(json!({"type": "move", "game_id": id, "move": "c3-d4", "move_id": 1}))
        .await;
    let last = a.recv_type("move_ack").await["version"].as_u64().unwrap();
    b.recv_event("move").await;

    // Alice resumes the game her session already follows, twice.
    for _ in 0..2 {
        a.send(json!({"type": "resume", "game_id": id, "last_version": last}))
            .await;
    }
    // Bob moves: his move takes the very next version, so no player_left /
    // player_returned was emitted in between.
    b.send(json!({"type": "move", "game_id": id, "move": "f6-g5", "move_id": 1}))
        .await;
    let ack = b.recv_type("move_ack").await["version"].as_u64().unwrap();
    assert_eq!(ack, last + 1);
    // Alice's session sees nothing but that move, and the game goes on.
    let seen = a.recv_type("game_event").await;
    assert_eq!(seen["version"].as_u64(), Some(last + 1));
    assert_eq!(seen["event"]["kind"], "move");
    a.send(json!({"type": "move", "game_id": id, "move": "b2-c3", "move_id": 3}))
        .await;
    assert_eq!(
        a.recv_type("move_ack").await["version"].as_u64(),
        Some(last + 2)
    );
}

/// The node's `damka_socket_writes_total`.
async fn socket_writes(addr: std::net::SocketAddr) -> u64 {
    let (_, body) = http(addr, "GET", "/metrics", "").await;
    body.lines()
        .find_map(|l| l.strip_prefix("damka_socket_writes_total "))
        .and_then(|n| n.trim().parse().ok())
        .expect("the socket writes counter")
}

/// A move's `move_ack` leaves in the same socket write as the mover's own copy of the
/// move's event: the two arrive back to back, and a move costs one write to each player
/// (the ack had a write of its own before).
#[tokio::test]
async fn a_move_and_its_ack_leave_in_one_write() {
    let s = start(config()).await;
    let (mut a, mut b, id) = game(s.addr, "russian", "3+2").await;
    // What the game's start queued has been written.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = socket_writes(s.addr).await;
    let plies: u64 = 12;
    let mut next = "c3-d4".to_string();
    for ply in 0..plies {
        let (mover, other) = if ply % 2 == 0 {
            (&mut a, &mut b)
        } else {
            (&mut b, &mut a)
        };
        mover
            .send(json!({"type": "move", "game_id": id, "move": next, "move_id": ply}))
            .await;
        let event = mover.recv_type("game_event").await;
        assert_eq!(event["event"]["kind"], "move", "{event}");
        let ack = mover.recv().await;
        assert_eq!(ack["type"], "move_ack", "right after the event: {ack}");
        assert_eq!(ack["move_id"], ply);
        assert_eq!(ack["version"], event["version"]);
        let seen = other.recv_event("move").await;
        next = seen["event"]["legal_moves"][0]
            .as_str()
            .expect("the player to move gets its legal moves")
            .to_string();
    }
    let writes = socket_writes(s.addr).await - before;
    assert!(
        writes <= 2 * plies + 2,
        "{writes} socket writes for {plies} moves between two players"
    );
}
