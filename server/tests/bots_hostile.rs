//! The Bot and Board API against hostile programs, through a live node: event streams
//! opened by the thousand from one token (16 open at most, the rest 429, and none left
//! open after: `damka_api_streams_open` counts them), moves for another's game and in
//! the wrong notation (refused, the game unchanged), bodies over the limit (413 before
//! they are read), and a reader that stops reading its stream (dropped once the
//! stream's queue of 64 lines is full behind the kernel's socket buffers: the server
//! stops producing for it, and what the reader gets afterwards is what was queued).

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{config, register, request, start};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Makes a personal token; its secret.
async fn make_token(addr: SocketAddr, session: &str, scopes: &[&str]) -> String {
    let body = json!({ "description": "test", "scopes": scopes }).to_string();
    let (status, body) = request(addr, "POST", "/api/tokens", Some(session), &body).await;
    assert_eq!(status, 201, "{body}");
    serde_json::from_str::<Value>(&body).unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A bot account's personal token.
async fn bot(addr: SocketAddr, name: &str) -> String {
    let (session, _) = register(addr, name, "correct horse").await;
    let scopes = ["bot:play", "challenge:read", "challenge:write"];
    let token = make_token(addr, &session, &scopes).await;
    let (status, body) = request(addr, "POST", "/api/bot/account/upgrade", Some(&token), "").await;
    assert_eq!(status, 200, "{body}");
    token
}

/// Sends a GET for a stream on `stream`; the answer's status once its head came.
async fn open_on(
    mut stream: TcpStream,
    addr: SocketAddr,
    path: &str,
    token: &str,
) -> (u16, TcpStream) {
    let head =
        format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
        let mut chunk = [0u8; 512];
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .expect("an answer in time")
            .unwrap();
        assert!(n > 0, "closed before answering");
        seen.extend_from_slice(&chunk[..n]);
    }
    let status = String::from_utf8_lossy(&seen[9..12]).parse().unwrap();
    (status, stream)
}

async fn open(addr: SocketAddr, path: &str, token: &str) -> (u16, TcpStream) {
    open_on(TcpStream::connect(addr).await.unwrap(), addr, path, token).await
}

/// `damka_api_streams_open` from `/metrics`.
async fn streams_open(addr: SocketAddr) -> i64 {
    let (_, text) = common::http(addr, "GET", "/metrics", "").await;
    text.lines()
        .find_map(|l| l.strip_prefix("damka_api_streams_open "))
        .and_then(|v| v.trim().parse().ok())
        .expect("the gauge is exported")
}

