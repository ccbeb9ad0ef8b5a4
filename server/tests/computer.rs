//! Playing the computer, end to end over a real WebSocket and the real database: a
//! guest plays the computer in every draughts variant and in chess (Stockfish when
//! Debian's package is installed, the built-in search otherwise), the game is archived
//! with the computer as a player; the computer answers draw offers by its evaluation
//! and resigns a lost game; bad levels and positions are refused; a full node answers
//! `busy` and counts it.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{Client, config, start};
use serde_json::{Value, json};

/// A guest asks for a game against the computer; their client, the game id, the colour
/// they play and the legal moves if it is their turn.
async fn computer_game(
    addr: SocketAddr,
    name: &str,
    ask: Value,
) -> (Client, String, String, Value) {
    let mut me = Client::guest(addr, name).await;
    me.send(ask).await;
    let start = me.recv_type("game_start").await;
    let game = &start["game"];
    let id = game["game_id"].as_str().expect("a game id").to_string();
    let color = if game["white"]["name"] == name {
        "white"
    } else {
        "black"
    };
    (me, id, color.to_string(), game.clone())
}

/// Plays random legal moves against the computer until the game ends or `max` of ours,
/// then resigns; returns (our moves, the computer's moves).
async fn play_out(
    me: &mut Client,
    id: &str,
    color: &str,
    start: &Value,
    max: usize,
    seed: u64,
) -> (usize, usize) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let (mut ours, mut theirs) = (0, 0);
    let mut legal = start["legal_moves"].clone();
    let mut turn = start["turn"].as_str().unwrap_or("white").to_string();
    loop {
        if turn == color {
            let moves = legal.as_array().cloned().unwrap_or_default();
            if moves.is_empty() || ours == max {
                me.send(json!({"type": "resign", "game_id": id})).await;
                me.recv_event("game_over").await;
                return (ours, theirs);
            }
            let mv = moves[rng.usize(..moves.len())].clone();
            ours += 1;
            me.send(json!({"type": "move", "game_id": id, "move": mv, "move_id": ours}))
                .await;
        }
        let v = me.recv_type("game_event").await;
        match v["event"]["kind"].as_str() {
            Some("move") => {
                let by = v["event"]["by"].as_str().unwrap_or_default().to_string();
                if by != color {
                    theirs += 1;
                }
                legal = v["event"]["legal_moves"].clone();
                turn = if by == "white" { "black" } else { "white" }.to_string();
            }
            Some("game_over") => return (ours, theirs),
            _ => {}
        }
    }
}

/// The archived game, once the archive has it.
async fn archived(addr: SocketAddr, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, body) = common::get_json(addr, &format!("/api/games/{id}")).await;
        if status == 200 {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "game {id} not archived: {status} {body}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_guest_plays_the_computer_in_every_variant_and_in_chess() {
    let server = start(config()).await;
    let variants = [
        "russian",
        "brazilian",
        "pool",
        "czech",
        "portuguese",
        "italian",
        "international",
        "frisian",
        "chess",
        "chess960",
    ];
    for (i, variant) in variants.into_iter().enumerate() {
        let color = if i % 2 == 0 { "white" } else { "black" };
        let ask = json!({"type": "computer_play", "variant": variant, "level": 1,
            "time_control": "5+3", "color": color});
        let (mut me, id, mine, start) = computer_game(server.addr, "Ann", ask).await;
        assert_eq!(mine, color, "{variant}: the side asked for");
        let bot = if color == "white" { "black" } else { "white" };
        assert_eq!(start[bot]["name"], "Computer level 1", "{variant}: {start}");
        assert_eq!(start["rated"], false);
        let (ours, theirs) = play_out(&mut me, &id, color, &start, 12, i as u64).await;
        assert!(
            theirs + 1 >= ours && theirs >= 1,
            "{variant}: we played {ours}, the computer {theirs}"
        );
        let game = archived(server.addr, &id).await;
        assert_eq!(game[bot]["name"], "Computer level 1", "{variant}: {game}");
        assert_eq!(
            game["moves"].as_array().map(Vec::len),
            Some(ours + theirs),
            "{variant}: {game}"
        );
    }
    // tools/test-all.sh installs Debian's Stockfish: then it chose the chess moves.
    if std::path::Path::new("/usr/games/stockfish").exists() {
        let (_, metrics) = common::http(server.addr, "GET", "/metrics", "").await;
        let uci = metrics
            .lines()
            .find_map(|l| l.strip_prefix("damka_computer_uci_moves_total "))
            .and_then(|n| n.trim().parse::<u64>().ok());
        assert!(uci.is_some_and(|n| n >= 2), "{metrics}");
    }
    server.server.shutdown();
}

