//! Three `damka` processes sharing the real Redis on 127.0.0.1:6379 under a prefix of
//! their own: players paired from different nodes, a spectator on the third, `kill -9`
//! of the node owning the game mid-game; the game goes on on another node with no move
//! lost and the outage refunded, and presence forgets the dead node's users. A player
//! resuming from another node at once after the `kill -9` is told `unavailable` until
//! the takeover, never `game_not_found`, then gets what was missed. And hundreds of
//! players pooling at once through three nodes, each paired exactly once. A player
//! whose node dies (not the owner) is away on the owner, so the opponent may claim;
//! one whose node was only slow (found dead, sockets open) is present again. A game
//! whose node dies the moment it announces it is taken over all the same.

mod common;

use std::net::SocketAddr;
use std::process::Command;
use std::time::{Duration, Instant};

use common::node::Node;
use common::redis_env::delete_prefix;
use common::{Client, get_json, guest, register};
use serde_json::{Value, json};

/// A node on the real Redis under `prefix` and the SQLite or PostgreSQL database `db`
/// the test's nodes share, pairing pools every 100 ms; `env` adds `DAMKA_*` settings.
fn spawn_node(name: &str, prefix: &str, db: &str, env: &[(&str, &str)]) -> Node {
    let mut all = vec![("DAMKA_LOBBY__POOL_TICK_MS", "100")];
    all.extend_from_slice(env);
    common::node::spawn_node(name, prefix, db, &all)
}

/// A client with a known token, so it can reconnect as the same user elsewhere.
async fn login(addr: SocketAddr, name: &str) -> (Client, String) {
    let (token, user) = guest(addr, name).await;
    (Client::with_token(addr, &token, &user).await, token)
}

/// Sends a move and waits for its ack (skipping events); the ack.
async fn play(c: &mut Client, game: &str, mv: &str, id: u64) -> Value {
    c.send(json!({"type": "move", "game_id": game, "move": mv, "move_id": id}))
        .await;
    loop {
        let v = c.recv().await;
        match v["type"].as_str() {
            Some("move_ack") => return v,
            Some("error") => panic!("move {mv} refused: {v}"),
            _ => {}
        }
    }
}

/// The next `move` event (skipping others).
async fn next_move(c: &mut Client) -> Value {
    c.recv_event("move").await
}

/// The `move` event of `version`, skipping older ones: a mover's ack may arrive before its
/// own copy of the event, which then still waits in its queue.
async fn move_at(c: &mut Client, version: u64) -> Value {
    loop {
        let v = c.recv_event("move").await;
        if v["version"].as_u64() >= Some(version) {
            return v;
        }
    }
}

