//! A node never loses a game: the real `damka` binary on the embedded default (SQLite,
//! no Redis) is stopped with four moves played, by SIGKILL or SIGTERM, and started
//! again on the same database; the players resume and find the same moves, the same
//! side to move and their clocks with the downtime given back, and the game then
//! finishes and is archived.
//!
//! With Redis and PostgreSQL, the same of a whole cluster: two nodes, a game owned by
//! each, both stopped by SIGTERM, the test's Redis keys deleted (a Redis restarted
//! empty), two nodes started again at once; the players resume every acknowledged move
//! from the database's mirror, each game put back by exactly one node (on PostgreSQL,
//! and on one SQLite file).
//!
//! Also: the binary runs with transparent huge pages off (`docs/performance.md`).

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::Client;
use common::node::{Node, spawn_node, spawn_single, terminate_all};
use serde_json::{Value, json};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Position, Variant};

/// How the node is stopped.
#[derive(Clone, Copy, Debug)]
enum Stop {
    Kill,
    Term,
}

/// A player: token, user id and connection.
struct Player {
    token: String,
    user: String,
    client: Client,
}

impl Player {
    async fn new(addr: SocketAddr, name: &str) -> Player {
        let (token, user) = common::guest(addr, name).await;
        let client = Client::with_token(addr, &token, &user).await;
        Player {
            token,
            user,
            client,
        }
    }

    async fn reconnect(&mut self, addr: SocketAddr) {
        self.client = Client::with_token(addr, &self.token, &self.user).await;
    }
}

fn node(db: &str) -> Node {
    spawn_single(
        "durable",
        db,
        &[
            ("DAMKA_SHUTDOWN__GRACE_SECS", "1"),
            ("DAMKA_LOG__FILTER", "info"),
        ],
    )
}

/// White challenges Black to a Russian 5+3 game; its id.
async fn start_game(w: &mut Player, b: &mut Player) -> String {
    w.client
        .send(
            json!({"type": "challenge", "user": b.user, "variant": "russian",
            "time_control": "5+3", "color": "white", "rated": false}),
        )
        .await;
    let ch = b.client.recv_type("challenge_received").await;
    b.client
        .send(json!({"type": "accept_challenge", "challenge_id": ch["challenge"]["challenge_id"]}))
        .await;
    let start = w.client.recv_type("game_start").await;
    b.client.recv_type("game_start").await;
    start["game"]["game_id"].as_str().unwrap().to_string()
}

/// The side to move plays the first legal move; its text and the event the other
/// player saw.
async fn play_one(
    w: &mut Player,
    b: &mut Player,
    id: &str,
    pos: &mut Position,
    move_id: u64,
) -> (String, Value) {
    let mv = pos.legal_moves()[0].clone();
    let text = pos.move_text(&mv);
    pos.play(&mv).unwrap();
    let (mover, other) = match pos.side_to_move() {
        Color::Black => (&mut *w, &mut *b),
        Color::White => (&mut *b, &mut *w),
    };
    mover.client.move_acked(id, &text, move_id).await;
    loop {
        let seen = other.client.recv_event("move").await;
        if seen["event"]["played"]["move"] == text.as_str() {
            return (text, seen);
        }
    }
}

