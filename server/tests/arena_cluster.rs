//! An arena across three real `damka` nodes on the real Redis and PostgreSQL: 12 bots
//! spread over nodes 2 and 3 play an arena created on (and so organised by) node 1;
//! mid-arena node 1 is killed with SIGKILL (its games are taken over by the game
//! layer, the arena's organisation by another node under the fenced organiser lease);
//! the arena goes on and ends. Its archived final standings equal what this test
//! recomputes from the archived games; nobody played two games at once; nobody met
//! the same opponent twice in a row; games were still paired after the kill. And
//! `arena.max_watchers` holds for the whole cluster: on two nodes capped at two, a third
//! watcher is refused on either node and is sent no standings.

mod arena_bot;
mod common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use arena_bot::{bot, bots_done, recompute};
use common::node::Node;
use common::{Client, get_json};
use serde_json::{Value, json};

const BOTS: usize = 12;

/// A configuration file with a recurring arena each minute, created long ahead (every
/// node has it: the cluster must create each of its arenas once).
fn schedule_file() -> std::path::PathBuf {
    let path = common::scratch::scratch_dir("arena-schedule").join("damka.toml");
    std::fs::write(
        &path,
        "[[arena.schedule]]\nname = \"Minutely\"\nvariant = \"russian\"\n\
         time_control = \"1+0\"\nevery_mins = 1\nduration_mins = 1\nlead_secs = 3600\n",
    )
    .expect("a config file");
    path
}

/// A node on the real Redis under `prefix` and the PostgreSQL database `pg`, with the
/// schedule file, short arena intervals and `extra` settings.
fn spawn_node(
    name: &str,
    prefix: &str,
    pg: &str,
    schedule: &std::path::Path,
    extra: &[(&str, &str)],
) -> Node {
    let schedule = schedule.to_string_lossy();
    let mut env = vec![
        ("DAMKA_CONFIG", &*schedule),
        ("DAMKA_ARENA__WAVE_MS", "300"),
        ("DAMKA_ARENA__STANDINGS_MS", "200"),
        ("DAMKA_WS__RATE_PER_SEC", "500"),
        ("DAMKA_WS__RATE_BURST", "1000"),
    ];
    env.extend_from_slice(extra);
    common::node::spawn_node(name, prefix, pg, &env)
}