fn redis_get(key: &str) -> String {
    let out = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", "6379", "GET", key])
        .output()
        .expect("redis-cli");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Alice seeks (White, russian 3+2) and Bob accepts: the game starts on Bob's node.
async fn seek_and_accept(alice: &mut Client, bob: &mut Client) {
    alice
        .send(
            json!({"type": "seek", "variant": "russian", "time_control": "3+2", "color": "white"}),
        )
        .await;
    let seek = alice.recv_type("seek_created").await;
    bob.send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
}

/// Alice on `a` seeks (White, russian 3+2) and Bob on `b` accepts: the game starts on
/// Bob's node, `owner` (checked in its lease).
struct Paired {
    alice: Client,
    bob: Client,
    bob_token: String,
    /// Bob's `game_start`.
    start: Value,
    game: String,
}

async fn alice_seeks_bob_accepts(
    a: SocketAddr,
    b: SocketAddr,
    prefix: &str,
    owner: &str,
) -> Paired {
    let (mut alice, _) = login(a, "Alice").await;
    let (mut bob, bob_token) = login(b, "Bob").await;
    seek_and_accept(&mut alice, &mut bob).await;
    let start = bob.recv_type("game_start").await;
    alice.recv_type("game_start").await;
    let game = start["game"]["game_id"].as_str().unwrap().to_string();
    let lease = redis_get(&format!("{prefix}{{g:{game}}}:lease"));
    assert!(
        lease.ends_with(&format!(":{owner}")),
        "bob's node owns the game: {lease}"
    );
    Paired {
        alice,
        bob,
        bob_token,
        start,
        game,
    }
}

/// White's c3-d4 and Black's b6-a5, each seen by the other: the version after each.
async fn two_plies(alice: &mut Client, bob: &mut Client, game: &str) -> (u64, u64) {
    let seen = play(alice, game, "c3-d4", 1).await["version"]
        .as_u64()
        .unwrap();
    move_at(bob, seen).await;
    let moved = play(bob, game, "b6-a5", 2).await["version"]
        .as_u64()
        .unwrap();
    move_at(alice, moved).await;
    (seen, moved)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_nodes_survive_the_death_of_a_game_owner() {
    let prefix = common::redis_env::unique_prefix("multinode");
    let db = common::sqlite_url();
    let n1 = spawn_node("n1", &prefix, &db, &[]);
    let mut n2 = Some(spawn_node("n2", &prefix, &db, &[]));
    let n3 = spawn_node("n3", &prefix, &db, &[]);
    let a2 = n2.as_ref().map(|n| n.addr).unwrap();

    // Alice on n1 seeks; Bob on n2 accepts: n2 starts the game and owns it.
    let (mut alice, _) = login(n1.addr, "Alice").await;
    let (mut bob, bob_token) = login(a2, "Bob").await;
    let (dave, _) = login(a2, "Dave").await;
    alice
        .send(
            json!({"type": "seek", "variant": "russian", "time_control": "3+2", "color": "white"}),
        )
        .await;
    let seek = alice.recv_type("seek_created").await;
    // The seek is visible from every node.
    bob.send(json!({"type": "list_seeks"})).await;
    let seeks = bob.recv_type("seeks").await;
    assert_eq!(seeks["seeks"][0]["seek_id"], seek["seek"]["seek_id"]);
    bob.send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    let gb = bob.recv_type("game_start").await;
    let ga = alice.recv_type("game_start").await;
    let game = ga["game"]["game_id"].as_str().unwrap().to_string();
    assert_eq!(gb["game"]["game_id"], game.as_str());
    assert_eq!(ga["game"]["white"]["id"], alice.user.as_str());
    let lease = redis_get(&format!("{prefix}{{g:{game}}}:lease"));
    assert!(lease.ends_with(":n2"), "lease {lease}");

    // Carol watches from n3.
    let (mut carol, _) = login(n3.addr, "Carol").await;
    carol.send(json!({"type": "watch", "game_id": game})).await;
    let watched = carol.recv_type("game_state").await;
    assert_eq!(watched["game"]["game_id"], game.as_str());
    let mut carol_versions = vec![watched["game"]["version"].as_u64().unwrap()];

    // Four plies across nodes.
    let moves = ["c3-d4", "b6-a5", "g3-h4", "a7-b6"];
    let mut last_version = 0;
    for (i, mv) in moves.iter().enumerate() {
        let (mover, other) = if i % 2 == 0 {
            (&mut alice, &mut bob)
        } else {
            (&mut bob, &mut alice)
        };
        let ack = play(mover, &game, mv, i as u64 + 1).await;
        last_version = ack["version"].as_u64().unwrap();
        let seen = move_at(other, last_version).await;
        assert_eq!(seen["version"].as_u64().unwrap(), last_version);
    }
    let before_kill = {
        // Alice saw Black's last move: White's time then.
        let mut v;
        loop {
            v = carol.recv_type("game_event").await;
            carol_versions.push(v["version"].as_u64().unwrap());
            if v["version"].as_u64() == Some(last_version) {
                break;
            }
        }
        v["event"]["clock"]["white_ms"].as_u64().unwrap()
    };

    // kill -9 the owner.
    let killed_at = Instant::now();
    drop(n2.take());
    drop(bob);

    // Alice moves at once: the command waits for the takeover, then lands.
    let ack = play(&mut alice, &game, "e3-f4", 5).await;
    let takeover = killed_at.elapsed();
    eprintln!("takeover: the first move after kill -9 was acknowledged after {takeover:?}");
    assert!(takeover < Duration::from_secs(6), "{takeover:?}");
    let v5 = ack["version"].as_u64().unwrap();
    assert!(v5 > last_version);
    let lease = redis_get(&format!("{prefix}{{g:{game}}}:lease"));
    assert!(
        lease.ends_with(":n1") || lease.ends_with(":n3"),
        "lease {lease}"
    );
    assert!(!lease.starts_with("1:"), "a new fencing number: {lease}");

    // Bob reconnects to n3 and resumes from the last version he saw.
    let mut bob = Client::with_token(
        n3.addr,
        &bob_token,
        gb["game"]["black"]["id"].as_str().unwrap(),
    )
    .await;
    bob.send(json!({"type": "resume", "game_id": game, "last_version": last_version}))
        .await;
    let missed = next_move(&mut bob).await;
    assert_eq!(missed["version"].as_u64().unwrap(), v5);
    assert_eq!(missed["event"]["played"]["move"], json!("e3-f4"));
    // The outage was given back to White: 2 s increment, and almost nothing spent.
    let white_after = missed["event"]["clock"]["white_ms"].as_u64().unwrap();
    assert!(
        white_after + 1000 >= before_kill + 2000,
        "white had {before_kill} ms, has {white_after} ms after a {takeover:?} outage"
    );

    play(&mut bob, &game, "b6-c5", 6).await;
    alice.send(json!({"type": "resign", "game_id": game})).await;
    let over = alice.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["reason"], "resignation");

    // The spectator on n3 saw every event once, in order.
    loop {
        let v = carol.recv_type("game_event").await;
        carol_versions.push(v["version"].as_u64().unwrap());
        if v["event"]["kind"] == "game_over" {
            break;
        }
    }
    for pair in carol_versions.windows(2) {
        assert_eq!(
            pair[1],
            pair[0] + 1,
            "spectator versions {carol_versions:?}"
        );
    }

    // No move lost: the final state on any node has all six.
    let (mut erin, _) = login(n1.addr, "Erin").await;
    erin.send(json!({"type": "watch", "game_id": game})).await;
    let state = erin.recv_type("game_state").await;
    let played: Vec<&str> = state["game"]["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(played.len(), 6, "{played:?}");
    assert_eq!(state["game"]["outcome"]["reason"], "resignation");

    // Dave, connected only to n2, is gone; Alice is online.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        erin.send(json!({"type": "presence_query", "users": [dave.user, alice.user]}))
            .await;
        let p = erin.recv_type("presence").await;
        if p["users"][0]["online"] == false {
            assert_eq!(p["users"][1]["online"], true);
            break;
        }
        assert!(Instant::now() < deadline, "dave still online: {p}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop((n1, n3));
    delete_prefix(&prefix);
}

/// Hundreds of players join one quick-pairing pool at the same moment, spread over three
/// nodes that all pair at once: every player gets exactly one game, and nobody who has
/// a partner is left waiting (guests all have the same rating, so everyone fits).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_players_pair_exactly_once_across_three_nodes() {
    const PLAYERS: usize = 240;
    let prefix = common::redis_env::unique_prefix("pairing");
    let db = common::sqlite_url();
    let nodes = [
        spawn_node("p1", &prefix, &db, &[]),
        spawn_node("p2", &prefix, &db, &[]),
        spawn_node("p3", &prefix, &db, &[]),
    ];
    let mut clients = Vec::with_capacity(PLAYERS);
    let mut node_of = std::collections::HashMap::new();
    for i in 0..PLAYERS {
        let addr = nodes[i % 3].addr;
        let c = login(addr, &format!("p{i}")).await.0;
        node_of.insert(c.user.clone(), i % 3);
        clients.push(c);
    }
    // Everyone asks at once: one task per player sends and waits for its game.
    let mut tasks = Vec::new();
    for mut c in clients {
        tasks.push(tokio::spawn(async move {
            c.send(json!({"type": "pool_join", "variant": "russian", "time_control": "3+2"}))
                .await;
            let start = c.recv_type("game_start").await;
            let id = start["game"]["game_id"].as_str().unwrap().to_string();
            let me = c.user.clone();
            // A second game_start must not follow.
            let extra = tokio::time::timeout(Duration::from_millis(1500), async {
                loop {
                    let v = c.recv().await;
                    if v["type"] == "game_start" {
                        return v;
                    }
                }
            })
            .await;
            assert!(extra.is_err(), "{me} was paired twice: {:?}", extra.ok());
            (me, id, start)
        }));
    }
    let mut games: std::collections::HashMap<String, Vec<String>> = Default::default();
    for t in tasks {
        let (me, id, start) = t.await.expect("a player task");
        let white = start["game"]["white"]["id"].as_str().unwrap().to_string();
        let black = start["game"]["black"]["id"].as_str().unwrap().to_string();
        assert!(
            me == white || me == black,
            "{me} not in its own game {start}"
        );
        games.entry(id).or_default().push(me);
    }
    assert_eq!(games.len(), PLAYERS / 2, "every player paired, in pairs");
    for (id, players) in &games {
        assert_eq!(players.len(), 2, "game {id}: {players:?}");
        assert_ne!(players[0], players[1]);
    }
    let across = games
        .values()
        .filter(|p| node_of[&p[0]] != node_of[&p[1]])
        .count();
    assert!(across > 0, "no game paired players of different nodes");
    eprintln!(
        "{} games, {across} of them between players on different nodes",
        games.len()
    );
    drop(nodes);
    delete_prefix(&prefix);
}

/// A game ends while the database blocks its archive write: `game_over` goes out
/// without ratings, then the owner is killed with -9 before it could write. The node
/// that takes the game over finds it ended and unarchived in Redis, writes it once,
/// and the players learn the rating changes from an `archived` event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_whose_owner_died_before_archiving_it_is_archived_once() {
    let prefix = common::redis_env::unique_prefix("archive");
    let pg = common::postgres_url().await;
    let env = [
        ("DAMKA_DATABASE__ARCHIVE_WAIT_MS", "300"),
        ("DAMKA_DATABASE__RETRY_MAX_MS", "500"),
    ];
    let n1 = spawn_node("a1", &prefix, &pg, &env);
    let mut n2 = Some(spawn_node("a2", &prefix, &pg, &env));
    let n3 = spawn_node("a3", &prefix, &pg, &env);
    let a2 = n2.as_ref().map(|n| n.addr).unwrap();
    let (alice_token, alice_id) = register(n1.addr, "alice", "alice-password").await;
    let (bob_token, bob_id) = register(n1.addr, "bob", "bob-password").await;
    let mut alice = Client::with_token(n1.addr, &alice_token, &alice_id).await;
    let mut bob = Client::with_token(a2, &bob_token, &bob_id).await;
    alice
        .send(json!({"type": "seek", "variant": "russian", "time_control": "3+2", "rated": true, "color": "white"}))
        .await;
    let seek = alice.recv_type("seek_created").await;
    bob.send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    let start = bob.recv_type("game_start").await;
    alice.recv_type("game_start").await;
    let game = start["game"]["game_id"].as_str().unwrap().to_string();
    let lease = redis_get(&format!("{prefix}{{g:{game}}}:lease"));
    assert!(lease.ends_with(":a2"), "bob's node owns the game: {lease}");
    play(&mut alice, &game, "c3-d4", 1).await;
    play(&mut bob, &game, "f6-g5", 2).await;
    // TV on a node that has no game of its own shows the best game of the cluster.
    let (mut viewer, _) = login(n3.addr, "Viewer").await;
    viewer
        .send(json!({"type": "tv", "variant": "russian"}))
        .await;
    let shown = viewer.recv_type("game_state").await;
    assert_eq!(shown["game"]["game_id"], game.as_str(), "{shown}");
    let (_, board) = get_json(n1.addr, "/api/tv").await;
    assert_eq!(board["russian"], game.as_str());

    // The database blocks every archive write while the game ends.
    let mut blocker = common::lock_table(&pg, "games", "ACCESS EXCLUSIVE").await;
    bob.send(json!({"type": "resign", "game_id": game})).await;
    let over = alice.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["winner"], "white");
    assert!(
        over["event"].get("ratings").is_none(),
        "not stored yet: {over}"
    );

    // kill -9 the owner, then let the database go.
    drop(n2.take());
    drop(bob);
    sqlx::query("COMMIT").execute(&mut blocker).await.unwrap();

    // The next owner archives it; Alice, on a surviving node, hears of it.
    let archived = tokio::time::timeout(Duration::from_secs(15), alice.recv_event("archived"))
        .await
        .expect("the game is archived after the takeover");
    let ratings = &archived["event"]["ratings"];
    assert!(
        ratings["white"]["after"].as_i64().unwrap() > 1500,
        "{archived}"
    );
    let (status, stored) = get_json(n3.addr, &format!("/api/games/{game}")).await;
    assert_eq!(status, 200, "{stored}");
    assert_eq!(stored["result"], "1-0");
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM games WHERE id = $1")
        .bind(&game)
        .fetch_one(&mut blocker)
        .await
        .unwrap();
    assert_eq!(rows, 1);
    for name in ["alice", "bob"] {
        let (_, p) = get_json(n1.addr, &format!("/api/users/{name}")).await;
        assert_eq!(
            p["perfs"]["russian-blitz"]["games"], 1,
            "rated exactly once: {p}"
        );
    }
    drop((n1, n3));
    delete_prefix(&prefix);
}

