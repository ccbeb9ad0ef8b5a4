//! Session tokens end everywhere, on two `damka` nodes sharing Redis and one database:
//! logging out ends the one token it is sent with, a password change (the old password
//! checked, the new one stored as registration stores it) and "log out everywhere" end
//! every session token of the account. The WebSocket sessions of the tokens ended close
//! with 4006 `session ended` on both nodes within a second (the other node hears it over
//! the Redis bus), the tokens are refused over HTTP and for a new WebSocket on the other
//! node at once, and the sessions of other tokens stay open. The API's NDJSON streams
//! (event stream, board game stream, board seek) end likewise when the token they were
//! opened with is revoked (`DELETE /api/tokens/{id}`, `DELETE /api/token`) or its
//! session ends, while the streams of the account's other tokens go on.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::node::{Node, spawn_node};
use common::{Client, connect_raw, login, register, request};
use serde_json::{Value, json};
use shared::protocol::close;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How soon a revocation must reach every node.
const WITHIN: Duration = Duration::from_secs(1);

fn nodes() -> (Node, Node) {
    let prefix = common::redis_env::unique_prefix("sessions");
    let db = common::sqlite_url();
    (
        spawn_node("s1", &prefix, &db, &[]),
        spawn_node("s2", &prefix, &db, &[]),
    )
}

/// A session past `hello`, as the browser opens one.
async fn open(addr: SocketAddr, token: &str, user: &str) -> Client {
    Client::with_token(addr, token, user).await
}

/// Waits for the session's close: 4006 `session ended` within [`WITHIN`] of `since`.
async fn ends(client: &mut Client, since: Instant) {
    let (code, reason) = client.closed().await;
    assert_eq!(
        (code, reason.as_str()),
        (close::SESSION_ENDED, "session ended")
    );
    let took = since.elapsed();
    assert!(took < WITHIN, "the session closed after {took:?}");
}

/// The session still answers: a protocol ping gets its pong.
async fn still_open(client: &mut Client) {
    client.send(json!({"type": "ping", "id": 7})).await;
    let pong = client.recv_type("pong").await;
    assert_eq!(pong["id"], 7);
}

async fn account_status(addr: SocketAddr, token: &str) -> u16 {
    request(addr, "GET", "/api/account", Some(token), "")
        .await
        .0
}