#[tokio::test]
async fn the_computer_answers_draw_offers_by_its_evaluation_and_resigns_lost_games() {
    let server = start(config()).await;
    // A queen up, the human offers a draw: the computer, a queen down, accepts.
    let ask = json!({"type": "computer_play", "variant": "chess", "level": 3, "time_control": "5+3",
        "color": "white", "fen": "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"});
    let (mut me, id, _, _) = computer_game(server.addr, "Offerer", ask).await;
    me.send(json!({"type": "draw_offer", "game_id": id})).await;
    let over = me.recv_event("game_over").await;
    assert!(over["event"]["outcome"]["winner"].is_null(), "{over}");
    // A queen down, the human offers: the computer declines.
    let ask = json!({"type": "computer_play", "variant": "chess", "level": 3, "time_control": "5+3",
        "color": "white", "fen": "3qk3/8/8/8/8/8/8/4K3 w - - 0 1"});
    let (mut me, id, _, _) = computer_game(server.addr, "Hopeful", ask).await;
    me.send(json!({"type": "draw_offer", "game_id": id})).await;
    me.recv_event("draw_declined").await;
    me.send(json!({"type": "resign", "game_id": id})).await;
    me.recv_event("game_over").await;
    // Four kings against a man: the computer (level 5) resigns on its first turn.
    let ask = json!({"type": "computer_play", "variant": "russian", "level": 5, "time_control": "5+3",
        "color": "white", "fen": "W:WKa1,Kc1,Ke1,Kg1:Bh8"});
    let (mut me, id, _, start) = computer_game(server.addr, "Winner", ask).await;
    let mv = start["legal_moves"][0].clone();
    me.send(json!({"type": "move", "game_id": id, "move": mv, "move_id": 1}))
        .await;
    let over = me.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["winner"], "white", "{over}");
    assert_eq!(over["event"]["outcome"]["reason"], "resignation", "{over}");
    server.server.shutdown();
}

#[tokio::test]
async fn bad_requests_are_refused_and_a_full_node_answers_busy() {
    let mut c = config();
    c.computer.max_games = 1;
    let server = start(c).await;
    let mut me = Client::guest(server.addr, "Eve").await;
    for (ask, code) in [
        (
            json!({"type": "computer_play", "variant": "russian", "level": 9, "time_control": "5+3"}),
            "invalid_level",
        ),
        (
            json!({"type": "computer_play", "variant": "russian", "level": 0, "time_control": "5+3"}),
            "invalid_level",
        ),
        (
            json!({"type": "computer_play", "variant": "russian", "level": 3, "time_control": "5+3",
            "fen": "W:Wz9:Ba1"}),
            "invalid_position",
        ),
        (
            json!({"type": "computer_play", "variant": "russian", "level": 3, "time_control": "5+3",
            "fen": "W:W:Bc5"}),
            "invalid_position",
        ),
        (
            json!({"type": "computer_play", "variant": "russian", "level": 3, "time_control": "5+3d2"}),
            "invalid_message",
        ),
    ] {
        me.send(ask.clone()).await;
        let e = me.recv_type("error").await;
        assert_eq!(e["code"], code, "{ask}: {e}");
    }
    let ask = json!({"type": "computer_play", "variant": "russian", "level": 2, "time_control": "5+3", "color": "black"});
    let (_first, _, _, _) = computer_game(server.addr, "First", ask.clone()).await;
    me.send(ask).await;
    let e = me.recv_type("error").await;
    assert_eq!(e["code"], "busy", "{e}");
    let (status, metrics) = common::http(server.addr, "GET", "/metrics", "").await;
    assert_eq!(status, 200);
    assert!(metrics.contains("damka_computer_busy_total 1"), "{metrics}");
    assert!(metrics.contains("damka_computer_games 1"), "{metrics}");
    assert!(
        metrics.contains("damka_computer_searches_total"),
        "{metrics}"
    );
    server.server.shutdown();
}

