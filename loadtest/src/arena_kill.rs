//! The arena scenario on a cluster whose organiser dies: three damka nodes sharing a
//! Redis of the run's own (and one database); the arena is created on node 1, which so
//! holds its organiser lease, and its players are spread over nodes 2 and 3. At a set
//! time into the arena node 1 is killed with SIGKILL (it also owns the games in
//! progress: the game layer takes them over); another node takes the organiser lease
//! and goes on. After the arena's end the run checks, through the public interface:
//!
//! - **no player lost**: every player who joined is on the archived final standings;
//! - **no game lost**: every game a player was given (`game_start`) is on both its
//!   players' sheets of the final standings, and every game on a sheet is archived
//!   (`GET /api/games/{id}`, tagged with the arena) with both its players;
//! - **the standings agree with the archive**: each player's sheet, rescored from its
//!   archived games in order by the arena's scoring rules (`shared::arena::Sheet`),
//!   gives the same points per game and the same score;
//! - the arena went on: games were paired after the kill, and another node holds the
//!   lease (read from Redis).
//!
//! Players sit on the surviving nodes only: what is killed is the organiser and the
//! owner of the games, not the players' connections (a dropped connection and its
//! resume is the chaos scenario's subject).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use shared::arena::{ArenaResult, GameFor, Sheet};
use tokio::time::{Instant, sleep};

use crate::arena::{ArenaPlan, Seen, path_histograms, server_waves, start, wall_ms};
use crate::http::HttpClient;
use crate::plan::{Common, SystemUnderTest};
use crate::report::RunReport;
use crate::run::RunError;
use crate::spawn::{self, Spawned};
use crate::target::{SourcePool, Target};

/// Node 1's id in the cluster (the organiser that is killed).
const ORGANISER_NODE: &str = "ltarena0";

/// How long after the arena's end the final standings may take to be archived, beyond
/// a takeover's delay.
const ARCHIVE_WAIT: Duration = Duration::from_secs(60);

