//! The watch group (`watch`, `unwatch`, `tv`, `resume`) runs off the session loop yet
//! keeps its order, through a real socket: `watch` then `unwatch` sent back to back
//! ends unwatched (a move after it does not reach the client); `watch`, `watch`,
//! `unwatch`, `watch` at once are answered in order (the second `watch` refused) and
//! leave one subscription (each event once, the spectator counted once); `tv` then
//! `watch` of the TV game at once follow it once. And the session runs its requests in
//! its own loop: a connected, playing session is two of tokio's tasks (its loop and
//! its socket writer; no worker, no task per followed game or TV), and none is left
//! once its socket closes.

mod common;

use std::time::Duration;

use common::{Client, config, game, start};
use serde_json::{Value, json};

/// The next `n` messages that are not game events, as `type` or `error:code`.
async fn answers(c: &mut Client, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    while out.len() < n {
        let v = c.recv().await;
        match v["type"].as_str() {
            Some("game_event") => {}
            Some("error") => out.push(format!("error:{}", v["code"].as_str().unwrap_or(""))),
            Some(t) => out.push(t.to_string()),
            None => panic!("untyped message {v}"),
        }
    }
    out
}

/// Sends a move and waits for its ack; the ack's version.
async fn play(c: &mut Client, game: &str, mv: &str, id: u64) -> u64 {
    c.send(json!({"type": "move", "game_id": game, "move": mv, "move_id": id}))
        .await;
    let ack = c.recv_type("move_ack").await;
    ack["version"].as_u64().expect("a version")
}

/// Waits for the `move` event of `version`, skipping older ones (a mover's own move
/// event may still wait in its queue after the ack).
async fn move_at(c: &mut Client, version: u64) {
    loop {
        let v = c.recv_event("move").await;
        if v["version"].as_u64() >= Some(version) {
            assert_eq!(v["version"].as_u64(), Some(version), "{v}");
            return;
        }
    }
}

/// Pings, and returns every game event received before the pong.
async fn events_until_pong(c: &mut Client, id: u64) -> Vec<Value> {
    c.send(json!({"type": "ping", "id": id})).await;
    let mut events = Vec::new();
    loop {
        let v = c.recv().await;
        match v["type"].as_str() {
            Some("pong") if v["id"] == id => return events,
            Some("game_event") => events.push(v),
            _ => panic!("unexpected {v}"),
        }
    }
}

/// The move events among `events`, by version.
fn move_versions(events: &[Value]) -> Vec<u64> {
    events
        .iter()
        .filter(|v| v["event"]["kind"] == "move")
        .filter_map(|v| v["version"].as_u64())
        .collect()
}

