//! Blitz arenas end to end over WebSocket: 12 bots join an arena, play whatever it pairs
//! them (resigning, agreeing draws or playing on, by a plan drawn from the game id;
//! some going berserk), and at the end every score of the archived final standings is recomputed here from
//! the archived games (`GET /api/games/{id}`) with the rules written out independently;
//! nobody met the same opponent twice in a row; the games link to the arena.

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use common::{Client, get_json};
use serde_json::{Value, json};
use shared::rules::{Color, Position, Variant};

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

/// How a bot plays one game, from the game id: who gives up (or a draw) after how
/// many plies.
#[derive(Clone, Copy, Debug)]
struct Plan {
    kind: u32,
    after: usize,
}

fn plan(game_id: &str) -> Plan {
    let sum: u32 = game_id.bytes().map(u32::from).sum();
    Plan {
        kind: sum % 3,
        after: [4, 14, 64][(sum / 3 % 3) as usize],
    }
}

struct Live {
    me: Color,
    plies: usize,
    fen: String,
    /// The ply at which a draw was last offered with a move.
    offered_at: Option<usize>,
}

/// Does this player go berserk in this game?
fn goes_berserk(game_id: &str, white: bool) -> bool {
    let sum: u32 = game_id.bytes().map(u32::from).sum();
    (sum / 9 + u32::from(white)).is_multiple_of(3)
}

/// One bot: joins, plays every game it gets, returns the ids of its games in order
/// with whether it went berserk in each.
async fn bot(addr: SocketAddr, name: String, arena: String) -> Vec<(String, bool)> {
    let token = common::token(&name, damka::auth::unix_now() + 3600);
    let mut c = Client::with_token(addr, &token, &name).await;
    c.send(json!({"type": "arena_join", "arena_id": arena}))
        .await;
    let mut games = Vec::new();
    let mut live: HashMap<String, Live> = HashMap::new();
    // A player of a draw plan waits a moment before answering a move, for the offer
    // that may come with it (the offer is sent right after the move).
    let mut deferred: Option<(String, tokio::time::Instant)> = None;
    loop {
        let v = match deferred.clone() {
            Some((id, at)) => {
                let timed = tokio::time::timeout_at(at, recv_slow(&mut c)).await;
                match timed {
                    Ok(v) => v,
                    Err(_) => {
                        deferred = None;
                        if let Some(l) = live.get_mut(&id) {
                            act(&mut c, &id, l).await;
                        }
                        continue;
                    }
                }
            }
            None => recv_slow(&mut c).await,
        };
        match v["type"].as_str().unwrap_or("") {
            "game_start" => {
                let g = &v["game"];
                let id = g["game_id"].as_str().unwrap().to_string();
                assert_eq!(g["variant"], "russian");
                let me = if g["white"]["id"] == name.as_str() {
                    Color::White
                } else {
                    Color::Black
                };
                let berserk = goes_berserk(&id, me == Color::White);
                if berserk {
                    c.send(json!({"type": "berserk", "game_id": id})).await;
                }
                games.push((id.clone(), berserk));
                live.insert(
                    id.clone(),
                    Live {
                        me,
                        plies: g["moves"].as_array().unwrap().len(),
                        fen: g["fen"].as_str().unwrap().to_string(),
                        offered_at: None,
                    },
                );
                act(&mut c, &id, live.get_mut(&id).unwrap()).await;
            }
            "game_event" => {
                let id = v["game_id"].as_str().unwrap().to_string();
                let Some(l) = live.get_mut(&id) else { continue };
                let e = &v["event"];
                match e["kind"].as_str().unwrap_or("") {
                    "move" => {
                        l.plies += 1;
                        l.fen = e["fen"].as_str().unwrap().to_string();
                        let p = plan(&id);
                        if p.kind == 2 && l.plies >= p.after && e["by"] != color_name(l.me) {
                            deferred = Some((
                                id.clone(),
                                tokio::time::Instant::now() + Duration::from_millis(40),
                            ));
                        } else {
                            act(&mut c, &id, l).await;
                        }
                    }
                    "draw_offered" if e["by"] != color_name(l.me) => {
                        if deferred.as_ref().is_some_and(|(d, _)| *d == id) {
                            deferred = None;
                        }
                        if plan(&id).kind == 2 {
                            c.send(json!({"type": "draw_accept", "game_id": id})).await;
                        }
                    }
                    "game_over" => {
                        live.remove(&id);
                    }
                    _ => {}
                }
            }
            "error" if v["code"] == "draw_offer_not_allowed" => {
                // Too early for a draw: the move was not played; play it without.
                let id = v["game_id"].as_str().unwrap_or("").to_string();
                if let Some(l) = live.get_mut(&id) {
                    act(&mut c, &id, l).await;
                }
            }
            "error" if v["code"] != "draw_offer_not_allowed" => eprintln!("{name}: {v}"),
            "arena_standings" if v["standings"]["status"] == "finished" => return games,
            _ => {}
        }
    }
}

