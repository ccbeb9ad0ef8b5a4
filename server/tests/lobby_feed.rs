//! The lobby feed end to end over real WebSockets (`lobby_subscribe`, `lobby`): the pool
//! counts follow players joining and being paired, a game appears with its position,
//! shows its moves and leaves when it ends, a seek (with a rating range) appears and
//! goes, the users online are counted; on one node, and on two nodes sharing the real
//! Redis where every change made through one node shows in the other's feed. Seeks'
//! rating ranges are checked (`invalid_message`, `outside_rating_range`).

mod common;

use std::net::SocketAddr;

use common::node::spawn_node;
use common::{Client, start};
use serde_json::{Value, json};

/// Waits for a `lobby` message satisfying `want` (each newer than the one before);
/// the feed it carries.
async fn feed_until(c: &mut Client, what: &str, want: impl Fn(&Value) -> bool) -> Value {
    let mut last_version = 0;
    for _ in 0..200 {
        let msg = c.recv_type("lobby").await;
        let feed = msg["lobby"].clone();
        let version = feed["version"].as_u64().expect("a version");
        assert!(
            version > last_version,
            "versions grow: {version} after {last_version}"
        );
        last_version = version;
        if want(&feed) {
            return feed;
        }
    }
    panic!("the feed never showed {what}");
}

fn pool<'a>(feed: &'a Value, variant: &str, tc: &str) -> &'a Value {
    feed["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["variant"] == variant && p["time_control"] == tc)
        .unwrap_or_else(|| panic!("pool {variant} {tc} in {feed}"))
}

fn game<'a>(feed: &'a Value, id: &str) -> Option<&'a Value> {
    feed["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["game_id"] == id)
}