/// How many spectators a newcomer counts, itself included.
async fn spectators(addr: std::net::SocketAddr, game: &str) -> u64 {
    let mut counter = Client::guest(addr, "Counter").await;
    counter
        .send(json!({"type": "watch", "game_id": game}))
        .await;
    let state = counter.recv_type("game_state").await;
    state["game"]["spectators"].as_u64().expect("a count")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_and_unwatch_sent_back_to_back_keep_their_order() {
    let server = start(config()).await;
    let (mut white, mut black, id) = game(server.addr, "russian", "3+2").await;
    let mut sam = Client::guest(server.addr, "Sam").await;

    // Watch then unwatch, the first not yet answered: ends unwatched.
    sam.send(json!({"type": "watch", "game_id": id})).await;
    sam.send(json!({"type": "unwatch", "game_id": id})).await;
    assert_eq!(answers(&mut sam, 2).await, ["game_state", "unwatched"]);
    let v1 = play(&mut white, &id, "c3-d4", 1).await;
    move_at(&mut black, v1).await;
    let seen = events_until_pong(&mut sam, 1).await;
    assert!(seen.is_empty(), "an unwatched game's events: {seen:?}");

    // Four at once: answered in order, one subscription left.
    for kind in ["watch", "watch", "unwatch", "watch"] {
        sam.send(json!({"type": kind, "game_id": id})).await;
    }
    assert_eq!(
        answers(&mut sam, 4).await,
        [
            "game_state",
            "error:already_watching",
            "unwatched",
            "game_state"
        ]
    );
    let v2 = play(&mut black, &id, "f6-g5", 2).await;
    move_at(&mut white, v2).await;
    let seen = events_until_pong(&mut sam, 2).await;
    assert_eq!(move_versions(&seen), [v2], "each event once: {seen:?}");
    assert_eq!(spectators(server.addr, &id).await, 2, "Sam counted once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tv_and_watch_of_the_tv_game_at_once_follow_it_once() {
    let server = start(config()).await;
    let (mut white, mut black, id) = game(server.addr, "russian", "3+2").await;
    let mut telly = Client::guest(server.addr, "Telly").await;
    telly
        .send(json!({"type": "tv", "variant": "russian"}))
        .await;
    telly.send(json!({"type": "watch", "game_id": id})).await;
    // Either the TV shows the game and the watch is refused, or the watch follows it
    // and the TV leaves it alone: one state either way.
    let mut states = 0;
    let settled = tokio::time::timeout(Duration::from_millis(1_500), async {
        loop {
            let v = telly.recv().await;
            match v["type"].as_str() {
                Some("game_state") => {
                    assert_eq!(v["game"]["game_id"], id.as_str());
                    states += 1;
                }
                Some("error") => assert_eq!(v["code"], "already_watching", "{v}"),
                Some("game_event") => {}
                _ => panic!("unexpected {v}"),
            }
        }
    })
    .await;
    assert!(settled.is_err(), "only states and refusals");
    assert_eq!(states, 1, "the game is shown once");

    let v1 = play(&mut white, &id, "c3-d4", 1).await;
    move_at(&mut black, v1).await;
    let seen = events_until_pong(&mut telly, 1).await;
    assert_eq!(move_versions(&seen), [v1], "each event once: {seen:?}");
    assert_eq!(spectators(server.addr, &id).await, 2, "Telly counted once");
}

/// The runtime's live tasks once the count has held still for half a second.
async fn steady_tasks() -> usize {
    let metrics = tokio::runtime::Handle::current().metrics();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let mut last = metrics.num_alive_tasks();
    let mut since = tokio::time::Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let now = metrics.num_alive_tasks();
        if now != last {
            (last, since) = (now, tokio::time::Instant::now());
        } else if since.elapsed() >= Duration::from_millis(500) {
            return now;
        }
        assert!(tokio::time::Instant::now() < deadline, "tasks never settle");
    }
}

/// A session's tasks: its loop and its socket's writer.
const SESSION_TASKS: usize = 2;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_playing_session_runs_two_tasks_and_leaves_none() {
    let server = start(config()).await;
    let (mut white, mut black, id) = game(server.addr, "russian", "3+2").await;
    let mut telly = Client::guest(server.addr, "Telly").await;
    telly
        .send(json!({"type": "tv", "variant": "russian"}))
        .await;
    telly.recv_type("game_state").await;
    let v1 = play(&mut white, &id, "c3-d4", 1).await;
    move_at(&mut black, v1).await;
    let v2 = play(&mut black, &id, "f6-g5", 2).await;
    move_at(&mut white, v2).await;
    move_at(&mut telly, v2).await;
    let playing = steady_tasks().await;

    // The TV viewer's socket closes: its session's tasks end, and only they.
    drop(telly);
    let watched = steady_tasks().await;
    assert_eq!(
        playing - watched,
        SESSION_TASKS,
        "{playing} -> {watched} tasks"
    );

    // So for a player, its game going on (the opponent is still there).
    white
        .send_raw(tokio_tungstenite::tungstenite::Message::Close(None))
        .await;
    let _ = white.closed().await;
    let played = steady_tasks().await;
    assert_eq!(
        watched - played,
        SESSION_TASKS,
        "{watched} -> {played} tasks"
    );
    assert!(
        events_until_pong(&mut black, 3)
            .await
            .iter()
            .all(|v| v["game_id"] == id.as_str())
    );
}
