//! The arena scenario: one registered organiser creates a casual arena, every bot (a
//! guest) joins it before it starts, and plays the games the arena's waves give it to
//! the end (moves chosen among the legal ones of its own copy of the rules, checked
//! against the server's). It measures the first wave (arena start until each player has
//! `game_start`), the leaderboard's update latency (a player's `game_over` until a
//! standings event shows that game on its sheet), the move round trip, and reads the
//! server's own wave histogram from `/metrics` at the end.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use shared::arena::{ArenaInfo, ArenaStatus, Membership};
use shared::protocol::{ClientMessage, ServerMessage, TimeControl};
use shared::rules::Variant;
use tokio::sync::watch;
use tokio::time::{Instant, sleep_until, timeout};

use crate::bot::{BotError, Ctx, recv, send};
use crate::damka::{self, How, Session};
use crate::http::HttpClient;
use crate::plan::{Common, SystemUnderTest, Think};
use crate::report::RunReport;
use crate::run::{Harness, RunError, tokens};
use crate::target::Target;

/// What the arena scenario is asked to do.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ArenaPlan {
    /// Players (guests) joining the arena.
    pub players: usize,
    /// The arena's game.
    pub variant: Variant,
    /// The arena's clock.
    pub time_control: TimeControl,
    /// Think time per move.
    pub think: Think,
    /// From the arena's creation (every bot connected) to its start: every bot joins
    /// in it, so the first wave pairs them all at once.
    pub lead: Duration,
    /// The arena's length (whole seconds, at least 10).
    pub length: Duration,
    /// A player resigns at this ply.
    pub max_plies: u32,
}

