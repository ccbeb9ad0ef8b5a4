//! The HTTP API's request budgets through real HTTP: a burst from one token ends in
//! `429 rate_limited` with `Retry-After: 60` and lichess's JSON error, while another
//! token, moves (their own budget) and requests outside `/api/` go on; requests without
//! a token are counted per client address.

mod common;

use std::net::SocketAddr;

use common::{config, register, start};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One request: status, the `Retry-After` header if any, and the body as JSON.
async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
) -> (u16, Option<String>, Value) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}Content-Length: 0\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(common::WAIT, stream.read_to_end(&mut response))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&response).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head[9..12].parse().unwrap();
    let retry_after = head.lines().find_map(|l| {
        l.to_ascii_lowercase()
            .strip_prefix("retry-after:")
            .map(|v| v.trim().to_string())
    });
    (
        status,
        retry_after,
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_is_refused_with_retry_after_and_other_budgets_go_on() {
    let mut c = config();
    c.api.requests_per_min = 1;
    c.api.requests_burst = 5;
    c.api.moves_per_min = 1;
    c.api.moves_burst = 3;
    let server = start(c).await;
    let addr = server.addr;
    // Two registrations: two of the address's five.
    let (alice, _) = register(addr, "Alice", "correct horse").await;
    let (bob, _) = register(addr, "Bobby", "correct horse").await;

    for i in 0..5 {
        let (status, retry, body) = send(addr, "GET", "/api/account", Some(&alice)).await;
        assert_eq!(status, 200, "request {i}: {body}");
        assert_eq!(retry, None);
    }
    let (status, retry, body) = send(addr, "GET", "/api/account", Some(&alice)).await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(retry.as_deref(), Some("60"));
    assert_eq!(body["code"], "rate_limited");
    assert!(
        body["error"].as_str().is_some_and(|e| e.contains("60")),
        "{body}"
    );

    // Another token is unaffected.
    let (status, _, body) = send(addr, "GET", "/api/account", Some(&bob)).await;
    assert_eq!(status, 200, "{body}");

    // Moves have their own budget: Alice's spent requests do not stop them (no such
    // game here, so each is answered as a move, not as a 429) until it is spent too.
    for i in 0..3 {
        let (status, _, body) =
            send(addr, "POST", "/api/bot/game/nogame/move/e2e4", Some(&alice)).await;
        assert_ne!(status, 429, "move {i}: {body}");
    }
    let (status, retry, body) =
        send(addr, "POST", "/api/bot/game/nogame/move/e2e4", Some(&alice)).await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(retry.as_deref(), Some("60"));

    // Without a token, the address: three more requests, then 429.
    for i in 0..3 {
        let (status, _, body) = send(addr, "GET", "/api/users/alice", None).await;
        assert_eq!(status, 200, "anonymous request {i}: {body}");
    }
    let (status, retry, body) = send(addr, "GET", "/api/users/alice", None).await;
    assert_eq!(status, 429, "{body}");
    assert_eq!(retry.as_deref(), Some("60"));
    assert_eq!(body["code"], "rate_limited");

    // Outside the API nothing is counted.
    let (status, _, _) = send(addr, "GET", "/healthz", None).await;
    assert_eq!(status, 200);
}

/// Every refusal is one `ErrorBody`: `code` and `message`, and lichess's `error` only on
/// the routes that always gave it (the API's own), not on the guest, tournament and
/// browser-client routes, whose bodies stay as they were.
#[tokio::test]
async fn refusals_keep_their_bodies() {
    let server = start(config()).await;
    let addr = server.addr;
    let keys = |body: &str| -> (String, Vec<String>) {
        let v: Value = serde_json::from_str(body).unwrap();
        let obj = v.as_object().unwrap();
        let code = obj["code"].as_str().unwrap().to_string();
        (code, obj.keys().cloned().collect())
    };
    let plain = ["code", "message"].map(String::from).to_vec();
    let lichess = ["code", "error", "message"].map(String::from).to_vec();
    let cases = [
        (
            "POST",
            "/api/auth/guest",
            "{}",
            400,
            "invalid_message",
            &plain,
        ),
        ("POST", "/api/replay", "{}", 400, "invalid_message", &plain),
        (
            "GET",
            "/api/tournaments/nope",
            "",
            404,
            "tournament_not_found",
            &plain,
        ),
        (
            "POST",
            "/api/tournaments",
            "{}",
            401,
            "unauthorized",
            &plain,
        ),
        (
            "POST",
            "/api/tournaments/nope/rounds",
            "",
            401,
            "unauthorized",
            &plain,
        ),
        (
            "GET",
            "/api/users/nobody/games?max=0",
            "",
            400,
            "bad_query",
            &lichess,
        ),
        ("GET", "/api/games/nope", "", 404, "not_found", &lichess),
    ];
    for (method, path, body, status, code, fields) in cases {
        let (got, text) = common::http(addr, method, path, body).await;
        assert_eq!(got, status, "{method} {path}: {text}");
        assert_eq!(
            keys(&text),
            (code.to_string(), fields.clone()),
            "{method} {path}"
        );
    }
}
