//! Players, ratings and the archive end to end, on both back ends: register and log in
//! over HTTP, play rated games over WebSocket, see the rating change in `game_over`
//! and in the API, fetch the game as JSON, PDN and PGN, list it, watch it once it left
//! memory, restart the server and find it again.

mod common;

use std::net::SocketAddr;

use common::{Client, get_json, http, http_with, login, register};
use serde_json::{Value, json};

fn config(url: &str) -> damka::Config {
    let mut c = common::config();
    c.database.url = url.to_string();
    c.game.linger_after_end_secs = 0;
    c
}

/// Plays `line` alternately from White; each mover waits for its ack.
async fn play(white: &mut Client, black: &mut Client, game_id: &str, line: &[&str]) {
    for (i, text) in line.iter().enumerate() {
        let mover = if i % 2 == 0 { &mut *white } else { &mut *black };
        mover
            .send(json!({"type": "move", "game_id": game_id, "move": text, "move_id": i + 1}))
            .await;
        let ack = mover.recv_type("move_ack").await;
        assert_eq!(ack["move_id"], i + 1);
    }
}

/// A rated game between two registered players through a seek: (white, black, game id,
/// White's `game_start`).
async fn rated_game(
    addr: SocketAddr,
    w: (&str, &str),
    b: (&str, &str),
    variant: &str,
) -> (Client, Client, String, Value) {
    let mut white = Client::with_token(addr, w.0, w.1).await;
    let mut black = Client::with_token(addr, b.0, b.1).await;
    white
        .send(json!({"type": "seek", "variant": variant, "time_control": "3+2", "rated": true, "color": "white"}))
        .await;
    let seek = white.recv_type("seek_created").await;
    black
        .send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    let start = white.recv_type("game_start").await;
    black.recv_type("game_start").await;
    let id = start["game"]["game_id"].as_str().unwrap().to_string();
    (white, black, id, start)
}

