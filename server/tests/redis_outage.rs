//! Redis going away and coming back, on a redis-server of the test's own (never the
//! shared one): games go on locally, new pairings are refused with `unavailable`, and
//! when Redis returns (empty: no persistence) the game's log and lease are written again.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::redis_env::{free_port, own_redis};
use common::{Client, config, start};
use serde_json::json;

fn llen(port: u16, key: &str) -> i64 {
    let out = Command::new("redis-cli")
        .args(["-p", &port.to_string(), "LLEN", key])
        .output()
        .expect("redis-cli");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .unwrap_or(-1)
}

#[tokio::test]
async fn games_survive_redis_going_away_and_coming_back() {
    let port = free_port();
    let redis = own_redis(port, &[]);
    let mut c = config();
    c.redis.url = format!("redis://127.0.0.1:{port}");
    c.redis.prefix = "outage:".into();
    c.redis.timeout_ms = 300;
    let server = start(c).await;
    let (mut a, mut b, game) = common::game(server.addr, "russian", "3+2").await;
    a.move_acked(&game, "c3-d4", 1).await;
    let log = format!("outage:{{g:{game}}}:log");
    assert!(llen(port, &log) >= 1);

    drop(redis);
    // The game goes on locally.
    let ack = b.move_acked(&game, "b6-a5", 1).await;
    let version = ack["version"].as_i64().unwrap();
    // No new pairings.
    let mut c = Client::guest(server.addr, "Carol").await;
    c.send(json!({"type": "pool_join", "variant": "russian", "time_control": "3+2"}))
        .await;
    let err = c.recv_type("error").await;
    assert_eq!(err["code"], "unavailable", "{err}");

    // Redis returns, empty: the game is written again, whole.
    let _redis = own_redis(port, &[]);
    let deadline = Instant::now() + Duration::from_secs(5);
    while llen(port, &log) < version {
        assert!(Instant::now() < deadline, "the game was not written again");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    a.move_acked(&game, "g3-h4", 2).await;
    assert_eq!(llen(port, &log), version + 1);
    // Pairing works again.
    c.send(json!({"type": "pool_join", "variant": "russian", "time_control": "3+2"}))
        .await;
    c.recv_type("pool_joined").await;
    server.server.shutdown();
}
