//! Blitz arenas end to end over WebSocket: 12 bots join an arena, play whatever it pairs
//! them (resigning, agreeing draws or playing on, by a plan drawn from the game id;
//! some going berserk), and at the end every score of the archived final standings is recomputed here from
//! the archived games (`GET /api/games/{id}`) with the rules written out independently;
//! nobody met the same opponent twice in a row; the games link to the arena and name it
//! in `game_start`. Watchers besides the players are capped (`arena.max_watchers`).

mod arena_bot;
mod common;

use std::time::Duration;

use arena_bot::{archived_berserk, bot, bots_done, recompute, recv_slow};
use common::{Client, get_json};
use serde_json::{Value, json};

const BOTS: usize = 12;

fn config(url: &str) -> damka::Config {
    let mut c = common::config();
    c.database.url = url.to_string();
    c.arena.wave_ms = 300;
    c.arena.standings_ms = 200;
    c.ws.rate_per_sec = 500.0;
    c.ws.rate_burst = 1000.0;
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn arena_of_twelve_bots_runs_to_its_end() {
    for (backend, url) in common::backends().await {
        run(backend, &url).await;
    }
}

async fn run(backend: &str, url: &str) {
    let server = common::start(config(url)).await;
    let addr = server.addr;

    // Guests cannot create arenas; bad arenas are refused with a typed error.
    let mut guest = Client::guest(addr, "Gus").await;
    let create = json!({"type": "arena_create", "name": "Test arena", "variant": "russian",
        "time_control": "0.2+0", "starts_in_secs": 2, "duration_secs": 22, "berserk": true});
    guest.send(create.clone()).await;
    assert_eq!(
        guest.recv_type("error").await["code"],
        "rated_needs_account"
    );
    let org_token = common::token("org", damka::auth::unix_now() + 3600);
    let mut org = Client::with_token(addr, &org_token, "org").await;
    let mut bad = create.clone();
    bad["duration_secs"] = json!(1);
    org.send(bad).await;
    assert_eq!(org.recv_type("error").await["code"], "invalid_message");
    org.send(json!({"type": "arena_join", "arena_id": "nope"}))
        .await;
    assert_eq!(org.recv_type("error").await["code"], "arena_not_found");

    org.send(create).await;
    let created = org.recv_type("arena_created").await;
    let arena = created["arena"]["id"].as_str().unwrap().to_string();
    assert_eq!(created["arena"]["status"], "upcoming");
    let (status, list) = get_json(addr, "/api/arenas").await;
    assert_eq!(status, 200);
    assert!(
        list["upcoming"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == arena.as_str()),
        "{list}"
    );

    let mut bots = Vec::new();
    for i in 0..BOTS {
        bots.push(tokio::spawn(bot(addr, format!("bot{i:02}"), arena.clone())));
    }
    let seen = bots_done(bots, "bot", Duration::from_secs(90)).await;

    let (status, done) = get_json(addr, &format!("/api/arenas/{arena}")).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["arena"]["status"], "finished");
    let standings = done["standings"].as_array().unwrap();
    assert_eq!(standings.len(), BOTS);
    assert_eq!(done["podium"].as_array().unwrap().len(), 3);
    // A spectator's view of an arena game names the arena too (live or archived).
    let first = standings[0]["sheet"][0]["game_id"].as_str().unwrap();
    let mut spectator = Client::guest(addr, "Spec").await;
    spectator
        .send(json!({"type": "watch", "game_id": first}))
        .await;
    let state = spectator.recv_type("game_state").await;
    assert_eq!(state["game"]["arena"], arena.as_str(), "{backend}: {state}");
    let mut total_games = 0;
    let mut last_score = u64::MAX;
    for (i, line) in standings.iter().enumerate() {
        let user = line["user"].as_str().unwrap();
        assert_eq!(line["rank"], i as u64 + 1);
        let score = line["score"].as_u64().unwrap();
        assert!(score <= last_score, "standings sorted by score");
        last_score = score;
        let sheet = line["sheet"].as_array().unwrap();
        let ids: Vec<String> = sheet
            .iter()
            .map(|e| e["game_id"].as_str().unwrap().to_string())
            .collect();
        let played: Vec<String> = seen[user].iter().map(|(g, _)| g.clone()).collect();
        let berserk: Vec<bool> = seen[user].iter().map(|(_, b)| *b).collect();
        assert_eq!(
            ids, played,
            "{backend}: every game the bot played is on its sheet"
        );
        let shown_berserk: Vec<bool> = sheet
            .iter()
            .map(|e| e["berserk"].as_bool().unwrap())
            .collect();
        assert_eq!(shown_berserk, berserk, "{user}'s berserk games");
        assert!(ids.len() >= 2, "{user} played {} games", ids.len());
        total_games += ids.len();
        let mut archived = Vec::new();
        for id in &ids {
            let (status, g) = get_json(addr, &format!("/api/games/{id}")).await;
            assert_eq!(status, 200, "{g}");
            assert_eq!(g["arena"], arena.as_str(), "the game links to its arena");
            archived.push(g);
        }
        let stored: Vec<bool> = archived.iter().map(|g| archived_berserk(user, g)).collect();
        assert_eq!(stored, berserk, "{backend}: {user}'s berserk is archived");
        let expected = recompute(user, &archived);
        let shown: Vec<u64> = sheet
            .iter()
            .map(|e| e["points"].as_u64().unwrap())
            .collect();
        assert_eq!(shown, expected, "{backend}: {user}'s sheet");
        assert_eq!(score, expected.iter().sum::<u64>(), "{user}'s score");
        let points: Vec<u64> = line["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_u64().unwrap())
            .collect();
        assert_eq!(points, expected);
        // Never the same opponent twice in a row.
        let opponents: Vec<&str> = sheet
            .iter()
            .map(|e| e["opponent"].as_str().unwrap())
            .collect();
        for w in opponents.windows(2) {
            assert_ne!(w[0], w[1], "{user} met {} twice in a row", w[0]);
        }
    }
    assert_eq!(total_games % 2, 0);
    let flags: Vec<&str> = standings
        .iter()
        .flat_map(|l| l["sheet"].as_array().unwrap().iter())
        .map(|e| e["flag"].as_str().unwrap())
        .collect();
    let count = |f: &str| flags.iter().filter(|x| **x == f).count();
    let draws = standings
        .iter()
        .flat_map(|l| l["sheet"].as_array().unwrap().iter())
        .filter(|e| e["result"] == "draw")
        .count();
    eprintln!(
        "{backend}: {} games, {} draws, {} doubled, {} null draws",
        total_games / 2,
        draws / 2,
        count("double"),
        count("null_draw")
    );
    assert!(count("double") > 0, "streaks were played");
    assert!(draws > 0, "draws were played");
    assert!(
        count("null_draw") > 0,
        "short draws after a draw were played"
    );
    let berserk_points = standings
        .iter()
        .flat_map(|l| l["sheet"].as_array().unwrap().iter())
        .filter(|e| e["berserk_point"] == true)
        .count();
    eprintln!("{backend}: {berserk_points} berserk points");
    assert!(berserk_points > 0, "berserk wins scored their point");
    let (_, list) = get_json(addr, "/api/arenas").await;
    assert!(
        list["finished"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == arena.as_str()),
        "{list}"
    );
    server.server.shutdown();
    let _ = server.server.wait().await;
}

/// Membership and conditions: creation over HTTP (registered players only), a password,
/// withdraw before the first game, pause and resume; a player who makes no first move
/// loses the game and is paused; a paused player is never paired.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn arena_conditions_pauses_and_no_start() {
    let mut config = config(&common::sqlite_url());
    config.game.first_move_secs = 1;
    let server = common::start(config).await;
    let addr = server.addr;
    let body = json!({"name": "Private", "variant": "russian", "time_control": "0.2+0",
        "starts_in_secs": 3, "duration_secs": 17, "password": "pw"})
    .to_string();
    let (status, _) = common::http(addr, "POST", "/api/arenas", &body).await;
    assert_eq!(status, 401);
    let (guest_token, _) = common::guest(addr, "Gus").await;
    let auth = |t: &str| format!("Authorization: Bearer {t}\r\n");
    let (status, refused) =
        common::http_with(addr, "POST", "/api/arenas", &body, &auth(&guest_token)).await;
    assert_eq!(status, 403);
    assert!(refused.contains("rated_needs_account"), "{refused}");
    let org = common::token("org", damka::auth::unix_now() + 3600);
    let (status, created) =
        common::http_with(addr, "POST", "/api/arenas", &body, &auth(&org)).await;
    assert_eq!(status, 201, "{created}");
    let created: Value = serde_json::from_str(&created).unwrap();
    assert_eq!(created["private"], true);
    let arena = created["id"].as_str().unwrap().to_string();

    let mut players = Vec::new();
    for name in ["p1", "p2", "p3"] {
        let t = common::token(name, damka::auth::unix_now() + 3600);
        players.push(Client::with_token(addr, &t, name).await);
    }
    let [p1, p2, p3] = &mut players[..] else {
        unreachable!()
    };
    p1.send(json!({"type": "arena_join", "arena_id": arena, "password": "no"}))
        .await;
    assert_eq!(p1.recv_type("error").await["code"], "arena_conditions");
    for p in [&mut *p1, &mut *p2, &mut *p3] {
        p.send(json!({"type": "arena_join", "arena_id": arena, "password": "pw"}))
            .await;
        assert_eq!(p.recv_type("arena_member").await["membership"], "active");
    }
    p2.send(json!({"type": "arena_withdraw", "arena_id": arena}))
        .await;
    assert_eq!(
        p2.recv_type("arena_member").await["membership"],
        "withdrawn"
    );
    p2.send(json!({"type": "arena_join", "arena_id": arena, "password": "pw"}))
        .await;
    assert_eq!(p2.recv_type("arena_member").await["membership"], "active");
    p3.send(json!({"type": "arena_pause", "arena_id": arena}))
        .await;
    assert_eq!(p3.recv_type("arena_member").await["membership"], "paused");
    let (status, live) = get_json(addr, &format!("/api/arenas/{arena}")).await;
    assert_eq!(status, 200);
    assert_eq!(live["standings"]["players"], 3);

    // p1 and p2 are paired once the arena starts; White never moves.
    let start1 = recv_slow_type(p1, "game_start").await;
    let start2 = recv_slow_type(p2, "game_start").await;
    let game_id = start1["game"]["game_id"].as_str().unwrap().to_string();
    assert_eq!(start2["game"]["game_id"], game_id.as_str());
    let white = start1["game"]["white"]["id"].as_str().unwrap().to_string();
    let (late, other) = if white == "p1" {
        (&mut *p1, &mut *p2)
    } else {
        (&mut *p2, &mut *p1)
    };
    assert_eq!(
        recv_slow_type(late, "arena_member").await["membership"],
        "paused"
    );
    let _ = other;

    // The end: the late player lost, the other won, p3 never played.
    let done = loop {
        let v = recv_slow_type(p3, "arena_standings").await;
        if v["standings"]["status"] == "finished" {
            break v;
        }
    };
    assert_eq!(done["standings"]["me"]["standing"]["games"], 0);
    let (status, fin) = get_json(addr, &format!("/api/arenas/{arena}")).await;
    assert_eq!(status, 200);
    let lines = fin["standings"].as_array().unwrap();
    let line = |u: &str| lines.iter().find(|l| l["user"] == u).unwrap().clone();
    let loser = line(&white);
    let winner = line(if white == "p1" { "p2" } else { "p1" });
    assert_eq!(winner["rank"], 1);
    assert_eq!(winner["score"], 2);
    assert_eq!(winner["sheet"][0]["result"], "win");
    assert_eq!(loser["score"], 0);
    assert_eq!(loser["sheet"][0]["result"], "loss");
    assert_eq!(
        loser["sheet"].as_array().unwrap().len(),
        1,
        "a paused player is not paired"
    );
    assert_eq!(line("p3")["games"], 0);
    let (_, g) = get_json(addr, &format!("/api/games/{game_id}")).await;
    // Archived as documented: an aborted game of the arena, no winner, the rule named;
    // the arena scored it from that entry (the side to move lost).
    assert_eq!(g["arena"], arena.as_str());
    assert_eq!(g["reason"], "aborted");
    assert_eq!(g["result"], "*", "{g}");
    assert_eq!(g["winner"], Value::Null, "{g}");
    assert_eq!(g["rule"], "first move not made in time", "{g}");
    assert_eq!(g["moves"].as_array().map(Vec::len), Some(0), "{g}");
    assert_eq!(loser["sheet"][0]["game_id"], game_id.as_str());
    assert_eq!(winner["sheet"][0]["game_id"], game_id.as_str());
    server.server.shutdown();
    let _ = server.server.wait().await;
}

