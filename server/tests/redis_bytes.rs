//! Bytes a node writes to Redis for one move, early in a game (ply 10) and late (ply
//! 300): a measurement, not a check, so it is ignored by default. Run it with
//! `cargo test -p damka --test redis_bytes -- --ignored --nocapture`. It starts a
//! redis-server of its own (nothing else writes to it) and reads `total_net_input_bytes`
//! from `INFO stats` before and after each move (each reading adds the ~30 bytes of its
//! own `INFO stats`); `docs/performance.md` keeps the numbers.

mod common;

use std::process::Command;
use std::time::Duration;

use common::redis_env::{free_port, own_redis};
use common::{Client, config, start};
use serde_json::{Value, json};

fn input_bytes(port: u16) -> u64 {
    let out = Command::new("redis-cli")
        .args(["-p", &port.to_string(), "INFO", "stats"])
        .output()
        .expect("redis-cli");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("total_net_input_bytes:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("total_net_input_bytes")
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

#[tokio::test]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn bytes_written_per_move() {
    let port = free_port();
    let redis = own_redis(port, &[]);
    let mut c = config();
    c.redis.url = format!("redis://127.0.0.1:{port}");
    c.redis.prefix = "bytes:".into();
    c.cluster.lease_ms = 600_000;
    c.cluster.renew_ms = 300_000;
    c.cluster.heartbeat_ms = 300_000;
    c.cluster.sweep_ms = 300_000;
    let server = start(c).await;
    let (mut white, mut black, game) = common::game(server.addr, "chess", "30+0").await;
    // A fixed pseudo-random game that lasts past ply 300.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut legal: Vec<String> = [
        "a2a3", "b2b3", "c2c3", "d2d3", "e2e3", "f2f3", "g2g3", "h2h3", "a2a4", "b2b4", "c2c4",
        "d2d4", "e2e4", "f2f4", "g2g4", "h2h4", "b1a3", "b1c3", "g1f3", "g1h3",
    ]
    .map(String::from)
    .to_vec();
    let mut report = Vec::new();
    let mut per_move = Vec::new();
    let first = input_bytes(port);
    let mut before = first;
    for ply in 1..=300u64 {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mv = legal[((seed >> 33) as usize) % legal.len()].clone();
        let (mover, other) = if ply % 2 == 1 {
            (&mut white, &mut black)
        } else {
            (&mut black, &mut white)
        };
        legal = play(mover, other, &game, &mv, ply).await;
        if ply == 10 || ply == 100 || ply == 300 {
            // The publications leave through the bus's own connection.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let after = input_bytes(port);
        if ply == 10 || ply == 100 || ply == 300 {
            report.push((ply, after - before));
        }
        per_move.push((after - before, ply));
        before = after;
    }
    for (ply, bytes) in report {
        println!("ply {ply}: {bytes} bytes written to Redis for the move");
    }
    let (most, at) = per_move.iter().max().copied().unwrap_or_default();
    println!("largest: {most} bytes at ply {at}");
    println!(
        "whole game: {} bytes, {} per move",
        before - first,
        (before - first) / 300
    );
    server.server.shutdown();
    drop(redis);
}