/// Bob's node, which owns the game, is killed with -9; Bob reconnects to another node at
/// once and resumes. Until a node has taken the game over the answer is `unavailable`
/// (nodes wait 300 ms for an owner here, well under the 2 s lease), never
/// `game_not_found`; retried, the resume then brings Bob the move he missed, and the
/// game goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_during_a_takeover_is_unavailable_until_the_game_has_a_new_owner() {
    let prefix = common::redis_env::unique_prefix("takeover-resume");
    let db = common::sqlite_url();
    let env = [("DAMKA_CLUSTER__COMMAND_TIMEOUT_MS", "300")];
    let n1 = spawn_node("r1", &prefix, &db, &env);
    let mut n2 = Some(spawn_node("r2", &prefix, &db, &env));
    let n3 = spawn_node("r3", &prefix, &db, &env);
    let a2 = n2.as_ref().map(|n| n.addr).unwrap();
    let Paired {
        mut alice,
        mut bob,
        game,
        bob_token,
        start,
    } = alice_seeks_bob_accepts(n1.addr, a2, &prefix, "r2").await;
    let bob_id = start["game"]["black"]["id"].as_str().unwrap().to_string();
    let (seen, missed) = two_plies(&mut alice, &mut bob, &game).await;

    // kill -9 the owner; Bob resumes on n3 at once, as if he had not seen his move.
    drop(n2.take());
    drop(bob);
    let mut bob = Client::with_token(n3.addr, &bob_token, &bob_id).await;
    let killed = Instant::now();
    let resume = json!({"type": "resume", "game_id": game, "last_version": seen});
    bob.send(resume.clone()).await;
    let first = bob.recv().await;
    assert_eq!(first["type"], "error", "{first}");
    assert_eq!(first["code"], "unavailable", "{first}");
    assert_eq!(first["game_id"], game.as_str());
    let mut refusals = 1;
    let back = loop {
        assert!(
            killed.elapsed() < Duration::from_secs(10),
            "no takeover after {refusals} refusals"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        bob.send(resume.clone()).await;
        let v = bob.recv().await;
        if v["type"] == "error" {
            assert_eq!(v["code"], "unavailable", "{v}");
            refusals += 1;
            continue;
        }
        break v;
    };
    eprintln!(
        "resume answered after {refusals} `unavailable`, {:?} after the kill",
        killed.elapsed()
    );
    assert_eq!(back["type"], "game_event", "{back}");
    assert_eq!(back["version"].as_u64(), Some(missed), "{back}");
    assert_eq!(back["event"]["played"]["move"], "b6-a5");
    let lease = redis_get(&format!("{prefix}{{g:{game}}}:lease"));
    assert!(
        lease.ends_with(":r1") || lease.ends_with(":r3"),
        "lease {lease}"
    );

    // The resumed subscription relays the game from its new owner.
    let next = play(&mut alice, &game, "g3-h4", 3).await["version"]
        .as_u64()
        .unwrap();
    assert_eq!(
        move_at(&mut bob, next).await["version"].as_u64(),
        Some(next)
    );
    drop((n1, n3));
    delete_prefix(&prefix);
}

