//! A live game's replication, over the real socket and the real Redis on 127.0.0.1:6379
//! (under a prefix of each test's own), with two nodes in the test's process:
//! - saved before seen: the lease of a game is stolen in Redis while its owner still
//!   runs, then a move arrives. The owner's write is fenced, so nobody may see that
//!   move: a spectator on the owner's node must never see a version that the next owner
//!   (another node, taking the game over) later gives to a different event;
//! - append-only writes: a game long enough to be compacted, with a takeback after it,
//!   is taken over from its snapshot, appended actions and tail, and goes on exactly
//!   where it was.

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
                assert_eq!(
                    before, v["event"],
                    "version {version} shown twice, differently"
                );
            }
        }
    }
}

/// A node of the test's cluster: it never renews its leases by itself (so it does not
/// notice a theft before a write does) and sweeps for lapsed games every 100 ms.
fn node(name: &str, prefix: &str) -> damka::Config {
    let mut c = config();
    c.node_id = name.into();
    c.redis.url = "redis://127.0.0.1:6379".into();
    c.redis.prefix = prefix.into();
    c.cluster.lease_ms = 1000;
    c.cluster.renew_ms = 60_000;
    c.cluster.sweep_ms = 100;
    c.cluster.command_timeout_ms = 500;
    // The compaction test plays 270 plies as fast as the server answers: the message
    // rate limit is not what it tests.
    c.ws.rate_per_sec = 1000.0;
    c.ws.rate_burst = 1000.0;
    c
}

/// Another node steals the game's lease in Redis: its owner's next write is fenced. The
/// lease runs out soon and the game is due for takeover at once.
fn steal_lease(prefix: &str, game: &str) {
    let lease = format!("{prefix}{{g:{game}}}:lease");
    let fence = format!("{prefix}{{g:{game}}}:fence");
    redis_cli(&["INCR", &fence]);
    assert_eq!(
        redis_cli(&["SET", &lease, "999999:thief", "PX", "400"]),
        "OK"
    );
    redis_cli(&["ZADD", &format!("{prefix}{{games}}:live"), "0", game]);
}

/// Alice (White) and Bob, guests on one node, in a game through a seek.
struct Seated {
    white: Client,
    black: Client,
    /// Alice's token and user id, to connect again elsewhere.
    white_login: (String, String),
    /// Bob's token and user id.
    black_login: (String, String),
    /// White's `game_start`.
    started: Value,
}

async fn seated(addr: std::net::SocketAddr, variant: &str, tc: &str) -> Seated {
    let white_login = common::guest(addr, "Alice").await;
    let black_login = common::guest(addr, "Bob").await;
    let mut white = Client::with_token(addr, &white_login.0, &white_login.1).await;
    let mut black = Client::with_token(addr, &black_login.0, &black_login.1).await;
    white
        .send(json!({"type": "seek", "variant": variant, "time_control": tc, "color": "white"}))
        .await;
    let seek = white.recv_type("seek_created").await;
    black
        .send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    let started = white.recv_type("game_start").await;
    black.recv_type("game_start").await;
    Seated {
        white,
        black,
        white_login,
        black_login,
        started,
    }
}

