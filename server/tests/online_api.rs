//! `GET /api/online` counts the players online on the whole cluster: two nodes sharing
//! the real Redis at 127.0.0.1:6379 (under a prefix of the test's own) both answer with
//! the connections of both, and a player who leaves stops being counted; a node that
//! was only slow (found dead by another, its users forgotten) counts them again.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::redis_env::unique_prefix;
use common::{Client, config, get_json, start};
use damka::cluster::redis::Redis;
use damka::config::RedisConfig;
use damka::metrics::Metrics;
use std::sync::Arc;

/// Polls `GET /api/online` on `addr` until it says `want` (5 s at most).
async fn online_becomes(addr: SocketAddr, want: u64) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, body) = get_json(addr, "/api/online").await;
        assert_eq!(status, 200, "{body}");
        if body["online"].as_u64() == Some(want) {
            assert!(body["playing"].is_object(), "{body}");
            return;
        }
        assert!(
            Instant::now() < deadline,
            "online stayed {body}, expected {want}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_online_count_covers_every_node() {
    let prefix = unique_prefix("online");
    let node = |name: &str| {
        let mut c = config();
        c.node_id = name.into();
        c.redis.url = "redis://127.0.0.1:6379".into();
        c.redis.prefix = prefix.clone();
        c
    };
    let a = start(node("online-a")).await;
    let b = start(node("online-b")).await;
    online_becomes(a.addr, 0).await;

    let _alice = Client::guest(a.addr, "Alice").await;
    let _bob = Client::guest(b.addr, "Bob").await;
    let carol = Client::guest(b.addr, "Carol").await;
    online_becomes(a.addr, 3).await;
    online_becomes(b.addr, 3).await;

    drop(carol);
    online_becomes(a.addr, 2).await;
}

/// GET /api/online's count now.
async fn online(addr: SocketAddr) -> u64 {
    let (status, body) = get_json(addr, "/api/online").await;
    assert_eq!(status, 200, "{body}");
    body["online"].as_u64().unwrap_or(u64::MAX)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_found_dead_while_only_slow_counts_its_players_again() {
    let prefix = unique_prefix("online-slow");
    let node = |name: &str, heartbeat_ms: u64| {
        let mut c = config();
        c.node_id = name.into();
        c.redis.url = "redis://127.0.0.1:6379".into();
        c.redis.prefix = prefix.clone();
        c.cluster.heartbeat_ms = heartbeat_ms;
        c
    };
    // b beats often, so it is the one that finds a "dead" first.
    let a = start(node("slow-a", 1000)).await;
    let b = start(node("slow-b", 100)).await;
    let _alice = Client::guest(a.addr, "Alice").await;
    let _bob = Client::guest(a.addr, "Bob").await;
    let _carol = Client::guest(b.addr, "Carol").await;
    online_becomes(b.addr, 3).await;

    // a misses its heartbeats, as a starved node does: its last one is made ancient,
    // and b's next heartbeat forgets a's players while their sockets stay open.
    let redis = Redis::connect(
        &RedisConfig {
            url: "redis://127.0.0.1:6379".into(),
            cluster: false,
            prefix: prefix.clone(),
            timeout_ms: 2000,
        },
        Arc::new(Metrics::default()),
    )
    .await
    .expect("redis");
    let nodes = redis.key("pres", "nodes");
    let deadline = Instant::now() + Duration::from_secs(10);
    'forgotten: loop {
        let _: i64 = redis
            .query(redis::cmd("ZADD").arg(&nodes).arg(0).arg("slow-a"))
            .await
            .expect("zadd");
        for _ in 0..20 {
            if online(b.addr).await == 1 {
                break 'forgotten;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(Instant::now() < deadline, "b never found a dead");
    }
    // a's next heartbeat learns it was forgotten and counts its players again.
    online_becomes(b.addr, 3).await;
    online_becomes(a.addr, 3).await;
}

#[tokio::test]
async fn a_node_without_redis_counts_its_own() {
    let node = start(config()).await;
    online_becomes(node.addr, 0).await;
    let _alice = Client::guest(node.addr, "Alice").await;
    online_becomes(node.addr, 1).await;
}