async fn survives(stop: Stop) {
    let db = common::sqlite_url();
    let mut n = node(&db);
    let mut w = Player::new(n.addr, "Wendy").await;
    let mut b = Player::new(n.addr, "Boris").await;
    let id = start_game(&mut w, &mut b).await;
    let mut pos = Position::start(Variant::Draughts(DraughtsVariant::Russian));
    let mut last = Value::Null;
    let mut moves = Vec::new();
    for i in 1..=4 {
        let (text, seen) = play_one(&mut w, &mut b, &id, &mut pos, i).await;
        moves.push(text);
        last = seen;
    }
    let version = last["version"].as_u64().unwrap();
    let white_ms = last["event"]["clock"]["white_ms"].as_u64().unwrap();
    // Each move waited for its group commit, and the node says how long.
    let (status, metrics) = common::http(n.addr, "GET", "/metrics", "").await;
    assert_eq!(status, 200);
    let waits = metric(&metrics, "damka_live_write_microseconds_count");
    let commits = metric(&metrics, "damka_live_commit_microseconds_count");
    assert!(
        waits >= 5.0,
        "the start and four moves: {waits} writes timed"
    );
    assert!(commits >= 1.0, "{commits} commits for {waits} writes");
    let waited = metric(&metrics, "damka_live_write_microseconds_sum");
    let committed = metric(&metrics, "damka_live_commit_microseconds_sum");
    assert!(
        waited > 0.0 && committed > 0.0,
        "{waited} us waited, {committed} us committing"
    );
    // White thinks 2.5 s; then the node goes down for 3 s.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    match stop {
        Stop::Kill => n.kill9(),
        Stop::Term => n.terminate(),
    }
    tokio::time::sleep(Duration::from_secs(3)).await;

    let n = node(&db);
    w.reconnect(n.addr).await;
    b.reconnect(n.addr).await;
    b.client
        .send(json!({"type": "resume", "game_id": id, "last_version": 0}))
        .await;
    w.client
        .send(json!({"type": "resume", "game_id": id, "last_version": version}))
        .await;
    // Resuming from the start: the whole state.
    let state = b.client.recv_type("game_state").await;
    let game = &state["game"];
    assert_eq!(game["moves"], json!(moves), "the same moves: {state}");
    assert_eq!(game["version"].as_u64(), Some(version), "{state}");
    assert_eq!(game["fen"], pos.fen(), "{state}");
    assert_eq!(game["turn"], "white", "{state}");
    let white_now = game["clock"]["white_ms"].as_u64().unwrap();
    // The 2.5 s White thought before the stop count (within the node's 1 s sign of
    // life; SIGTERM adds the 1 s grace); the 3 s the node was down do not.
    let charged = white_ms.saturating_sub(white_now);
    assert!(
        (1000..=4500).contains(&charged),
        "{stop:?}: white had {white_ms} ms at the 4th move, {white_now} ms after the restart"
    );
    // The game goes on and ends; it is archived.
    let (_, fifth) = play_one(&mut w, &mut b, &id, &mut pos, 5).await;
    assert_eq!(fifth["version"].as_u64().map(|v| v > version), Some(true));
    b.client
        .send(json!({"type": "resign", "game_id": id}))
        .await;
    let over = w.client.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["winner"], "white", "{over}");
    let mut archived = Value::Null;
    for _ in 0..50 {
        let (status, body) = common::get_json(n.addr, &format!("/api/games/{id}")).await;
        if status == 200 {
            archived = body;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        archived["moves"].as_array().map(Vec::len),
        Some(5),
        "{archived}"
    );
    // Archived, the game leaves the live tables (forgotten in the writer's next group).
    let store = damka::db::Db::connect(&db, 1, Duration::from_secs(5))
        .await
        .unwrap();
    let mut live = store.live_ids().await.unwrap();
    for _ in 0..50 {
        if !live.contains(&id) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        live = store.live_ids().await.unwrap();
    }
    assert!(
        !live.contains(&id),
        "{stop:?}: {live:?} still holds the archived game"
    );
}

#[test]
fn three_nodes_started_at_once_on_one_new_sqlite_file_all_come_up() {
    // The race is narrow: several fresh files, three nodes each.
    for _ in 0..4 {
        let db = common::sqlite_url();
        let nodes: Vec<_> = (0..3)
            .map(|i| {
                let db = db.clone();
                std::thread::spawn(move || spawn_single(&format!("m{i}"), &db, &[]))
            })
            .collect();
        for node in nodes {
            // Each printed its address: its migrations went through.
            let node = node.join().expect("the node came up");
            assert!(node.addr.port() > 0);
        }
    }
}

