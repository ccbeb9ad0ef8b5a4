//! A slow Redis does not stall a session: on a redis-server of the test's own (never
//! the shared one), `DEBUG SLEEP` holds every Redis reply for two seconds while a
//! client asks the lobby for its seeks (a Redis call), then pings, then closes. The
//! pong comes back at once, before the lobby's answer, and the close is answered. The
//! same with `watch`, `resume` and `tv` in flight (each looks for its game in Redis):
//! the pong first, then their answers in the order asked.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::redis_env::{free_port, own_redis};
use common::{Client, config, game, start};
use futures_util::StreamExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// Makes the redis-server on `port` sleep `secs` seconds, from a thread of its own.
fn redis_sleep(port: u16, secs: u32) -> std::thread::JoinHandle<()> {
    let sleeping = std::thread::spawn(move || {
        let _ = Command::new("redis-cli")
            .args(["-p", &port.to_string(), "DEBUG", "SLEEP", &secs.to_string()])
            .output();
    });
    // Wait until the server no longer answers: the sleep has begun.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut probe = Command::new("redis-cli");
        probe.args(["-p", &port.to_string(), "PING"]);
        let answered = std::sync::mpsc::channel::<()>();
        let tx = answered.0;
        std::thread::spawn(move || {
            if probe.output().is_ok() {
                let _ = tx.send(());
            }
        });
        if answered.1.recv_timeout(Duration::from_millis(300)).is_err() {
            return sleeping;
        }
        assert!(Instant::now() < deadline, "DEBUG SLEEP did not take");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_answers_pings_and_close_while_redis_is_slow() {
    let port = free_port();
    let _redis = own_redis(port, &["--enable-debug-command", "local"]);
    let mut c = config();
    c.redis.url = format!("redis://127.0.0.1:{port}");
    c.redis.prefix = "slow".into();
    c.redis.timeout_ms = 5_000;
    let server = start(c).await;
    let mut client = Client::guest(server.addr, "Patient").await;
    client.send(json!({"type": "list_seeks"})).await;
    client.recv_type("seeks").await;

    let sleeping = redis_sleep(port, 2);
    let asked = Instant::now();
    client.send(json!({"type": "list_seeks"})).await;
    client.send(json!({"type": "ping", "id": 9})).await;
    let first = client.recv().await;
    assert_eq!(
        first["type"], "pong",
        "the pong comes before the lobby: {first}"
    );
    assert_eq!(first["id"], 9);
    assert!(
        asked.elapsed() < Duration::from_millis(1_500),
        "the pong waited for Redis: {:?}",
        asked.elapsed()
    );

    // The client closes while Redis still sleeps: the close is answered.
    client
        .send_raw(Message::Close(Some(CloseFrame {
            code: CloseCode::Normal,
            reason: "bye".into(),
        })))
        .await;
    let closed = tokio::time::timeout(Duration::from_millis(1_500), async {
        loop {
            match client.ws.next().await {
                Some(Ok(Message::Close(frame))) => return frame.map(|f| u16::from(f.code)),
                Some(Ok(_)) => continue,
                other => panic!("socket ended without a close frame: {other:?}"),
            }
        }
    })
    .await
    .expect("the close is answered while Redis sleeps");
    assert_eq!(closed, Some(1000));
    assert!(
        asked.elapsed() < Duration::from_secs(2),
        "answered during the sleep"
    );
    sleeping.join().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_resume_and_tv_wait_on_redis_off_the_session_loop() {
    let port = free_port();
    let _redis = own_redis(port, &["--enable-debug-command", "local"]);
    let mut c = config();
    c.redis.url = format!("redis://127.0.0.1:{port}");
    c.redis.prefix = "slowwatch".into();
    c.redis.timeout_ms = 5_000;
    let server = start(c).await;
    // A live game on this node: watching it needs no Redis, and it is the TV game.
    let (_white, _black, live) = game(server.addr, "russian", "3+2").await;
    let mut client = Client::guest(server.addr, "Patient").await;

    let sleeping = redis_sleep(port, 2);
    let asked = Instant::now();
    // Games this node does not have are looked for in Redis; so is the cluster's
    // best chess game for TV.
    client
        .send(json!({"type": "watch", "game_id": "nowhere1"}))
        .await;
    client
        .send(json!({"type": "resume", "game_id": "nowhere2", "last_version": 3}))
        .await;
    client.send(json!({"type": "tv", "variant": "chess"})).await;
    client.send(json!({"type": "watch", "game_id": live})).await;
    client.send(json!({"type": "ping", "id": 7})).await;
    let first = client.recv().await;
    assert_eq!(
        first["type"], "pong",
        "the pong comes before the watch group's answers: {first}"
    );
    assert_eq!(first["id"], 7);
    assert!(
        asked.elapsed() < Duration::from_millis(1_500),
        "the pong waited for Redis: {:?}",
        asked.elapsed()
    );

    // Then the answers, in the order asked, once Redis is back.
    let mut answers = Vec::new();
    while answers.len() < 4 {
        let v = client.recv().await;
        if v["type"] != "game_event" {
            answers.push(v);
        }
    }
    assert!(
        asked.elapsed() >= Duration::from_millis(1_500),
        "the answers waited for Redis: {:?}",
        asked.elapsed()
    );
    let codes: Vec<(String, String)> = answers
        .iter()
        .map(|v| {
            (
                v["type"].as_str().unwrap_or("").to_string(),
                v["code"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        codes,
        [
            ("error".into(), "game_not_found".into()),
            ("error".into(), "game_not_found".into()),
            ("error".into(), "no_tv_game".into()),
            ("game_state".into(), String::new()),
        ],
        "{answers:?}"
    );
    assert_eq!(answers[0]["game_id"], "nowhere1");
    assert_eq!(answers[1]["game_id"], "nowhere2");
    assert_eq!(answers[3]["game"]["game_id"], live.as_str());
    sleeping.join().unwrap();
}