/// Wall-clock milliseconds (the arena's start is given on the wall clock).
pub(crate) fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Runs the arena scenario against damka nodes (the organiser and the server's metrics
/// on the first node; players spread over all of them).
pub async fn arena(
    backend: &SystemUnderTest,
    plan: &ArenaPlan,
    common: &Common,
) -> Result<RunReport, RunError> {
    let SystemUnderTest::Damka { nodes, .. } = backend else {
        return Err(RunError::Setup(
            "the arena scenario runs against damka only".into(),
        ));
    };
    let Some(&first) = nodes.first() else {
        return Err(RunError::NoNodes);
    };
    let started = start(backend, plan, common, first, nodes, None).await?;
    let mut report = started.h.finish(backend, "arena", started.window, 0).await;
    report.extra = server_waves(first, common).await;
    Ok(report)
}

/// Every player who joined, by user id, with the games it was given (`game_start`), in
/// order.
pub(crate) type Seen = Arc<Mutex<HashMap<String, Vec<String>>>>;

/// An arena created, its players connected and waiting for it.
pub(crate) struct Started {
    pub(crate) h: Harness,
    pub(crate) info: ArenaInfo,
    /// How long the run's window must last: the lead, the arena, its last games.
    pub(crate) window: Duration,
}

/// Connects the players (spread over `players_on`), then the organiser on `organiser_on`,
/// which creates the arena (and so organises it); every player joins it.
pub(crate) async fn start(
    backend: &SystemUnderTest,
    plan: &ArenaPlan,
    common: &Common,
    organiser_on: Target,
    players_on: &[Target],
    seen: Option<Seen>,
) -> Result<Started, RunError> {
    if players_on.is_empty() {
        return Err(RunError::NoNodes);
    }
    let mut h = Harness::new(backend, common)?;
    h.stop_when_done();
    let organiser = organiser(&h.ctx, organiser_on, common.seed).await?;
    let (arena_tx, arena_rx) = watch::channel(None::<ArenaInfo>);
    let how = How {
        think: plan.think,
        max_plies: plan.max_plies,
    };
    let mut rng = fastrand::Rng::with_seed(common.seed);
    let toks = tokens(players_on, &h.ctx.sources, plan.players, |i| i).await;
    for (i, token) in toks.into_iter().enumerate() {
        let Some(token) = h.usable(token) else {
            continue;
        };
        let target = players_on[i % players_on.len()];
        let rx = arena_rx.clone();
        let seed = rng.u64(..);
        let seen = seen.clone();
        h.spawn_damka(target, token, move |ctx, s| {
            player(ctx, s, rx, how, fastrand::Rng::with_seed(seed), seen)
        });
    }
    h.wait_connected().await;
    // Connected only now: an idle session reads nothing, so it would not answer the
    // server's pings through a long connect phase.
    let session = damka::connect(&h.ctx, &organiser_on, &organiser)
        .await
        .map_err(|e| RunError::Setup(format!("the organiser cannot connect: {e}")))?;
    let info = create(session, plan).await?;
    let starts_in = info.starts_at_ms.saturating_sub(wall_ms());
    arena_tx.send_replace(Some(info.clone()));
    // The window covers the lead, the arena, and its last games (the bots leave as soon
    // as the final standings arrive).
    let last_game = Duration::from_millis(shared::arena::estimated_game_ms(plan.time_control));
    let window = Duration::from_millis(starts_in) + plan.length + last_game;
    Ok(Started { h, info, window })
}

/// Registers the organiser; its token.
async fn organiser(ctx: &Arc<Ctx>, node: Target, seed: u64) -> Result<String, RunError> {
    let mut rng = fastrand::Rng::with_seed(seed ^ wall_ms());
    let name = format!("ltorg{}", rng.u32(..));
    let password: String = (0..20).map(|_| rng.alphanumeric()).collect();
    HttpClient::new(node, &ctx.sources)
        .register(&name, &password)
        .await
        .map_err(|e| RunError::Setup(format!("cannot register the organiser: {e}")))
}

/// Creates the arena.
async fn create(mut org: Session, plan: &ArenaPlan) -> Result<ArenaInfo, RunError> {
    let setup = |e: BotError| RunError::Setup(format!("arena_create: {e}"));
    send(
        &mut org.ws,
        &ClientMessage::ArenaCreate {
            name: "damka-loadtest arena".into(),
            variant: plan.variant,
            time_control: plan.time_control,
            rated: false,
            ruleset: None,
            starts_in_secs: plan.lead.as_secs().max(1),
            duration_secs: plan.length.as_secs(),
            berserk: false,
            min_games: None,
            min_rating: None,
            max_rating: None,
            password: None,
        },
    )
    .await
    .map_err(setup)?;
    let answer = timeout(Duration::from_secs(10), async {
        loop {
            match recv(&mut org.ws).await? {
                ServerMessage::ArenaCreated { arena } => return Ok(arena),
                ServerMessage::Error { code, message, .. } => {
                    return Err(BotError::Protocol(format!("{code}: {message}")));
                }
                _ => {}
            }
        }
    })
    .await
    .map_err(|_| RunError::Setup("no arena_created within 10 s".into()))?;
    crate::bot::close(org.ws).await;
    answer.map_err(setup)
}

/// A player's arena bookkeeping between and during games.
#[derive(Default)]
struct Sheet {
    /// Games over whose standings line has not been seen yet, with when they ended.
    pending: Vec<(String, Instant)>,
    /// The final standings arrived.
    finished: bool,
}

impl Sheet {
    fn on(&mut self, ctx: &Ctx, msg: ServerMessage) {
        match msg {
            ServerMessage::ArenaStandings { standings } => {
                if let Some(me) = &standings.me {
                    self.pending.retain(|(game, ended)| {
                        let shown = me.sheet.iter().any(|e| &e.game_id == game);
                        if shown {
                            ctx.stats.leaderboard.record(ended.elapsed());
                        }
                        !shown
                    });
                }
                if standings.status == ArenaStatus::Finished {
                    self.finished = true;
                }
            }
            ServerMessage::ArenaMember {
                membership: Membership::Paused,
                ..
            } => ctx.stats.reason("arena: paused"),
            ServerMessage::Error { code, .. } => {
                ctx.stats.server_errors.inc();
                ctx.stats.reason(format!("error {code}"));
            }
            _ => {}
        }
    }
}

/// Joins the arena and plays its games until the final standings (or the window's end).
async fn player(
    ctx: Arc<Ctx>,
    mut s: Session,
    mut arena: watch::Receiver<Option<ArenaInfo>>,
    how: How,
    mut rng: fastrand::Rng,
    seen: Option<Seen>,
) -> Result<(), BotError> {
    let window = ctx.window().await?;
    let info = tokio::select! {
        () = sleep_until(window.end) => return Ok(()),
        info = arena.wait_for(Option::is_some) => info.map_err(|_| BotError::RunEnded)?.clone(),
    };
    let Some(info) = info else {
        return Err(BotError::RunEnded);
    };
    let joined_early = wall_ms() < info.starts_at_ms;
    send(
        &mut s.ws,
        &ClientMessage::ArenaJoin {
            arena_id: info.id.clone(),
            password: None,
        },
    )
    .await?;
    if let Some(seen) = &seen {
        seen.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(s.user.0.clone())
            .or_default();
    }
    let mut sheet = Sheet::default();
    let mut first = true;
    let mut waiting_since = Instant::now();
    while !sheet.finished {
        let msg = tokio::select! {
            () = sleep_until(window.end) => return Ok(()),
            msg = recv(&mut s.ws) => msg?,
        };
        let ServerMessage::GameStart { game } = msg else {
            sheet.on(&ctx, msg);
            continue;
        };
        if first && joined_early {
            let late = wall_ms().saturating_sub(info.starts_at_ms);
            ctx.stats.wave.record(Duration::from_millis(late));
        } else if !first {
            ctx.stats.pairing.record(waiting_since.elapsed());
        }
        first = false;
        if let Some(seen) = &seen {
            seen.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .entry(s.user.0.clone())
                .or_default()
                .push(game.game_id.0.clone());
        }
        let view = damka::seated_view(&ctx, &game, &s.user)?;
        let over = damka::play(&ctx, &mut s, view, how, &mut rng, window, &mut |m| {
            sheet.on(&ctx, m)
        })
        .await?;
        if !over {
            return Ok(());
        }
        sheet.pending.push((game.game_id.0.clone(), Instant::now()));
        waiting_since = Instant::now();
    }
    crate::bot::close(s.ws).await;
    Ok(())
}

/// The server's wave histogram (`damka_arena_wave_milliseconds`) from `/metrics`: the
/// number of waves that paired someone, their mean, and the bucket bound all fit under.
pub(crate) async fn server_waves(node: Target, common: &Common) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let Ok(sources) = crate::target::SourcePool::new(common.sources) else {
        return out;
    };
    let Ok(text) = HttpClient::new(node, &sources).get("/metrics").await else {
        return out;
    };
    let name = "damka_arena_wave_milliseconds";
    let value = |suffix: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}{suffix} ")))
            .and_then(|v| v.trim().parse::<f64>().ok())
    };
    let (Some(count), Some(sum)) = (value("_count"), value("_sum")) else {
        return out;
    };
    out.insert("server waves".into(), count);
    if count > 0.0 {
        out.insert("server wave mean ms".into(), sum / count);
        let all_under = text.lines().find_map(|l| {
            let rest = l.strip_prefix(&format!("{name}_bucket{{le=\""))?;
            let (bound, n) = rest.split_once("\"} ")?;
            let n: f64 = n.trim().parse().ok()?;
            (n >= count).then(|| bound.parse::<f64>().ok()).flatten()
        });
        if let Some(b) = all_under {
            out.insert("server wave max <= ms".into(), b);
        }
    }
    out
}

/// The server's histograms of the first wave's and the leaderboard's path, each as its
/// count and mean, keyed `<label> <short name>`: read from `/metrics` of `node`.
pub(crate) async fn path_histograms(
    node: Target,
    common: &Common,
    label: &str,
) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let Ok(sources) = crate::target::SourcePool::new(common.sources) else {
        return out;
    };
    let Ok(text) = HttpClient::new(node, &sources).get("/metrics").await else {
        return out;
    };
    for short in [
        "arena_wave",
        "game_announce",
        "game_notice",
        "game_found",
        "game_join",
        "arena_score",
        "arena_push",
        "standings_notice",
    ] {
        let name = format!("damka_{short}_milliseconds");
        let value = |suffix: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{name}{suffix} ")))
                .and_then(|v| v.trim().parse::<f64>().ok())
        };
        if let (Some(count), Some(sum)) = (value("_count"), value("_sum"))
            && count > 0.0
        {
            out.insert(format!("{label} {short} n"), count);
            out.insert(format!("{label} {short} mean ms"), sum / count);
        }
    }
    out
}