/// Runs the arena on three nodes started from `bin` (with `extra` settings, which win
/// over the scenario's), kills node 1 `kill_at` after the arena's start, and checks
/// what the arena kept.
pub async fn arena_kill(
    bin: &Path,
    plan: &ArenaPlan,
    kill_at: Duration,
    common: &Common,
    extra: &[(String, String)],
) -> Result<RunReport, RunError> {
    let setup =
        |what: &'static str| move |e: spawn::SpawnError| RunError::Setup(format!("{what}: {e}"));
    let port = spawn::free_port().map_err(|e| RunError::Setup(format!("no free port: {e}")))?;
    let redis = spawn::redis(port).await.map_err(setup("redis"))?;
    let mut rng = fastrand::Rng::with_seed(common.seed ^ u64::from(port));
    let secret: String = (0..32).map(|_| rng.alphanumeric()).collect();
    let prefix = format!("ltarena{}:", rng.u32(..));
    let data = spawn::ScratchDir::new(std::env::temp_dir().join(format!("damka-lt-arena-{port}")))
        .map_err(setup("data directory"))?;
    let sqlite = data.0.join("damka.sqlite");
    let mut nodes: Vec<Spawned> = Vec::new();
    for i in 0..3 {
        let mut env: Vec<(String, String)> = [
            ("DAMKA_NODE_ID", format!("ltarena{i}")),
            ("DAMKA_REDIS__URL", format!("redis://127.0.0.1:{port}")),
            ("DAMKA_REDIS__PREFIX", prefix.clone()),
            (
                "DAMKA_DATABASE__URL",
                format!("sqlite://{}", sqlite.display()),
            ),
            ("DAMKA_CLUSTER__LEASE_MS", "2000".into()),
            ("DAMKA_CLUSTER__RENEW_MS", "500".into()),
            ("DAMKA_CLUSTER__SWEEP_MS", "200".into()),
            ("DAMKA_CLUSTER__HEARTBEAT_MS", "300".into()),
            ("DAMKA_CLUSTER__NODE_TTL_MS", "1000".into()),
        ]
        .map(|(k, v)| (k.to_string(), v))
        .to_vec();
        env.extend(extra.iter().cloned());
        nodes.push(
            spawn::damka(bin, &secret, &env)
                .await
                .map_err(setup("damka"))?,
        );
    }
    let targets: Vec<Target> = nodes.iter().map(|n| n.target).collect();
    // The survivors' memory is measured (node 1's ends with the kill).
    let backend = SystemUnderTest::Damka {
        nodes: targets.clone(),
        pids: nodes[1..].iter().map(|n| n.pid).collect(),
        fresh: true,
    };
    let seen: Seen = Arc::default();
    let started = start(
        &backend,
        plan,
        common,
        targets[0],
        &targets[1..],
        Some(seen.clone()),
    )
    .await?;
    let info = started.info.clone();
    let lease_key = format!("{prefix}{{o:arena:{}}}:lease", info.id);
    let held_before = lease_holder(port, &lease_key).await;
    let victim = nodes.remove(0);
    let kill_ms = info.starts_at_ms + kill_at.as_millis() as u64;
    let killer = tokio::spawn(kill(victim, kill_ms, port, lease_key, common.clone()));
    // A takeover delays the arena's end by about a lease; the bots leave on the final
    // standings, so a longer window costs nothing.
    let window = started.window + Duration::from_secs(15);
    let mut report = started.h.finish(&backend, "arena-kill", window, 0).await;
    let (killed_at_ms, takeover, node1) = killer
        .await
        .map_err(|e| RunError::Setup(format!("the killer task failed: {e}")))?;
    let sources = SourcePool::new(common.sources)?;
    let seen = std::mem::take(&mut *seen.lock().unwrap_or_else(|e| e.into_inner()));
    let mut extra = verify(targets[1], &sources, &info.id, &seen, killed_at_ms).await;
    extra.insert(
        "organiser killed at s".into(),
        killed_at_ms.saturating_sub(info.starts_at_ms) as f64 / 1e3,
    );
    extra.insert(
        "killed node held the lease".into(),
        f64::from(u8::from(
            held_before
                .as_deref()
                .is_some_and(|h| holder_is(h, ORGANISER_NODE)),
        )),
    );
    if let Some((ms, _)) = &takeover {
        extra.insert("lease taken over after ms".into(), *ms as f64);
    }
    extra.insert(
        "lease taken by another node".into(),
        f64::from(u8::from(takeover.is_some())),
    );
    extra.extend(server_waves(targets[1], common).await);
    extra.extend(node1);
    for (i, node) in targets.iter().enumerate().skip(1) {
        extra.extend(path_histograms(*node, common, &format!("node{}", i + 1)).await);
    }
    report.extra = extra;
    drop(nodes);
    drop(redis);
    drop(data);
    Ok(report)
}

/// Is `<fence>:<node>` held by `node`?
fn holder_is(value: &str, node: &str) -> bool {
    value.split_once(':').is_some_and(|(_, n)| n == node)
}

/// The lease's value (`<fence>:<node>`), read with `redis-cli`.
async fn lease_holder(port: u16, key: &str) -> Option<String> {
    let out = tokio::process::Command::new("redis-cli")
        .args(["-p", &port.to_string(), "GET", key])
        .output()
        .await
        .ok()?;
    let value = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!value.is_empty()).then_some(value)
}

/// Kills the organiser's node at wall time `at_ms`; then waits (at most a minute) for
/// another node to hold the lease. Returns when it was killed (wall ms) and, if the
/// lease was taken over, after how long and by whom; and node 1's histograms of the
/// paths measured, read just before the kill.
async fn kill(
    victim: Spawned,
    at_ms: u64,
    port: u16,
    key: String,
    common: Common,
) -> (u64, Option<(u64, String)>, BTreeMap<String, f64>) {
    sleep(Duration::from_millis(at_ms.saturating_sub(wall_ms()))).await;
    // Its histograms die with it: read them just before.
    let node1 = path_histograms(victim.target, &common, "node1").await;
    victim.stop().await;
    let killed = wall_ms();
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(60) {
        if let Some(h) = lease_holder(port, &key).await
            && !holder_is(&h, ORGANISER_NODE)
        {
            return (killed, Some((t0.elapsed().as_millis() as u64, h)), node1);
        }
        sleep(Duration::from_millis(100)).await;
    }
    (killed, None, node1)
}

