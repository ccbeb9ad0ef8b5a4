//! Saved before seen, over the real socket and the real Redis on 127.0.0.1:6379 (under a
//! prefix of the test's own): the lease of a game is stolen in Redis while its owner
//! still runs, then a move arrives. The owner's write is fenced, so nobody may see that
//! move: a spectator on the owner's node must never see a version that the next owner
//! (another node, taking the game over) later gives to a different event.

mod common;

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Client, config, start};
use serde_json::{Value, json};

fn redis_cli(args: &[&str]) -> String {
    let out = Command::new("redis-cli")
        .args(["-p", "6379"])
        .args(args)
        .output()
        .expect("redis-cli");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The game's event log as stored in Redis: version → event JSON.
fn stored_log(prefix: &str, game: &str) -> Vec<Value> {
    let out = Command::new("redis-cli")
        .args(["-p", "6379", "--raw", "LRANGE"])
        .arg(format!("{prefix}{{g:{game}}}:log"))
        .args(["0", "-1"])
        .output()
        .expect("redis-cli");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("an event"))
        .collect()
}

/// Every game event a client receives within `wait` of the last one.
async fn drain_events(c: &mut Client, seen: &mut BTreeMap<u64, Value>, wait: Duration) {
    while let Ok(v) = tokio::time::timeout(wait, c.recv()).await {
        if v["type"] == "game_event" {
            let version = v["version"].as_u64().expect("a version");
            if let Some(before) = seen.insert(version, v["event"].clone()) {
                assert_eq!(before, v["event"], "version {version} shown twice, differently");
            }
        }
    }
}

#[tokio::test]
async fn a_fenced_move_is_shown_to_nobody() {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let prefix = format!("sbs{}-{nanos}:", std::process::id());
    let node = |name: &str| {
        let mut c = config();
        c.node_id = name.into();
        c.redis.url = "redis://127.0.0.1:6379".into();
        c.redis.prefix = prefix.clone();
        c.cluster.lease_ms = 1000;
        // The owner must not notice the theft before the move does.
        c.cluster.renew_ms = 60_000;
        c.cluster.sweep_ms = 100;
        c
    };
    let a = start(node("sbs-a")).await;
    let b = start(node("sbs-b")).await;
    let (white_token, white_user) = common::guest(a.addr, "Alice").await;
    let (black_token, black_user) = common::guest(a.addr, "Bob").await;
    let mut white = Client::with_token(a.addr, &white_token, &white_user).await;
    let mut black = Client::with_token(a.addr, &black_token, &black_user).await;
    white
        .send(json!({"type": "seek", "variant": "russian", "time_control": "3+2", "color": "white"}))
        .await;
    let seek = white.recv_type("seek_created").await;
    black
        .send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    let started = white.recv_type("game_start").await;
    black.recv_type("game_start").await;
    let game = started["game"]["game_id"].as_str().unwrap().to_string();
    let mut spectator = Client::guest(a.addr, "Watcher").await;
    spectator
        .send(json!({"type": "watch", "game_id": game}))
        .await;
    let state = spectator.recv_type("game_state").await;
    let mut seen = BTreeMap::new();
    let base = state["game"]["version"].as_u64().expect("a version");

    white
        .send(json!({"type": "move", "game_id": game, "move": "c3-d4", "move_id": 1}))
        .await;
    let ack = white.recv_type("move_ack").await;
    let before = ack["version"].as_u64().expect("a version");
    assert!(before > base);

    // Another node steals the lease: the owner's next write is fenced. The lease runs
    // out soon, and the game is due for takeover at once.
    let lease = format!("{prefix}{{g:{game}}}:lease");
    let fence = format!("{prefix}{{g:{game}}}:fence");
    redis_cli(&["INCR", &fence]);
    assert_eq!(redis_cli(&["SET", &lease, "999999:thief", "PX", "400"]), "OK");
    redis_cli(&["ZADD", &format!("{prefix}{{games}}:live"), "0", &game]);

    black
        .send(json!({"type": "move", "game_id": game, "move": "b6-a5", "move_id": 1}))
        .await;
    let refused = black.recv_type("error").await;
    assert_eq!(refused["code"], "unavailable", "{refused}");
    drain_events(&mut spectator, &mut seen, Duration::from_millis(300)).await;

    // A node takes the game over and Black plays another move at the same version.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut black_b = Client::with_token(b.addr, &black_token, &black_user).await;
    black_b
        .send(json!({"type": "resume", "game_id": game, "last_version": before}))
        .await;
    let mut move_id = 1;
    let version = loop {
        move_id += 1;
        black_b
            .send(json!({"type": "move", "game_id": game, "move": "b6-c5", "move_id": move_id}))
            .await;
        let v = loop {
            let v = black_b.recv().await;
            if v["type"] == "move_ack" || (v["type"] == "error" && v["move_id"] == move_id) {
                break v;
            }
        };
        if v["type"] == "move_ack" {
            break v["version"].as_u64().expect("a version");
        }
        assert!(Instant::now() < deadline, "the game was not taken over: {v}");
        tokio::time::sleep(Duration::from_millis(200)).await;
        black_b
            .send(json!({"type": "resume", "game_id": game, "last_version": before}))
            .await;
    };
    assert!(version > before);
    drain_events(&mut spectator, &mut seen, Duration::from_millis(500)).await;

    let stored = stored_log(&prefix, &game);
    assert!(stored.len() as u64 >= version, "{} < {version}", stored.len());
    for (v, event) in &seen {
        let kept = &stored[usize::try_from(*v).unwrap() - 1];
        assert_eq!(
            &kept["event"], event,
            "the spectator saw version {v} as {event}, the game's log holds {kept}"
        );
    }
    a.server.shutdown();
    b.server.shutdown();
}