/// The next JSON message, waiting up to a minute (a bot may wait long between games).
async fn recv_slow(c: &mut Client) -> Value {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(60), c.ws.next())
            .await
            .expect("the bot hears from the server in time")
            .expect("the socket is open")
            .expect("a frame");
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Moves, resigns or offers a draw when it is the bot's turn.
async fn act(c: &mut Client, id: &str, l: &mut Live) {
    let pos = Position::from_fen(Variant::Russian, &l.fen).unwrap();
    if pos.side_to_move() != l.me {
        return;
    }
    let p = plan(id);
    if l.plies >= p.after {
        let loser = match p.kind {
            0 => Some(Color::White),
            1 => Some(Color::Black),
            _ => None,
        };
        if loser == Some(l.me) {
            c.send(json!({"type": "resign", "game_id": id})).await;
            return;
        }
    }
    let offer = p.kind == 2 && l.plies >= p.after && l.offered_at != Some(l.plies);
    if offer {
        l.offered_at = Some(l.plies);
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return;
    }
    let mv = &moves[(l.plies * 7 + id.len()) % moves.len()];
    let text = pos.move_text(mv);
    c.send(
        json!({"type": "move", "game_id": id, "move": text, "move_id": l.plies + 1,
        "offer_draw": offer}),
    )
    .await;
}

/// The points of each game of a sheet, recomputed from the archived games with the
/// rules as docs/protocol.md states them.
fn recompute(player: &str, games: &[Value], berserk: &[bool]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut results: Vec<char> = Vec::new();
    for (g, &berserk) in games.iter().zip(berserk) {
        let white = g["white"]["id"] == player;
        let plies = g["moves"].as_array().unwrap().len();
        // White moves first in Russian draughts.
        let own_moves = if white { plies.div_ceil(2) } else { plies / 2 };
        let r = match g["result"].as_str().unwrap() {
            "1-0" if white => 'W',
            "0-1" if !white => 'W',
            "1/2-1/2" => 'D',
            _ => 'L',
        };
        let n = results.len();
        let fire = n >= 2 && results[n - 2] == 'W' && results[n - 1] == 'W';
        let after_draw = results.last() == Some(&'D');
        let points = match r {
            'W' if fire => 4,
            'W' => 2,
            'D' if after_draw && plies < 60 => 0,
            'D' if fire => 2,
            'D' => 1,
            _ => 0,
        };
        let bonus = u64::from(berserk && r == 'W' && own_moves >= 7);
        results.push(r);
        out.push(points + bonus);
    }
    out
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
    let mut seen: HashMap<String, Vec<(String, bool)>> = HashMap::new();
    for (i, b) in bots.into_iter().enumerate() {
        let games = tokio::time::timeout(Duration::from_secs(90), b)
            .await
            .expect("the arena ends in time")
            .unwrap();
        seen.insert(format!("bot{i:02}"), games);
    }

    let (status, done) = get_json(addr, &format!("/api/arenas/{arena}")).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["arena"]["status"], "finished");
    let standings = done["standings"].as_array().unwrap();
    assert_eq!(standings.len(), BOTS);
    assert_eq!(done["podium"].as_array().unwrap().len(), 3);
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
        let expected = recompute(user, &archived, &berserk);
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
    let (status, _) =
        common::http_with(addr, "POST", "/api/arenas", &body, &auth(&guest_token)).await;
    assert_eq!(status, 403);
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
    assert_eq!(g["arena"], arena.as_str());
    assert_eq!(g["reason"], "aborted");
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
