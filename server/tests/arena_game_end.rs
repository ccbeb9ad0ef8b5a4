//! A game's end is stored (in Redis) before it is archived, and archived only by the
//! game's owner, so that a game never has two endings: one in the archive and another
//! told to its players and scored by its arena. Real `damka` nodes on Redis and the
//! real PostgreSQL; an arena is created on node 1, so its games are played there; two
//! players on node 2 are paired and White resigns, then:
//!
//! - node 1 is killed (SIGKILL) as it writes the game's end to Redis (a redis-server
//!   of the test's own, node 1 reaching it through a proxy that forwards nothing more
//!   from the first write holding `"ended":true`);
//! - or node 1's archive is held up (the test locks the `games` table) for longer than
//!   the game's lease: node 1 keeps renewing the lease meanwhile, and node 2 never
//!   takes the game over.
//!
//! Black, on node 2, then resigns too (in the first case node 2 has the game by then).
//! The archive must say what the players were told and what the arena scored. Before, node 1 archived the game (White
//! resigned) before writing its end to Redis: node 2 went on with the game as live, its
//! second ending was told and scored, and the archive kept the first (it keeps the
//! first record of a game). Under CPU load the second case came about by itself: an
//! archive slower than the lease, while the actor did not renew as it archived.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::node::{Node, spawn_node};
use common::redis_env::{free_port, own_redis, unique_prefix};
use common::{Client, get_json};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::Message;

/// A TCP proxy to Redis on `port`: from the first request that holds `marker`, it
/// forwards nothing more to Redis on any of its connections (`cut` is set then).
/// Returns the proxy's port.
async fn cutting_proxy(port: u16, marker: &'static str, cut: Arc<AtomicBool>) -> u16 {
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
            let cut = cut.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 256 * 1024];
                loop {
                    let Ok(n) = cr.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    if String::from_utf8_lossy(&buf[..n]).contains(marker) {
                        cut.store(true, Ordering::SeqCst);
                    }
                    if cut.load(Ordering::SeqCst) {
                        // Held for good: the node is killed before it hears back.
                        continue;
                    }
                    if sw.write_all(&buf[..n]).await.is_err() {
                        return;
                    }
                }
            });
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    let Ok(n) = sr.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 || cw.write_all(&buf[..n]).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    proxy_port
}

/// The next message of `type`, other messages skipped, within `wait`.
async fn next_of(c: &mut Client, kind: &str, wait: Duration) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let frame = tokio::time::timeout_at(deadline, c.ws.next())
            .await
            .ok()??;
        let Ok(Message::Text(t)) = frame else {
            continue;
        };
        let v: Value = serde_json::from_str(&t).unwrap();
        if v["type"] == kind {
            return Some(v);
        }
    }
}

/// The `game_over` event of `game` sent to `c` within `wait`.
async fn game_over(c: &mut Client, game: &str, wait: Duration) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let v = next_of(c, "game_event", left).await?;
        if v["game_id"] == game && v["event"]["kind"] == "game_over" {
            return Some(v);
        }
    }
}

/// The arena's game between two players on `n2`, created on `n1` (which plays it).
struct Paired {
    arena: String,
    game: String,
    /// White's client, then Black's.
    players: [Client; 2],
}

