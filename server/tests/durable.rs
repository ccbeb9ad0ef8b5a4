//! A node never loses a game: the real `damka` binary on the embedded default (SQLite,
//! no Redis) is stopped with four moves played, by SIGKILL or SIGTERM, and started
//! again on the same database; the players resume and find the same moves, the same
//! side to move and their clocks with the downtime given back, and the game then
//! finishes and is archived.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::Client;
use common::node::{Node, spawn_single};
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_survives_kill_9_of_the_default_node() {
    survives(Stop::Kill).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_survives_a_sigterm_restart_of_the_default_node() {
    survives(Stop::Term).await;
}
