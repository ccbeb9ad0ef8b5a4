//! Programs as players, end to end through a live node and the real database:
//! personal tokens (scopes refused with 403 naming the scope, revocation, logging out
//! everywhere), then berserk (lichess's own API client, from PyPI) driving two bots
//! through the Bot API (chess, Russian draughts hop by hop with a draw agreed,
//! International draughts resigned) and a board player through the Board API against a
//! WebSocket player; the archive holds every move. `BOTS_CLIENT_PYTHON` names an
//! interpreter with berserk and pydraughts (`tools/test-all.sh` makes one).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Client, config, register, request, start};
use serde_json::{Value, json};

/// Makes a personal token; its secret.
async fn make_token(addr: SocketAddr, session: &str, scopes: &[&str]) -> String {
    let body = json!({ "description": "test", "scopes": scopes }).to_string();
    let (status, body) = request(addr, "POST", "/api/tokens", Some(session), &body).await;
    assert_eq!(status, 201, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    v["token"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_are_scoped_revocable_and_sessions_end() {
    let server = start(config()).await;
    let addr = server.addr;
    let (session, _) = register(addr, "Tokener", "correct horse").await;
    let board = make_token(addr, &session, &["board:play"]).await;
    // A scope the token lacks: 403, naming it; nothing changed.
    let (status, body) = request(addr, "POST", "/api/bot/account/upgrade", Some(&board), "").await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body.contains("missing_scope") && body.contains("bot:play"),
        "{body}"
    );
    let (status, body) = request(addr, "GET", "/api/account", Some(&board), "").await;
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains("BOT"), "{body}");
    // Unknown scopes and personal tokens making tokens are refused.
    let bad = json!({ "description": "x", "scopes": ["root"] }).to_string();
    let (status, _) = request(addr, "POST", "/api/tokens", Some(&session), &bad).await;
    assert_eq!(status, 400);
    let ok = json!({ "description": "x", "scopes": ["bot:play"] }).to_string();
    let (status, _) = request(addr, "POST", "/api/tokens", Some(&board), &ok).await;
    assert_eq!(status, 403);
    // Listed without secrets; revoked, it stops working at once.
    let (status, body) = request(addr, "GET", "/api/tokens", Some(&session), "").await;
    assert_eq!(status, 200);
    assert!(!body.contains(&board), "a listing shows no secret");
    let list: Value = serde_json::from_str(&body).unwrap();
    let id = list["tokens"][0]["id"].as_str().unwrap().to_string();
    let (status, _) = request(
        addr,
        "DELETE",
        &format!("/api/tokens/{id}"),
        Some(&session),
        "",
    )
    .await;
    assert_eq!(status, 204);
    let (status, body) = request(addr, "GET", "/api/account", Some(&board), "").await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("revoked"), "{body}");
    let tested = request(addr, "POST", "/api/token/test", None, &board)
        .await
        .1;
    assert_eq!(
        serde_json::from_str::<Value>(&tested).unwrap()[&board],
        Value::Null
    );
    // Logging out everywhere ends the session token itself.
    let (status, _) = request(
        addr,
        "POST",
        "/api/account/logout-everywhere",
        Some(&session),
        "",
    )
    .await;
    assert_eq!(status, 200);
    let (status, body) = request(addr, "GET", "/api/tokens", Some(&session), "").await;
    assert_eq!(status, 401, "{body}");
    server.server.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn berserk_plays_bot_and_board_games() {
    let Ok(python) = std::env::var("BOTS_CLIENT_PYTHON") else {
        eprintln!("BOTS_CLIENT_PYTHON unset: berserk is not run (tools/test-all.sh sets it)");
        return;
    };
    let server = start(config()).await;
    let addr = server.addr;
    let mut tokens = Vec::new();
    for name in ["AlphaBot", "BetaBot"] {
        let (session, _) = register(addr, name, "correct horse").await;
        tokens.push(make_token(addr, &session, &["bot:play", "challenge:write"]).await);
    }
    let (session, _) = register(addr, "Carol", "correct horse").await;
    tokens.push(make_token(addr, &session, &["board:play", "challenge:write"]).await);
    let (dave_token, dave) = register(addr, "Dave", "correct horse").await;

    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/bots/berserk_match.py");
    let mut child = Command::new(python)
        .arg(script)
        .arg(format!("http://{addr}"))
        .args(&tokens)
        .arg(&dave)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python runs");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let v: Value = serde_json::from_str(&line).unwrap_or(json!({ "raw": line }));
            let _ = tx.send(v);
        }
    });
    let mut games = Vec::new();
    loop {
        let v = next(&mut lines).await;
        assert!(v.get("error").is_none() && v.get("raw").is_none(), "{v}");
        if v.get("ready").is_some() {
            break;
        }
        games.push(v);
    }
    // The WebSocket player: online, accepts the board player's challenge, plays black.
    let mut ws = Client::with_token(addr, &dave_token, &dave).await;
    writeln!(stdin, "go").unwrap();
    let challenge = ws.recv_type("challenge_received").await;
    let id = challenge["challenge"]["challenge_id"].clone();
    ws.send(json!({ "type": "accept_challenge", "challenge_id": id }))
        .await;
    let start = ws.recv_type("game_start").await;
    let game_id = start["game"]["game_id"].as_str().unwrap().to_string();
    assert_eq!(start["game"]["black"]["id"], dave);
    for (n, reply) in ["e7e5", "b8c6", "g8f6"].into_iter().enumerate() {
        loop {
            let e = ws.recv_event("move").await;
            if e["event"]["by"] == "white" {
                break;
            }
        }
        ws.move_acked(&game_id, reply, n as u64 + 1).await;
    }
    let over = ws.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["winner"], "white", "{over}");
    let mut done = next(&mut lines).await;
    while done.get("challenge").is_some() {
        done = next(&mut lines).await;
    }
    assert_eq!(done["status"], "mate", "{done}");
    games.push(done);
    assert!(child.wait().unwrap().success());

    // The archive holds every game with every move.
    assert_eq!(games.len(), 5, "{games:?}");
    for g in &games {
        let id = g["game"].as_str().unwrap();
        let (status, body) = request(addr, "GET", &format!("/api/games/{id}"), None, "").await;
        assert_eq!(status, 200, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            v["moves"].as_array().map(Vec::len),
            g["plies"].as_u64().map(|n| n as usize),
            "{id}: {body}"
        );
    }
    server.server.shutdown();
}

/// The script's next report.
async fn next(lines: &mut tokio::sync::mpsc::UnboundedReceiver<Value>) -> Value {
    tokio::time::timeout(Duration::from_secs(120), lines.recv())
        .await
        .expect("the script reports in time")
        .expect("the script reports before it ends")
}