/// A player's join the owner refused is not counted as joined. Bob's node, which owns
/// the game, is killed; Bob resumes on n3 while no node owns the game (refused,
/// `unavailable`) and then goes away for good. When a node takes the game over, n3's
/// proxy joins again there only the sessions an owner had accepted, so Bob is away and
/// Alice may claim the game once the disconnect timeout (1 s here) has run. Counted,
/// Bob would be joined again on the new owner and held present there forever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_resume_does_not_hold_the_game_for_an_absent_player() {
    let prefix = common::redis_env::unique_prefix("refused-join");
    let db = common::sqlite_url();
    let env = [
        ("DAMKA_CLUSTER__COMMAND_TIMEOUT_MS", "300"),
        ("DAMKA_GAME__DISCONNECT_BLITZ_SECS", "1"),
    ];
    let n1 = spawn_node("j1", &prefix, &db, &env);
    let mut n2 = Some(spawn_node("j2", &prefix, &db, &env));
    let n3 = spawn_node("j3", &prefix, &db, &env);
    let a2 = n2.as_ref().map(|n| n.addr).unwrap();
    let Paired {
        mut alice,
        mut bob,
        game,
        bob_token,
        start,
    } = alice_seeks_bob_accepts(n1.addr, a2, &prefix, "j2").await;
    let bob_id = start["game"]["black"]["id"].as_str().unwrap().to_string();
    let (_, moved) = two_plies(&mut alice, &mut bob, &game).await;

    // kill -9 the owner; Bob resumes on n3 before any node took the game over.
    drop(n2.take());
    drop(bob);
    let mut bob = Client::with_token(n3.addr, &bob_token, &bob_id).await;
    bob.send(json!({"type": "resume", "game_id": game, "last_version": moved}))
        .await;
    let refused = bob.recv().await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["code"], "unavailable", "{refused}");
    drop(bob);

    // Alice claims until the new owner grants it: refused while the game has no owner
    // (`unavailable`) and while Bob has not been away 1 s (`claim_refused`).
    let claimed = Instant::now();
    let over = 'claims: loop {
        assert!(
            claimed.elapsed() < Duration::from_secs(15),
            "the claim is still refused: Bob is held present"
        );
        alice
            .send(json!({"type": "claim_abandoned", "game_id": game, "result": "win"}))
            .await;
        loop {
            let v = alice.recv().await;
            if v["type"] == "error" {
                let code = v["code"].as_str().unwrap_or_default();
                assert!(code == "unavailable" || code == "claim_refused", "{v}");
                break;
            }
            if v["type"] == "game_event" && v["event"]["kind"] == "game_over" {
                break 'claims v;
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    eprintln!("claim granted {:?} after the kill", claimed.elapsed());
    assert_eq!(over["event"]["outcome"]["reason"], "abandoned", "{over}");
    assert_eq!(over["event"]["outcome"]["winner"], "white", "{over}");
    drop((n1, n3));
    delete_prefix(&prefix);
}

/// The body of `/metrics` of the node at `addr`.
async fn metrics(addr: SocketAddr) -> String {
    common::http(addr, "GET", "/metrics", "").await.1
}

/// A finished game held by its owner without an actor still serves the other nodes:
/// its rematch offers reach a player whose node proxies the game, a watcher on a third
/// node that comes after the offer gets the final state, then the decline (a gap the
/// proxy cannot fill from the log, since these events are not stored) and the rematch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_held_without_its_actor_serves_other_nodes() {
    let prefix = common::redis_env::unique_prefix("finished");
    let db = common::sqlite_url();
    let n1 = spawn_node("f1", &prefix, &db, &[]);
    let n2 = spawn_node("f2", &prefix, &db, &[]);
    let n3 = spawn_node("f3", &prefix, &db, &[]);
    let Paired {
        mut alice,
        mut bob,
        game,
        ..
    } = alice_seeks_bob_accepts(n1.addr, n2.addr, &prefix, "f2").await;
    play(&mut alice, &game, "c3-d4", 1).await;
    bob.send(json!({"type": "resign", "game_id": game})).await;
    let over_at = bob.recv_event("game_over").await["version"]
        .as_u64()
        .unwrap();
    alice.recv_event("game_over").await;
    let held = Instant::now();
    while !metrics(n2.addr)
        .await
        .contains("damka_games_held_finished 1")
    {
        assert!(
            held.elapsed() < Duration::from_secs(10),
            "never handed over"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(metrics(n2.addr).await.contains("damka_games_live 0"));

    alice
        .send(json!({"type": "rematch", "game_id": game}))
        .await;
    assert_eq!(
        bob.recv_event("rematch_offered").await["version"],
        over_at + 1
    );
    assert_eq!(
        alice.recv_event("rematch_offered").await["version"],
        over_at + 1
    );

    let mut carol = Client::guest(n3.addr, "Carol").await;
    carol.send(json!({"type": "watch", "game_id": game})).await;
    let state = carol.recv_type("game_state").await;
    assert_eq!(state["game"]["version"], over_at + 1, "{state}");
    assert_eq!(state["game"]["outcome"]["reason"], "resignation");
    assert_ne!(state["game"]["archived"], true, "held, not the archive's");

    bob.send(json!({"type": "rematch_decline", "game_id": game}))
        .await;
    assert_eq!(
        carol.recv_event("rematch_declined").await["version"],
        over_at + 2
    );
    alice.recv_event("rematch_declined").await;
    alice
        .send(json!({"type": "rematch", "game_id": game}))
        .await;
    bob.recv_event("rematch_offered").await;
    bob.send(json!({"type": "rematch", "game_id": game})).await;
    let started = carol.recv_event("rematch_started").await;
    assert_eq!(started["version"], over_at + 4);
    let again = alice.recv_event("rematch_started").await["event"]["game_id"].clone();
    assert_eq!(started["event"]["game_id"], again);
    let gs = alice.recv_type("game_start").await;
    assert_eq!(gs["game"]["game_id"], again);
    assert_eq!(gs["game"]["black"]["id"], alice.user.as_str());
    drop((n1, n2, n3));
    delete_prefix(&prefix);
}

/// A player whose node dies is away on the game's owner: the owner held her presence
/// for her session on the other node, and lets it go once that node is no longer
/// alive, so that her opponent is told she left and may claim the game. (Before, the
/// owner counted her joined for the rest of the game and refused every claim.) The
/// spectator watching from that node leaves the count with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_and_a_spectator_whose_node_dies_leave_the_game_on_the_owner() {
    let prefix = common::redis_env::unique_prefix("node-dies");
    let db = common::sqlite_url();
    let env = [("DAMKA_GAME__DISCONNECT_BLITZ_SECS", "1")];
    let mut n1 = Some(spawn_node("d1", &prefix, &db, &env));
    let n2 = spawn_node("d2", &prefix, &db, &env);
    let a1 = n1.as_ref().map(|n| n.addr).unwrap();
    let Paired {
        mut alice,
        mut bob,
        game,
        ..
    } = alice_seeks_bob_accepts(a1, n2.addr, &prefix, "d2").await;
    two_plies(&mut alice, &mut bob, &game).await;
    let (mut carol, _) = login(a1, "Carol").await;
    carol.send(json!({"type": "watch", "game_id": game})).await;
    carol.recv_type("game_state").await;
    assert_eq!(bob.recv_event("spectators").await["event"]["count"], 1);

    // kill -9 Alice's and Carol's node, their sessions open there.
    drop(n1.take());
    let killed = Instant::now();
    // Bob is told that Alice left and that Carol no longer watches (the count is
    // announced at most every 2 s).
    let mut left_after = None;
    let mut spectators_gone = false;
    while left_after.is_none() || !spectators_gone {
        let remaining = Duration::from_secs(20).saturating_sub(killed.elapsed());
        let v = tokio::time::timeout(remaining, bob.recv())
            .await
            .expect("Bob is told that Alice left and that Carol's count went");
        if v["type"] == "game_event" && v["event"]["kind"] == "player_left" {
            assert_eq!(v["event"]["color"], "white", "{v}");
            left_after.get_or_insert(killed.elapsed());
        }
        if v["type"] == "game_event" && v["event"]["kind"] == "spectators" {
            spectators_gone = v["event"]["count"] == 0;
        }
    }
    // Bob claims until granted: for 1 s after he is told she left, refused.
    let over = 'claims: loop {
        assert!(
            killed.elapsed() < Duration::from_secs(20),
            "the claim is still refused: Alice is held present"
        );
        bob.send(json!({"type": "claim_abandoned", "game_id": game, "result": "win"}))
            .await;
        loop {
            let v = bob.recv().await;
            if v["type"] == "error" {
                assert_eq!(v["code"], "claim_refused", "{v}");
                break;
            }
            if v["type"] == "game_event" && v["event"]["kind"] == "game_over" {
                break 'claims v;
            }
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    let left_after = left_after.expect("Bob was told that Alice left");
    eprintln!(
        "player_left {left_after:?}, claim granted {:?} after the kill",
        killed.elapsed()
    );
    assert_eq!(over["event"]["outcome"]["reason"], "abandoned", "{over}");
    assert_eq!(over["event"]["outcome"]["winner"], "black", "{over}");
    drop(n2);
    delete_prefix(&prefix);
}

/// A node found dead while only slow (it missed its heartbeats; its sockets stayed
/// open) has its players and spectators let go by the owners of their games, and tells
/// them again once it learns it was forgotten: the opponent sees the player leave and
/// return, a claim after that is refused, and the spectator is counted again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_and_a_spectator_whose_node_was_only_slow_are_present_again_on_the_owner() {
    let prefix = common::redis_env::unique_prefix("node-slow");
    let db = common::sqlite_url();
    let blitz = ("DAMKA_GAME__DISCONNECT_BLITZ_SECS", "1");
    // The owner beats often, so it is the one that finds the other "dead" first.
    let n1 = spawn_node("s1", &prefix, &db, &[blitz]);
    let n2 = spawn_node(
        "s2",
        &prefix,
        &db,
        &[blitz, ("DAMKA_CLUSTER__HEARTBEAT_MS", "100")],
    );
    let Paired {
        mut alice,
        mut bob,
        game,
        ..
    } = alice_seeks_bob_accepts(n1.addr, n2.addr, &prefix, "s2").await;
    let seen = play(&mut alice, &game, "c3-d4", 1).await["version"]
        .as_u64()
        .unwrap();
    move_at(&mut bob, seen).await;
    let (mut carol, _) = login(n1.addr, "Carol").await;
    carol.send(json!({"type": "watch", "game_id": game})).await;
    carol.recv_type("game_state").await;

    // s1 misses its heartbeats, as a starved node does: its last one made ancient.
    let nodes = format!("{prefix}{{pres}}:nodes");
    let out = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", "6379", "ZADD", &nodes, "0", "s1"])
        .output()
        .expect("redis-cli");
    assert!(out.status.success());
    let left = bob.recv_event("player_left").await;
    assert_eq!(left["event"]["color"], "white", "{left}");
    let back = bob.recv_event("player_returned").await;
    assert_eq!(back["event"]["color"], "white", "{back}");

    // Present again: a claim even after the disconnection timeout is refused, and
    // Alice plays on.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    bob.send(json!({"type": "claim_abandoned", "game_id": game, "result": "win"}))
        .await;
    let refused = bob.recv_type("error").await;
    assert_eq!(refused["code"], "claim_refused", "{refused}");
    let moved = play(&mut bob, &game, "b6-a5", 2).await["version"]
        .as_u64()
        .unwrap();
    move_at(&mut alice, moved).await;
    // Carol, still watching on s1, is counted again: Dave, joining on the owner, is
    // told of two spectators.
    let (mut dave, _) = login(n2.addr, "Dave").await;
    dave.send(json!({"type": "watch", "game_id": game})).await;
    let state = dave.recv_type("game_state").await;
    assert_eq!(state["game"]["spectators"], 2, "{state}");
    drop((n1, n2));
    delete_prefix(&prefix);
}

/// A new game is in the live set, where nodes look for games to take over, before any
/// node hears of it: Bob's node, which starts it, is frozen (SIGSTOP) the moment its
/// start notice reaches Redis, then killed. The game is live-marked already, Alice's
/// node takes it over, and she resumes it and plays on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_announced_by_a_node_killed_at_once_is_taken_over() {
    use futures_util::StreamExt;
    let prefix = common::redis_env::unique_prefix("announce-kill");
    let db = common::sqlite_url();
    let n1 = spawn_node("k1", &prefix, &db, &[]);
    let mut n2 = spawn_node("k2", &prefix, &db, &[]);
    let (alice_token, alice_id) = guest(n1.addr, "Alice").await;
    let mut alice = Client::with_token(n1.addr, &alice_token, &alice_id).await;
    let (mut bob, _) = login(n2.addr, "Bob").await;

    let redis = redis::Client::open("redis://127.0.0.1:6379").unwrap();
    let mut pubsub = redis.get_async_pubsub().await.unwrap();
    pubsub.subscribe(format!("{prefix}notify")).await.unwrap();
    let pid = n2.pid().to_string();
    let frozen = tokio::spawn(async move {
        let mut messages = pubsub.on_message();
        loop {
            let m = messages.next().await.expect("notices");
            let notice: Value = serde_json::from_slice(m.get_payload_bytes()).unwrap();
            if notice["kind"] == "game_started" && notice["origin"] == "k2" {
                let stopped = Command::new("kill").args(["-STOP", &pid]).status();
                assert!(stopped.unwrap().success(), "SIGSTOP sent");
                return notice["game_id"].as_str().unwrap().to_string();
            }
        }
    });

    seek_and_accept(&mut alice, &mut bob).await;
    let game = tokio::time::timeout(Duration::from_secs(10), frozen)
        .await
        .expect("the game is announced")
        .unwrap();
    let mut conn = redis.get_multiplexed_async_connection().await.unwrap();
    let live: Option<f64> = redis::cmd("ZSCORE")
        .arg(format!("{prefix}{{games}}:live"))
        .arg(&game)
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(live.is_some(), "live-marked when announced");
    n2.kill9();
    drop((alice, bob));
    let lease_key = format!("{prefix}{{g:{game}}}:lease");
    let deadline = Instant::now() + Duration::from_secs(15);
    while !redis_get(&lease_key).ends_with(":k1") {
        assert!(Instant::now() < deadline, "never taken over");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Alice comes back and plays on.
    let mut alice = Client::with_token(n1.addr, &alice_token, &alice_id).await;
    let resume = json!({"type": "resume", "game_id": game, "last_version": 0});
    loop {
        assert!(Instant::now() < deadline, "never resumed");
        alice.send(resume.clone()).await;
        let v = alice.recv().await;
        if v["type"] != "error" {
            break;
        }
        assert_eq!(v["code"], "unavailable", "{v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let ack = play(&mut alice, &game, "c3-d4", 1).await;
    assert!(ack["version"].as_u64().is_some(), "{ack}");
    drop(n1);
    delete_prefix(&prefix);
}
