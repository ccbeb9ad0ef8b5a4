//! Chat end to end over real WebSockets and a real database: a game's players' room and
//! its spectators' room (who may read and write which), lines stored and sent again on
//! joining after a reconnection; hostile lines (over-long, blank, control characters,
//! HTML, floods) refused or cleaned and never reaching anyone else; a blocked user's
//! lines not delivered and their challenges refused; reports; guests read only (no
//! lines, blocks or reports) and may be blocked; two nodes sharing Redis
//! and PostgreSQL, where a line said on one reaches a follower on the other and a
//! moderator on one deletes a line and times a user out on the other; and a game's chat
//! through the Board API (`POST`/`GET .../chat`, `chatLine` on its stream).

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{Client, bearer, config, register, request, start};
use damka::Config;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const REDIS: &str = "redis://127.0.0.1:6379";

/// A registered user connected over the WebSocket: (client, session token).
async fn member(addr: SocketAddr, name: &str) -> (Client, String) {
    let (token, id) = register(addr, name, "correct horse").await;
    (Client::with_token(addr, &token, &id).await, token)
}

/// `a` seeks, `b` accepts: the game's id (`a` plays White).
async fn play(a: &mut Client, b: &mut Client) -> String {
    a.send(json!({"type": "seek", "variant": "russian", "time_control": "5+0", "color": "white"}))
        .await;
    let seek = a.recv_type("seek_created").await;
    b.send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    let id = a.recv_type("game_start").await["game"]["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    b.recv_type("game_start").await;
    id
}

/// Skips messages until one of `kinds` (game traffic and the like in between).
async fn next_of(c: &mut Client, kinds: &[&str]) -> Value {
    loop {
        let v = c.recv().await;
        if kinds.iter().any(|k| v["type"] == *k) {
            return v;
        }
    }
}

/// Joins `room`; the `chat_history` answer.
async fn join(c: &mut Client, room: &str, after: Option<u64>) -> Value {
    let mut msg = json!({"type": "chat_join", "room": room});
    if let Some(after) = after {
        msg["after"] = after.into();
    }
    c.send(msg).await;
    next_of(c, &["chat_history", "error"]).await
}

/// Says `text` in `room`.
async fn say(c: &mut Client, room: &str, text: &str) {
    c.send(json!({"type": "chat_say", "room": room, "text": text}))
        .await;
}

/// The next chat line (or error).
async fn line(c: &mut Client) -> Value {
    next_of(c, &["chat_line", "error"]).await
}

fn texts(history: &Value) -> Vec<String> {
    history["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["text"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_spectators_talk_in_their_own_rooms_and_resume() {
    let server = start(config()).await;
    let addr = server.addr;
    let (mut alice, _) = member(addr, "Alice").await;
    let (mut bob, bob_token) = member(addr, "Bob").await;
    let (mut carol, _) = member(addr, "Carol").await;
    let mut guest = Client::guest(addr, "Dave").await;
    let game = play(&mut alice, &mut bob).await;
    let players = format!("game:{game}:player");
    let spectators = format!("game:{game}:spectator");

    let h = join(&mut alice, &players, None).await;
    assert_eq!(
        (
            h["lines"].as_array().unwrap().len(),
            h["writable"].as_bool()
        ),
        (0, Some(true)),
        "{h}"
    );
    join(&mut bob, &players, None).await;
    let refused = join(&mut carol, &players, None).await;
    assert_eq!(
        refused["code"], "chat_forbidden",
        "a spectator in the players' room: {refused}"
    );
    assert_eq!(join(&mut carol, &spectators, None).await["writable"], true);
    let g = join(&mut guest, &spectators, None).await;
    assert_eq!(g["writable"], false, "guests read only: {g}");

    say(&mut alice, &players, "Good luck!").await;
    for c in [&mut alice, &mut bob] {
        let l = line(c).await;
        assert_eq!(l["room"], players.as_str());
        assert_eq!(l["line"]["text"], "Good luck!", "{l}");
        assert_eq!(l["line"]["name"], "Alice");
        assert_eq!(l["line"]["seq"], 1);
    }
    say(&mut carol, &spectators, "Nice opening").await;
    for c in [&mut carol, &mut guest] {
        let l = line(c).await;
        assert_eq!(
            (l["room"].as_str(), l["line"]["text"].as_str()),
            (Some(spectators.as_str()), Some("Nice opening"))
        );
    }
    say(&mut guest, &spectators, "let me talk").await;
    let e = line(&mut guest).await;
    assert_eq!(e["code"], "chat_forbidden", "{e}");
    // Blocking and reporting are an account's: a guest is refused both and holds no
    // blocks; an account may block a guest, whose challenges are then refused.
    guest
        .send(json!({"type": "block", "user": carol.user}))
        .await;
    let e = next_of(&mut guest, &["error", "blocks"]).await;
    assert_eq!(e["code"], "chat_forbidden", "{e}");
    guest
        .send(json!({"type": "chat_report", "room": spectators, "seq": 1, "reason": "spam"}))
        .await;
    let e = next_of(&mut guest, &["error", "chat_reported"]).await;
    assert_eq!(e["code"], "chat_forbidden", "{e}");
    guest.send(json!({"type": "list_blocks"})).await;
    assert_eq!(next_of(&mut guest, &["blocks"]).await["users"], json!([]));
    carol
        .send(json!({"type": "block", "user": guest.user}))
        .await;
    assert_eq!(
        next_of(&mut carol, &["blocks"]).await["users"],
        json!([guest.user])
    );
    guest
        .send(json!({"type": "challenge", "user": carol.user, "variant": "russian", "time_control": "5+0"}))
        .await;
    let e = next_of(&mut guest, &["error", "challenge_sent"]).await;
    assert_eq!(e["code"], "blocked", "{e}");
    say(&mut alice, &players, "Thanks").await;
    assert_eq!(line(&mut bob).await["line"]["text"], "Thanks");
    say(&mut bob, &players, "You too").await;
    assert_eq!(line(&mut bob).await["line"]["text"], "You too");
    // Neither the spectators nor the guest heard the players, nor the refused line.
    say(&mut carol, &spectators, "end").await;
    assert_eq!(line(&mut guest).await["line"]["text"], "end");

    // Bob reconnects having seen line 1: he gets exactly what followed, from the store.
    drop(bob);
    let mut bob = Client::with_token(addr, &bob_token, "").await;
    let h = join(&mut bob, &players, Some(1)).await;
    assert_eq!(texts(&h), ["Thanks", "You too"], "{h}");
    assert_eq!(h["lines"][0]["seq"], 2);
    let all = join(&mut carol, &spectators, None).await;
    assert_eq!(texts(&all), ["Nice opening", "end"]);
    carol
        .send(json!({"type": "chat_report", "room": spectators, "seq": 1, "reason": "spam"}))
        .await;
    let r = next_of(&mut carol, &["chat_reported", "error"]).await;
    assert_eq!(
        (r["type"].as_str(), r["seq"].as_u64()),
        (Some("chat_reported"), Some(1)),
        "{r}"
    );
    carol
        .send(json!({"type": "chat_report", "room": spectators, "seq": 99}))
        .await;
    assert_eq!(
        next_of(&mut carol, &["error"]).await["code"],
        "chat_line_not_found"
    );
    let reports = server.server.app().db.chat_reports(10).await.unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!((reports[0].seq, reports[0].reason.as_str()), (1, "spam"));
    bob.send(json!({"type": "chat_join", "room": "game:x"}))
        .await;
    assert_eq!(
        next_of(&mut bob, &["error"]).await["code"],
        "invalid_message"
    );
    let e = join(&mut bob, "game:nosuchgame:spectator", None).await;
    assert_eq!(e["code"], "game_not_found");
    server.server.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_lines_are_cleaned_or_refused_and_reach_nobody() {
    let mut c = config();
    c.chat.burst = 5;
    c.chat.per_minute = 1;
    let server = start(c).await;
    let addr = server.addr;
    let (mut alice, _) = member(addr, "Mallory").await;
    let (mut bob, _) = member(addr, "Bob").await;
    let game = play(&mut alice, &mut bob).await;
    let room = format!("game:{game}:player");
    join(&mut alice, &room, None).await;
    join(&mut bob, &room, None).await;

    for (text, code) in [
        ("x".repeat(141), "bad_chat_line"),
        (String::new(), "bad_chat_line"),
        ("   \n\t ".into(), "bad_chat_line"),
        ("\u{0000}\u{200B}\u{202E}\u{FEFF}".into(), "bad_chat_line"),
        // Under the connection's frame cap (4096 bytes here), far over the line's.
        ("y".repeat(3_000), "bad_chat_line"),
    ] {
        say(&mut alice, &room, &text).await;
        let e = line(&mut alice).await;
        assert_eq!(e["code"], code, "{e}");
    }
    let long = "ж".repeat(140);
    let cases = [
        ("<script>alert(1)</script>", "<script>alert(1)</script>"),
        ("a\u{001b}[31mred\u{0007}\nline\u{202E}", "a[31mred line"),
        (long.as_str(), long.as_str()),
    ];
    for (sent, shown) in cases {
        say(&mut alice, &room, sent).await;
        let got = line(&mut bob).await;
        assert_eq!(got["line"]["text"], shown, "{got}");
    }
    // Three lines of the burst of five are used: two more pass, the rest of the flood
    // is refused and never reaches Bob.
    for i in 0..10 {
        say(&mut alice, &room, &format!("flood {i}")).await;
    }
    let mut refused = 0;
    let mut passed = 0;
    while refused + passed < 10 {
        let v = line(&mut alice).await;
        if v["type"] == "error" {
            assert_eq!(v["code"], "rate_limited", "{v}");
            refused += 1;
        } else if v["line"]["text"].as_str().unwrap().starts_with("flood") {
            passed += 1;
        }
    }
    assert_eq!((passed, refused), (2, 8));
    say(&mut bob, &room, "sentinel").await;
    let mut heard = Vec::new();
    loop {
        let v = line(&mut bob).await;
        let text = v["line"]["text"].as_str().unwrap().to_string();
        if text == "sentinel" {
            break;
        }
        heard.push(text);
    }
    assert_eq!(heard, ["flood 0", "flood 1"], "only the burst reached Bob");
    let stored = server
        .server
        .app()
        .db
        .chat_lines(&room, None, 100)
        .await
        .unwrap();
    assert_eq!(
        stored.len(),
        6,
        "three cases, two of the flood, the sentinel"
    );
    server.server.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_users_lines_and_challenges_never_reach_the_blocker() {
    let server = start(config()).await;
    let addr = server.addr;
    let (mut alice, _) = member(addr, "Alice").await;
    let (mut bob, _) = member(addr, "Bob").await;
    let (mut carol, _) = member(addr, "Carol").await;
    let game = play(&mut alice, &mut bob).await;
    let room = format!("game:{game}:spectator");
    for c in [&mut alice, &mut bob, &mut carol] {
        join(c, &room, None).await;
    }
    say(&mut alice, &room, "before the block").await;
    assert_eq!(line(&mut bob).await["line"]["text"], "before the block");
    assert_eq!(line(&mut carol).await["line"]["text"], "before the block");

    bob.send(json!({"type": "block", "user": alice.user})).await;
    let b = next_of(&mut bob, &["blocks"]).await;
    assert_eq!(b["users"], json!([alice.user]), "{b}");
    bob.send(json!({"type": "block", "user": bob.user})).await;
    assert_eq!(
        next_of(&mut bob, &["error"]).await["code"],
        "invalid_message"
    );
    say(&mut alice, &room, "you cannot hear me").await;
    assert_eq!(line(&mut carol).await["line"]["text"], "you cannot hear me");
    say(&mut carol, &room, "but me").await;
    let heard = line(&mut bob).await;
    assert_eq!(
        heard["line"]["text"], "but me",
        "Alice's line skipped: {heard}"
    );
    let h = join(&mut bob, &room, None).await;
    assert_eq!(texts(&h), ["but me"], "nor in the history: {h}");

    // Alice's challenge to Bob is refused; Carol's is not.
    let challenge = |to: &str| json!({"type": "challenge", "user": to, "variant": "russian", "time_control": "5+0"});
    alice.send(challenge(&bob.user)).await;
    let e = next_of(&mut alice, &["error", "challenge_sent"]).await;
    assert_eq!(e["code"], "blocked", "{e}");
    carol.send(challenge(&bob.user)).await;
    let sent = next_of(&mut carol, &["error", "challenge_sent"]).await;
    assert_eq!(sent["type"], "challenge_sent", "{sent}");

    // The block is stored: a new connection of Bob's lists it; unblocked, it is gone.
    bob.send(json!({"type": "list_blocks"})).await;
    assert_eq!(
        next_of(&mut bob, &["blocks"]).await["users"],
        json!([alice.user])
    );
    bob.send(json!({"type": "unblock", "user": alice.user}))
        .await;
    assert_eq!(next_of(&mut bob, &["blocks"]).await["users"], json!([]));
    say(&mut alice, &room, "hello again").await;
    assert_eq!(line(&mut bob).await["line"]["text"], "hello again");
    server.server.shutdown();
}

/// A node on the shared Redis under `prefix`, with `db` shared by the test's nodes.
fn node(name: &str, prefix: &str, db: &str, moderator: &str) -> Config {
    let mut c = config();
    c.node_id = name.into();
    c.redis.url = REDIS.into();
    c.redis.prefix = prefix.into();
    c.database.url = db.into();
    c.chat.moderators = vec![moderator.into()];
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_deletions_and_timeouts_cross_nodes() {
    let prefix = format!("{}:", common::redis_env::unique_prefix("chat"));
    let db = common::postgres_url().await;
    // The moderator's id is only known once registered: register on a node without
    // moderators first, then start the two nodes naming it.
    let first = start(node("chat-0", &prefix, &db, "")).await;
    let (mod_token, mod_id) = register(first.addr, "Warden", "correct horse").await;
    let (alice_token, alice_id) = register(first.addr, "Alice", "correct horse").await;
    let (bob_token, bob_id) = register(first.addr, "Bob", "correct horse").await;
    first.server.shutdown();
    let a = start(node("chat-a", &prefix, &db, &mod_id)).await;
    let b = start(node("chat-b", &prefix, &db, &mod_id)).await;
    let mut alice = Client::with_token(a.addr, &alice_token, &alice_id).await;
    let mut bob = Client::with_token(a.addr, &bob_token, &bob_id).await;
    let mut moderator = Client::with_token(b.addr, &mod_token, &mod_id).await;
    let game = play(&mut alice, &mut bob).await;
    let room = format!("game:{game}:spectator");
    join(&mut alice, &room, None).await;
    let h = join(&mut moderator, &room, None).await;
    assert_eq!(
        h["type"], "chat_history",
        "the game is found from node B: {h}"
    );

    say(&mut alice, &room, "rude words").await;
    let seen = line(&mut moderator).await;
    assert_eq!(
        seen["line"]["text"], "rude words",
        "node A's line on node B: {seen}"
    );
    let seq = seen["line"]["seq"].as_u64().unwrap();
    assert_eq!(
        line(&mut alice).await["line"]["text"],
        "rude words",
        "her own line"
    );
    say(&mut moderator, &room, "please be polite").await;
    let l = line(&mut alice).await;
    assert_eq!(
        l["line"]["text"], "please be polite",
        "node B's line on node A"
    );

    bob.send(json!({"type": "chat_delete", "room": room, "seq": seq}))
        .await;
    assert_eq!(
        next_of(&mut bob, &["error"]).await["code"],
        "not_a_moderator"
    );
    moderator
        .send(json!({"type": "chat_delete", "room": room, "seq": seq}))
        .await;
    let d = next_of(&mut alice, &["chat_deleted"]).await;
    assert_eq!(d["seq"].as_u64(), Some(seq), "{d}");
    let h = join(&mut alice, &room, None).await;
    assert_eq!(texts(&h), ["please be polite"], "deleted for good: {h}");

    moderator
        .send(json!({"type": "chat_timeout", "room": room, "user": alice_id, "minutes": 10}))
        .await;
    let t = next_of(&mut alice, &["chat_timed_out"]).await;
    assert_eq!(t["user"], alice_id.as_str(), "{t}");
    assert!(t["until_ms"].as_u64().unwrap() > 0);
    say(&mut alice, &room, "am I muted?").await;
    assert_eq!(line(&mut alice).await["code"], "timed_out");
    // On the other node too.
    let mut alice_b = Client::with_token(b.addr, &alice_token, &alice_id).await;
    say(&mut alice_b, &room, "and here?").await;
    assert_eq!(line(&mut alice_b).await["code"], "timed_out");
    a.server.shutdown();
    b.server.shutdown();
}

/// Makes a personal token; its secret.
async fn make_token(addr: SocketAddr, session: &str, scopes: &[&str]) -> String {
    let body = json!({ "description": "test", "scopes": scopes }).to_string();
    let (status, body) = request(addr, "POST", "/api/tokens", Some(session), &body).await;
    assert_eq!(status, 201, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    v["token"].as_str().unwrap().to_string()
}

/// The next `chatLine` of an NDJSON game stream.
async fn chat_line(stream: &mut TcpStream, buffer: &mut String) -> Value {
    ndjson_next(stream, buffer, "chatLine").await
}

/// The next line of type `kind` of an NDJSON stream, skipping others.
async fn ndjson_next(stream: &mut TcpStream, buffer: &mut String, kind: &str) -> Value {
    let wanted = async {
        loop {
            while let Some((l, rest)) = buffer.split_once('\n') {
                let l = l.trim().to_string();
                *buffer = rest.to_string();
                if l.starts_with('{') {
                    let v: Value = serde_json::from_str(&l).unwrap();
                    if v["type"] == kind {
                        return v;
                    }
                }
            }
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the stream ended");
            buffer.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    };
    tokio::time::timeout(Duration::from_secs(10), wanted)
        .await
        .unwrap_or_else(|_| panic!("no {kind} in time"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_api_says_reads_and_streams_chat_lines() {
    let server = start(config()).await;
    let addr = server.addr;
    let (mut alice, session) = member(addr, "Alice").await;
    let (mut bob, _) = member(addr, "Bob").await;
    let token = make_token(addr, &session, &["board:play"]).await;
    let game = play(&mut alice, &mut bob).await;
    let players = format!("game:{game}:player");
    join(&mut bob, &players, None).await;

    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "GET /api/board/game/stream/{game} HTTP/1.1\r\nHost: {addr}\r\n{}\r\n",
        bearer(Some(&token))
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut buffer = String::new();
    ndjson_next(&mut stream, &mut buffer, "gameFull").await;
    say(&mut bob, &players, "hello <b>board</b>").await;
    assert_eq!(line(&mut bob).await["line"]["text"], "hello <b>board</b>");
    let l = chat_line(&mut stream, &mut buffer).await;
    assert_eq!(
        l,
        json!({"type": "chatLine", "room": "player", "username": "Bob", "text": "hello <b>board</b>"})
    );

    let post = |body: Value| {
        let token = token.clone();
        let path = format!("/api/board/game/{game}/chat");
        async move { request(addr, "POST", &path, Some(&token), &body.to_string()).await }
    };
    let (status, body) = post(json!({"room": "player", "text": "Good luck!"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(line(&mut bob).await["line"]["text"], "Good luck!");
    let l = chat_line(&mut stream, &mut buffer).await;
    assert_eq!(
        (l["username"].as_str(), l["text"].as_str()),
        (Some("Alice"), Some("Good luck!"))
    );
    let (status, _) = post(json!({"room": "spectator", "text": "Hi watchers"})).await;
    assert_eq!(status, 200);
    let l = chat_line(&mut stream, &mut buffer).await;
    assert_eq!(
        (l["room"].as_str(), l["text"].as_str()),
        (Some("spectator"), Some("Hi watchers"))
    );
    let (status, body) = post(json!({"room": "referee", "text": "x"})).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = post(json!({"room": "player", "text": "  "})).await;
    assert_eq!(
        (status, body.contains("bad_chat_line")),
        (400, true),
        "{body}"
    );

    let path = format!("/api/board/game/{game}/chat");
    let (status, body) = request(addr, "GET", &path, Some(&token), "").await;
    assert_eq!(status, 200, "{body}");
    let lines: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        lines,
        json!([{"user": "Bob", "text": "hello <b>board</b>"}, {"user": "Alice", "text": "Good luck!"}])
    );
    // Not a player: no such game of theirs.
    let (carol_session, _) = register(addr, "Carol", "correct horse").await;
    let carol = make_token(addr, &carol_session, &["board:play"]).await;
    let (status, _) = request(addr, "GET", &path, Some(&carol), "").await;
    assert_eq!(status, 404);
    server.server.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arenas_room_is_open_to_all_and_unknown_places_are_refused() {
    let server = start(config()).await;
    let addr = server.addr;
    let (mut alice, _) = member(addr, "Alice").await;
    let (mut bob, _) = member(addr, "Bob").await;
    let mut guest = Client::guest(addr, "Dave").await;
    alice
        .send(json!({"type": "arena_create", "name": "Evening", "variant": "russian", "time_control": "3+2", "starts_in_secs": 600, "duration_secs": 3600}))
        .await;
    let created = next_of(&mut alice, &["arena_created", "error"]).await;
    let arena = created["arena"]["id"]
        .as_str()
        .expect("an arena")
        .to_string();
    let room = format!("arena:{arena}");
    for c in [&mut alice, &mut bob, &mut guest] {
        assert_eq!(join(c, &room, None).await["type"], "chat_history");
    }
    say(&mut bob, &room, "Who plays tonight?").await;
    for c in [&mut alice, &mut bob, &mut guest] {
        let l = line(c).await;
        assert_eq!(
            (l["room"].as_str(), l["line"]["text"].as_str()),
            (Some(room.as_str()), Some("Who plays tonight?"))
        );
    }
    say(&mut guest, &room, "me!").await;
    assert_eq!(line(&mut guest).await["code"], "chat_forbidden");
    assert_eq!(
        join(&mut bob, "arena:nosucharena", None).await["code"],
        "arena_not_found"
    );
    assert_eq!(
        join(&mut bob, "tournament:nosuch", None).await["code"],
        "tournament_not_found"
    );
    // Leaving twice: the second is refused.
    bob.send(json!({"type": "chat_leave", "room": room})).await;
    bob.send(json!({"type": "chat_leave", "room": room})).await;
    assert_eq!(next_of(&mut bob, &["error"]).await["code"], "not_watching");
    server.server.shutdown();
}
