//! An arena wave whose answer from Redis comes late still starts its games. Two real
//! `damka` nodes on a redis-server of the test's own (never the shared one) with a
//! short Redis timeout (300 ms): the arena is created on node 1 (its organiser), which
//! reaches Redis through a proxy of the test's; four players on node 2 join once it
//! runs. The proxy holds Redis's answers to node 1 for 1.2 s from the moment node 1
//! writes the players' wave (`PAIR`, the only script with the arena's `next` key):
//! Redis has run it, the organiser times out and writes it again, and its answers
//! come late until the hold ends. Every player must still get its game: the retried
//! write accepts the pairs the first one recorded (before, it found the players busy,
//! accepted nothing, and the players stayed busy in games nobody started). And node 1
//! keeps the arena's lease (no other node took the arena over).

mod common;

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::node::spawn_node;
use common::redis_env::{free_port, own_redis, unique_prefix};
use common::{Client, get_json};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

fn redis_cli(port: u16, args: &[&str]) -> String {
    let out = Command::new("redis-cli")
        .arg("-p")
        .arg(port.to_string())
        .args(args)
        .output()
        .expect("redis-cli runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The next `game_start`, however long it takes (other messages skipped).
async fn game_start(c: &mut Client) -> serde_json::Value {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    loop {
        let Message::Text(t) = c.ws.next().await.expect("open").expect("a frame") else {
            continue;
        };
        let v: serde_json::Value = serde_json::from_str(&t).unwrap();
        if v["type"] == "game_start" {
            return v;
        }
    }
}

/// A TCP proxy to Redis on `port`: once armed, the first request of a connection that
/// holds `marker` and a user name of the test's makes that connection's answers wait
/// `hold` (in order: Redis has run the request; its answer, and every one after it on
/// that connection, come late). Returns the proxy's port.
async fn holding_proxy(port: u16, armed: Arc<AtomicBool>, marker: String, hold: Duration) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy_port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((client, _)) = listener.accept().await else {
                return;
            };
            let Ok(server) = TcpStream::connect(("127.0.0.1", port)).await else {
                return;
            };
            let (mut cr, mut cw) = client.into_split();
            let (mut sr, mut sw) = server.into_split();
            let (held_tx, mut held_rx) = tokio::sync::watch::channel(false);
            let (armed, marker) = (armed.clone(), marker.clone());
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    let Ok(n) = cr.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    let text = String::from_utf8_lossy(&buf[..n]);
                    if armed.load(Ordering::SeqCst)
                        && text.contains(&marker)
                        && text.contains("sw0")
                    {
                        armed.store(false, Ordering::SeqCst);
                        let _ = held_tx.send(true);
                    }
                    if sw.write_all(&buf[..n]).await.is_err() {
                        return;
                    }
                }
            });
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                let mut held = false;
                loop {
                    let Ok(n) = sr.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    if !held && *held_rx.borrow_and_update() {
                        held = true;
                        tokio::time::sleep(hold).await;
                    }
                    if cw.write_all(&buf[..n]).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    proxy_port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_wave_answered_late_still_starts_its_games() {
    let port = free_port();
    let _redis = own_redis(port, &[]);
    let armed = Arc::new(AtomicBool::new(false));
    let proxy = holding_proxy(
        port,
        armed.clone(),
        ":next".into(),
        Duration::from_millis(1200),
    )
    .await;
    let url = format!("redis://127.0.0.1:{port}");
    let via_proxy = format!("redis://127.0.0.1:{proxy}");
    let prefix = unique_prefix("slowwave");
    let pg = common::postgres_url().await;
    let env = [
        ("DAMKA_REDIS__TIMEOUT_MS", "300"),
        ("DAMKA_ARENA__WAVE_MS", "2000"),
        ("DAMKA_ARENA__STANDINGS_MS", "200"),
        ("DAMKA_CLUSTER__LEASE_MS", "4000"),
        ("DAMKA_CLUSTER__RENEW_MS", "1000"),
        ("DAMKA_CLUSTER__NODE_TTL_MS", "4000"),
        ("DAMKA_WS__RATE_PER_SEC", "500"),
        ("DAMKA_WS__RATE_BURST", "1000"),
    ];
    let mut env1 = env.to_vec();
    env1.push(("DAMKA_REDIS__URL", via_proxy.as_str()));
    let mut env2 = env.to_vec();
    env2.push(("DAMKA_REDIS__URL", url.as_str()));
    let n1 = spawn_node("sw1", &prefix, &pg, &env1);
    let n2 = spawn_node("sw2", &prefix, &pg, &env2);

    let org_token = common::token("org", damka::auth::unix_now() + 3600);
    let mut org = Client::with_token(n1.addr, &org_token, "org").await;
    org.send(
        json!({"type": "arena_create", "name": "Slow wave", "variant": "russian",
        "time_control": "0.2+0", "starts_in_secs": 1, "duration_secs": 60}),
    )
    .await;
    let created = org.recv_type("arena_created").await;
    let arena = created["arena"]["id"].as_str().unwrap().to_string();
    let starts_at = created["arena"]["starts_at_ms"].as_u64().unwrap();
    let lease_key = format!("{prefix}{{o:arena:{arena}}}:lease");
    let next_key = format!("{prefix}{{o:arena:{arena}}}:next");
    let holder = redis_cli(port, &["GET", &lease_key]);
    assert!(holder.ends_with(":sw1"), "node 1 organises: {holder}");

    // The first wave (nobody to pair) has run: its script is loaded in Redis.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while redis_cli(port, &["GET", &next_key])
        .parse::<u64>()
        .is_ok_and(|n| n <= starts_at)
        || redis_cli(port, &["GET", &next_key]).is_empty()
    {
        assert!(tokio::time::Instant::now() < deadline, "no first wave");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut players = Vec::new();
    for i in 0..4 {
        let name = format!("sw{i}");
        let token = common::token(&name, damka::auth::unix_now() + 3600);
        let mut c = Client::with_token(n2.addr, &token, &name).await;
        c.send(json!({"type": "arena_join", "arena_id": arena}))
            .await;
        let joined = c.recv_type("arena_member").await;
        assert_eq!(joined["membership"], "active", "{joined}");
        players.push(c);
    }
    // Node 1's next wave pairs them: its answers are held from there.
    armed.store(true, Ordering::SeqCst);
    let key = |rest: &str| format!("{prefix}{{o:arena:{arena}}}:{rest}");
    for c in &mut players {
        let started = tokio::time::timeout(Duration::from_secs(8), game_start(c)).await;
        let Ok(started) = started else {
            panic!(
                "no game started after a late wave: paired {:?}, busy {:?}",
                redis_cli(port, &["HGETALL", &key("g")]),
                redis_cli(port, &["HGETALL", &key("busy")])
            );
        };
        assert_eq!(started["game"]["arena"], arena.as_str());
    }
    let (_, live) = get_json(n2.addr, &format!("/api/arenas/{arena}")).await;
    assert_eq!(live["standings"]["playing"], 4, "{live}");
    let holder = redis_cli(port, &["GET", &lease_key]);
    assert!(holder.ends_with(":sw1"), "node 1 still organises: {holder}");
}