#[tokio::test]
async fn chess_is_played_by_the_built_in_search_when_the_uci_engine_is_missing() {
    let mut c = config();
    c.computer.uci_engine = "/nonexistent/stockfish".into();
    let server = start(c).await;
    let ask = json!({"type": "computer_play", "variant": "chess", "level": 4,
        "time_control": "5+3", "color": "white"});
    let (mut me, id, color, start) = computer_game(server.addr, "Fallback", ask).await;
    let (ours, theirs) = play_out(&mut me, &id, &color, &start, 6, 3).await;
    assert!(
        theirs + 1 >= ours && theirs >= 1,
        "we played {ours}, the computer {theirs}"
    );
    let (_, metrics) = common::http(server.addr, "GET", "/metrics", "").await;
    assert!(
        metrics.contains("damka_computer_uci_moves_total 0"),
        "{metrics}"
    );
    server.server.shutdown();
}

/// The analysis of `id` once it is done.
async fn analysis_done(addr: SocketAddr, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, body) = common::get_json(addr, &format!("/api/games/{id}/analysis")).await;
        if status == 200 {
            return body;
        }
        assert_eq!(status, 202, "{body}");
        assert!(Instant::now() < deadline, "analysis not done: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_finished_game_is_analysed_ply_by_ply_and_served() {
    let mut c = config();
    c.computer.analysis_ply_ms = 50;
    let server = start(c).await;
    let addr = server.addr;
    let (token, user) = common::guest(addr, "Student").await;
    let mut me = Client::with_token(addr, &token, &user).await;
    // c3-d4 wins (the shot); e3-f4 gives a man away: a blunder, and the engine says so.
    me.send(
        json!({"type": "computer_play", "variant": "russian", "level": 1, "time_control": "5+3",
        "color": "white", "fen": "W:Wa1,b2,c3,e3:Be5,c5,g7,h8"}),
    )
    .await;
    let start = me.recv_type("game_start").await;
    let id = start["game"]["game_id"]
        .as_str()
        .expect("an id")
        .to_string();
    // A live game is not analysed.
    let (status, body) = common::request(
        addr,
        "POST",
        &format!("/api/games/{id}/analysis"),
        Some(&token),
        "",
    )
    .await;
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("game_not_finished"), "{body}");
    me.send(json!({"type": "move", "game_id": id, "move": "e3-f4", "move_id": 1}))
        .await;
    me.recv_type("move_ack").await;
    let reply = loop {
        let v = me.recv_event("move").await;
        if v["event"]["by"] == "black" {
            break v;
        }
    };
    assert!(reply["event"]["played"]["move"].is_string());
    me.send(json!({"type": "resign", "game_id": id})).await;
    me.recv_event("game_over").await;
    let game = archived(addr, &id).await;
    let moves = game["moves"].as_array().map(Vec::len).unwrap_or(0);

    let path = format!("/api/games/{id}/analysis");
    let (status, body) = common::get_json(addr, &path).await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["code"], "analysis_not_found");
    let (status, _) = common::request(addr, "POST", &path, None, "").await;
    assert_eq!(status, 401);
    let (status, body) = common::request(addr, "POST", &path, Some(&token), "").await;
    assert_eq!(status, 202, "{body}");
    // One a user per interval.
    let (status, body) = common::request(addr, "POST", &path, Some(&token), "").await;
    assert_eq!(status, 429, "{body}");
    let done = analysis_done(addr, &id).await;
    let plies = done["plies"].as_array().cloned().unwrap_or_default();
    assert_eq!(plies.len(), moves, "{done}");
    assert_eq!(plies[0]["move"], "e3-f4", "{done}");
    assert_eq!(plies[0]["best"], "c3-d4", "{done}");
    assert_eq!(plies[0]["mark"], "blunder", "{done}");
    assert_eq!(plies[0]["by"], "white", "{done}");
    assert!(
        plies[0]["eval"].as_i64().is_some_and(|e| e < 0),
        "White stands worse after e3-f4: {done}"
    );
    // Another user asking finds it done; an unknown game is 404.
    let (other, _) = common::guest(addr, "Coach").await;
    let (status, body) = common::request(addr, "POST", &path, Some(&other), "").await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = common::request(
        addr,
        "POST",
        "/api/games/nosuchgame/analysis",
        Some(&other),
        "",
    )
    .await;
    assert_eq!(status, 404);
    server.server.shutdown();
}