/// The archived final standings of `arena` (asked again while the node answers 503 or
/// the live standings: the standings are being written), or why not.
async fn final_standings(http: &mut HttpClient<'_>, arena: &str) -> Result<Value, String> {
    let t0 = Instant::now();
    loop {
        let last = match http.get(&format!("/api/arenas/{arena}")).await {
            Ok(body) => {
                let v: Value = serde_json::from_str(&body).map_err(|e| e.to_string())?;
                // The archived form (a list of lines): a live arena past its end also
                // says `finished` while its last games and its archive are under way.
                if v["arena"]["status"] == "finished" && v["standings"].is_array() {
                    return Ok(v);
                }
                format!("status {}, not archived yet", v["arena"]["status"])
            }
            Err(e) => e.to_string(),
        };
        if t0.elapsed() > ARCHIVE_WAIT {
            return Err(last);
        }
        sleep(Duration::from_millis(500)).await;
    }
}

/// The arena result of an archived game for `player` (an aborted arena game is the
/// no-show: the side to move did not make its first move and lost).
fn result_for(player: &str, g: &Value) -> ArenaResult {
    let white = g["white"]["id"] == player;
    let plies = g["moves"].as_array().map_or(0, Vec::len);
    match g["result"].as_str() {
        Some("1/2-1/2") => ArenaResult::Draw,
        Some("1-0") if white => ArenaResult::Win,
        Some("0-1") if !white => ArenaResult::Win,
        Some("*") if plies.is_multiple_of(2) != white => ArenaResult::Win,
        _ => ArenaResult::Loss,
    }
}

/// What the final standings say of each player: its sheet's game ids and points, its
/// score.
struct Line {
    games: Vec<String>,
    points: Vec<u64>,
    score: u64,
}

fn lines(standings: &Value) -> HashMap<String, Line> {
    let mut out = HashMap::new();
    for l in standings["standings"].as_array().into_iter().flatten() {
        let Some(user) = l["user"].as_str() else {
            continue;
        };
        let sheet = l["sheet"].as_array().cloned().unwrap_or_default();
        out.insert(
            user.to_string(),
            Line {
                games: sheet
                    .iter()
                    .filter_map(|e| e["game_id"].as_str().map(str::to_string))
                    .collect(),
                points: sheet.iter().filter_map(|e| e["points"].as_u64()).collect(),
                score: l["score"].as_u64().unwrap_or(u64::MAX),
            },
        );
    }
    out
}

/// Games whose White had the higher colour balance (whites minus blacks in the arena
/// before it) of the two: the documented rule gives White to the lower balance. Games
/// are replayed in the order they started (a player's games never overlap).
fn against_balance(archived: &HashMap<String, Value>) -> u64 {
    let mut games: Vec<&Value> = archived.values().collect();
    games.sort_by_key(|g| g["started_at"].as_u64().unwrap_or(0));
    let mut balance: HashMap<&str, i64> = HashMap::new();
    let mut wrong = 0;
    for g in games {
        let (Some(w), Some(b)) = (g["white"]["id"].as_str(), g["black"]["id"].as_str()) else {
            continue;
        };
        let (bw, bb) = (
            balance.get(w).copied().unwrap_or(0),
            balance.get(b).copied().unwrap_or(0),
        );
        if bw > bb {
            wrong += 1;
            eprintln!(
                "arena-kill: game {} gave White to {w} (balance {bw}) against {b} ({bb})",
                g["id"]
            );
        }
        *balance.entry(w).or_default() += 1;
        *balance.entry(b).or_default() -= 1;
    }
    wrong
}