/// A login in a later second than `after`'s token: a token of its own (tokens of one
/// second are the same bytes).
async fn fresh_login(addr: SocketAddr, name: &str, password: &str) -> String {
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (status, body) = login(addr, name, password).await;
    assert_eq!(status, 200, "{body}");
    body["token"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logout_password_change_and_logout_everywhere_end_sessions_on_every_node() {
    let (n1, n2) = nodes();
    let (first, user) = register(n1.addr, "Reva", "correct horse").await;
    let second = fresh_login(n1.addr, "Reva", "correct horse").await;
    assert_ne!(first, second);
    let mut first_on_2 = open(n2.addr, &first, &user).await;
    let mut second_on_1 = open(n1.addr, &second, &user).await;
    let mut second_on_2 = open(n2.addr, &second, &user).await;

    // Logging out on n1 ends the first token: its session on n2 closes, the second's stay.
    let at = Instant::now();
    let (status, body) = request(n1.addr, "POST", "/api/account/logout", Some(&first), "").await;
    assert_eq!(status, 200, "{body}");
    ends(&mut first_on_2, at).await;
    assert_eq!(account_status(n2.addr, &first).await, 401);
    assert_eq!(connect_raw(n2.addr, &first).await.err(), Some(401));
    assert_eq!(account_status(n2.addr, &second).await, 200);
    still_open(&mut second_on_1).await;
    still_open(&mut second_on_2).await;

    // A wrong old password or a weak new one changes nothing.
    let change =
        |old: &str, new: &str| json!({ "old_password": old, "new_password": new }).to_string();
    let path = "/api/account/password";
    let (status, body) = request(
        n2.addr,
        "POST",
        path,
        Some(&second),
        &change("wrong horse", "battery staple 9"),
    )
    .await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("wrong_password"), "{body}");
    let (status, body) = request(
        n2.addr,
        "POST",
        path,
        Some(&second),
        &change("correct horse", "short"),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("bad_password"), "{body}");
    let (status, body) = request(n2.addr, "POST", path, Some(&second), "{\"old\": 1}").await;
    assert_eq!(status, 400, "{body}");
    still_open(&mut second_on_1).await;
    assert_eq!(login(n1.addr, "Reva", "correct horse").await.0, 200);

    // The change on n2 ends the second token on both nodes; its answer is a fresh token.
    let (status, body) = request(
        n2.addr,
        "POST",
        path,
        Some(&second),
        &change("correct horse", "battery staple 9"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    let third = answer["token"].as_str().unwrap().to_string();
    // The answer waits for the end of the second of the change (tokens are dated in
    // whole seconds): the closes were sent before it.
    let at = Instant::now();
    ends(&mut second_on_1, at).await;
    ends(&mut second_on_2, at).await;
    assert_eq!(account_status(n1.addr, &second).await, 401);
    assert_eq!(account_status(n1.addr, &third).await, 200);
    assert_eq!(login(n2.addr, "Reva", "correct horse").await.0, 401);
    let fourth = fresh_login(n2.addr, "Reva", "battery staple 9").await;

    // Logging out everywhere from n2 ends the third and fourth tokens on n1 too.
    let mut third_on_1 = open(n1.addr, &third, &user).await;
    let mut fourth_on_1 = open(n1.addr, &fourth, &user).await;
    let everywhere = "/api/account/logout-everywhere";
    let at = Instant::now();
    let (status, body) = request(n2.addr, "POST", everywhere, Some(&fourth), "").await;
    assert_eq!(status, 200, "{body}");
    ends(&mut third_on_1, at).await;
    ends(&mut fourth_on_1, at).await;
    assert_eq!(account_status(n1.addr, &third).await, 401);
    assert_eq!(connect_raw(n1.addr, &fourth).await.err(), Some(401));
}

/// Opens /ws with the token in the query, as the browser does; the HTTP status on refusal.
async fn connect_query(addr: SocketAddr, token: &str) -> Result<(), u16> {
    let url = format!("ws://{addr}/ws?token={token}");
    match tokio_tungstenite::connect_async(url).await {
        Ok(_) => Ok(()),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(e) => panic!("connect failed: {e}"),
    }
}

/// Sends `auth` with `token`: its answer, `auth_ok` or `error`.
async fn auth(session: &mut Client, token: &str) -> Value {
    session.send(json!({"type": "auth", "token": token})).await;
    loop {
        let v = session.recv().await;
        if v["type"] == "auth_ok" || v["type"] == "error" {
            return v;
        }
    }
}

/// An ended token is refused on both nodes within [`WITHIN`] of `since`: no upgrade
/// (the token in the header or in the query: `401`), and an `auth` with it in
/// `session` (open on one of them) is answered `unauthorized`, saying the session was
/// ended, while the session goes on.
async fn refused(nodes: [SocketAddr; 2], token: &str, session: &mut Client, since: Instant) {
    for addr in nodes {
        assert_eq!(connect_raw(addr, token).await.err(), Some(401));
        assert_eq!(connect_query(addr, token).await.err(), Some(401));
    }
    let answer = auth(session, token).await;
    assert_eq!(answer["type"], "error", "{answer}");
    assert_eq!(answer["code"], "unauthorized", "{answer}");
    let message = answer["message"].as_str().unwrap();
    assert!(message.contains("session was ended"), "{message}");
    let took = since.elapsed();
    assert!(took < WITHIN, "refused everywhere only after {took:?}");
    still_open(session).await;
}

/// A live token of the same user is taken: `auth_ok` with its expiry.
async fn reauthenticates(session: &mut Client, token: &str) {
    let answer = auth(session, token).await;
    assert_eq!(answer["type"], "auth_ok", "{answer}");
    assert!(answer["token_expires_at"].as_u64().unwrap() > 0, "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ended_session_tokens_open_no_websocket_and_auth_refuses_them_on_every_node() {
    let (n1, n2) = nodes();
    let both = [n1.addr, n2.addr];
    let (first, user) = register(n1.addr, "Reva", "correct horse").await;
    let second = fresh_login(n1.addr, "Reva", "correct horse").await;
    let third = fresh_login(n2.addr, "Reva", "correct horse").await;
    let mut on_1 = open(n1.addr, &third, &user).await;

    // Logged out on n2: the first token is refused at once on both nodes, in an upgrade
    // and in the `auth` of the session on n1, which keeps its own token.
    let (status, body) = request(n2.addr, "POST", "/api/account/logout", Some(&first), "").await;
    assert_eq!(status, 200, "{body}");
    refused(both, &first, &mut on_1, Instant::now()).await;
    // A live token is taken; then the token the session had may end without closing it.
    reauthenticates(&mut on_1, &second).await;
    let (status, body) = request(n2.addr, "POST", "/api/account/logout", Some(&third), "").await;
    assert_eq!(status, 200, "{body}");
    refused(both, &third, &mut on_1, Instant::now()).await;

    // A password change on n2 ends the second token (the session on n1 with it closes);
    // a session with the fresh token refuses the second and third.
    let change = json!({"old_password": "correct horse", "new_password": "battery staple 9"});
    let path = "/api/account/password";
    let (status, body) = request(n2.addr, "POST", path, Some(&second), &change.to_string()).await;
    assert_eq!(status, 200, "{body}");
    let changed = Instant::now();
    let fourth = serde_json::from_str::<Value>(&body).unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    ends(&mut on_1, changed).await;
    let mut on_2 = open(n2.addr, &fourth, &user).await;
    refused(both, &second, &mut on_2, changed).await;
    let mut on_1 = open(n1.addr, &fourth, &user).await;
    refused(both, &third, &mut on_1, Instant::now()).await;

    // Logged out everywhere from n1: after a fresh login, the fourth token and a fifth
    // made before it are refused on both nodes.
    let fifth = fresh_login(n1.addr, "Reva", "battery staple 9").await;
    let everywhere = "/api/account/logout-everywhere";
    let (status, body) = request(n1.addr, "POST", everywhere, Some(&fifth), "").await;
    assert_eq!(status, 200, "{body}");
    let at = Instant::now();
    ends(&mut on_1, at).await;
    ends(&mut on_2, at).await;
    let sixth = fresh_login(n2.addr, "Reva", "battery staple 9").await;
    let mut on_2 = open(n2.addr, &sixth, &user).await;
    let at = Instant::now();
    refused(both, &fourth, &mut on_2, at).await;
    refused(both, &fifth, &mut on_2, at).await;
    reauthenticates(&mut on_2, &sixth).await;
    still_open(&mut on_2).await;
}

/// Makes a personal token with the Board API's scopes: (secret, id).
async fn personal_token(addr: SocketAddr, session: &str) -> (String, String) {
    let scopes = ["board:play", "challenge:read", "challenge:write"];
    let body = json!({ "description": "board app", "scopes": scopes }).to_string();
    let (status, body) = request(addr, "POST", "/api/tokens", Some(session), &body).await;
    assert_eq!(status, 201, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    let field = |k: &str| v[k].as_str().unwrap().to_string();
    (field("token"), field("id"))
}

/// Waits until `name` shows online (an event stream makes its account online).
async fn online(addr: SocketAddr, name: &str) {
    let path = format!("/api/users/status?ids={name}");
    for _ in 0..50 {
        let (status, body) = request(addr, "GET", &path, None, "").await;
        assert_eq!(status, 200, "{body}");
        if serde_json::from_str::<Value>(&body).unwrap()[0]["online"] == true {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{name} is not online");
}

/// An NDJSON answer read as it comes (chunk sizes and keep-alive newlines skipped).
struct Ndjson {
    stream: TcpStream,
    seen: String,
}

impl Ndjson {
    /// `GET path` with `token`, once the answer's head says 200 NDJSON.
    async fn get(addr: SocketAddr, path: &str, token: &str) -> Ndjson {
        let head =
            format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\r\n");
        Ndjson::open(addr, &head).await
    }

    /// `POST /api/board/seek` with the form `form`, held open.
    async fn seek(addr: SocketAddr, token: &str, form: &str) -> Ndjson {
        let head = format!(
            "POST /api/board/seek HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
            form.len()
        );
        Ndjson::open(addr, &head).await
    }

    async fn open(addr: SocketAddr, request: &str) -> Ndjson {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut ndjson = Ndjson {
            stream,
            seen: String::new(),
        };
        while !ndjson.seen.contains("\r\n\r\n") {
            assert!(
                ndjson.read().await,
                "closed before answering: {}",
                ndjson.seen
            );
        }
        let (head, body) = ndjson.seen.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(head.contains("application/x-ndjson"), "{head}");
        ndjson.seen = body.to_string();
        ndjson
    }

    /// Reads more within 10 s; `false` once the connection is closed.
    async fn read(&mut self) -> bool {
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(10), self.stream.read(&mut chunk))
            .await
            .expect("more in time")
            .unwrap_or(0);
        self.seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
        n > 0
    }

    /// The next JSON line of type `kind`, skipping others.
    async fn next_of(&mut self, kind: &str) -> Value {
        loop {
            while let Some((line, rest)) = self.seen.split_once('\n') {
                let line = line.trim().to_string();
                self.seen = rest.to_string();
                if line.starts_with('{') {
                    let v: Value = serde_json::from_str(&line).unwrap();
                    if v["type"] == kind {
                        return v;
                    }
                }
            }
            assert!(self.read().await, "the stream ended before a {kind} line");
        }
    }

    /// The answer ends (its last chunk, or the connection closed) within [`WITHIN`] of
    /// `since`.
    async fn ends(&mut self, since: Instant) {
        let end = async {
            while !self.seen.ends_with("0\r\n\r\n") {
                if !self.read().await {
                    break;
                }
            }
        };
        // Keep-alive newlines come every few seconds: the wait is bounded as a whole.
        let left = WITHIN.saturating_sub(since.elapsed());
        let ended = tokio::time::timeout(left, end).await;
        assert!(ended.is_ok(), "the stream still runs {WITHIN:?} on");
        let took = since.elapsed();
        assert!(took < WITHIN, "the stream ended after {took:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_streams_end_with_their_token_on_every_node() {
    let (n1, n2) = nodes();
    let (session, _) = register(n1.addr, "Reva", "correct horse").await;
    let (first, first_id) = personal_token(n1.addr, &session).await;
    let (second, _) = personal_token(n1.addr, &session).await;
    let (olga, _) = register(n1.addr, "Olga", "correct horse").await;

    // Olga online (her event stream on n2, with her session token), a seek held on n2
    // with the first token, then a game against Olga.
    let mut olga_events = Ndjson::get(n2.addr, "/api/stream/event", &olga).await;
    online(n1.addr, "olga").await;
    let form = "rated=false&time=3&increment=2&variant=standard";
    let mut seek = Ndjson::seek(n2.addr, &first, form).await;
    let challenge = json!({ "rated": false, "clock.limit": 60, "clock.increment": 1 });
    let (status, body) = request(
        n1.addr,
        "POST",
        "/api/challenge/Olga",
        Some(&first),
        &challenge.to_string(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let game_id = serde_json::from_str::<Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let accept = format!("/api/challenge/{game_id}/accept");
    let (status, body) = request(n1.addr, "POST", &accept, Some(&olga), "").await;
    assert_eq!(status, 200, "{body}");

    // On n2: an event stream and the game's stream with each token.
    let game_path = format!("/api/board/game/stream/{game_id}");
    let mut streams = Vec::new();
    for token in [&first, &second] {
        let mut events = Ndjson::get(n2.addr, "/api/stream/event", token).await;
        events.next_of("gameStart").await;
        let mut game = Ndjson::get(n2.addr, &game_path, token).await;
        game.next_of("gameFull").await;
        streams.push((events, game));
    }
    olga_events.next_of("gameStart").await;
    let (mut second_events, mut second_game) = streams.pop().unwrap();
    let (mut first_events, mut first_game) = streams.pop().unwrap();

    // The first token revoked on n1: its three streams on n2 end within a second.
    let at = Instant::now();
    let revoke = format!("/api/tokens/{first_id}");
    let (status, body) = request(n1.addr, "DELETE", &revoke, Some(&session), "").await;
    assert_eq!(status, 204, "{body}");
    first_events.ends(at).await;
    first_game.ends(at).await;
    seek.ends(at).await;
    assert_eq!(account_status(n2.addr, &first).await, 401);

    // The second token's streams go on: a challenge and a draw offer reach them.
    let (status, body) = request(
        n1.addr,
        "POST",
        "/api/challenge/Reva",
        Some(&olga),
        &challenge.to_string(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    second_events.next_of("challenge").await;
    let offer = format!("/api/board/game/{game_id}/draw/yes");
    let (status, body) = request(n1.addr, "POST", &offer, Some(&olga), "").await;
    assert_eq!(status, 200, "{body}");
    second_game.next_of("gameState").await;

    // The second token revokes itself on n1: its streams on n2 end too.
    let at = Instant::now();
    let (status, body) = request(n1.addr, "DELETE", "/api/token", Some(&second), "").await;
    assert_eq!(status, 204, "{body}");
    second_events.ends(at).await;
    second_game.ends(at).await;

    // A session token's stream ends when the session does (logged out on n1).
    let at = Instant::now();
    let (status, body) = request(n1.addr, "POST", "/api/account/logout", Some(&olga), "").await;
    assert_eq!(status, 200, "{body}");
    olga_events.ends(at).await;
}