fn listed(list: &Value, arena: &str) -> Vec<String> {
    ["upcoming", "running", "finishing", "finished"]
        .iter()
        .filter(|k| {
            list[**k]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x["id"] == arena))
        })
        .map(|k| k.to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_arena_ends_on_another_node_after_kill_9_of_its_organiser() {
    let prefix = common::redis_env::unique_prefix("arena");
    let pg = common::postgres_url().await;
    let schedule = schedule_file();
    let mut n1 = Some(spawn_node("a1", &prefix, &pg, &schedule, &[]));
    let n2 = spawn_node("a2", &prefix, &pg, &schedule, &[]);
    let n3 = spawn_node("a3", &prefix, &pg, &schedule, &[]);
    let a1 = n1.as_ref().map(|n| n.addr).unwrap();

    // The recurring arena of the schedule all three nodes share exists once.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, list) = get_json(n3.addr, "/api/arenas").await;
        let scheduled: Vec<&Value> = ["upcoming", "running"]
            .iter()
            .flat_map(|k| list[*k].as_array().unwrap().iter())
            .filter(|a| a["created_by"] == "schedule")
            .collect();
        if !scheduled.is_empty() {
            let starts: std::collections::HashSet<u64> = scheduled
                .iter()
                .map(|a| a["starts_at_ms"].as_u64().unwrap())
                .collect();
            assert_eq!(starts.len(), scheduled.len(), "one arena per start: {list}");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{list}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Entry conditions hold on any node: an arena created on node 2, joined on node 3.
    let mut host = Client::with_token(
        n2.addr,
        &common::token("host", damka::auth::unix_now() + 3600),
        "host",
    )
    .await;
    host.send(
        json!({"type": "arena_create", "name": "Private", "variant": "russian",
        "time_control": "1+0", "starts_in_secs": 60, "duration_secs": 60, "password": "pw",
        "min_games": 1}),
    )
    .await;
    let private = host.recv_type("arena_created").await["arena"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut visitor = Client::with_token(
        n3.addr,
        &common::token("visitor", damka::auth::unix_now() + 3600),
        "visitor",
    )
    .await;
    for password in ["no", "pw"] {
        visitor
            .send(json!({"type": "arena_join", "arena_id": private, "password": password}))
            .await;
        let refused = visitor.recv_type("error").await;
        assert_eq!(refused["code"], "arena_conditions", "{refused}");
    }
    let (_, live) = get_json(n1.as_ref().unwrap().addr, &format!("/api/arenas/{private}")).await;
    assert_eq!(live["standings"]["players"], 0, "{live}");
    assert_eq!(live["arena"]["private"], true);

    // Created on node 1, which organises it; every node lists it.
    let org_token = common::token("org", damka::auth::unix_now() + 3600);
    let mut org = Client::with_token(a1, &org_token, "org").await;
    org.send(
        json!({"type": "arena_create", "name": "Cluster arena", "variant": "russian",
        "time_control": "0.2+0", "starts_in_secs": 3, "duration_secs": 30, "berserk": true}),
    )
    .await;
    let created = org.recv_type("arena_created").await;
    let arena = created["arena"]["id"].as_str().unwrap().to_string();
    for addr in [n2.addr, n3.addr] {
        let (status, list) = get_json(addr, "/api/arenas").await;
        assert_eq!(status, 200);
        assert_eq!(listed(&list, &arena), ["upcoming"], "{list}");
    }

    // Bots on nodes 2 and 3 only: the kill of node 1 disconnects none of them.
    let mut bots = Vec::new();
    for i in 0..BOTS {
        let addr = if i % 2 == 0 { n2.addr } else { n3.addr };
        bots.push(tokio::spawn(bot(addr, format!("cb{i:02}"), arena.clone())));
    }
    // Wait until games have been played under node 1, then kill it.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (_, live) = get_json(n2.addr, &format!("/api/arenas/{arena}")).await;
        let played: u64 = live["standings"]["top"]
            .as_array()
            .map(|t| t.iter().map(|l| l["games"].as_u64().unwrap_or(0)).sum())
            .unwrap_or(0);
        if played >= 6 {
            assert_eq!(live["standings"]["players"], BOTS as u64, "{live}");
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no games: {live}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let killed_at_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis();
    drop(n1.take());
    let (status, list) = get_json(n3.addr, "/api/arenas").await;
    assert_eq!(status, 200);
    assert!(!listed(&list, &arena).is_empty(), "{list}");

    let redis = redis::Client::open("redis://127.0.0.1:6379").unwrap();
    let mut conn = redis.get_multiplexed_async_connection().await.unwrap();
    let killed = tokio::time::Instant::now();
    await_archived(&mut conn, &prefix, &arena, n2.addr, killed).await;
    eprintln!(
        "the arena was archived {:.1} s after the kill",
        killed.elapsed().as_secs_f64()
    );
    let seen = bots_done(bots, "cb", Duration::from_secs(30)).await;

    let (status, done) = get_json(n3.addr, &format!("/api/arenas/{arena}")).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["arena"]["status"], "finished");
    let standings = done["standings"].as_array().unwrap();
    assert_eq!(standings.len(), BOTS);
    let mut all_games: HashMap<String, Value> = HashMap::new();
    let mut sheets: HashMap<String, Vec<String>> = HashMap::new();
    let mut last = (u64::MAX, i64::MAX);
    let mut after_kill = 0;
    for (i, line) in standings.iter().enumerate() {
        let user = line["user"].as_str().unwrap();
        assert_eq!(line["rank"], i as u64 + 1);
        let key = (
            line["score"].as_u64().unwrap(),
            line["performance"].as_i64().unwrap(),
        );
        assert!(key <= last, "standings in order: {line}");
        last = key;
        let sheet = line["sheet"].as_array().unwrap();
        let ids: Vec<String> = sheet
            .iter()
            .map(|e| e["game_id"].as_str().unwrap().to_string())
            .collect();
        // Every game the bot was shown is on its sheet, in order. A game may be on the
        // sheet that its bot was never shown: started just before the kill, its
        // start notice reached the bot's session while the game's node died; the game
        // was taken over and ended (and counts) all the same.
        let mut rest = ids.iter();
        for (g, _) in &seen[user] {
            assert!(
                rest.any(|x| x == g),
                "{user}'s game {g} is on its sheet: {ids:?}"
            );
        }
        sheets.insert(user.to_string(), ids.clone());
        let mut archived = Vec::new();
        for id in &ids {
            let (status, g) = get_json(n2.addr, &format!("/api/games/{id}")).await;
            assert_eq!(status, 200, "{g}");
            assert_eq!(g["arena"], arena.as_str());
            assert!(
                g["white"]["id"] == user || g["black"]["id"] == user,
                "{user} played {id}"
            );
            if g["started_at"].as_i64().unwrap() > killed_at_ms as i64 {
                after_kill += 1;
            }
            all_games.insert(id.clone(), g.clone());
            archived.push(g);
        }
        let expected = recompute(user, &archived);
        let shown: Vec<u64> = sheet
            .iter()
            .map(|e| e["points"].as_u64().unwrap())
            .collect();
        assert_eq!(
            shown,
            expected,
            "{user}'s sheet differs from the archive (killed at {killed_at_ms}):\n{}",
            differences(user, sheet, &archived, &seen[user])
        );
        assert_eq!(
            line["score"].as_u64().unwrap(),
            expected.iter().sum::<u64>()
        );
        // Never two games at once.
        for w in archived.windows(2) {
            assert!(
                w[1]["started_at"].as_i64() >= w[0]["ended_at"].as_i64(),
                "{user} played {} and {} at once",
                w[0]["id"],
                w[1]["id"]
            );
        }
        // Never the same opponent twice in a row (12 players: someone else waited).
        let opponents: Vec<&str> = sheet
            .iter()
            .map(|e| e["opponent"].as_str().unwrap())
            .collect();
        for w in opponents.windows(2) {
            assert_ne!(w[0], w[1], "{user} met {} twice in a row", w[0]);
        }
    }
    // Both players of every game have it on their sheets.
    for (id, g) in &all_games {
        for side in ["white", "black"] {
            let u = g[side]["id"].as_str().unwrap();
            assert!(sheets[u].contains(id), "{id} missing for {u}");
        }
    }
    eprintln!(
        "{} games, {} paired after the kill",
        all_games.len(),
        after_kill / 2
    );
    assert!(after_kill > 0, "the arena went on after the kill");
    let (_, list) = get_json(n2.addr, "/api/arenas").await;
    assert_eq!(listed(&list, &arena), ["finished"], "{list}");
    // Its state is gone from Redis (watchers too); only the fencing counter stays.
    let left: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}{{o:arena:{arena}}}:*"))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(left, [format!("{prefix}{{o:arena:{arena}}}:fence")]);
}

/// Waits (up to 120 s after the kill) until the arena's state is dropped from Redis,
/// that is archived; if it is not, fails with the games still unscored (`g`), who is
/// busy, and what the API says of each of those games.
async fn await_archived(
    conn: &mut redis::aio::MultiplexedConnection,
    prefix: &str,
    arena: &str,
    addr: SocketAddr,
    killed: tokio::time::Instant,
) {
    let key = |rest: &str| format!("{prefix}{{o:arena:{arena}}}:{rest}");
    loop {
        let live: bool = redis::cmd("EXISTS")
            .arg(key("spec"))
            .query_async(conn)
            .await
            .unwrap();
        if !live {
            return;
        }
        if killed.elapsed() > Duration::from_secs(120) {
            let unscored: HashMap<String, String> = redis::cmd("HGETALL")
                .arg(key("g"))
                .query_async(conn)
                .await
                .unwrap();
            let busy: HashMap<String, String> = redis::cmd("HGETALL")
                .arg(key("busy"))
                .query_async(conn)
                .await
                .unwrap();
            let mut games = String::new();
            for id in unscored.keys() {
                let (status, g) = get_json(addr, &format!("/api/games/{id}")).await;
                games += &format!(
                    "  {id}: {status} result={} reason={} plies={} live={}\n",
                    g["result"],
                    g["reason"],
                    g["moves"].as_array().map_or(0, Vec::len),
                    g["live"]
                );
            }
            panic!(
                "the arena is not over 120 s after the kill: unscored {unscored:?}, \
                 busy {busy:?}\n{games}"
            );
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Each game of `user`'s sheet beside its archived record and what the bot saw (for a
/// failure's message): the sheet's result, berserk, own moves, plies and points, the
/// archive's result, reason, plies, berserk and times.
fn differences(user: &str, sheet: &[Value], archived: &[Value], seen: &[(String, bool)]) -> String {
    let mut out = String::new();
    for (e, g) in sheet.iter().zip(archived) {
        let saw = seen.iter().find(|(id, _)| *id == e["game_id"]);
        out += &format!(
            "  {} vs {}: sheet {} berserk={} own={} plies={} points={} flag={} | \
             archive {} {} plies={} berserk={} white={} started={} ended={} | bot saw={:?}\n",
            e["game_id"],
            e["opponent"],
            e["result"],
            e["berserk"],
            e["own_moves"],
            e["plies"],
            e["points"],
            e["flag"],
            g["result"],
            g["reason"],
            g["moves"].as_array().map_or(0, Vec::len),
            g["berserk"],
            g["white"]["id"] == user,
            g["started_at"],
            g["ended_at"],
            saw.map(|(_, b)| b),
        );
    }
    out
}

/// The first answer to an arena request: its standings or an error.
async fn watch_reply(c: &mut Client) -> Value {
    loop {
        let v = c.recv().await;
        if v["type"] == "arena_standings" || v["type"] == "error" {
            return v;
        }
    }
}

/// Standings pushed to `c` within `wait`, if any.
async fn pushed(c: &mut Client, wait: Duration) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let v = tokio::time::timeout_at(deadline, c.recv()).await.ok()?;
        if v["type"] == "arena_standings" {
            return Some(v);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arena_watchers_are_capped_across_the_cluster() {
    let prefix = common::redis_env::unique_prefix("arena-watch");
    let pg = common::postgres_url().await;
    let cap = [("DAMKA_ARENA__MAX_WATCHERS", "2")];
    let schedule = schedule_file();
    let n1 = spawn_node("w1", &prefix, &pg, &schedule, &cap);
    let n2 = spawn_node("w2", &prefix, &pg, &schedule, &cap);
    let client = |addr: SocketAddr, name: &'static str| async move {
        let token = common::token(name, damka::auth::unix_now() + 3600);
        Client::with_token(addr, &token, name).await
    };
    let mut org = client(n1.addr, "org").await;
    org.send(
        json!({"type": "arena_create", "name": "Watched", "variant": "russian",
        "time_control": "1+0", "starts_in_secs": 600, "duration_secs": 600}),
    )
    .await;
    let arena = org.recv_type("arena_created").await["arena"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let watch = json!({"type": "arena_watch", "arena_id": arena});

    // Two watchers, one on each node; a third is refused on either node.
    let mut ann = client(n1.addr, "ann").await;
    let mut bob = client(n2.addr, "bob").await;
    let mut cat1 = client(n1.addr, "cat").await;
    let mut cat2 = client(n2.addr, "cat").await;
    for c in [&mut ann, &mut bob] {
        c.send(watch.clone()).await;
        let v = watch_reply(c).await;
        assert_eq!(v["type"], "arena_standings", "{}: {v}", c.user);
    }
    for c in [&mut cat1, &mut cat2] {
        c.send(watch.clone()).await;
        let v = watch_reply(c).await;
        assert_eq!(v["type"], "error", "{v}");
        assert_eq!(v["code"], "too_many", "{v}");
    }
    // Watching again takes no new place.
    ann.send(watch.clone()).await;
    assert_eq!(watch_reply(&mut ann).await["type"], "arena_standings");

    // A player always watches: dan joins (on node 2) and is sent the standings; the two
    // watchers are told of him, the refused one is not.
    let mut dan = client(n2.addr, "dan").await;
    dan.send(json!({"type": "arena_join", "arena_id": arena}))
        .await;
    assert_eq!(dan.recv_type("arena_member").await["membership"], "active");
    dan.send(watch.clone()).await;
    assert_eq!(watch_reply(&mut dan).await["type"], "arena_standings");
    for c in [&mut ann, &mut bob] {
        // (`Client::recv` gives up after 5 s.)
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let v = pushed(c, Duration::from_secs(4))
                .await
                .unwrap_or_else(|| panic!("{} is sent the standings", c.user));
            if v["standings"]["players"] == 1 {
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "{v}");
        }
    }
    for c in [&mut cat1, &mut cat2] {
        assert_eq!(
            pushed(c, Duration::from_secs(1)).await,
            None,
            "cat watches nothing"
        );
    }

    // Ann leaves: her place is free, on any node.
    ann.send(json!({"type": "arena_unwatch", "arena_id": arena}))
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        cat2.send(watch.clone()).await;
        let v = watch_reply(&mut cat2).await;
        if v["type"] == "arena_standings" {
            break;
        }
        // The unwatch may not have been handled yet.
        assert_eq!(v["code"], "too_many", "{v}");
        assert!(
            tokio::time::Instant::now() < deadline,
            "cat never got ann's place"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    drop((n1, n2));
    let redis = redis::Client::open("redis://127.0.0.1:6379").unwrap();
    let mut conn = redis.get_multiplexed_async_connection().await.unwrap();
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

/// The organiser keeps its lease while its own loop is held up: the arena's final
/// standings cannot be archived (the test holds the `arenas` table locked), so node 1's
/// organiser waits in `finish` for far longer than the lease's lifetime (2 s). Its lease
/// is renewed by a task of its own: node 2 never takes the arena over (the fence stays
/// at its first value), and once the table is free node 1 archives the arena. Renewed in
/// the organiser's loop instead, the lease lapses while the loop waits and node 2 takes
/// the arena (fence 2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_organiser_keeps_its_lease() {
    let prefix = common::redis_env::unique_prefix("arena-busy");
    let pg = common::postgres_url().await;
    let schedule = schedule_file();
    let n1 = spawn_node("b1", &prefix, &pg, &schedule, &[]);
    let n2 = spawn_node("b2", &prefix, &pg, &schedule, &[]);
    let token = common::token("org", damka::auth::unix_now() + 3600);
    let mut org = Client::with_token(n1.addr, &token, "org").await;
    org.send(
        json!({"type": "arena_create", "name": "Busy", "variant": "russian",
        "time_control": "1+0", "starts_in_secs": 1, "duration_secs": 10}),
    )
    .await;
    let arena = org.recv_type("arena_created").await["arena"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let redis = redis::Client::open("redis://127.0.0.1:6379").unwrap();
    let mut conn = redis.get_multiplexed_async_connection().await.unwrap();
    let key = |rest: &str| format!("{prefix}{{o:arena:{arena}}}:{rest}");
    let get = |k: String| {
        let mut conn = conn.clone();
        async move {
            redis::cmd("GET")
                .arg(k)
                .query_async::<Option<String>>(&mut conn)
                .await
                .unwrap()
        }
    };
    let holder = get(key("lease")).await.expect("a lease");
    assert!(holder.ends_with(":b1"), "node 1 organises: {holder}");

    // The archive is held up: node 1 will wait in `finish` until the lock goes.
    let mut db = common::lock_table(&pg, "arenas", "EXCLUSIVE").await;
    // The arena is over and node 1 closed it: it is in `finish` from here.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while get(key("closed")).await.is_none() {
        assert!(tokio::time::Instant::now() < deadline, "never closed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Three lease lifetimes and more: node 1 holds the lease all along.
    let held = tokio::time::Instant::now();
    while held.elapsed() < Duration::from_secs(7) {
        let now = get(key("lease")).await;
        assert_eq!(
            now.as_deref(),
            Some(holder.as_str()),
            "node 1 keeps the lease"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        get(key("spec")).await.is_some(),
        "not archived while locked"
    );
    sqlx::query("COMMIT").execute(&mut db).await.unwrap();

    // Archived by node 1: the fence never moved past its first value.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while get(key("spec")).await.is_some() {
        assert!(tokio::time::Instant::now() < deadline, "never archived");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let fence = holder.split(':').next().unwrap().to_string();
    assert_eq!(get(key("fence")).await, Some(fence), "nobody took it over");
    let (status, done) = get_json(n2.addr, &format!("/api/arenas/{arena}")).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["arena"]["status"], "finished", "{done}");
    drop((n1, n2));
    let _: i64 = redis::cmd("DEL")
        .arg(key("fence"))
        .query_async(&mut conn)
        .await
        .unwrap();
}
