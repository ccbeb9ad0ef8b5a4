//! Hostile inputs, each answered as docs/protocol.md says, with the server still
//! serving others and the game unchanged.

mod common;

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::*;
use damka::auth::unix_now;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

/// What a hostile input must produce.
enum Expect {
    /// An `error` frame with this code; the session stays open.
    Error(&'static str),
    /// A close frame with this code.
    Close(u16),
}

#[tokio::test]
async fn hostile_frames() {
    let s = start(config()).await;
    let (mut a, mut b, id) = game(s.addr, "russian", "3+2").await;
    a.send(json!({"type": "move", "game_id": id, "move": "c3-d4", "move_id": 1}))
        .await;
    a.recv_type("move_ack").await;

    let big = "x".repeat(8192);
    let table: Vec<(&str, Message, Expect)> = vec![
        (
            "bad json",
            Message::Text("{\"type\":".into()),
            Expect::Error("bad_json"),
        ),
        (
            "not an object",
            Message::Text("[1,2]".into()),
            Expect::Error("missing_type"),
        ),
        (
            "unknown type",
            Message::Text(r#"{"type":"teleport"}"#.into()),
            Expect::Error("unknown_type"),
        ),
        (
            "missing field",
            Message::Text(r#"{"type":"move","game_id":"x"}"#.into()),
            Expect::Error("invalid_message"),
        ),
        (
            "wrong field type",
            Message::Text(r#"{"type":"move","game_id":"x","move":5,"move_id":1}"#.into()),
            Expect::Error("invalid_message"),
        ),
        (
            "bad time control",
            Message::Text(r#"{"type":"seek","variant":"russian","time_control":"forever"}"#.into()),
            Expect::Error("invalid_message"),
        ),
        (
            "unknown variant",
            Message::Text(r#"{"type":"seek","variant":"go","time_control":"3+2"}"#.into()),
            Expect::Error("invalid_message"),
        ),
        (
            "binary frame",
            Message::Binary(vec![0, 1, 2].into()),
            Expect::Error("bad_json"),
        ),
        (
            "unknown game",
            Message::Text(r#"{"type":"resign","game_id":"nope"}"#.into()),
            Expect::Error("game_not_found"),
        ),
        (
            "deep nesting",
            Message::Text(format!("{}{}", "[".repeat(1000), "]".repeat(1000)).into()),
            Expect::Error("bad_json"),
        ),
        (
            "oversized frame",
            Message::Text(format!(r#"{{"type":"ping","id":1,"pad":"{big}"}}"#).into()),
            Expect::Close(1009),
        ),
    ];
    for (name, frame, expect) in table {
        let mut c = Client::guest(s.addr, "Mallory").await;
        c.send_raw(frame).await;
        match expect {
            Expect::Error(code) => {
                let e = c.recv().await;
                assert_eq!(
                    (e["type"].as_str(), e["code"].as_str()),
                    (Some("error"), Some(code)),
                    "{name}: {e}"
                );
                assert!(
                    e["message"].as_str().is_some_and(|m| !m.is_empty()),
                    "{name}"
                );
                // Still served.
                c.send(json!({"type": "ping", "id": 5})).await;
                assert_eq!(c.recv_type("pong").await["id"], 5, "{name}");
            }
            Expect::Close(code) => assert_eq!(c.closed().await.0, code, "{name}"),
        }
    }

    // Flood: far more frames than the burst allows closes with 1008.
    let mut f = Client::guest(s.addr, "Flood").await;
    for i in 0..300 {
        if f.ws_send_quiet(json!({"type": "ping", "id": i}))
            .await
            .is_err()
        {
            break;
        }
    }
    let (code, reason) = f.closed_skipping_messages().await;
    assert_eq!((code, reason.as_str()), (1008, "rate limit exceeded"));

    // The game is unchanged and its players are still served.
    b.send(json!({"type": "move", "game_id": id, "move": "f6-g5", "move_id": 1}))
        .await;
    let ack = b.recv_type("move_ack").await;
    let mut w = Client::guest(s.addr, "Watcher").await;
    w.send(json!({"type": "watch", "game_id": id})).await;
    let st = w.recv_type("game_state").await;
    assert_eq!(st["game"]["moves"], json!(["c3-d4", "f6-g5"]));
    assert!(st["game"]["version"].as_u64() >= ack["version"].as_u64());
    let (_, metrics) = http(s.addr, "GET", "/metrics", "").await;
    assert!(
        metrics.contains("damka_rate_limited_total 1\n"),
        "{metrics}"
    );
    assert!(
        metrics.contains("damka_oversized_messages_total 1\n"),
        "{metrics}"
    );
}

fn forge(header: serde_json::Value, claims: serde_json::Value, signature: &str) -> String {
    format!(
        "{}.{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string()),
        signature
    )
}

#[tokio::test]
async fn hostile_tokens() {
    let s = start(config()).await;
    let claims = json!({"sub": "mallory", "exp": unix_now() + 600, "iss": "damka", "aud": "damka"});
    let mut other = damka::Config::defaults().auth;
    other.secret = "not-the-server-secret".into();
    let forged = damka::auth::Authenticator::from_config(&other)
        .unwrap()
        .sign(&damka::auth::Claims {
            sub: "mallory".into(),
            name: None,
            exp: unix_now() + 600,
            iat: 0,
            iss: "damka".into(),
            aud: "damka".into(),
            guest: false,
        })
        .unwrap();
    let valid = token("mallory", unix_now() + 600);
    let mut tampered: Vec<&str> = valid.split('.').collect();
    let evil_claims = URL_SAFE_NO_PAD.encode(
        json!({"sub": "admin", "exp": unix_now() + 600, "iss": "damka", "aud": "damka"})
            .to_string(),
    );
    tampered[1] = &evil_claims;
    let table: Vec<(&str, String, u16)> = vec![
        ("no token", String::new(), 401),
        ("garbage", "garbage".into(), 401),
        ("forged signature", forged, 401),
        ("tampered claims", tampered.join("."), 401),
        ("expired", token("mallory", unix_now() - 60), 401),
        (
            "alg none",
            forge(json!({"alg": "none", "typ": "JWT"}), claims.clone(), ""),
            401,
        ),
        (
            "alg none, uppercase",
            forge(json!({"alg": "NONE"}), claims.clone(), ""),
            401,
        ),
        (
            "other algorithm",
            forge(json!({"alg": "HS512"}), claims.clone(), "AAAA"),
            401,
        ),
        (
            "wrong audience",
            {
                let mut c = damka::Config::defaults().auth;
                c.secret = SECRET.into();
                c.audience = "elsewhere".into();
                damka::auth::Authenticator::from_config(&c)
                    .unwrap()
                    .sign(&damka::auth::Claims {
                        sub: "m".into(),
                        name: None,
                        exp: unix_now() + 600,
                        iat: 0,
                        iss: "damka".into(),
                        aud: "elsewhere".into(),
                        guest: false,
                    })
                    .unwrap()
            },
            401,
        ),
    ];
    for (name, tok, status) in table {
        let result = if tok.is_empty() {
            tokio_tungstenite::connect_async(format!("ws://{}/ws", s.addr))
                .await
                .map(|_| ())
                .map_err(|e| match e {
                    tokio_tungstenite::tungstenite::Error::Http(r) => r.status().as_u16(),
                    e => panic!("{e}"),
                })
        } else {
            connect_raw(s.addr, &tok).await.map(|_| ())
        };
        assert_eq!(result.err(), Some(status), "{name}");
    }
    let (_, metrics) = http(s.addr, "GET", "/metrics", "").await;
    assert!(
        metrics.contains("damka_auth_failures_total 9\n"),
        "{metrics}"
    );
    // Still serving.
    let _ok = Client::guest(s.addr, "Alice").await;
}

#[tokio::test]
async fn token_expiring_mid_session_closes_4001() {
    let s = start(config()).await;
    let tok = token("shortlived", unix_now() + 2);
    let mut c = Client {
        ws: connect_raw(s.addr, &tok).await.unwrap(),
        user: "shortlived".into(),
    };
    c.send(json!({"type": "hello", "protocol": 1})).await;
    c.recv_type("welcome").await;
    // A refresh naming another user is refused; the session goes on until expiry.
    c.send(json!({"type": "auth", "token": token("someone-else", unix_now() + 600)}))
        .await;
    assert_eq!(c.recv_type("error").await["code"], "user_mismatch");
    let (code, reason) = tokio::time::timeout(Duration::from_secs(4), c.closed())
        .await
        .unwrap();
    assert_eq!((code, reason.as_str()), (4001, "token expired"));
}

#[tokio::test]
async fn refreshed_token_extends_session() {
    let s = start(config()).await;
    let mut c = Client {
        ws: connect_raw(s.addr, &token("renewer", unix_now() + 2))
            .await
            .unwrap(),
        user: "renewer".into(),
    };
    c.send(json!({"type": "hello", "protocol": 1})).await;
    c.recv_type("welcome").await;
    c.send(json!({"type": "auth", "token": token("renewer", unix_now() + 600)}))
        .await;
    c.recv_type("auth_ok").await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    c.send(json!({"type": "ping", "id": 3})).await;
    assert_eq!(c.recv_type("pong").await["id"], 3);
}

/// A client that upgrades by hand and then never writes again (so never answers a
/// ping), reading raw frames until the server's close frame.
async fn silent_client(addr: std::net::SocketAddr, token: &str, hello: bool) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET /ws?token={token} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        tcp.read_exact(&mut byte).await.unwrap();
        buf.push(byte[0]);
    }
    assert!(
        buf.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&buf)
    );
    if hello {
        // One masked text frame (mask key 0 keeps the payload as is).
        let payload = br#"{"type":"hello","protocol":1}"#;
        let mut frame = vec![0x81, 0x80 | payload.len() as u8, 0, 0, 0, 0];
        frame.extend_from_slice(payload);
        tcp.write_all(&frame).await.unwrap();
    }
    loop {
        let mut head = [0u8; 2];
        tokio::time::timeout(WAIT, tcp.read_exact(&mut head))
            .await
            .unwrap()
            .unwrap();
        let len = match head[1] & 0x7f {
            126 => {
                let mut l = [0u8; 2];
                tcp.read_exact(&mut l).await.unwrap();
                usize::from(u16::from_be_bytes(l))
            }
            n => usize::from(n),
        };
        let mut body = vec![0u8; len];
        tcp.read_exact(&mut body).await.unwrap();
        if head[0] & 0x0f == 0x8 {
            let code = u16::from_be_bytes([body[0], body[1]]);
            return (code, String::from_utf8_lossy(&body[2..]).to_string());
        }
    }
}

#[tokio::test]
async fn silent_clients_are_reaped() {
    let mut cfg = config();
    cfg.ws.ping_interval_ms = 100;
    cfg.ws.ping_timeout_ms = 300;
    cfg.ws.hello_timeout_ms = 200;
    let s = start(cfg).await;
    let (tok, _) = guest(s.addr, "Shy").await;
    assert_eq!(
        silent_client(s.addr, &tok, false).await,
        (4005, "hello timeout".into())
    );
    let (tok, _) = guest(s.addr, "Sleepy").await;
    assert_eq!(
        silent_client(s.addr, &tok, true).await,
        (4004, "ping timeout".into())
    );
    let (_, metrics) = http(s.addr, "GET", "/metrics", "").await;
    assert!(
        metrics.contains("damka_ping_timeouts_total 1\n"),
        "{metrics}"
    );
}

impl Client {
    /// Sends without panicking when the server has already closed.
    async fn ws_send_quiet(&mut self, v: serde_json::Value) -> Result<(), ()> {
        use futures_util::SinkExt;
        self.ws
            .send(Message::Text(v.to_string().into()))
            .await
            .map_err(|_| ())
    }

    /// The close frame, skipping any messages before it.
    async fn closed_skipping_messages(&mut self) -> (u16, String) {
        expect_close(&mut self.ws).await
    }
}