#[tokio::test]
async fn a_fenced_move_is_shown_to_nobody() {
    let prefix = common::redis_env::unique_prefix("sbs");
    let a = start(node("sbs-a", &prefix)).await;
    let b = start(node("sbs-b", &prefix)).await;
    let Seated {
        mut white,
        mut black,
        white_login: _,
        black_login,
        started,
    } = seated(a.addr, "russian", "3+2").await;
    let game = started["game"]["game_id"].as_str().unwrap().to_string();
    let mut spectator = Client::guest(a.addr, "Watcher").await;
    spectator
        .send(json!({"type": "watch", "game_id": game}))
        .await;
    let state = spectator.recv_type("game_state").await;
    let mut seen = BTreeMap::new();
    let base = state["game"]["version"].as_u64().expect("a version");

    let ack = white.move_acked(&game, "c3-d4", 1).await;
    let before = ack["version"].as_u64().expect("a version");
    assert!(before > base);

    steal_lease(&prefix, &game);

    black
        .send(json!({"type": "move", "game_id": game, "move": "b6-a5", "move_id": 1}))
        .await;
    let refused = black.recv_type("error").await;
    // The move is refused either by the fenced write itself (`unavailable`) or, when
    // another write of the actor (the spectator count, announced every 2 s) was fenced
    // first and the actor has left, by the node no longer holding the game
    // (`game_not_found` until a `resume` finds the new owner). Either way it is shown
    // to nobody, which is what the rest of this test checks.
    assert!(
        refused["code"] == "unavailable" || refused["code"] == "game_not_found",
        "{refused}"
    );
    drain_events(&mut spectator, &mut seen, Duration::from_millis(300)).await;

    // A node takes the game over and Black plays another move at the same version.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut black_b = Client::with_token(b.addr, &black_login.0, &black_login.1).await;
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
        assert!(
            Instant::now() < deadline,
            "the game was not taken over: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        black_b
            .send(json!({"type": "resume", "game_id": game, "last_version": before}))
            .await;
    };
    assert!(version > before);
    drain_events(&mut spectator, &mut seen, Duration::from_millis(500)).await;

    let stored = stored_log(&prefix, &game);
    assert!(
        stored.len() as u64 >= version,
        "{} < {version}",
        stored.len()
    );
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

/// Plays `mv` for `mover`; the legal moves after it, from the `move` event of `other`,
/// now to move (the mover's own copy has none).
async fn play(
    mover: &mut Client,
    other: &mut Client,
    game: &str,
    mv: &str,
    id: u64,
) -> Vec<String> {
    mover
        .send(json!({"type": "move", "game_id": game, "move": mv, "move_id": id}))
        .await;
    let version = loop {
        let v: Value = mover.recv().await;
        match v["type"].as_str() {
            Some("move_ack") => break v["version"].as_u64().expect("a version"),
            Some("error") => panic!("move {mv} refused: {v}"),
            Some("game_event") if v["event"]["kind"] == "game_over" => {
                panic!("the game ended at move {id}: {v}")
            }
            _ => {}
        }
    };
    let event = other.event_at(version).await;
    assert_eq!(event["event"]["kind"], "move", "{event}");
    serde_json::from_value(event["event"]["legal_moves"].clone()).expect("legal moves")
}

/// A game's state as a new spectator on `addr` is told it; `None` while nobody owns it.
async fn watch(addr: std::net::SocketAddr, game: &str) -> Option<Value> {
    let mut s = Client::guest(addr, "Spectator").await;
    s.send(json!({"type": "watch", "game_id": game})).await;
    loop {
        let v = s.recv().await;
        match v["type"].as_str() {
            Some("game_state") => return Some(v["game"].clone()),
            Some("error") => return None,
            _ => {}
        }
    }
}

#[tokio::test]
async fn a_compacted_game_with_a_takeback_is_taken_over_where_it_was() {
    let prefix = common::redis_env::unique_prefix("rto");
    let a = start(node("rto-a", &prefix)).await;
    let b = start(node("rto-b", &prefix)).await;
    let Seated {
        mut white,
        mut black,
        white_login,
        black_login: _,
        started,
    } = seated(a.addr, "chess", "30+0").await;
    let game = started["game"]["game_id"].as_str().unwrap().to_string();
    let mut legal: Vec<String> =
        serde_json::from_value(started["game"]["legal_moves"].clone()).expect("legal moves");

    // A fixed pseudo-random game, past a compaction (every 256 actions), with a
    // takeback after it.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut id = 0;
    for ply in 1..=270u64 {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mv = legal[((seed >> 33) as usize) % legal.len()].clone();
        let (mover, other) = if ply % 2 == 1 {
            (&mut white, &mut black)
        } else {
            (&mut black, &mut white)
        };
        id += 1;
        let before = legal.clone();
        legal = play(mover, other, &game, &mv, id).await;
        if ply == 262 {
            mover
                .send(json!({"type": "takeback_offer", "game_id": game}))
                .await;
            other
                .send(json!({"type": "takeback_accept", "game_id": game}))
                .await;
            // The move is taken back: its player, to move again, gets the legal moves.
            let back = mover.recv_event("taken_back").await;
            assert_eq!(back["event"]["legal_moves"], json!(before), "{back}");
            let seen = other.recv_event("taken_back").await;
            assert!(seen["event"].get("legal_moves").is_none(), "{seen}");
            id += 1;
            legal = play(mover, other, &game, &mv, id).await;
        }
    }
    let held = watch(a.addr, &game).await.expect("the game's state");
    assert_eq!(held["moves"].as_array().map(Vec::len), Some(270));

    // Redis holds a snapshot and, after it, the actions of the moves since the
    // takeback: the takeover replays them.
    let acts = redis_cli(&["LLEN", &format!("{prefix}{{g:{game}}}:acts")]);
    let acts: usize = acts.parse().expect("a length");
    assert!((1..256).contains(&acts), "{acts} actions appended");
    steal_lease(&prefix, &game);
    let deadline = Instant::now() + Duration::from_secs(10);
    let taken = loop {
        if let Some(state) = watch(b.addr, &game).await {
            break state;
        }
        assert!(Instant::now() < deadline, "the game was not taken over");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    for field in ["fen", "moves", "turn", "outcome"] {
        assert_eq!(
            taken[field], held[field],
            "{field} differs after the takeover"
        );
    }
    // Spectators get no legal moves; White, to move, resuming from scratch on the new
    // owner gets them from the restored game.
    assert!(held.get("legal_moves").is_none(), "{held}");
    assert!(taken.get("legal_moves").is_none(), "{taken}");
    let mut white_b = Client::with_token(b.addr, &white_login.0, &white_login.1).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let resumed = loop {
        white_b
            .send(json!({"type": "resume", "game_id": game, "last_version": 0}))
            .await;
        let v = loop {
            let v = white_b.recv().await;
            if v["type"] == "game_state" || v["type"] == "error" {
                break v;
            }
        };
        if v["type"] == "game_state" {
            break v;
        }
        assert_eq!(v["code"], "unavailable", "{v}");
        assert!(
            Instant::now() < deadline,
            "no state from the new owner: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(resumed["game"]["turn"], "white", "{resumed}");
    assert_eq!(resumed["game"]["legal_moves"], json!(legal), "{resumed}");
    // The version may have moved on since `held`, but only by the spectator count the
    // watches themselves cause (announced at most every 2 s): every event in between,
    // replayed to a resume from `held`, is one.
    let (from, to) = (
        held["version"].as_u64().unwrap(),
        taken["version"].as_u64().unwrap(),
    );
    assert!(from <= to, "the version went back: {from} -> {to}");
    if from < to {
        let mut check = Client::guest(b.addr, "Check").await;
        check
            .send(json!({"type": "resume", "game_id": game, "last_version": from}))
            .await;
        let mut seen = from;
        while seen < to {
            let v = check.recv_type("game_event").await;
            seen = v["version"].as_u64().unwrap();
            assert_eq!(v["event"]["kind"], "spectators", "{v}");
        }
    }
    // The new owner goes on with the game. A takeover may still be settling (the
    // proxy b made while the thief held the lease waits for whichever node restores
    // the game, which on a loaded machine can outlast one command timeout): the
    // documented answer then is `unavailable`, and a client resumes and tries again.
    let mv = legal[0].clone();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut move_id = 1000;
    loop {
        white_b
            .send(json!({"type": "resume", "game_id": game, "last_version": taken["version"]}))
            .await;
        move_id += 1;
        white_b
            .send(json!({"type": "move", "game_id": game, "move": mv, "move_id": move_id}))
            .await;
        let v = loop {
            let v = white_b.recv().await;
            if v["type"] == "move_ack" || (v["type"] == "error" && v["move_id"] == move_id) {
                break v;
            }
        };
        if v["type"] == "move_ack" {
            break;
        }
        assert_eq!(v["code"], "unavailable", "{v}");
        assert!(
            Instant::now() < deadline,
            "the new owner did not go on: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    a.server.shutdown();
    b.server.shutdown();
}