/// Skips messages until one of this type, waiting up to a minute for each.
async fn recv_slow_type(c: &mut Client, kind: &str) -> Value {
    loop {
        let v = recv_slow(c).await;
        if v["type"] == kind {
            return v;
        }
    }
}

/// Entry conditions on joining: rated games in the arena's perf, the rating range
/// (a new player has the default rating, 1500), an account for rated arenas; a refused
/// join changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arena_entry_conditions_games_rating_range_account() {
    let server = common::start(config(&common::sqlite_url())).await;
    let addr = server.addr;
    let org = common::token("org", damka::auth::unix_now() + 3600);
    let auth = format!("Authorization: Bearer {org}\r\n");
    let t = common::token("newbie", damka::auth::unix_now() + 3600);
    let mut p = Client::with_token(addr, &t, "newbie").await;
    let mut guest = Client::guest(addr, "Gus").await;
    let cases = [
        (json!({"min_games": 1}), Some("arena_conditions")),
        (json!({"min_rating": 1600}), Some("arena_conditions")),
        (json!({"max_rating": 1400}), Some("arena_conditions")),
        (json!({"min_rating": 1400, "max_rating": 1600}), None),
    ];
    for (extra, refusal) in cases {
        let mut body = json!({"name": "Conditions", "variant": "russian",
            "time_control": "3+2", "rated": true, "starts_in_secs": 60, "duration_secs": 60});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let (status, created) =
            common::http_with(addr, "POST", "/api/arenas", &body.to_string(), &auth).await;
        assert_eq!(status, 201, "{created}");
        let created: Value = serde_json::from_str(&created).unwrap();
        let arena = created["id"].as_str().unwrap().to_string();
        p.send(json!({"type": "arena_join", "arena_id": arena}))
            .await;
        match refusal {
            Some(code) => {
                assert_eq!(p.recv_type("error").await["code"], code, "{extra}");
                let (_, live) = get_json(addr, &format!("/api/arenas/{arena}")).await;
                assert_eq!(live["standings"]["players"], 0, "{extra}");
            }
            None => {
                assert_eq!(p.recv_type("arena_member").await["membership"], "active");
                let (_, live) = get_json(addr, &format!("/api/arenas/{arena}")).await;
                assert_eq!(live["standings"]["players"], 1);
                // A rated arena needs an account.
                guest
                    .send(json!({"type": "arena_join", "arena_id": arena}))
                    .await;
                assert_eq!(
                    guest.recv_type("error").await["code"],
                    "rated_needs_account"
                );
            }
        }
    }
    server.server.shutdown();
    let _ = server.server.wait().await;
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