/// `damka-engine`, built beside this test if need be.
fn damka_engine() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let dir = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>/deps");
    let path = dir.join("damka-engine");
    if !path.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let built = std::process::Command::new(cargo)
            .args(["build", "-p", "damka-engine"])
            .status()
            .expect("cargo runs");
        assert!(built.success());
    }
    path
}

fn counter(metrics: &str, name: &str) -> u64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn an_external_hub_engine_plays_for_the_computer() {
    let engine = damka_engine();
    let mut c = config();
    c.computer.hub_engine = format!("{} hub", engine.display());
    c.computer.hub_variants = vec!["international".into()];
    let server = start(c).await;
    let ask = json!({"type": "computer_play", "variant": "international", "level": 3,
        "time_control": "5+3", "color": "black"});
    let (mut me, id, color, begun) = computer_game(server.addr, "HubFan", ask).await;
    let (ours, theirs) = play_out(&mut me, &id, &color, &begun, 4, 9).await;
    assert!(
        theirs >= ours && theirs >= 2,
        "we played {ours}, the computer {theirs}"
    );
    let (_, metrics) = common::http(server.addr, "GET", "/metrics", "").await;
    assert!(
        counter(&metrics, "damka_computer_hub_moves_total") >= 2,
        "{metrics}"
    );
    server.server.shutdown();

    // An engine that knows only International is refused for Russian, and one that does
    // not start at all for anything.
    let mut c = config();
    c.computer.hub_engine = format!("{} hub --variants normal", engine.display());
    c.computer.hub_variants = vec!["russian".into(), "brazilian".into()];
    let server = start(c).await;
    let mut me = Client::guest(server.addr, "Picky").await;
    me.send(
        json!({"type": "computer_play", "variant": "russian", "level": 3, "time_control": "5+3"}),
    )
    .await;
    let e = me.recv_type("error").await;
    assert_eq!(e["code"], "engine_unavailable", "{e}");
    server.server.shutdown();
    let mut c = config();
    c.computer.hub_engine = "/nonexistent/scan hub".into();
    c.computer.hub_variants = vec!["frisian".into()];
    let server = start(c).await;
    let mut me = Client::guest(server.addr, "Unlucky").await;
    me.send(
        json!({"type": "computer_play", "variant": "frisian", "level": 3, "time_control": "5+3"}),
    )
    .await;
    let e = me.recv_type("error").await;
    assert_eq!(e["code"], "engine_unavailable", "{e}");
    server.server.shutdown();
}

