//! Programs as players, end to end through a live node and the real database:
//! personal tokens (scopes refused with 403 naming the scope, revocation, logging out
//! everywhere), then berserk (lichess's own API client, from PyPI) driving two bots
//! through the Bot API (chess, Russian draughts hop by hop with a draw agreed,
//! International draughts resigned) and a board player through the Board API against a
//! WebSocket player; the archive holds every move. `BOTS_CLIENT_PYTHON` names an
//! interpreter with berserk and pydraughts (`tools/test-all.sh` makes one). Then, over
//! raw HTTP, what lichess-bot relies on (found running it by hand, `docs/bots.md`): a
//! challenge and its game share one id, a random side is drawn when the challenge is
//! made (`finalColor`), `gameFull` has `createdAt`, a game from a set position is
//! `fromPosition`, open challenges are listed when an event stream opens, and a game
//! over at once still sends `gameFinish`.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Client, bearer, config, register, request, start};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

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

/// An NDJSON stream read line by line (keep-alive newlines and chunk sizes skipped).
struct Ndjson {
    stream: TcpStream,
    buffer: String,
}

impl Ndjson {
    async fn open(addr: SocketAddr, path: &str, token: &str) -> Ndjson {
        Ndjson::open_as(addr, path, token, "lichess-bot/test").await
    }

    /// Opened by a program whose `User-Agent` is `agent`.
    async fn open_as(addr: SocketAddr, path: &str, token: &str, agent: &str) -> Ndjson {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: {agent}\r\n{}\r\n",
            bearer(Some(token))
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        Ndjson {
            stream,
            buffer: String::new(),
        }
    }