#[tokio::test]
async fn rated_games_are_archived_rated_exported_and_survive_a_restart() {
    for (backend, url) in common::backends().await {
        let srv = common::start(config(&url)).await;
        let addr = srv.addr;
        let (alice_token, alice) = register(addr, "Alice", "alice-password").await;
        let (bob_token, bob) = register(addr, "bob", "bob-password!").await;
        let (status, logged) = login(addr, "ALICE", "alice-password").await;
        assert_eq!(status, 200, "{backend}: {logged}");
        assert_eq!(logged["user"]["name"], "Alice");

        // A rated Russian game: Black resigns after two moves each.
        let (mut w, mut b, id, start) =
            rated_game(addr, (&alice_token, &alice), (&bob_token, &bob), "russian").await;
        assert_eq!(start["game"]["rated"], true);
        assert_eq!(start["game"]["white"]["rating"], 1500, "{backend}: {start}");
        play(&mut w, &mut b, &id, &["c3-d4", "f6-g5", "b2-c3", "g7-f6"]).await;
        b.send(json!({"type": "resign", "game_id": id})).await;
        let over_w = w.recv_event("game_over").await;
        let over_b = b.recv_event("game_over").await;
        assert_eq!(over_w, over_b, "{backend}");
        let ratings = &over_w["event"]["ratings"];
        assert_eq!(ratings["white"]["before"], 1500, "{backend}: {over_w}");
        let white_after = ratings["white"]["after"].as_i64().unwrap();
        let black_after = ratings["black"]["after"].as_i64().unwrap();
        assert!(
            white_after > 1500 && black_after < 1500,
            "{backend}: {ratings}"
        );

        // The profile shows it.
        let (status, profile) = get_json(addr, "/api/users/alice").await;
        assert_eq!(status, 200, "{backend}");
        let perf = &profile["perfs"]["russian-blitz"];
        assert_eq!(
            perf["rating"].as_f64().unwrap().round() as i64,
            white_after,
            "{profile}"
        );
        assert_eq!(perf["games"], 1);
        assert_eq!(perf["provisional"], true);
        assert_eq!(profile["count"]["win"], 1);
        let (_, bob_profile) = get_json(addr, "/api/users/BOB").await;
        assert_eq!(bob_profile["count"]["loss"], 1, "{backend}");

        // The game as JSON, PDN and in the lists.
        let (status, game) = get_json(addr, &format!("/api/games/{id}")).await;
        assert_eq!(status, 200, "{backend}: {game}");
        assert_eq!(game["result"], "1-0");
        assert_eq!(game["reason"], "resignation");
        assert_eq!(game["rules"], "russian_idf");
        assert_eq!(game["perf"], "russian-blitz");
        let moves: Vec<&str> = game["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["san"].as_str().unwrap())
            .collect();
        assert_eq!(moves, ["c3-d4", "f6-g5", "b2-c3", "g7-f6"]);
        let clock = game["moves"][1]["clock_ms"].as_u64().unwrap();
        assert!((170_000..=182_000).contains(&clock), "{clock}");
        assert_eq!(
            game["white"]["rating_after"].as_f64().unwrap().round() as i64,
            white_after
        );
        let (status, pdn) = http(addr, "GET", &format!("/api/games/{id}.pdn"), "").await;
        assert_eq!(status, 200);
        assert!(
            pdn.contains("[GameType \"25\"]") && pdn.contains("[Result \"2-0\"]"),
            "{pdn}"
        );
        assert!(pdn.contains("1. c3-d4 {[%clk"), "{pdn}");
        let (status, _) = http(addr, "GET", &format!("/api/games/{id}.pgn"), "").await;
        assert_eq!(status, 404, "a draughts game is not PGN");
        let (status, list) = http(addr, "GET", "/api/users/alice/games", "").await;
        assert_eq!(status, 200);
        let lines: Vec<Value> = list
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 1, "{backend}: {list}");
        assert_eq!(lines[0]["id"], id.as_str());

        // A rated chess game ending in mate, exported as PGN.
        let (mut w2, mut b2, chess_id, _) =
            rated_game(addr, (&bob_token, &bob), (&alice_token, &alice), "chess").await;
        play(&mut w2, &mut b2, &chess_id, &["f3", "e5", "g4", "Qh4#"]).await;
        // The mating move is shown only once the game is stored.
        loop {
            let mv = w2.recv_event("move").await;
            if mv["event"]["played"]["move"] == "Qh4#" {
                break;
            }
        }
        let (status, _) = get_json(addr, &format!("/api/games/{chess_id}")).await;
        assert_eq!(
            status, 200,
            "{backend}: the ending was shown before it was stored"
        );
        let over = w2.recv_event("game_over").await;
        assert_eq!(over["event"]["outcome"]["reason"], "checkmate");
        assert!(over["event"]["ratings"]["black"]["after"].as_i64().unwrap() > 1500);
        let (status, pgn) = http(addr, "GET", &format!("/api/games/{chess_id}.pgn"), "").await;
        assert_eq!(status, 200);
        assert!(
            pgn.contains("[Result \"0-1\"]") && pgn.contains("2. g4 {[%clk 0:0"),
            "{pgn}"
        );
        let (_, text) = http_with(
            addr,
            "GET",
            "/api/users/alice/games?perf=chess-blitz",
            "",
            "Accept: application/x-chess-pgn\r\n",
        )
        .await;
        assert!(
            text.starts_with("[Event") && text.contains("Qh4#"),
            "{backend}: {text}"
        );
        let (_, newest) = http(addr, "GET", "/api/users/alice/games?max=1", "").await;
        assert_eq!(newest.lines().count(), 1);
        assert!(newest.contains(&chess_id), "newest first");

        // Once the actor is gone, watching the game answers its archived state.
        let mut viewer = Client::guest(addr, "Viewer").await;
        let mut state = Value::Null;
        for _ in 0..50 {
            viewer.send(json!({"type": "watch", "game_id": id})).await;
            state = viewer.recv().await;
            if state["type"] == "game_state" && state["game"]["archived"] == true {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert_eq!(state["game"]["archived"], true, "{backend}: {state}");
        assert_eq!(state["game"]["outcome"]["winner"], "white");
        assert_eq!(state["game"]["moves"].as_array().unwrap().len(), 4);

        // A restart on the same database finds everything again.
        srv.server.shutdown();
        srv.server.wait().await.unwrap();
        let srv = common::start(config(&url)).await;
        let (status, again) = get_json(srv.addr, &format!("/api/games/{id}")).await;
        assert_eq!(status, 200, "{backend}");
        assert_eq!(again, game);
        let (status, _) = login(srv.addr, "alice", "alice-password").await;
        assert_eq!(status, 200);
        let (_, p) = get_json(srv.addr, "/api/users/alice").await;
        assert_eq!(p["count"]["all"], 2, "{backend}");
        srv.server.shutdown();
        srv.server.wait().await.unwrap();
    }
}

#[tokio::test]
async fn rated_pools_pair_registered_players_and_refuse_guests() {
    let srv = common::start(common::config()).await;
    let addr = srv.addr;
    let (t1, u1) = register(addr, "carol", "carol-password").await;
    let (t2, u2) = register(addr, "dave", "dave-password").await;
    let mut guest = Client::guest(addr, "Guesty").await;
    guest
        .send(json!({"type": "pool_join", "variant": "russian", "time_control": "3+2", "rated": true}))
        .await;
    assert_eq!(
        guest.recv_type("error").await["code"],
        "rated_needs_account"
    );
    guest
        .send(json!({"type": "seek", "variant": "russian", "time_control": "3+2", "rated": true}))
        .await;
    assert_eq!(
        guest.recv_type("error").await["code"],
        "rated_needs_account"
    );
    // The guest in the casual pool is not paired with rated players.
    guest
        .send(json!({"type": "pool_join", "variant": "russian", "time_control": "3+2"}))
        .await;
    guest.recv_type("pool_joined").await;
    let mut a = Client::with_token(addr, &t1, &u1).await;
    let mut b = Client::with_token(addr, &t2, &u2).await;
    for c in [&mut a, &mut b] {
        c.send(json!({"type": "pool_join", "variant": "russian", "time_control": "3+2", "rated": true}))
            .await;
        assert_eq!(c.recv_type("pool_joined").await["rated"], true);
    }
    let start = a.recv_type("game_start").await;
    assert_eq!(start["game"]["rated"], true);
    let players = [&start["game"]["white"]["id"], &start["game"]["black"]["id"]];
    assert!(players.contains(&&json!(u1)) && players.contains(&&json!(u2)));
}

#[tokio::test]
async fn hostile_account_and_api_input_gets_typed_errors() {
    let mut c = common::config();
    c.accounts.register_per_address_per_hour = 4;
    c.accounts.login_per_user_per_min = 3;
    let srv = common::start(c).await;
    let addr = srv.addr;
    let reg = |name: &str, pw: &str| {
        let body = json!({ "username": name, "password": pw }).to_string();
        async move {
            let (s, b) = http(addr, "POST", "/api/account/register", &body).await;
            (s, serde_json::from_str::<Value>(&b).unwrap_or(Value::Null))
        }
    };
    let long = "a".repeat(21);
    for (name, pw, code) in [
        ("ab", "long-enough-pw", "bad_username"),
        (long.as_str(), "long-enough-pw", "bad_username"),
        ("x' OR '1'='1", "long-enough-pw", "bad_username"),
        ("Robert');DROP", "long-enough-pw", "bad_username"),
        ("guest123", "long-enough-pw", "bad_username"),
        ("eve", "short", "bad_password"),
        ("eve", "nul\u{0}in-password", "bad_password"),
    ] {
        let (status, body) = reg(name, pw).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some(code)),
            "{name:?}: {body}"
        );
    }
    let (status, _) = http(addr, "POST", "/api/account/register", "{\"username\": 1}").await;
    assert_eq!(status, 400);
    let (status, _) = http(addr, "POST", "/api/account/register", &"[".repeat(100_000)).await;
    assert!(status == 400 || status == 413, "{status}");
    assert_eq!(reg("Mallory", "mallory-password").await.0, 200);
    let (status, body) = reg("MALLORY", "other-password").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("username_taken"))
    );
    // Nor may a guest take a registered name, in any case; another name is fine.
    let (status, body) = http(addr, "POST", "/api/auth/guest", r#"{"name": "mallory"}"#).await;
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("username_taken"), "{body}");
    let (status, body) = http(addr, "POST", "/api/auth/guest", r#"{"name": "Mallet"}"#).await;
    assert_eq!(status, 200, "{body}");
    // The registration flood is cut by the per-address limit.
    assert_eq!(reg("trent", "trent-password").await.0, 200);
    assert_eq!(reg("peggy", "peggy-password").await.0, 200);
    let (status, body) = reg("victor", "victor-password").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (429, Some("rate_limited")),
        "{body}"
    );
    let (_, p) = get_json(addr, "/api/users/victor").await;
    assert_eq!(
        p["code"], "not_found",
        "a refused registration changes nothing"
    );
    // Logins: unknown users, wrong passwords, then the per-user limit.
    let (status, body) = login(addr, "nobody", "whatever-pw").await;
    assert_eq!((status, body["code"].as_str()), (401, Some("unknown_user")));
    let (status, body) = login(addr, "mallory", "wrong-password").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (401, Some("wrong_password"))
    );
    for _ in 0..2 {
        let (status, _) = login(addr, "mallory", "wrong-password").await;
        assert_eq!(status, 401);
    }
    let (status, body) = login(addr, "mallory", "mallory-password").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (429, Some("rate_limited")),
        "past the limit even the right password waits"
    );
    // The API's queries.
    for (path, status, code) in [
        ("/api/users/nobody", 404, "not_found"),
        ("/api/users/mallory/games?max=0", 400, "bad_query"),
        ("/api/users/mallory/games?max=10001", 400, "bad_query"),
        ("/api/users/mallory/games?max=abc", 400, "bad_query"),
        ("/api/users/mallory/games?before=-5", 400, "bad_query"),
        (
            "/api/users/mallory/games?perf=russian-hyper",
            400,
            "unknown_perf",
        ),
        ("/api/users/mallory/games?max=1&max=2", 400, "bad_query"),
        ("/api/users/mallory/games?drop=table", 400, "bad_query"),
        ("/api/users/nobody/games", 404, "not_found"),
        ("/api/users/mallory/rating-history", 400, "bad_query"),
        ("/api/leaderboard/chess-hyper", 400, "unknown_perf"),
        ("/api/leaderboard/chess-blitz?max=201", 400, "bad_query"),
        ("/api/games/nope", 404, "not_found"),
        ("/api/games/x'%20OR%20'1'='1", 404, "not_found"),
    ] {
        let (s, body) = get_json(addr, path).await;
        assert_eq!(
            (s, body["code"].as_str()),
            (status, Some(code)),
            "{path}: {body}"
        );
    }
    let (s, body) = get_json(addr, "/api/leaderboard/chess-blitz").await;
    assert_eq!(
        (s, body["players"].as_array().map(Vec::len)),
        (200, Some(0))
    );
    let (s, body) = http(addr, "GET", "/api/users/mallory/games", "").await;
    assert_eq!((s, body.as_str()), (200, ""), "no games yet");
}

