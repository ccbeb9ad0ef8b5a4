//! The cluster path is bounded and keeps order, on the real Redis at 127.0.0.1:6379
//! (channels and keys under a prefix of each test's own). The bus delivers one
//! channel's messages in publication order, a burst sent in pipelines included, and a handler that does not keep up fills
//! its bounded queue: the overflow is counted in `damka_cluster_queue_full_total`
//! rather than buffered without end. Two nodes in one process: a player whose game is
//! owned by the other node sends a move and a resignation back to back, and the owner
//! applies them in that order.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Client, config, start};
use damka::cluster::bus::Bus;
use damka::metrics::Metrics;
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

const REDIS: &str = "redis://127.0.0.1:6379";

fn unique(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("test:{tag}:{}:{nanos}", std::process::id())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bus_keeps_order_and_counts_a_full_handler() {
    let metrics = Arc::new(Metrics::default());
    let stop = CancellationToken::new();
    let tasks = TaskTracker::new();
    let bus = Bus::start(
        REDIS,
        Duration::from_secs(2),
        256,
        metrics.clone(),
        stop.clone(),
        tasks.clone(),
    )
    .await
    .expect("the bus connects");

    // Order: 300 messages arrive as they were published.
    let ordered = unique("ordered");
    let (tx, mut rx) = mpsc::channel(1_000);
    bus.subscribe(ordered.clone(), tx).await;
    for i in 0..300 {
        bus.publish(ordered.clone(), i.to_string());
    }
    for i in 0..300 {
        let got = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .expect("every message in time")
            .expect("the channel is open");
        assert_eq!(got, i.to_string(), "message {i} out of order");
    }
    assert_eq!(metrics.cluster_queue_full.get(), 0, "nothing overflowed");

    // A handler with room for 2 that nobody reads: 10 messages overflow by 8.
    let stuck = unique("stuck");
    let (tx, _held) = mpsc::channel(2);
    bus.subscribe(stuck.clone(), tx).await;
    for i in 0..10 {
        bus.publish(stuck.clone(), i.to_string());
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    while metrics.cluster_queue_full.get() < 8 {
        assert!(Instant::now() < deadline, "overflow not counted");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(metrics.cluster_queue_full.get(), 8);
    assert!(
        metrics
            .render()
            .contains("damka_cluster_queue_full_total 8"),
        "the counter is exported"
    );

    stop.cancel();
    tasks.close();
    tokio::time::timeout(Duration::from_secs(5), tasks.wait())
        .await
        .expect("the bus's tasks end with the stop token");
}

/// The publisher sends everything queued in one pipeline: a burst of 20,000 messages
/// on four channels, queued faster than Redis answers, arrives whole and in order on
/// every channel, and the queue gauge returns to zero.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipelined_burst_keeps_order_and_loses_nothing() {
    const CHANNELS: usize = 4;
    const PER_CHANNEL: usize = 5_000;
    let metrics = Arc::new(Metrics::default());
    let stop = CancellationToken::new();
    let tasks = TaskTracker::new();
    let bus = Bus::start(
        REDIS,
        Duration::from_secs(2),
        256,
        metrics.clone(),
        stop.clone(),
        tasks.clone(),
    )
    .await
    .expect("the bus connects");
    let mut receivers = Vec::new();
    let mut channels = Vec::new();
    for c in 0..CHANNELS {
        let channel = unique(&format!("burst{c}"));
        let (tx, rx) = mpsc::channel(PER_CHANNEL);
        bus.subscribe(channel.clone(), tx).await;
        channels.push(channel);
        receivers.push(rx);
    }
    for i in 0..PER_CHANNEL {
        for channel in &channels {
            bus.publish(channel.clone(), i.to_string());
        }
    }
    for (c, rx) in receivers.iter_mut().enumerate() {
        for i in 0..PER_CHANNEL {
            let got = tokio::time::timeout(Duration::from_secs(10), rx.recv())
                .await
                .unwrap_or_else(|_| panic!("channel {c}: message {i} never came"))
                .expect("the channel is open");
            assert_eq!(got, i.to_string(), "channel {c}: message {i} out of order");
        }
    }
    assert_eq!(metrics.cluster_queue_full.get(), 0, "nothing overflowed");
    assert_eq!(metrics.redis_errors.get(), 0, "no publish failed");
    assert_eq!(metrics.redis_queue.get(), 0, "the queue drained");
    for (c, rx) in receivers.iter_mut().enumerate() {
        assert!(rx.try_recv().is_err(), "channel {c}: nothing extra");
    }

    stop.cancel();
    tasks.close();
    tokio::time::timeout(Duration::from_secs(5), tasks.wait())
        .await
        .expect("the bus's tasks end with the stop token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_players_commands_reach_the_owner_in_order() {
    let prefix = unique("order");
    let node = |name: &str| {
        let mut c = config();
        c.node_id = name.into();
        c.redis.url = REDIS.into();
        c.redis.prefix = prefix.clone();
        c
    };
    let a = start(node("order-a")).await;
    let b = start(node("order-b")).await;

    // The seek is made on node B, accepted on node A: A (where the game starts) owns
    // it, and White plays it through node B's proxy.
    let mut white = Client::guest(b.addr, "Alice").await;
    let mut black = Client::guest(a.addr, "Bob").await;
    white
        .send(
            json!({"type": "seek", "variant": "russian", "time_control": "5+0", "color": "white"}),
        )
        .await;
    let seek = white.recv_type("seek_created").await;
    black
        .send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    let game = black.recv_type("game_start").await["game"]["game_id"]
        .as_str()
        .unwrap()
        .to_string();
    white.recv_type("game_start").await;
    assert!(a.server.app().games.get(&damka_game_id(&game)).is_some());
    assert!(b.server.app().games.get(&damka_game_id(&game)).is_none());

    // A move and a resignation without waiting: the owner applies them in order.
    white
        .send(json!({"type": "move", "game_id": game, "move": "c3-d4", "move_id": 1}))
        .await;
    white.send(json!({"type": "resign", "game_id": game})).await;
    let ack = white.recv_type("move_ack").await;
    assert_eq!(ack["move_id"], 1, "the move was applied: {ack}");
    let moved = black.recv_event("move").await;
    assert_eq!(moved["event"]["played"]["move"], "c3-d4", "{moved}");
    let over = black.recv_event("game_over").await;
    assert_eq!(
        over["version"].as_u64(),
        ack["version"].as_u64().map(|v| v + 1)
    );
    assert_eq!(over["event"]["outcome"]["reason"], "resignation", "{over}");
    assert_eq!(over["event"]["outcome"]["winner"], "black", "{over}");
}

/// A counter's value from a node's `/metrics` (`None`: not exported).
async fn counter(addr: std::net::SocketAddr, name: &str) -> Option<u64> {
    let (_, text) = common::http(addr, "GET", "/metrics", "").await;
    let prefix = format!("{name} ");
    text.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .and_then(|v| v.trim().parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_player_is_shown_game_start_from_the_notice_and_joined_behind() {
    let prefix = unique("ahead");
    let node = |name: &str| {
        let mut c = config();
        c.node_id = name.into();
        c.redis.url = REDIS.into();
        c.redis.prefix = prefix.clone();
        c
    };
    let a = start(node("ahead-a")).await;
    let b = start(node("ahead-b")).await;

    // Seek on B, accepted on A: A owns the game, White is on B.
    let mut white = Client::guest(b.addr, "Alice").await;
    let mut black = Client::guest(a.addr, "Bob").await;
    white
        .send(
            json!({"type": "seek", "variant": "russian", "time_control": "5+0", "color": "white"}),
        )
        .await;
    let seek = white.recv_type("seek_created").await;
    black
        .send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    let started = white.recv_type("game_start").await;
    let game = started["game"]["game_id"].as_str().unwrap().to_string();
    black.recv_type("game_start").await;
    assert!(a.server.app().games.get(&damka_game_id(&game)).is_some());

    // B showed White the start from A's notice, without asking A first; the state is
    // the owner's: White to move with its legal moves, both players connected.
    let ahead = counter(b.addr, "damka_game_start_ahead_total").await;
    assert_eq!(ahead, Some(1), "White's game_start came from the notice");
    assert_eq!(
        counter(a.addr, "damka_game_start_ahead_total").await,
        Some(0)
    );
    let state = &started["game"];
    assert_eq!(state["turn"], "white", "{started}");
    assert!(
        state["legal_moves"]
            .as_array()
            .is_some_and(|m| !m.is_empty()),
        "{started}"
    );
    assert!(state.get("draw_offer_refusal").is_some(), "{started}");
    assert_eq!(state["connected"], json!([true, true]), "{started}");

    // A move sent at once is played: the join reached the owner before it.
    white
        .send(json!({"type": "move", "game_id": game, "move": "c3-d4", "move_id": 1}))
        .await;
    let ack = white.recv_type("move_ack").await;
    assert_eq!(ack["move_id"], 1, "the move was applied: {ack}");
    let moved = black.recv_event("move").await;
    assert_eq!(moved["event"]["played"]["move"], "c3-d4", "{moved}");

    // Once the owner no longer counts the players as connected by default, White still
    // is: A has White's join.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let mut spectator = Client::guest(a.addr, "Carol").await;
    spectator
        .send(json!({"type": "watch", "game_id": game}))
        .await;
    let watched = spectator.recv_type("game_state").await;
    assert_eq!(
        watched["game"]["connected"],
        json!([true, true]),
        "{watched}"
    );
    assert!(watched["game"].get("away").is_none(), "{watched}");
}

fn damka_game_id(id: &str) -> shared::protocol::GameId {
    serde_json::from_value(json!(id)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_handler_is_unsubscribed_from_redis() {
    let stop = CancellationToken::new();
    let bus = Bus::start(
        REDIS,
        Duration::from_secs(2),
        256,
        Arc::new(Metrics::default()),
        stop.clone(),
        TaskTracker::new(),
    )
    .await
    .expect("the bus connects");
    let channel = unique("dead");
    let (tx, mut rx) = mpsc::channel(4);
    bus.subscribe(channel.clone(), tx).await;
    // A bus started a moment ago may still be opening its pub/sub connection:
    // the subscription reaches Redis once it is open.
    let deadline = Instant::now() + Duration::from_secs(5);
    while bus.publish_now(&channel, "1").await.unwrap() != 1 {
        assert!(
            Instant::now() < deadline,
            "Redis never routes the channel here"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // PUBLISH counts the subscriber when Redis queues the message, before the bus
    // hands it on: take "1" first, or the bus may find the handler closed on "1".
    let first = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await;
    assert_eq!(first.ok().flatten().as_deref(), Some("1"));
    // The handler's owner goes away; the next message finds it closed.
    drop(rx);
    assert_eq!(bus.publish_now(&channel, "2").await.unwrap(), 1);
    let deadline = Instant::now() + Duration::from_secs(5);
    while bus.publish_now(&channel, "3").await.unwrap() != 0 {
        assert!(
            Instant::now() < deadline,
            "Redis still sends the channel to this node"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_leaves_no_entry_behind() {
    let mut c = config();
    c.redis.url = REDIS.into();
    c.redis.prefix = format!("{}:", unique("rpc"));
    let stop = CancellationToken::new();
    let cluster = damka::cluster::Cluster::start(
        "rpc-node",
        &c.redis,
        &c.cluster,
        Arc::new(Metrics::default()),
        stop.clone(),
    )
    .await
    .expect("the cluster starts");
    // Someone listens and never answers.
    let channel = unique("silent");
    let (tx, _rx) = mpsc::channel(4);
    cluster.bus.subscribe(channel.clone(), tx).await;
    let op = json!({"op": "x"});
    for _ in 0..3 {
        let call = cluster.call::<_, serde_json::Value>(&channel, &op);
        assert!(
            tokio::time::timeout(Duration::from_millis(200), call)
                .await
                .is_err(),
            "no answer comes"
        );
    }
    assert_eq!(
        cluster.awaiting_answers(),
        0,
        "cancelled calls are forgotten"
    );
    stop.cancel();
}