/// mimalloc madvises huge pages on its arenas; the node turns them off for itself at
/// start, so that a fault zeroes 4 KiB, not 2 MiB.
#[cfg(target_os = "linux")]
#[test]
fn the_node_runs_without_transparent_huge_pages() {
    let node = spawn_single("thp", &common::sqlite_url(), &[]);
    let status = std::fs::read_to_string(format!("/proc/{}/status", node.pid()))
        .expect("the node's /proc status");
    let line = status
        .lines()
        .find(|l| l.starts_with("THP_enabled:"))
        .expect("the kernel reports THP_enabled in /proc/<pid>/status");
    assert_eq!(line.split_whitespace().nth(1), Some("0"), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_survives_kill_9_of_the_default_node() {
    survives(Stop::Kill).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_survives_a_sigterm_restart_of_the_default_node() {
    survives(Stop::Term).await;
}

/// A game of the cluster test: its players, id, position, moves and last event seen.
struct Played {
    w: Player,
    b: Player,
    id: String,
    pos: Position,
    moves: Vec<String>,
    last: Value,
}

/// Two players on `addr` start a game there (so that node owns it) and play four moves.
async fn four_moves(addr: SocketAddr, names: (&str, &str)) -> Played {
    let mut w = Player::new(addr, names.0).await;
    let mut b = Player::new(addr, names.1).await;
    let id = start_game(&mut w, &mut b).await;
    let mut pos = Position::start(Variant::Draughts(DraughtsVariant::Russian));
    let mut moves = Vec::new();
    let mut last = Value::Null;
    for i in 1..=4 {
        let (text, seen) = play_one(&mut w, &mut b, &id, &mut pos, i).await;
        moves.push(text);
        last = seen;
    }
    Played {
        w,
        b,
        id,
        pos,
        moves,
        last,
    }
}

/// A sample's value in a `/metrics` text (0 if absent).
fn metric(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

/// `damka_mirror_restored_total` of a node.
async fn restored(addr: SocketAddr) -> u64 {
    let (status, body) = common::http(addr, "GET", "/metrics", "").await;
    assert_eq!(status, 200);
    body.lines()
        .find_map(|l| l.strip_prefix("damka_mirror_restored_total "))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .map_or(0, |v| v as u64)
}

/// After the restart: both players resume on `addr`, find every acknowledged move and
/// the clock with the downtime given back, play on to the end; the game is archived.
async fn resumes_and_ends(g: &mut Played, addr: SocketAddr, stop: Stop) {
    let version = g.last["version"].as_u64().unwrap();
    let white_ms = g.last["event"]["clock"]["white_ms"].as_u64().unwrap();
    g.w.reconnect(addr).await;
    g.b.reconnect(addr).await;
    let id = g.id.clone();
    g.b.client
        .send(json!({"type": "resume", "game_id": id, "last_version": 0}))
        .await;
    g.w.client
        .send(json!({"type": "resume", "game_id": id, "last_version": version}))
        .await;
    // The game is there (before the mirror: `game_not_found`, Redis having lost it).
    let state = loop {
        let v = g.b.client.recv().await;
        if v["type"] == "game_state" || v["type"] == "error" {
            break v;
        }
    };
    assert_eq!(state["type"], "game_state", "the game resumes: {state}");
    let game = &state["game"];
    assert_eq!(
        game["moves"],
        json!(g.moves),
        "every acknowledged move: {state}"
    );
    assert_eq!(game["version"].as_u64(), Some(version), "{state}");
    assert_eq!(game["fen"], g.pos.fen(), "{state}");
    assert_eq!(game["turn"], "white", "{state}");
    // White thought 1 s, then the grace before the stop (1 s) or the kill; the nodes
    // were down for more than 3 s, which White is given back (after a kill, the clock
    // ran until the owner's last sign of life: its last write, or once a second).
    let white_now = game["clock"]["white_ms"].as_u64().unwrap();
    let charged = white_ms.saturating_sub(white_now);
    let expected = match stop {
        Stop::Term => 500..=3500,
        Stop::Kill => 0..=2500,
    };
    assert!(
        expected.contains(&charged),
        "{stop:?}: white had {white_ms} ms at the 4th move, {white_now} ms after the restart"
    );
    let (_, fifth) = play_one(&mut g.w, &mut g.b, &id, &mut g.pos, 5).await;
    assert_eq!(fifth["version"].as_u64().map(|v| v > version), Some(true));
    g.b.client
        .send(json!({"type": "resign", "game_id": id}))
        .await;
    let over = g.w.client.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["winner"], "white", "{over}");
    let mut archived = Value::Null;
    for _ in 0..50 {
        let (status, body) = common::get_json(addr, &format!("/api/games/{id}")).await;
        if status == 200 {
            archived = body;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        archived["moves"].as_array().map(Vec::len),
        Some(5),
        "{archived}"
    );
}

async fn cluster_restart(stop: Stop, db: String) {
    let prefix = common::redis_env::unique_prefix("mirror");
    // A graceful stop writes everything still pending: with a mirror interval longer
    // than the test, nothing reaches the database but through the stop's last writes.
    let mirror_ms = match stop {
        Stop::Term => "60000",
        Stop::Kill => "150",
    };
    let env = [
        ("DAMKA_SHUTDOWN__GRACE_SECS", "1"),
        ("DAMKA_CLUSTER__MIRROR_MS", mirror_ms),
    ];
    let mut n1 = spawn_node("mirror1", &prefix, &db, &env);
    let mut n2 = spawn_node("mirror2", &prefix, &db, &env);
    let mut one = four_moves(n1.addr, ("Wilma", "Bruno")).await;
    let mut two = four_moves(n2.addr, ("Wanda", "Basil")).await;
    // White thinks 1 s in both games (after a kill, longer than the mirror's interval);
    // then the whole cluster stops and Redis loses everything of it.
    tokio::time::sleep(Duration::from_secs(1)).await;
    match stop {
        Stop::Term => terminate_all(&mut [&mut n1, &mut n2]),
        Stop::Kill => {
            n1.kill9();
            n2.kill9();
        }
    }
    common::redis_env::delete_prefix(&prefix);
    tokio::time::sleep(Duration::from_secs(3)).await;

    // Both nodes start at once (under other names: nothing is tied to the old ones).
    let starting: Vec<_> = ["mirror3", "mirror4"]
        .into_iter()
        .map(|name| {
            let (prefix, db) = (prefix.clone(), db.clone());
            std::thread::spawn(move || spawn_node(name, &prefix, &db, &env))
        })
        .collect();
    let nodes: Vec<Node> = starting
        .into_iter()
        .map(|t| t.join().expect("the node came up"))
        .collect();
    // The players come back on either node: the owner's or the other's (a proxy).
    resumes_and_ends(&mut one, nodes[0].addr, stop).await;
    resumes_and_ends(&mut two, nodes[1].addr, stop).await;
    // Each game was put back into Redis by one node, once.
    let mut total = 0;
    for node in &nodes {
        total += restored(node.addr).await;
    }
    assert_eq!(total, 2, "each game restored exactly once");
    common::redis_env::delete_prefix(&prefix);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_restart_with_redis_emptied_loses_no_game() {
    cluster_restart(Stop::Term, common::postgres_url().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_restart_with_redis_emptied_loses_no_game_on_sqlite_too() {
    cluster_restart(Stop::Term, common::sqlite_url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_killed_whole_with_redis_emptied_keeps_what_the_mirror_wrote() {
    cluster_restart(Stop::Kill, common::postgres_url().await).await;
}
