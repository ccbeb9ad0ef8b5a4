//! Behaviour a client written from docs/protocol.md alone relies on (issue 14): a
//! normal close is answered and frees the session, `tv` never follows a game twice,
//! `game_start` shows both players connected, keep-alives and `resume` do not use up
//! the flood limit, and tokens with control characters are refused with a stable 401.

mod common;

use std::time::Duration;

use common::{Client, SECRET, config, http, start, token};
use damka::auth::{Authenticator, Claims, unix_now};
use damka::config::Config;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// The `connections` count of /healthz.
async fn healthz_connections(addr: std::net::SocketAddr) -> u64 {
    let (status, body) = http(addr, "GET", "/healthz", "").await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    v["connections"].as_u64().unwrap()
}

#[tokio::test]
async fn a_client_close_is_answered_and_frees_the_session() {
    let srv = start(config()).await;
    let mut c = Client::guest(srv.addr, "Closer").await;
    assert_eq!(healthz_connections(srv.addr).await, 1);
    c.ws.send(Message::Close(Some(CloseFrame {
        code: CloseCode::Normal,
        reason: "bye".into(),
    })))
    .await
    .unwrap();
    // The server answers the close (RFC 6455 5.5.1) ...
    let reply = tokio::time::timeout(Duration::from_secs(3), c.ws.next())
        .await
        .expect("a close reply in time");
    match reply {
        Some(Ok(Message::Close(Some(f)))) => assert_eq!(f.code, CloseCode::Normal),
        other => panic!("expected a close frame, got {other:?}"),
    }
    // ... then ends the TCP connection.
    let end = tokio::time::timeout(Duration::from_secs(3), c.ws.next())
        .await
        .expect("the socket ends in time");
    assert!(
        matches!(end, None | Some(Err(_))),
        "the connection ends after the close: {end:?}"
    );
    // ... and frees the session.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        let n = healthz_connections(srv.addr).await;
        if n == 0 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "/healthz still counts {n} connection(s)"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A shutdown afterwards completes promptly.
    srv.server.shutdown();
    tokio::time::timeout(Duration::from_secs(5), srv.server.wait())
        .await
        .expect("the server stops in time")
        .unwrap();
}

/// The next game event other than a spectator count.
async fn next_event(c: &mut Client) -> Value {
    loop {
        let v = c.recv_type("game_event").await;
        if v["event"]["kind"] != "spectators" {
            return v;
        }
    }
}

#[tokio::test]
async fn tv_never_follows_a_game_twice() {
    let srv = start(config()).await;
    let (mut a, mut b, id) = common::game(srv.addr, "russian", "5+3").await;
    // Watch, then TV.
    let mut watcher = Client::guest(srv.addr, "Watcher").await;
    watcher.send(json!({"type": "watch", "game_id": id})).await;
    watcher.recv_type("game_state").await;
    watcher
        .send(json!({"type": "tv", "variant": "russian"}))
        .await;
    // Resume, then TV.
    let mut resumer = Client::guest(srv.addr, "Resumer").await;
    resumer
        .send(json!({"type": "resume", "game_id": id, "last_version": 0}))
        .await;
    resumer.recv_type("game_state").await;
    resumer
        .send(json!({"type": "tv", "variant": "russian"}))
        .await;
    // TV, then watch (refused: already followed) and resume (taken over from TV).
    let mut tv_first = Client::guest(srv.addr, "Telly").await;
    tv_first
        .send(json!({"type": "tv", "variant": "russian"}))
        .await;
    assert_eq!(
        tv_first.recv_type("game_state").await["game"]["game_id"],
        id.as_str()
    );
    tv_first.send(json!({"type": "watch", "game_id": id})).await;
    assert_eq!(
        tv_first.recv_type("error").await["code"],
        "already_watching"
    );
    tv_first
        .send(json!({"type": "resume", "game_id": id, "last_version": 0}))
        .await;
    tv_first.recv_type("game_state").await;
    // Let the TV tasks settle on the game.
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Each of the three counts once.
    let mut counter = Client::guest(srv.addr, "Counter").await;
    counter.send(json!({"type": "watch", "game_id": id})).await;
    let state = counter.recv_type("game_state").await;
    assert_eq!(state["game"]["spectators"], 4, "{state}");

    // And each gets every event once.
    a.send(json!({"type": "move", "game_id": id, "move": "c3-d4", "move_id": 1}))
        .await;
    b.recv_event("move").await;
    b.send(json!({"type": "move", "game_id": id, "move": "f6-g5", "move_id": 1}))
        .await;
    for c in [&mut watcher, &mut resumer, &mut tv_first] {
        let first = next_event(c).await;
        let second = next_event(c).await;
        assert_eq!(first["event"]["kind"], "move", "{}: {first}", c.user);
        assert_eq!(second["event"]["kind"], "move", "{}: {second}", c.user);
        assert_eq!(
            second["version"].as_u64().unwrap(),
            first["version"].as_u64().unwrap() + 1,
            "{}: {first} then {second}",
            c.user
        );
    }
}