    /// The next JSON line.
    async fn next(&mut self) -> Value {
        loop {
            while let Some((line, rest)) = self.buffer.split_once('\n') {
                let line = line.trim().to_string();
                self.buffer = rest.to_string();
                if line.starts_with('{') {
                    return serde_json::from_str(&line).unwrap();
                }
            }
            let mut chunk = [0u8; 4096];
            let n = tokio::time::timeout(Duration::from_secs(10), self.stream.read(&mut chunk))
                .await
                .expect("a line in time")
                .unwrap();
            assert!(n > 0, "the stream ended");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    }

    /// The next line of type `kind`, skipping others, within 10 s (keep-alives do not
    /// extend the wait).
    async fn next_of(&mut self, kind: &str) -> Value {
        let wanted = async {
            loop {
                let v = self.next().await;
                if v["type"] == kind {
                    return v;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(10), wanted)
            .await
            .unwrap_or_else(|_| panic!("no {kind} line in time"))
    }
}

/// A bot account: (personal token, id).
async fn bot(addr: SocketAddr, name: &str) -> (String, String) {
    let (session, id) = register(addr, name, "correct horse").await;
    let token = make_token(addr, &session, &["bot:play", "challenge:write"]).await;
    let (status, body) = request(addr, "POST", "/api/bot/account/upgrade", Some(&token), "").await;
    assert_eq!(status, 200, "{body}");
    (token, id)
}

/// `POST` a JSON body, as lichess-bot sends a challenge; status and JSON body.
async fn post_json(addr: SocketAddr, path: &str, token: &str, body: Value) -> (u16, Value) {
    let (status, body) = request(addr, "POST", path, Some(token), &body.to_string()).await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenges_and_game_ends_as_lichess_bot_reads_them() {
    // A game leaves memory as soon as it is over and archived: the end must still reach
    // the event stream.
    let mut c = config();
    c.game.linger_after_end_secs = 0;
    let server = start(c).await;
    let addr = server.addr;
    let (a, a_id) = bot(addr, "Ambrose").await;
    let (b, b_id) = bot(addr, "Bertha").await;
    let mut b_events = Ndjson::open(addr, "/api/stream/event", &b).await;
    // The stream makes its account online as soon as its task runs.
    let mut listed = Value::Null;
    for _ in 0..50 {
        let (status, body) = request(addr, "GET", "/api/users/status?ids=bertha", None, "").await;
        assert_eq!(status, 200);
        listed = serde_json::from_str(&body).unwrap();
        if listed[0]["online"] == true {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(listed[0]["name"], "Bertha", "{listed}");
    assert_eq!(listed[0]["title"], "BOT", "{listed}");
    assert_eq!(listed[0]["online"], true, "{listed}");
    let (status, body) = post_json(
        addr,
        "/api/challenge/Nobody",
        &a,
        json!({ "clock.limit": 60 }),
    )
    .await;
    assert_eq!((status, body["code"].as_str()), (404, Some("unknown_user")));

    for round in 0..5 {
        accepted_then_aborted(addr, (&a, &a_id), &b, &mut b_events, round == 0).await;
    }
    rated_games_show_in_perfs(addr, &a, &b, &mut b_events).await;
    refused_with_reasons(addr, &a, &b).await;
    lidraughts_hears_challenges_received(addr, &a, &b).await;
    from_position(addr, (&a, &a_id), (&b, &b_id)).await;
    server.server.shutdown();
}

/// `a` challenges Bertha (`b`, whose event stream is `b_events`) at a random side: the
/// challenge shows its game's id and the side drawn (listed again by a new stream if
/// `relisted`); accepted, the game has that id, `createdAt` and the side; aborted at
/// once, its end reaches the event stream.
async fn accepted_then_aborted(
    addr: SocketAddr,
    (a, a_id): (&str, &str),
    b: &str,
    b_events: &mut Ndjson,
    relisted: bool,
) {
    let form = json!({
        "rated": false, "clock.limit": 60, "clock.increment": 1, "variant": "standard"
    });
    let (status, ch) = post_json(addr, "/api/challenge/Bertha", a, form).await;
    assert_eq!(status, 200, "{ch}");
    let id = ch["id"].as_str().unwrap().to_string();
    assert!(id.parse::<u64>().is_err(), "a game id, not a number: {id}");
    assert_eq!(ch["color"], "random");
    let side = ch["finalColor"].as_str().unwrap().to_string();
    assert!(ch.get("initialFen").is_none(), "{ch}");
    let seen = b_events.next_of("challenge").await;
    assert_eq!(seen["challenge"]["id"], id.as_str());
    assert_eq!(seen["challenge"]["finalColor"], side.as_str());
    if relisted {
        // A stream opened now lists the open challenge, as lichess's does.
        let mut again = Ndjson::open(addr, "/api/stream/event", b).await;
        let listed = again.next_of("challenge").await;
        assert_eq!(listed["challenge"]["id"], id.as_str(), "{listed}");
        assert_eq!(listed["challenge"]["direction"], "in");
    }
    let accept = format!("/api/challenge/{id}/accept");
    let (status, body) = request(addr, "POST", &accept, Some(b), "").await;
    assert_eq!(status, 200, "{body}");
    let started = b_events.next_of("gameStart").await;
    assert_eq!(started["game"]["id"], id.as_str(), "{started}");
    let mut game = Ndjson::open(addr, &format!("/api/bot/game/stream/{id}"), b).await;
    let full = game.next().await;
    assert_eq!(full["type"], "gameFull");
    assert!(full["createdAt"].as_u64().is_some_and(|t| t > 0), "{full}");
    assert_eq!(full[side.as_str()]["id"], a_id, "{full}");
    // Over at once: the end still reaches the event stream.
    let abort = format!("/api/bot/game/{id}/abort");
    let (status, body) = request(addr, "POST", &abort, Some(a), "").await;
    assert_eq!(status, 200, "{body}");
    let finished = b_events.next_of("gameFinish").await;
    assert_eq!(finished["game"]["id"], id.as_str(), "{finished}");
    assert_eq!(finished["game"]["status"]["name"], "aborted", "{finished}");
}

/// After a rated game, both bots' ratings show in lichess's `perfs`, where lichess-bot's
/// matchmaking looks for opponents (`/api/bot/online`) and for its own rating.
async fn rated_games_show_in_perfs(addr: SocketAddr, a: &str, b: &str, b_events: &mut Ndjson) {
    let form = json!({ "rated": true, "clock.limit": 60, "color": "white" });
    let (status, ch) = post_json(addr, "/api/challenge/Bertha", a, form).await;
    assert_eq!(status, 200, "{ch}");
    let id = ch["id"].as_str().unwrap().to_string();
    let accept = format!("/api/challenge/{id}/accept");
    assert_eq!(request(addr, "POST", &accept, Some(b), "").await.0, 200);
    b_events.next_of("gameStart").await;
    for (token, mv) in [(a, "e2e4"), (b, "e7e5")] {
        let path = format!("/api/bot/game/{id}/move/{mv}");
        let (status, body) = request(addr, "POST", &path, Some(token), "").await;
        assert_eq!(status, 200, "{body}");
    }
    let resign = format!("/api/bot/game/{id}/resign");
    assert_eq!(request(addr, "POST", &resign, Some(a), "").await.0, 200);
    b_events.next_of("gameFinish").await;
    let (status, body) = request(addr, "GET", "/api/account", Some(a), "").await;
    assert_eq!(status, 200, "{body}");
    let me: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(me["perfs"]["bullet"]["games"], 1, "{me}");
    assert!(
        me["perfs"]["bullet"]["rating"].as_i64().unwrap() < 1500,
        "{me}"
    );
    let (status, body) = request(addr, "GET", "/api/bot/online?nb=10", None, "").await;
    assert_eq!(status, 200, "{body}");
    let bertha: Value = body
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["username"] == "Bertha")
        .expect("Bertha is online");
    assert_eq!(bertha["perfs"]["bullet"]["games"], 1, "{bertha}");
    assert!(bertha["perfs"]["bullet"]["rating"].as_i64().unwrap() > 1500);
}

/// A refusal says why, in lichess's keys; an unknown reason changes nothing.
async fn refused_with_reasons(addr: SocketAddr, a: &str, b: &str) {
    let mut a_events = Ndjson::open(addr, "/api/stream/event", a).await;
    let form = json!({ "clock.limit": 60, "variant": "russian" });
    let (status, ch) = post_json(addr, "/api/challenge/Bertha", a, form).await;
    assert_eq!(status, 200, "{ch}");
    let id = ch["id"].as_str().unwrap().to_string();
    assert_eq!(
        a_events.next_of("challenge").await["challenge"]["id"],
        id.as_str()
    );
    let decline = format!("/api/challenge/{id}/decline");
    let (status, body) = post_json(addr, &decline, b, json!({ "reason": "soon" })).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("invalid_message"))
    );
    let (status, body) = post_json(addr, &decline, b, json!({ "reason": "toofast" })).await;
    assert_eq!(status, 200, "{body}");
    let declined = a_events.next_of("challengeDeclined").await;
    assert_eq!(declined["challenge"]["id"], id.as_str(), "{declined}");
    assert_eq!(declined["challenge"]["declineReasonKey"], "tooFast");
    assert!(declined["challenge"]["declineReason"].is_string());
}

/// lidraughts tells a stream only of challenges received: lidraughts-bot answers every
/// `challenge` line, and would refuse or accept its own.
async fn lidraughts_hears_challenges_received(addr: SocketAddr, a: &str, b: &str) {
    let agent = "lidraughts-bot/1.2.0 user:ambrose";
    let mut a_draughts = Ndjson::open_as(addr, "/api/stream/event", a, agent).await;
    let mut b_draughts = Ndjson::open_as(addr, "/api/stream/event", b, agent).await;
    let form = json!({ "clock.limit": 60, "variant": "international" });
    let (status, ch) = post_json(addr, "/api/challenge/Bertha", a, form).await;
    assert_eq!(status, 200, "{ch}");
    let id = ch["id"].as_str().unwrap().to_string();
    let seen = b_draughts.next_of("challenge").await;
    assert_eq!(seen["challenge"]["id"], id.as_str());
    assert_eq!(seen["challenge"]["variant"]["key"], "standard", "{seen}");
    assert_eq!(seen["challenge"]["variant"]["name"], "Standard", "{seen}");
    let cancel = format!("/api/challenge/{id}/cancel");
    assert_eq!(request(addr, "POST", &cancel, Some(a), "").await.0, 200);
    assert_eq!(
        b_draughts.next_of("challengeCanceled").await["challenge"]["id"],
        id.as_str()
    );
    // The challenger's lidraughts stream heard nothing of it: its next line is the
    // next game's start.
    let form = json!({ "clock.limit": 60, "variant": "international", "color": "white" });
    let (_, ch) = post_json(addr, "/api/challenge/Bertha", a, form).await;
    let id = ch["id"].as_str().unwrap().to_string();
    let accept = format!("/api/challenge/{id}/accept");
    assert_eq!(request(addr, "POST", &accept, Some(b), "").await.0, 200);
    let first = a_draughts.next().await;
    assert_eq!(first["type"], "gameStart", "{first}");
    let abort = format!("/api/bot/game/{id}/abort");
    assert_eq!(request(addr, "POST", &abort, Some(a), "").await.0, 200);
}

/// A chess game from a set position is lichess's `fromPosition`.
async fn from_position(addr: SocketAddr, (a, a_id): (&str, &str), (b, b_id): (&str, &str)) {
    let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    let form = json!({ "clock.limit": 60, "variant": "standard", "color": "white", "fen": fen });
    let (status, ch) = post_json(addr, "/api/challenge/Bertha", a, form).await;
    assert_eq!(status, 200, "{ch}");
    assert_eq!(ch["variant"]["key"], "fromPosition", "{ch}");
    assert_eq!(ch["initialFen"], fen);
    assert_eq!(ch["finalColor"], "white");
    let id = ch["id"].as_str().unwrap().to_string();
    let accept = format!("/api/challenge/{id}/accept");
    assert_eq!(request(addr, "POST", &accept, Some(b), "").await.0, 200);
    let mut game = Ndjson::open(addr, &format!("/api/bot/game/stream/{id}"), b).await;
    let full = game.next().await;
    assert_eq!(full["variant"]["name"], "From Position", "{full}");
    assert_eq!(full["initialFen"], fen);
    assert_eq!(full["white"]["id"], a_id);
    assert_eq!(full["black"]["id"], b_id);
}

/// A bot account with its session token too: (session, personal token, id).
async fn bot_with_session(addr: SocketAddr, name: &str) -> (String, String, String) {
    let (session, id) = register(addr, name, "correct horse").await;
    let scopes = ["bot:play", "challenge:read", "challenge:write"];
    let token = make_token(addr, &session, &scopes).await;
    let (status, body) = request(addr, "POST", "/api/bot/account/upgrade", Some(&token), "").await;
    assert_eq!(status, 200, "{body}");
    (session, token, id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_are_never_paired_but_may_be_challenged() {
    let server = start(config()).await;
    let addr = server.addr;
    let (session, token, bot_id) = bot_with_session(addr, "Robo").await;
    let (human_token, human) = register(addr, "Hugh", "correct horse").await;
    let mut hugh = Client::with_token(addr, &human_token, &human).await;
    hugh.send(json!({"type": "seek", "variant": "chess", "time_control": "3+2", "color": "white"}))
        .await;
    let seek = hugh.recv_type("seek_created").await;
    let seek_id = seek["seek"]["seek_id"].clone();

    // Over the WebSocket: no seek, no pool, no seek accepted; each a typed refusal.
    let mut robo = Client::with_token(addr, &session, &bot_id).await;
    let asks = [
        json!({"type": "seek", "variant": "chess", "time_control": "3+2", "color": "white"}),
        json!({"type": "pool_join", "variant": "chess", "time_control": "0.05+0", "rated": false}),
        json!({"type": "accept_seek", "seek_id": seek_id}),
    ];
    for ask in asks {
        robo.send(ask.clone()).await;
        let refused = robo.recv_type("error").await;
        assert_eq!(refused["code"], "bot_not_paired", "{ask} → {refused}");
    }
    robo.send(json!({"type": "list_seeks"})).await;
    let seeks = robo.recv_type("seeks").await;
    assert_eq!(seeks["seeks"].as_array().map(Vec::len), Some(1), "{seeks}");
    assert_eq!(seeks["seeks"][0]["seek_id"], seek_id);

    // Nor the Board API's seek (its session token has every scope).
    let form = "time=3&increment=2&variant=standard";
    let (status, body) = request(
        addr,
        "POST",
        "/api/board/seek",
        Some(&session),
        &as_json(form),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("bot_not_paired"), "{body}");
    robo.send(json!({"type": "list_seeks"})).await;
    let seeks = robo.recv_type("seeks").await;
    assert_eq!(seeks["seeks"].as_array().map(Vec::len), Some(1), "{seeks}");

    // Shown as a bot.
    let (status, body) = request(addr, "GET", "/api/users/robo", None, "").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["title"],
        "BOT"
    );
    let (_, body) = request(addr, "GET", "/api/users/hugh", None, "").await;
    assert!(
        serde_json::from_str::<Value>(&body)
            .unwrap()
            .get("title")
            .is_none()
    );

    // A person may challenge the bot: it accepts from its event stream.
    let mut events = Ndjson::open(addr, "/api/stream/event", &token).await;
    let challenge = json!({"type": "challenge", "user": "robo", "variant": "chess",
        "time_control": "3+2", "rated": false, "color": "white"});
    let mut sent = Value::Null;
    for _ in 0..50 {
        hugh.send(challenge.clone()).await;
        sent = hugh.recv().await;
        if sent["type"] == "challenge_sent" {
            break;
        }
        // The stream makes the bot online as soon as its task runs.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(sent["type"], "challenge_sent", "{sent}");
    let line = events.next_of("challenge").await;
    let id = line["challenge"]["id"].as_str().unwrap().to_string();
    assert_eq!(line["challenge"]["challenger"]["name"], "Hugh");
    let path = format!("/api/challenge/{id}/accept");
    let (status, body) = request(addr, "POST", &path, Some(&token), "").await;
    assert_eq!(status, 200, "{body}");
    let start = hugh.recv_type("game_start").await;
    assert_eq!(start["game"]["black"]["id"], bot_id.as_str(), "{start}");
    assert_eq!(start["game"]["black"]["bot"], true, "{start}");
    assert!(start["game"]["white"].get("bot").is_none(), "{start}");
    let started = events.next_of("gameStart").await;
    assert_eq!(started["game"]["gameId"], id.as_str());
    assert_eq!(started["game"]["opponent"]["username"], "Hugh");
    server.server.shutdown();
}

/// A form's fields (`a=1&b=2`) as the JSON object a client may send instead.
fn as_json(form: &str) -> String {
    let fields: serde_json::Map<String, Value> = form
        .split('&')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    Value::Object(fields).to_string()
}

/// A `POST /api/board/seek` held open: the connection, once its answer's head came.
async fn board_seek(addr: SocketAddr, token: &str, form: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /api/board/seek HTTP/1.1\r\nHost: {addr}\r\n{}Content-Type: \
         application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{form}",
        bearer(Some(token)),
        form.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut seen = String::new();
    while !seen.contains("\r\n\r\n") {
        let mut chunk = [0u8; 1024];
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut chunk))
            .await
            .expect("the answer's head in time")
            .unwrap();
        assert!(n > 0, "closed before answering: {seen}");
        seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
    }
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    assert!(seen.contains("application/x-ndjson"), "{seen}");
    stream
}

/// Reads a held seek's answer to its end (the last chunk); what it carried.
async fn answer_ends(stream: &mut TcpStream) -> String {
    let mut seen = String::new();
    let ended = async {
        while !seen.ends_with("0\r\n\r\n") {
            let mut chunk = [0u8; 1024];
            let n = stream.read(&mut chunk).await.unwrap();
            if n == 0 {
                break;
            }
            seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    };
    tokio::time::timeout(Duration::from_secs(5), ended)
        .await
        .expect("the seek's answer ends once it is accepted");
    seen
}

/// The open seeks a WebSocket player lists.
async fn listed_seeks(client: &mut Client) -> Vec<Value> {
    client.send(json!({"type": "list_seeks"})).await;
    let seeks = client.recv_type("seeks").await;
    seeks["seeks"].as_array().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn board_seek_is_held_until_accepted_and_removed_when_the_client_goes() {
    let server = start(config()).await;
    let addr = server.addr;
    let (session, carol) = register(addr, "Carol", "correct horse").await;
    let token = make_token(addr, &session, &["board:play", "challenge:read"]).await;
    let (dave_token, dave) = register(addr, "Dave", "correct horse").await;
    let mut dave_ws = Client::with_token(addr, &dave_token, &dave).await;

    // Refusals change nothing.
    let refusals = [
        ("variant=standard", "time"),
        ("time=3&days=2", "correspondence"),
        ("time=999", "minutes"),
        ("time=3&increment=-1", "increment"),
        ("time=3&color=green", "color"),
        ("time=3&ratingRange=1800-1500", "ratingRange"),
        ("time=3&variant=shogi", "variant"),
    ];
    for (form, says) in refusals {
        let (status, body) = request(
            addr,
            "POST",
            "/api/board/seek",
            Some(&token),
            &as_json(form),
        )
        .await;
        assert_eq!(status, 400, "{form}: {body}");
        assert!(body.contains(says), "{form}: {body}");
    }
    let chess_only = make_token(addr, &session, &["challenge:read"]).await;
    let (status, body) = request(
        addr,
        "POST",
        "/api/board/seek",
        Some(&chess_only),
        &as_json("time=3"),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(listed_seeks(&mut dave_ws).await.is_empty());

    // Held until Dave accepts it: the game comes on Carol's event stream.
    let mut events = Ndjson::open(addr, "/api/stream/event", &token).await;
    let form = "rated=false&time=3&increment=2&variant=standard&color=white&ratingRange=1000-2500";
    let mut held = board_seek(addr, &token, form).await;
    let seeks = listed_seeks(&mut dave_ws).await;
    assert_eq!(seeks.len(), 1, "{seeks:?}");
    assert_eq!(seeks[0]["user"]["id"], carol.as_str());
    assert_eq!(seeks[0]["variant"], "chess");
    assert_eq!(seeks[0]["time_control"], "3+2");
    dave_ws
        .send(json!({"type": "accept_seek", "seek_id": seeks[0]["seek_id"]}))
        .await;
    let start = dave_ws.recv_type("game_start").await;
    assert_eq!(start["game"]["white"]["id"], carol.as_str(), "{start}");
    let started = events.next_of("gameStart").await;
    assert_eq!(started["game"]["gameId"], start["game"]["game_id"]);
    answer_ends(&mut held).await;

    // A second seek goes when its client goes.
    let held = board_seek(addr, &token, "time=5&variant=chess").await;
    assert_eq!(listed_seeks(&mut dave_ws).await.len(), 1);
    drop(held);
    let mut left = usize::MAX;
    for _ in 0..50 {
        left = listed_seeks(&mut dave_ws).await.len();
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(left, 0, "the seek of a client gone is removed");
    server.server.shutdown();
}