/// The runtime's live tasks once the count has held still for half a second.
async fn steady_tasks() -> usize {
    let metrics = tokio::runtime::Handle::current().metrics();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut last = metrics.num_alive_tasks();
    let mut since = tokio::time::Instant::now();
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let now = metrics.num_alive_tasks();
        if now != last {
            (last, since) = (now, tokio::time::Instant::now());
        } else if since.elapsed() >= std::time::Duration::from_millis(500) {
            return now;
        }
        assert!(tokio::time::Instant::now() < deadline, "tasks never settle");
    }
}

/// Once a game is over, archived and its end shown, its actor hands it over to a small
/// value the registry holds and its task ends (one task fewer, nothing else changes),
/// while both players still follow it: a late watcher still gets its final state, a
/// `resume` from before the end its `game_over`, and the players a rematch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_game_is_held_without_its_actor_and_still_takes_a_rematch() {
    let srv = common::start(common::config()).await;
    let app = srv.server.app();
    let (mut a, mut b, id) = common::game(srv.addr, "russian", "3+2").await;
    a.send(json!({"type": "move", "game_id": id, "move": "c3-d4", "move_id": 1}))
        .await;
    b.recv_event("move").await;
    let playing = steady_tasks().await;
    assert_eq!(app.metrics.games_live.get(), 1);

    a.send(json!({"type": "resign", "game_id": id})).await;
    let over = b.recv_event("game_over").await;
    a.recv_event("game_over").await;
    let over_at = over["version"].as_u64().expect("a version");
    let ended = steady_tasks().await;
    assert_eq!(
        playing - ended,
        1,
        "{playing} -> {ended} tasks: the game's actor has ended"
    );
    assert_eq!(app.metrics.games_live.get(), 0, "no game actor");
    let game_id = shared::protocol::GameId(id.clone());
    assert!(app.games.get(&game_id).is_some(), "held for a rematch");

    // A late watcher gets the final state of the game held, not the archive's.
    let mut carol = Client::guest(srv.addr, "Carol").await;
    carol.send(json!({"type": "watch", "game_id": id})).await;
    let state = carol.recv_type("game_state").await;
    assert_eq!(state["game"]["outcome"]["reason"], "resignation");
    assert_eq!(state["game"]["outcome"]["winner"], "black");
    assert_eq!(state["game"]["version"], over_at);
    assert_eq!(state["game"]["moves"], json!(["c3-d4"]));
    assert_ne!(state["game"]["archived"], true, "held, not the archive's");
    assert_eq!(state["game"]["connected"], json!([true, true]));
    // A resume from just before the end replays the `game_over`.
    let mut dave = Client::guest(srv.addr, "Dave").await;
    dave.send(json!({"type": "resume", "game_id": id, "last_version": over_at - 1}))
        .await;
    let replayed = dave.recv().await;
    assert_eq!(replayed["type"], "game_event", "{replayed}");
    assert_eq!(replayed["event"]["kind"], "game_over");
    assert_eq!(replayed["version"], over_at);

    // The rematch: offered, declined, offered again and accepted; the watchers see it.
    a.send(json!({"type": "rematch", "game_id": id})).await;
    assert_eq!(
        b.recv_event("rematch_offered").await["version"],
        over_at + 1
    );
    carol.recv_event("rematch_offered").await;
    b.send(json!({"type": "rematch_decline", "game_id": id}))
        .await;
    a.recv_event("rematch_declined").await;
    a.send(json!({"type": "move", "game_id": id, "move": "e3-f4", "move_id": 2}))
        .await;
    assert_eq!(a.recv_type("error").await["code"], "game_over");
    a.send(json!({"type": "rematch", "game_id": id})).await;
    b.recv_event("rematch_offered").await;
    b.send(json!({"type": "rematch", "game_id": id})).await;
    let started = a.recv_event("rematch_started").await;
    assert_eq!(started["version"], over_at + 4);
    let again = started["event"]["game_id"]
        .as_str()
        .expect("an id")
        .to_string();
    let gs = b.recv_type("game_start").await;
    assert_eq!(gs["game"]["game_id"], again.as_str());
    assert_eq!(gs["game"]["white"]["id"], b.user.as_str());
    a.recv_type("game_start").await;
    assert_eq!(
        carol.recv_event("rematch_started").await["event"]["game_id"],
        again.as_str()
    );
    assert_eq!(app.metrics.games_live.get(), 1, "the rematch's actor");
    b.send(json!({"type": "rematch", "game_id": id})).await;
    assert_eq!(b.recv_type("error").await["code"], "rematch_not_allowed");
}