fn seek(feed: &Value, id: &Value) -> Option<Value> {
    feed["seeks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["seek_id"] == *id)
        .cloned()
}

/// Two players joining the Russian 3+2 pool through `a_at` and `b_at`, watched by
/// `watcher` (subscribed): the counts, the game's appearance, its first move, its end.
async fn pool_game_seen(watcher: &mut Client, a_at: SocketAddr, b_at: SocketAddr) {
    let mut alice = Client::guest(a_at, "Alice").await;
    alice
        .send(json!({"type": "pool_join", "variant": "russian", "time_control": "3+2"}))
        .await;
    alice.recv_type("pool_joined").await;
    feed_until(watcher, "Alice waiting", |f| {
        pool(f, "russian", "3+2")["waiting"] == 1
    })
    .await;

    let mut bob = Client::guest(b_at, "Bob").await;
    bob.send(json!({"type": "pool_join", "variant": "russian", "time_control": "3+2"}))
        .await;
    let start = alice.recv_type("game_start").await;
    bob.recv_type("game_start").await;
    let id = start["game"]["game_id"].as_str().unwrap().to_string();
    let feed = feed_until(watcher, "the pool's game", |f| {
        let p = pool(f, "russian", "3+2");
        p["waiting"] == 0 && p["playing"] == 2 && game(f, &id).is_some()
    })
    .await;
    let shown = game(&feed, &id).unwrap();
    assert_eq!(shown["fen"], start["game"]["fen"]);
    assert_eq!(shown["plies"], 0);
    assert!(shown.get("last_move").is_none(), "no move yet: {shown}");
    let names = [&shown["white"]["name"], &shown["black"]["name"]];
    assert!(names.contains(&&json!("Alice")) && names.contains(&&json!("Bob")));

    let (white, black) = if start["game"]["white"]["id"] == alice.user.as_str() {
        (&mut alice, &mut bob)
    } else {
        (&mut bob, &mut alice)
    };
    let ack = white.move_acked(&id, "c3-d4", 1).await;
    assert_eq!(ack["type"], "move_ack", "{ack}");
    let feed = feed_until(watcher, "the first move", |f| {
        game(f, &id).is_some_and(|g| g["last_move"] == "c3-d4")
    })
    .await;
    let shown = game(&feed, &id).unwrap();
    assert_eq!(shown["plies"], 1);
    assert!(shown["fen"].as_str().unwrap().starts_with("B:"), "{shown}");

    black.send(json!({"type": "resign", "game_id": id})).await;
    black.recv_event("game_over").await;
    feed_until(watcher, "the game gone", |f| {
        game(f, &id).is_none() && pool(f, "russian", "3+2")["playing"] == 0
    })
    .await;
}

/// A seek with a rating range made through `at` appears in `watcher`'s feed with its
/// range and goes when cancelled.
async fn seek_seen(watcher: &mut Client, at: SocketAddr) {
    let mut carol = Client::guest(at, "Carol").await;
    carol
        .send(
            json!({"type": "seek", "variant": "russian", "time_control": "5+3",
            "rating_range": {"min": 1400, "max": 1600}}),
        )
        .await;
    let made = carol.recv_type("seek_created").await;
    let id = made["seek"]["seek_id"].clone();
    let feed = feed_until(watcher, "Carol's seek", |f| seek(f, &id).is_some()).await;
    let shown = seek(&feed, &id).unwrap();
    assert_eq!(shown["user"]["name"], "Carol");
    assert_eq!(shown["rating_range"], json!({"min": 1400, "max": 1600}));
    carol
        .send(json!({"type": "cancel_seek", "seek_id": id}))
        .await;
    carol.recv_type("seek_removed").await;
    feed_until(watcher, "Carol's seek gone", |f| seek(f, &id).is_none()).await;
}

#[tokio::test]
async fn the_feed_follows_pools_games_seeks_and_people() {
    let server = start(common::config()).await;
    let addr = server.addr;
    let mut watcher = Client::guest(addr, "Watcher").await;
    watcher.send(json!({"type": "lobby_subscribe"})).await;
    let first = feed_until(&mut watcher, "the first feed", |_| true).await;
    assert_eq!(first["online"], 1);
    assert_eq!(pool(&first, "russian", "3+2")["waiting"], 0);
    assert_eq!(pool(&first, "chess", "0.05+0")["playing"], 0);
    assert_eq!(first["games"], json!([]));
    assert_eq!(first["seeks"], json!([]));

    pool_game_seen(&mut watcher, addr, addr).await;
    seek_seen(&mut watcher, addr).await;

    // Alice, Bob and Carol have left; someone arriving and leaving changes the count.
    let online = |n: u64| move |f: &Value| f["online"] == n;
    feed_until(&mut watcher, "only the watcher online", online(1)).await;
    let extra = Client::guest(addr, "Extra").await;
    feed_until(&mut watcher, "one more online", online(2)).await;
    drop(extra);
    feed_until(&mut watcher, "one fewer online", online(1)).await;

    // Subscribing again answers with the feed as it stands; after unsubscribing,
    // nothing more comes.
    watcher.send(json!({"type": "lobby_subscribe"})).await;
    let again = watcher.recv_type("lobby").await;
    assert_eq!(again["lobby"]["online"], 1);
    watcher.send(json!({"type": "lobby_unsubscribe"})).await;
    watcher.send(json!({"type": "ping", "id": 7})).await;
    watcher.recv_type("pong").await;
    let _more = Client::guest(addr, "More").await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    watcher.send(json!({"type": "ping", "id": 8})).await;
    let next = watcher.recv().await;
    assert_eq!(next["type"], "pong", "no lobby after unsubscribing: {next}");
}

#[tokio::test]
async fn seek_rating_ranges_are_checked() {
    let server = start(common::config()).await;
    let addr = server.addr;
    let mut dora = Client::guest(addr, "Dora").await;
    let mut eve = Client::guest(addr, "Eve").await;
    for bad in [
        json!({"min": 1800, "max": 1400}),
        json!({"min": 0, "max": 9000}),
    ] {
        dora.send(
            json!({"type": "seek", "variant": "russian", "time_control": "5+3",
            "rating_range": bad}),
        )
        .await;
        let err = dora.recv_type("error").await;
        assert_eq!(err["code"], "invalid_message", "{err}");
    }
    dora.send(json!({"type": "list_seeks"})).await;
    assert_eq!(dora.recv_type("seeks").await["seeks"], json!([]));

    // Guests are rated 1500: a 1600-2000 seek is out of their range, and stays open.
    dora.send(
        json!({"type": "seek", "variant": "russian", "time_control": "5+3",
        "rating_range": {"min": 1600, "max": 2000}}),
    )
    .await;
    let high = dora.recv_type("seek_created").await["seek"]["seek_id"].clone();
    eve.send(json!({"type": "accept_seek", "seek_id": high}))
        .await;
    let err = eve.recv_type("error").await;
    assert_eq!(err["code"], "outside_rating_range", "{err}");
    eve.send(json!({"type": "list_seeks"})).await;
    let open = eve.recv_type("seeks").await;
    assert_eq!(open["seeks"][0]["seek_id"], high);

    dora.send(
        json!({"type": "seek", "variant": "russian", "time_control": "5+3",
        "rating_range": {"min": 1400, "max": 1600}}),
    )
    .await;
    let fits = dora.recv_type("seek_created").await["seek"]["seek_id"].clone();
    eve.send(json!({"type": "accept_seek", "seek_id": fits}))
        .await;
    eve.recv_type("game_start").await;
}

fn redis_cleanup(prefix: &str) {
    let script = "for _, k in ipairs(redis.call('KEYS', ARGV[1] .. '*')) do redis.call('DEL', k) end return 1";
    let _ = std::process::Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", "6379", "EVAL", script, "0", prefix])
        .output();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_nodes_share_one_feed() {
    let prefix = common::redis_env::unique_prefix("lobbyfeed");
    let db = common::sqlite_url();
    let env = [("DAMKA_LOBBY__POOL_TICK_MS", "100")];
    let n1 = spawn_node("n1", &prefix, &db, &env);
    let n2 = spawn_node("n2", &prefix, &db, &env);

    // The watcher is on n2; everything happens on n1.
    let mut watcher = Client::guest(n2.addr, "Watcher").await;
    watcher.send(json!({"type": "lobby_subscribe"})).await;
    let first = feed_until(&mut watcher, "the first feed", |_| true).await;
    assert_eq!(first["online"], 1);

    pool_game_seen(&mut watcher, n1.addr, n1.addr).await;
    seek_seen(&mut watcher, n1.addr).await;
    // Alice, Bob, Carol connected to n1 and left: the count comes back to one.
    feed_until(&mut watcher, "only the watcher online", |f| {
        f["online"] == 1
    })
    .await;
    let _someone = Client::guest(n1.addr, "Someone").await;
    feed_until(&mut watcher, "a user of n1 online", |f| f["online"] == 2).await;
    redis_cleanup(&prefix);
}