#[tokio::test]
async fn game_start_shows_both_players_connected() {
    let srv = start(config()).await;
    for round in 0..5 {
        let mut a = Client::guest(srv.addr, &format!("Chal{round}")).await;
        let mut b = Client::guest(srv.addr, &format!("Acc{round}")).await;
        a.send(
            json!({"type": "challenge", "user": b.user, "variant": "russian",
            "time_control": "5+3"}),
        )
        .await;
        let sent = a.recv_type("challenge_sent").await;
        b.recv_type("challenge_received").await;
        b.send(json!({"type": "accept_challenge",
            "challenge_id": sent["challenge"]["challenge_id"]}))
            .await;
        let gb = b.recv_type("game_start").await;
        let ga = a.recv_type("game_start").await;
        assert_eq!(
            gb["game"]["connected"],
            json!([true, true]),
            "acceptor: {gb}"
        );
        assert_eq!(
            ga["game"]["connected"],
            json!([true, true]),
            "challenger: {ga}"
        );
    }
}

#[tokio::test]
async fn keepalives_and_resumes_do_not_use_up_the_flood_limit() {
    let mut cfg: Config = config();
    cfg.ws.rate_per_sec = 1.0;
    cfg.ws.rate_burst = 5.0;
    let srv = start(cfg).await;
    let mut c = Client::guest(srv.addr, "Reconn").await;
    // A reconnecting client: resumes of many games and keep-alives, well over the
    // burst of 5, then ordinary requests.
    for i in 0..20 {
        c.send(json!({"type": "resume", "game_id": format!("gone{i:04}"), "last_version": 3}))
            .await;
    }
    for i in 0..20 {
        c.send(json!({"type": "ping", "id": i})).await;
    }
    c.send(json!({"type": "list_seeks"})).await;
    let (mut errors, mut pongs) = (0, 0);
    loop {
        let v = c.recv().await;
        match v["type"].as_str() {
            Some("error") => {
                assert_eq!(v["code"], "game_not_found", "{v}");
                errors += 1;
            }
            Some("pong") => pongs += 1,
            Some("seeks") => break,
            _ => {}
        }
    }
    assert_eq!((errors, pongs), (20, 20));

    // Keep-alives have a limit of their own: a flood of them is still closed.
    let mut flood = Client::guest(srv.addr, "Flood").await;
    for i in 0..200 {
        let frame = Message::Text(json!({"type": "ping", "id": i}).to_string().into());
        if flood.ws.send(frame).await.is_err() {
            break;
        }
    }
    let (code, reason) = flood.closed().await;
    assert_eq!((code, reason.as_str()), (1008, "rate limit exceeded"));
}

/// An upgrade request to /ws with this token: status and body. `Connection: Upgrade,
/// close` makes the server close the connection after a refusal.
async fn upgrade(addr: std::net::SocketAddr, token: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET /ws HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer {token}\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(common::WAIT, stream.read_to_end(&mut response))
        .await
        .expect("the refusal in time")
        .unwrap();
    let text = String::from_utf8_lossy(&response).to_string();
    let status = text[9..12].parse().unwrap();
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_string())
}

fn signed(sub: &str, name: Option<&str>) -> String {
    let mut c = Config::defaults().auth;
    c.secret = SECRET.into();
    Authenticator::from_config(&c)
        .unwrap()
        .sign(&Claims {
            sub: sub.into(),
            name: name.map(String::from),
            exp: unix_now() + 600,
            iat: unix_now(),
            iss: "damka".into(),
            aud: "damka".into(),
            guest: false,
        })
        .unwrap()
}

#[tokio::test]
async fn tokens_with_control_characters_are_refused_with_a_stable_401() {
    let srv = start(config()).await;
    // The token helper works: a plain subject upgrades.
    assert!(
        common::connect_raw(srv.addr, &token("plain", unix_now() + 600))
            .await
            .is_ok()
    );
    for sub in [
        "nul\u{0}user",
        "evil\u{202E}txt",
        "iso\u{2066}late",
        "line\nfeed",
    ] {
        let (status, body) = upgrade(srv.addr, &signed(sub, None)).await;
        assert_eq!(status, 401, "{sub:?}: {body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["code"], "unauthorized", "{body}");
        assert_eq!(
            v["message"],
            "invalid token: the `sub` claim is empty, too long or holds control characters"
        );
    }
    let (status, body) = upgrade(srv.addr, &signed("okay", Some("Ann\u{202E}aid"))).await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("`name` claim"), "{body}");

    // Bad signature, garbage: a short stable message, nothing from the JWT library.
    let good = token("someone", unix_now() + 600);
    let forged = format!("{}x", &good[..good.len() - 1]);
    for bad in [forged.as_str(), "not.a.token", "garbage"] {
        let (status, body) = upgrade(srv.addr, bad).await;
        assert_eq!(status, 401, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            v,
            json!({"code": "unauthorized", "message": "invalid token"})
        );
    }
    // An expired token keeps its own code.
    let (status, body) = upgrade(srv.addr, &token("late", unix_now() - 600)).await;
    assert_eq!(status, 401);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["code"], "token_expired", "{body}");
}