/// The checks after the arena (see the module's doc), as report lines.
async fn verify(
    node: Target,
    sources: &SourcePool,
    arena: &str,
    seen: &HashMap<String, Vec<String>>,
    killed_at_ms: u64,
) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let mut http = HttpClient::new(node, sources);
    let standings = match final_standings(&mut http, arena).await {
        Ok(v) => v,
        Err(e) => {
            eprintln!("arena-kill: no final standings: {e}");
            out.insert("final standings missing".into(), 1.0);
            return out;
        }
    };
    let lines = lines(&standings);
    let lost: Vec<&String> = seen.keys().filter(|u| !lines.contains_key(*u)).collect();
    for u in &lost {
        eprintln!("arena-kill: player {u} is not on the final standings");
    }
    out.insert("players joined".into(), seen.len() as f64);
    out.insert("players on final standings".into(), lines.len() as f64);
    out.insert("players lost".into(), lost.len() as f64);
    // Every game given to a player is on both players' sheets (checked below for the
    // other player with the archive's names).
    let mut unscored = 0u64;
    let mut given = HashSet::new();
    for (user, games) in seen {
        for g in games {
            given.insert(g.clone());
            if !lines.get(user).is_some_and(|l| l.games.contains(g)) {
                unscored += 1;
                eprintln!("arena-kill: {user}'s game {g} is not on its sheet");
            }
        }
    }
    out.insert("games given".into(), given.len() as f64);
    out.insert("games given not on the sheet".into(), unscored as f64);
    // Every game on a sheet, from the archive.
    let mut archived: HashMap<String, Value> = HashMap::new();
    let mut missing = 0u64;
    let all: HashSet<&String> = lines.values().flat_map(|l| &l.games).collect();
    for id in all {
        let game = match http.get(&format!("/api/games/{id}")).await {
            Ok(body) => serde_json::from_str::<Value>(&body).ok(),
            Err(_) => {
                // The kept-alive connection may have been closed: once more, afresh.
                http = HttpClient::new(node, sources);
                http.get(&format!("/api/games/{id}"))
                    .await
                    .ok()
                    .and_then(|b| serde_json::from_str::<Value>(&b).ok())
            }
        };
        match game {
            Some(g) if g["arena"] == arena => {
                archived.insert(id.clone(), g);
            }
            _ => {
                missing += 1;
                eprintln!("arena-kill: game {id} of a sheet is not archived in the arena");
            }
        }
    }
    out.insert(
        "games on sheets".into(),
        (archived.len() as u64 + missing) as f64,
    );
    out.insert("games on sheets not archived".into(), missing as f64);
    // Both players have each game; each sheet rescored from the archive.
    let mut one_sided = 0u64;
    let mut disagree = 0u64;
    for (user, line) in &lines {
        let mut sheet = Sheet::default();
        for id in &line.games {
            let Some(g) = archived.get(id) else {
                continue;
            };
            let white = g["white"]["id"] == user.as_str();
            let opponent = if white { &g["black"] } else { &g["white"] };
            let opponent = opponent["id"].as_str().unwrap_or_default().to_string();
            if !lines.get(&opponent).is_some_and(|l| l.games.contains(id)) {
                one_sided += 1;
                eprintln!("arena-kill: game {id} is on {user}'s sheet, not on {opponent}'s");
            }
            let plies = g["moves"].as_array().map_or(0, Vec::len) as u32;
            let own = if white { plies.div_ceil(2) } else { plies / 2 };
            let berserk = g["berserk"]
                .as_array()
                .is_some_and(|b| b.iter().any(|c| c == if white { "white" } else { "black" }));
            sheet.add(GameFor {
                game_id: id.clone(),
                opponent,
                opponent_rating: 0,
                result: result_for(user, g),
                berserk,
                own_moves: own,
                plies,
            });
        }
        let points: Vec<u64> = sheet.entries.iter().map(|e| u64::from(e.points)).collect();
        if points != line.points || u64::from(sheet.score()) != line.score {
            disagree += 1;
            eprintln!(
                "arena-kill: {user}: standings {:?} = {}, archive {points:?}",
                line.points, line.score
            );
        }
    }
    out.insert("games on one sheet only".into(), one_sided as f64);
    out.insert(
        "games against the colour balance".into(),
        against_balance(&archived) as f64,
    );
    out.insert(
        "sheets disagreeing with the archive".into(),
        disagree as f64,
    );
    let after_kill = archived
        .values()
        .filter(|g| g["started_at"].as_u64().is_some_and(|t| t > killed_at_ms))
        .count();
    out.insert("games started after the kill".into(), after_kill as f64);
    out
}