#[tokio::test]
async fn a_hub_engine_that_dies_mid_game_never_hangs_the_game() {
    // It introduces itself, then dies at `init`: every search fails, is tried again,
    // and the built-in engine plays the move.
    let dir = std::env::temp_dir().join(format!("damka-flaky-hub-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let script = dir.join("flaky.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nwhile read line; do case \"$line\" in\n hub*) echo 'id name=flaky'; echo 'param name=variant value=normal type=enum values=\"normal\"'; echo wait;;\n init*) exit 1;;\n esac; done\n",
    )
    .expect("the script");
    let mut c = config();
    c.computer.hub_engine = format!("sh {}", script.display());
    c.computer.hub_variants = vec!["international".into()];
    let server = start(c).await;
    let ask = json!({"type": "computer_play", "variant": "international", "level": 2,
        "time_control": "5+3", "color": "white"});
    let (mut me, id, color, begun) = computer_game(server.addr, "Patient", ask).await;
    let (ours, theirs) = play_out(&mut me, &id, &color, &begun, 3, 5).await;
    assert!(
        theirs + 1 >= ours && theirs >= 2,
        "we played {ours}, the computer {theirs}"
    );
    let (_, metrics) = common::http(server.addr, "GET", "/metrics", "").await;
    assert_eq!(
        counter(&metrics, "damka_computer_hub_moves_total"),
        0,
        "{metrics}"
    );
    server.server.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_hub_engine_that_dies_once_is_restarted_and_the_move_retried() {
    // The first engine process asked to think dies at `go`; the retry's fresh process
    // is the real `damka-engine hub`, so the Hub engine still plays every move.
    let engine = damka_engine();
    let dir = std::env::temp_dir().join(format!("damka-dies-once-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let died = dir.join("died");
    let script = dir.join("dies-once.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n[ -e {died} ] && exec {engine} hub\nwhile read line; do case \"$line\" in\n hub*) echo 'id name=dies-once'; echo 'param name=variant value=normal type=enum values=\"normal\"'; echo wait;;\n init*) echo ready;;\n go*) touch {died}; exit 1;;\n esac; done\n",
            died = died.display(),
            engine = engine.display(),
        ),
    )
    .expect("the script");
    let mut c = config();
    c.computer.hub_engine = format!("sh {}", script.display());
    c.computer.hub_variants = vec!["international".into()];
    let server = start(c).await;
    let ask = json!({"type": "computer_play", "variant": "international", "level": 2,
        "time_control": "5+3", "color": "white"});
    let (mut me, id, color, begun) = computer_game(server.addr, "Retried", ask).await;
    let (ours, theirs) = play_out(&mut me, &id, &color, &begun, 3, 11).await;
    assert!(
        theirs + 1 >= ours && theirs >= 2,
        "we played {ours}, the computer {theirs}"
    );
    assert!(died.exists(), "the first engine process died at `go`");
    let (_, metrics) = common::http(server.addr, "GET", "/metrics", "").await;
    assert_eq!(
        counter(&metrics, "damka_computer_hub_moves_total"),
        theirs as u64,
        "every computer move, the first one too, was the Hub engine's: {metrics}"
    );
    server.server.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads a metric's value from a node's `/metrics`.
async fn metric(addr: SocketAddr, name: &str) -> u64 {
    let (status, text) = common::http(addr, "GET", "/metrics", "").await;
    assert_eq!(status, 200);
    counter(&text, name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_node_places_the_next_computer_game_on_a_node_with_room() {
    let prefix = common::redis_env::unique_prefix("computer-place");
    let db = common::sqlite_url();
    let one = [("DAMKA_COMPUTER__MAX_GAMES", "1")];
    let n1 = common::node::spawn_node("c1", &prefix, &db, &one);
    let n2 = common::node::spawn_node("c2", &prefix, &db, &one);
    // Both nodes have advertised their room (heartbeat every 0.3 s).
    tokio::time::sleep(Duration::from_millis(800)).await;
    let ask = json!({"type": "computer_play", "variant": "russian", "level": 1,
        "time_control": "5+3", "color": "white"});

    // The first game takes n1's only computer player.
    let (mut first, first_id, _, _) = computer_game(n1.addr, "First", ask.clone()).await;
    assert_eq!(metric(n1.addr, "damka_computer_games").await, 1);
    tokio::time::sleep(Duration::from_millis(800)).await;

    // The second, asked of n1, is held by n2 and played through n1.
    let (mut second, id, color, start) = computer_game(n1.addr, "Second", ask.clone()).await;
    assert_ne!(id, first_id);
    assert_eq!(metric(n2.addr, "damka_computer_games").await, 1);
    assert_eq!(metric(n1.addr, "damka_computer_games").await, 1);
    assert_eq!(
        metric(n1.addr, "damka_computer_placed_elsewhere_total").await,
        1
    );
    let (ours, theirs) = play_out(&mut second, &id, &color, &start, 3, 7).await;
    assert_eq!(ours, 3);
    assert!(
        theirs >= 3,
        "the computer on n2 answered every move: {theirs}"
    );
    tokio::time::sleep(Duration::from_millis(800)).await;

    // n2's room is taken again by a third game; with both full, the next is `busy`.
    let (_third, _, _, _) = computer_game(n2.addr, "Third", ask.clone()).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let mut fourth = Client::guest(n1.addr, "Fourth").await;
    fourth.send(ask).await;
    let e = fourth.recv_type("error").await;
    assert_eq!(e["code"], "busy", "{e}");
    assert_eq!(metric(n1.addr, "damka_computer_busy_total").await, 1);
    first
        .send(json!({"type": "resign", "game_id": first_id}))
        .await;
    first.recv_event("game_over").await;
}