/// A finished game stays in memory for rematches only while a player follows it: once
/// both have left, it is gone within a few seconds (not `game.linger_after_end_secs`),
/// and watching it answers its archived state.
#[tokio::test]
async fn a_finished_game_leaves_memory_once_its_players_have_left() {
    let srv = common::start(common::config()).await;
    assert_eq!(srv.server.app().config.game.linger_after_end_secs, 60);
    let (mut a, b, id) = common::game(srv.addr, "russian", "3+2").await;
    a.send(json!({"type": "resign", "game_id": id})).await;
    a.recv_event("game_over").await;
    let game_id = shared::protocol::GameId(id.clone());
    assert!(
        srv.server.app().games.get(&game_id).is_some(),
        "lingers for a rematch"
    );
    drop((a, b));
    let left = std::time::Instant::now();
    while srv.server.app().games.get(&game_id).is_some() {
        assert!(
            left.elapsed() < std::time::Duration::from_secs(10),
            "still in memory"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        left.elapsed() >= std::time::Duration::from_secs(4),
        "the reload grace"
    );
    let mut viewer = Client::guest(srv.addr, "Viewer").await;
    viewer.send(json!({"type": "watch", "game_id": id})).await;
    let state = viewer.recv_type("game_state").await;
    assert_eq!(state["game"]["archived"], true);
    assert_eq!(state["game"]["outcome"]["reason"], "resignation");
}