/// Creates an arena on `n1` and pairs two players who join on `n2`.
async fn pair(n1: &Node, n2: &Node) -> Paired {
    let org_token = common::token("org", damka::auth::unix_now() + 3600);
    let mut org = Client::with_token(n1.addr, &org_token, "org").await;
    org.send(
        json!({"type": "arena_create", "name": "One ending", "variant": "russian",
        "time_control": "1+0", "starts_in_secs": 1, "duration_secs": 120}),
    )
    .await;
    let arena = org.recv_type("arena_created").await["arena"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut players = Vec::new();
    for name in ["ge_a", "ge_b"] {
        let token = common::token(name, damka::auth::unix_now() + 3600);
        let mut c = Client::with_token(n2.addr, &token, name).await;
        c.send(json!({"type": "arena_join", "arena_id": arena}))
            .await;
        assert_eq!(c.recv_type("arena_member").await["membership"], "active");
        players.push(c);
    }
    let mut started = Vec::new();
    for c in &mut players {
        let v = next_of(c, "game_start", Duration::from_secs(20))
            .await
            .expect("the two players are paired");
        started.push(v["game"].clone());
    }
    let game = started[0]["game_id"].as_str().unwrap().to_string();
    assert_eq!(started[1]["game_id"], game.as_str());
    let [a, b]: [Client; 2] = players.try_into().ok().unwrap();
    let players = if started[0]["white"]["id"] == a.user.as_str() {
        [a, b]
    } else {
        [b, a]
    };
    Paired {
        arena,
        game,
        players,
    }
}

/// Node 2 has the game: Black resigns there until the game is over for Black (by that
/// resignation, or by the end node 1 stored). The archive must say what Black was told,
/// and the arena must have scored what the archive says.
async fn one_ending(n2: &Node, p: &mut Paired) {
    let game = p.game.clone();
    let mut told = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while told.is_none() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the game never ended on node 2"
        );
        p.players[1]
            .send(json!({"type": "resign", "game_id": game}))
            .await;
        told = game_over(&mut p.players[1], &game, Duration::from_millis(700)).await;
    }
    let told = told.unwrap();
    let told_winner = told["event"]["outcome"]["winner"].clone();

    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let archived = loop {
        let (status, g) = get_json(n2.addr, &format!("/api/games/{game}")).await;
        if status == 200 && g["result"].is_string() && g["result"] != "*" {
            break g;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never archived: {g}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let archived_winner = match archived["result"].as_str().unwrap() {
        "1-0" => json!("white"),
        "0-1" => json!("black"),
        _ => Value::Null,
    };
    assert_eq!(
        archived_winner, told_winner,
        "the archive ({}, {}) says what the players were told ({told})",
        archived["result"], archived["reason"]
    );

    let (white, black) = (p.players[0].user.clone(), p.players[1].user.clone());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (_, live) = get_json(n2.addr, &format!("/api/arenas/{}", p.arena)).await;
        let points = |user: &str| {
            live["standings"]["top"].as_array().and_then(|top| {
                top.iter()
                    .find(|l| l["user"] == user)
                    .and_then(|l| l["points"].as_array().cloned())
                    .filter(|p| !p.is_empty())
            })
        };
        if let (Some(pw), Some(pb)) = (points(&white), points(&black)) {
            let (win, loss) = if archived_winner == "white" {
                (&pw, &pb)
            } else {
                (&pb, &pw)
            };
            assert_eq!((&win[0], &loss[0]), (&json!(2), &json!(0)), "{live}");
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never scored: {live}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

const ENV: [(&str, &str); 4] = [
    ("DAMKA_ARENA__WAVE_MS", "300"),
    ("DAMKA_ARENA__STANDINGS_MS", "200"),
    ("DAMKA_WS__RATE_PER_SEC", "500"),
    ("DAMKA_WS__RATE_BURST", "1000"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_game_whose_node_is_killed_as_it_stores_the_end_has_one_ending() {
    let port = free_port();
    let _redis = own_redis(port, &[]);
    let cut = Arc::new(AtomicBool::new(false));
    let proxy = cutting_proxy(port, "\"ended\":true", cut.clone()).await;
    let prefix = unique_prefix("endkill");
    let pg = common::postgres_url().await;
    let (via_proxy, direct) = (
        format!("redis://127.0.0.1:{proxy}"),
        format!("redis://127.0.0.1:{port}"),
    );
    // Node 1 waits for its cut-off writes far longer than the test takes to kill it.
    let mut env1 = ENV.to_vec();
    env1.extend([
        ("DAMKA_REDIS__URL", via_proxy.as_str()),
        ("DAMKA_REDIS__TIMEOUT_MS", "20000"),
    ]);
    let mut env2 = ENV.to_vec();
    env2.push(("DAMKA_REDIS__URL", direct.as_str()));
    let mut n1 = spawn_node("ek1", &prefix, &pg, &env1);
    let n2 = spawn_node("ek2", &prefix, &pg, &env2);
    let mut p = pair(&n1, &n2).await;

    // White resigns on node 1; node 1 is killed once it writes the end to Redis.
    p.players[0]
        .send(json!({"type": "resign", "game_id": p.game}))
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while !cut.load(Ordering::SeqCst) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "node 1 never wrote the end"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    n1.kill9();
    one_ending(&n2, &mut p).await;
}

/// Node 1's archive is held up (the test locks the `games` table) for three times the
/// game's lease (2 s): node 1 keeps renewing the lease while it waits, so node 2 never
/// takes the game over, and once the table is free the one ending White's resignation
/// made is what both players are told, what is archived and what the arena scores.
/// Before, the actor did not renew while it archived: node 2 took the game over.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_game_whose_archive_is_held_up_keeps_its_lease_and_has_one_ending() {
    let prefix = unique_prefix("endslow");
    let pg = common::postgres_url().await;
    // Node 1 waits for its archive far longer than its lease lasts (2 s).
    let mut env1 = ENV.to_vec();
    env1.push(("DAMKA_DATABASE__ARCHIVE_WAIT_MS", "15000"));
    let n1 = spawn_node("es1", &prefix, &pg, &env1);
    let n2 = spawn_node("es2", &prefix, &pg, &ENV);
    let mut p = pair(&n1, &n2).await;
    let redis = redis::Client::open("redis://127.0.0.1:6379").unwrap();
    let mut conn = redis.get_multiplexed_async_connection().await.unwrap();
    let lease = format!("{prefix}{{g:{}}}:lease", p.game);

    // The archive is held up; White resigns on node 1, which waits on the archive.
    let mut db = common::lock_table(&pg, "games", "EXCLUSIVE").await;
    p.players[0]
        .send(json!({"type": "resign", "game_id": p.game}))
        .await;
    let held_until = tokio::time::Instant::now() + Duration::from_secs(6);
    while tokio::time::Instant::now() < held_until {
        let holder: Option<String> = redis::cmd("GET")
            .arg(&lease)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert!(
            holder.as_deref().is_some_and(|h| h.ends_with(":es1")),
            "node 1 lost the game's lease while it archived: {holder:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    sqlx::query("COMMIT").execute(&mut db).await.unwrap();
    let over = game_over(&mut p.players[0], &p.game, Duration::from_secs(20))
        .await
        .expect("White is told the game is over");
    assert_eq!(over["event"]["outcome"]["winner"], "black", "{over}");
    one_ending(&n2, &mut p).await;
    drop((n1, n2));
}

/// A game that ended while nobody organised its arena is scored as soon as an
/// organiser follows it. Node 1 organises the arena and plays the game; the test makes
/// the arena's lease another's for 3 s (node 1's organiser stops), White resigns in that
/// time, then a node takes the arena again and follows the game, which is over and
/// sends no more events. Before, the follower waited for events until the game, or the
/// node's proxy of it, left memory (a minute after the end): the game was scored a
/// minute late and the arena's end waited for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_game_over_before_it_is_followed_is_scored_at_once() {
    let prefix = unique_prefix("endunfollowed");
    let pg = common::postgres_url().await;
    let n1 = spawn_node("eu1", &prefix, &pg, &ENV);
    let n2 = spawn_node("eu2", &prefix, &pg, &ENV);
    let mut p = pair(&n1, &n2).await;
    let redis = redis::Client::open("redis://127.0.0.1:6379").unwrap();
    let mut conn = redis.get_multiplexed_async_connection().await.unwrap();
    let lease = format!("{prefix}{{o:arena:{}}}:lease", p.arena);
    let _: () = redis::cmd("SET")
        .arg(&lease)
        .arg("999999:elsewhere")
        .arg("PX")
        .arg(3000)
        .query_async(&mut conn)
        .await
        .unwrap();
    // Node 1's organiser finds the lease another's at its next renewal.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    p.players[0]
        .send(json!({"type": "resign", "game_id": p.game}))
        .await;
    let over = game_over(&mut p.players[1], &p.game, Duration::from_secs(10)).await;
    assert!(over.is_some(), "the game ends");
    let resigned = tokio::time::Instant::now();

    // Scored well within the minute the game stays in memory.
    let (white, black) = (p.players[0].user.clone(), p.players[1].user.clone());
    loop {
        let (_, live) = get_json(n2.addr, &format!("/api/arenas/{}", p.arena)).await;
        let games = |user: &str| {
            live["standings"]["top"].as_array().and_then(|top| {
                top.iter()
                    .find(|l| l["user"] == user)
                    .and_then(|l| l["games"].as_u64())
            })
        };
        if games(&white) == Some(1) && games(&black) == Some(1) {
            break;
        }
        assert!(
            resigned.elapsed() < Duration::from_secs(20),
            "not scored 20 s after its end: {live}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop((n1, n2));
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query_async(&mut conn)
        .await
        .unwrap();
    if !keys.is_empty() {
        let _: i64 = redis::cmd("DEL")
            .arg(keys)
            .query_async(&mut conn)
            .await
            .unwrap();
    }
}