/// `arena.max_watchers` on one node: two watchers, the third refused with `too_many`;
/// watching again takes no new place; a player always watches; an unwatch frees a
/// place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arena_watchers_beyond_the_cap_are_refused() {
    let mut config = config(&common::sqlite_url());
    config.arena.max_watchers = 2;
    let server = common::start(config).await;
    let addr = server.addr;
    let client = move |name: &'static str| async move {
        let token = common::token(name, damka::auth::unix_now() + 3600);
        Client::with_token(addr, &token, name).await
    };
    let mut org = client("org").await;
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
    let (mut ann, mut bob, mut cat) = (
        client("ann").await,
        client("bob").await,
        client("cat").await,
    );
    for c in [&mut ann, &mut bob] {
        c.send(watch.clone()).await;
        assert_eq!(
            watch_reply(c).await["type"],
            "arena_standings",
            "{}",
            c.user
        );
    }
    ann.send(watch.clone()).await;
    assert_eq!(
        watch_reply(&mut ann).await["type"],
        "arena_standings",
        "no new place"
    );
    cat.send(watch.clone()).await;
    let refused = watch_reply(&mut cat).await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["code"], "too_many", "{refused}");

    let mut dan = client("dan").await;
    dan.send(json!({"type": "arena_join", "arena_id": arena}))
        .await;
    assert_eq!(dan.recv_type("arena_member").await["membership"], "active");
    dan.send(watch.clone()).await;
    assert_eq!(watch_reply(&mut dan).await["type"], "arena_standings");

    ann.send(json!({"type": "arena_unwatch", "arena_id": arena}))
        .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        cat.send(watch.clone()).await;
        let v = watch_reply(&mut cat).await;
        if v["type"] == "arena_standings" {
            break;
        }
        assert_eq!(v["code"], "too_many", "{v}");
        assert!(
            tokio::time::Instant::now() < deadline,
            "cat never got ann's place"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // A watcher whose last connection closes (a closed tab) frees the place too.
    let mut eve = client("eve").await;
    eve.send(watch.clone()).await;
    assert_eq!(watch_reply(&mut eve).await["code"], "too_many");
    drop(bob);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        eve.send(watch.clone()).await;
        let v = watch_reply(&mut eve).await;
        if v["type"] == "arena_standings" {
            break;
        }
        assert_eq!(v["code"], "too_many", "{v}");
        assert!(
            tokio::time::Instant::now() < deadline,
            "eve never got the place of bob, who left"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.server.shutdown();
    let _ = server.server.wait().await;
}

/// A wave changes no points: the standings push after one waits a push interval, so
/// that the wave's games reach their players first (at 10,000 players a push to every
/// watcher amid 5,000 game starts slowed them); the points of a game that ends come at
/// the next push.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standings_wait_an_interval_after_a_wave_and_points_come_at_the_next_push() {
    let mut config = config(&common::sqlite_url());
    config.arena.standings_ms = 1500;
    config.game.first_move_secs = 3;
    let server = common::start(config).await;
    let addr = server.addr;
    let org = common::token("org", damka::auth::unix_now() + 3600);
    let body = json!({"name": "Hold", "variant": "russian", "time_control": "0.2+0",
        "starts_in_secs": 2, "duration_secs": 60})
    .to_string();
    let auth = format!("Authorization: Bearer {org}\r\n");
    let (status, created) = common::http_with(addr, "POST", "/api/arenas", &body, &auth).await;
    assert_eq!(status, 201, "{created}");
    let created: Value = serde_json::from_str(&created).unwrap();
    let arena = created["id"].as_str().unwrap().to_string();
    let mut players = Vec::new();
    for name in ["h1", "h2"] {
        let t = common::token(name, damka::auth::unix_now() + 3600);
        let mut p = Client::with_token(addr, &t, name).await;
        p.send(json!({"type": "arena_join", "arena_id": arena}))
            .await;
        assert_eq!(p.recv_type("arena_member").await["membership"], "active");
        players.push(p);
    }
    let h1 = &mut players[0];
    recv_slow_type(h1, "game_start").await;
    let paired = std::time::Instant::now();
    loop {
        let v = recv_slow_type(h1, "arena_standings").await;
        if v["standings"]["playing"] == 2 {
            break;
        }
    }
    let waited = paired.elapsed();
    assert!(
        waited >= Duration::from_millis(1100) && waited < Duration::from_millis(2900),
        "standings after the wave came {waited:?} after game_start"
    );
    loop {
        let v = recv_slow_type(h1, "arena_standings").await;
        if v["standings"]["me"]["standing"]["games"] == 1 {
            break;
        }
    }
    let shown = paired.elapsed();
    assert!(
        shown < Duration::from_millis(3000 + 1500 + 1000),
        "the points came {shown:?} after game_start"
    );
    server.server.shutdown();
    let _ = server.server.wait().await;
}