/// Waits until `damka_api_streams_open` is `n` (within 5 s); its last value.
async fn streams_become(addr: SocketAddr, n: i64) -> i64 {
    let mut last = streams_open(addr).await;
    for _ in 0..100 {
        if last == n {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        last = streams_open(addr).await;
    }
    last
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_opened_by_the_thousand_are_capped_and_none_is_left_open() {
    let server = start(config()).await;
    let addr = server.addr;
    let token = bot(addr, "Hydra").await;
    let mut held = Vec::new();
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..20 {
        let batch: Vec<_> = (0..50)
            .map(|_| {
                let token = token.clone();
                tokio::spawn(async move { open(addr, "/api/stream/event", &token).await })
            })
            .collect();
        for task in batch {
            let (status, stream) = task.await.unwrap();
            match status {
                200 => {
                    accepted += 1;
                    held.push(stream);
                }
                429 => refused += 1,
                other => panic!("status {other}"),
            }
        }
    }
    assert_eq!((accepted, refused), (16, 984));
    assert_eq!(streams_open(addr).await, 16);
    drop(held);
    assert_eq!(streams_become(addr, 0).await, 0, "every stream let go");
    // The cap was the account's alone, and it is free again.
    let (status, _stream) = open(addr, "/api/stream/event", &token).await;
    assert_eq!(status, 200);
    server.server.shutdown();
}

/// Two bots in a chess game (`a` White): the game's id, and Beta's event stream (which
/// keeps it online).
async fn chess_game(addr: SocketAddr, a: &str, b: &str) -> (String, TcpStream) {
    // An event stream makes Beta online, as challenges need.
    let (_, events) = open(addr, "/api/stream/event", b).await;
    let body =
        json!({ "clock.limit": 300, "clock.increment": 0, "color": "white", "variant": "chess" });
    let mut answer = Value::Null;
    for _ in 0..50 {
        let (status, text) = request(
            addr,
            "POST",
            "/api/challenge/Beta",
            Some(a),
            &body.to_string(),
        )
        .await;
        answer = serde_json::from_str(&text).unwrap();
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let id = answer["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
        .to_string();
    let (status, text) = request(
        addr,
        "POST",
        &format!("/api/challenge/{id}/accept"),
        Some(b),
        "",
    )
    .await;
    assert_eq!(status, 200, "{text}");
    (id, events)
}

/// The moves of a game as its stream's first line (`gameFull`) shows them.
async fn moves_of(addr: SocketAddr, id: &str, token: &str) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "GET /api/bot/game/stream/{id} HTTP/1.1\r\nHost: {addr}\r\n\
         Authorization: Bearer {token}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut text = String::new();
    while !text
        .lines()
        .any(|l| l.contains("\"gameFull\"") && l.ends_with('}'))
    {
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut chunk))
            .await
            .unwrap_or_else(|_| panic!("gameFull in time: {text:?}"))
            .unwrap();
        assert!(n > 0);
        text.push_str(&String::from_utf8_lossy(&chunk[..n]));
    }
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let line = text.lines().find(|l| l.contains("gameFull")).unwrap();
    let full: Value = serde_json::from_str(line.trim()).unwrap();
    full["state"]["moves"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_for_anothers_game_or_in_the_wrong_notation_change_nothing() {
    let server = start(config()).await;
    let addr = server.addr;
    let a = bot(addr, "Alpha").await;
    let b = bot(addr, "Beta").await;
    let eve = bot(addr, "Eve").await;
    let (id, _events) = chess_game(addr, &a, &b).await;
    let play = |token: String, mv: String| {
        let path = format!("/api/bot/game/{id}/move/{mv}");
        async move { request(addr, "POST", &path, Some(&token), "").await }
    };
    // Another's game: refused, whoever sends it and however well formed the move.
    let (status, body) = play(eve.clone(), "e2e4".into()).await;
    assert!(matches!(status, 403 | 404), "{status} {body}");
    // Not Black's turn.
    let (status, body) = play(b.clone(), "e7e5".into()).await;
    assert_eq!(status, 400, "{body}");
    // Draughts notation, garbage, an illegal move, a very long one.
    for mv in [
        "c3-d4",
        "32x23",
        "zz!!",
        "e2e5",
        "e2e4e2e4e2e4",
        &"a".repeat(4000),
    ] {
        let (status, body) = play(a.clone(), mv.to_string()).await;
        assert!((400..500).contains(&status), "{mv}: {status} {body}");
    }
    assert_eq!(moves_of(addr, &id, &a).await, "");
    let (status, body) = play(a.clone(), "e2e4".into()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(moves_of(addr, &id, &b).await, "e2e4");
    server.server.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_over_the_limit_are_refused_before_they_are_read() {
    let server = start(config()).await;
    let addr = server.addr;
    let a = bot(addr, "Alpha").await;
    let _b = bot(addr, "Beta").await;
    // Declared at 8 MB, only the head sent: refused at once, nothing read.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /api/challenge/Beta HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {a}\r\n\
         Content-Type: application/json\r\nContent-Length: 8000000\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer))
        .await
        .expect("answered without the body")
        .unwrap();
    let text = String::from_utf8_lossy(&answer[..n]);
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    assert!(text.contains("body_too_large"), "{text}");
    // Sent whole: the same.
    let big = format!("{{\"fen\": \"{}\"}}", "x".repeat(100_000));
    let (status, body) = request(addr, "POST", "/api/challenge/Beta", Some(&a), &big).await;
    assert_eq!(status, 413, "{body}");
    let tokens = vec![a.as_str(); 3000].join(",");
    let (status, _) = request(addr, "POST", "/api/token/test", None, &tokens).await;
    assert_eq!(status, 413);
    // A body under the limit is read as usual.
    let (status, _) = request(addr, "POST", "/api/token/test", None, &a).await;
    assert_eq!(status, 200);
    server.server.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_whose_reader_stops_reading_is_dropped_not_buffered() {
    let server = start(config()).await;
    let addr = server.addr;
    let a = bot(addr, "Alpha").await;
    let b = bot(addr, "Beta").await;
    // Beta's event stream, on a socket with a small receive buffer that is never read.
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let connected = socket.connect(addr).await.unwrap();
    let (status, mut slow) = open_on(connected, addr, "/api/stream/event", &b).await;
    assert_eq!(status, 200);
    assert_eq!(streams_become(addr, 1).await, 1);
    // Alpha, online, challenges and withdraws until the stream is dropped: two lines a
    // round.
    let (_, _alpha_events) = open(addr, "/api/stream/event", &a).await;
    assert_eq!(streams_become(addr, 2).await, 2);
    let body = json!({ "clock.limit": 60, "variant": "chess" }).to_string();
    let started = Instant::now();
    let mut rounds = 0;
    let mut produced = 0usize;
    loop {
        assert!(rounds < 5000, "the stream was never dropped");
        let (status, text) = request(addr, "POST", "/api/challenge/Beta", Some(&a), &body).await;
        if status != 200 {
            // The server ended Beta's stream, its only connection: Beta is offline.
            assert!(text.contains("user_offline"), "{status} {text}");
            break;
        }
        produced += 2 * text.len();
        let id = serde_json::from_str::<Value>(&text).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let path = format!("/api/challenge/{id}/cancel");
        let (status, text) = request(addr, "POST", &path, Some(&a), "").await;
        rounds += 1;
        if status == 404 {
            // Beta went offline meanwhile, and its challenges with it.
            break;
        }
        assert_eq!(status, 200, "{text}");
    }
    // What the server had queued or sent reaches the reader, then the stream ends: a
    // bounded amount, not everything produced since the reader stopped.
    let mut received = Vec::new();
    let mut chunk = vec![0u8; 65_536];
    while !received.ends_with(b"\r\n0\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(5), slow.read(&mut chunk))
            .await
            .expect("the dropped stream ends")
            .unwrap();
        assert!(n > 0, "the connection closed without the last chunk");
        received.extend_from_slice(&chunk[..n]);
    }
    assert_eq!(streams_become(addr, 1).await, 1, "Beta's stream let go");
    let lines = received
        .split(|b| *b == b'\n')
        .filter(|l| l.starts_with(b"{"))
        .count();
    eprintln!(
        "slow reader: dropped after {rounds} rounds ({:?}), ~{produced} bytes of lines \
         produced, {} bytes ({lines} lines) received",
        started.elapsed(),
        received.len()
    );
    // The queue's bound (64 lines) was reached while the kernel's buffers were full:
    // the line that found it full, and every one after, never reached the reader.
    assert!(
        lines < 2 * rounds,
        "{lines} lines of {} received",
        2 * rounds
    );
    server.server.shutdown();
}
