//! The chaos scenario: three damka nodes sharing a Redis of the run's own, games whose
//! two players sit on different nodes; during play one node is killed with SIGKILL and
//! later the Redis is killed and started again, empty. Players whose connection drops
//! reconnect to the next node and `resume` their game by version, as a real client does.
//!
//! It reports games lost (a game missing from the archive), games never ended, games
//! that could not be resumed (`game_not_found` for 10 s: no node took the game over), moves lost (a move the server acknowledged, by `move_ack` or by
//! its own event, that is not at its ply in the archived game), the longest stall a
//! player saw (its move sent until acknowledged, reconnection included), and the clock
//! time the server refunded (estimated by a player whose clock was running when its
//! connection dropped, at its next move: its remaining time after the move, less the
//! increment, against what it had at the last event less the time that passed).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use shared::protocol::{
    ClientMessage, ClockState, ColorChoice, ErrorCode, GameEvent, GameId, SeekId, ServerMessage,
    TimeControl,
};
use shared::rules::{Color, Position, Variant};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep, sleep_until, timeout};

use crate::bot::{BotError, Ctx, Window, recv, send};
use crate::damka::{self, Session};
use crate::game::{GameView, Seq};
use crate::http::HttpClient;
use crate::plan::{Common, SystemUnderTest, Think};
use crate::report::RunReport;
use crate::run::{Harness, RunError, tokens};
use crate::spawn::{self, Spawned};
use crate::target::{SourcePool, Target};

/// What the chaos scenario is asked to do.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ChaosPlan {
    /// Games played at once (players on two different nodes).
    pub games: usize,
    /// The game.
    pub variant: Variant,
    /// The clock (long enough not to fall during the run).
    pub time_control: TimeControl,
    /// Think time per move.
    pub think: Think,
    /// Pairs start spread over this long.
    pub ramp: Duration,
    /// How long the play lasts; every game still running is then resigned.
    pub duration: Duration,
    /// When (after the play starts) node 2 of 3 is killed with SIGKILL.
    pub kill_at: Duration,
    /// When the Redis is killed and started again (empty).
    pub redis_at: Duration,
    /// A player resigns at this ply.
    pub max_plies: u32,
}

/// What the players found, shared by the run.
#[derive(Default)]
struct Book {
    /// Per game: the moves acknowledged to either player, by ply.
    acked: BTreeMap<GameId, BTreeMap<u32, String>>,
    /// Games whose end a player saw.
    ended: Vec<GameId>,
    /// Games started (by White).
    started: Vec<GameId>,
    /// Games a player could not resume (`game_not_found` or no answer).
    unresumable: Vec<GameId>,
    /// Acknowledged moves missing from a resumed state, with where.
    lost_on_resume: Vec<(GameId, u32)>,
    /// Estimated clock refunds, ms.
    refunds: Vec<f64>,
    /// Reconnections: time from the drop to a welcomed session on another node.
    reconnects: Vec<Duration>,
}

type Shared = Arc<Mutex<Book>>;

fn book(shared: &Shared) -> std::sync::MutexGuard<'_, Book> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs the chaos scenario with nodes started from `bin`.
pub async fn chaos(bin: &Path, plan: &ChaosPlan, common: &Common) -> Result<RunReport, RunError> {
    let setup = |what: &str| {
        let what = what.to_string();
        move |e: spawn::SpawnError| RunError::Setup(format!("{what}: {e}"))
    };
    let port = spawn::free_port().map_err(|e| RunError::Setup(format!("no free port: {e}")))?;
    let redis = spawn::redis(port).await.map_err(setup("redis"))?;
    let mut rng = fastrand::Rng::with_seed(common.seed ^ u64::from(port));
    let secret: String = (0..32).map(|_| rng.alphanumeric()).collect();
    let prefix = format!("ltchaos{}:", rng.u32(..));
    let sqlite = std::env::temp_dir().join(format!("damka-lt-chaos-{port}.sqlite"));
    let mut nodes: Vec<Spawned> = Vec::new();
    for i in 0..3 {
        let env: Vec<(String, String)> = [
            ("DAMKA_NODE_ID", format!("chaos{i}")),
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
        nodes.push(
            spawn::damka(bin, &secret, &env)
                .await
                .map_err(setup("damka"))?,
        );
    }
    let targets: Vec<Target> = nodes.iter().map(|n| n.target).collect();
    let backend = SystemUnderTest::Damka {
        nodes: targets.clone(),
        pids: nodes.iter().map(|n| n.pid).collect(),
        fresh: true,
    };
    let mut h = Harness::new(&backend, common)?;
    let shared: Shared = Arc::default();
    let how = damka::How {
        think: plan.think,
        max_plies: plan.max_plies,
    };
    let mut toks = tokens(&targets, &h.ctx.sources, plan.games * 2, |i| i)
        .await
        .into_iter();
    for g in 0..plan.games {
        let (seek_tx, seek_rx) = mpsc::channel(1);
        let mut roles = [Some(Role::Seek(seek_tx)), Some(Role::Accept(seek_rx))];
        for (slot, role) in roles.iter_mut().enumerate() {
            let b = g * 2 + slot;
            let token = match toks.next() {
                Some(Ok(t)) => t,
                Some(Err(e)) => {
                    h.failed(&e);
                    continue;
                }
                None => continue,
            };
            let seat = Seat {
                token,
                nodes: targets.clone(),
                at: b % targets.len(),
                role: role.take(),
                offset: plan.ramp.mul_f64(g as f64 / plan.games.max(1) as f64),
                game: (plan.variant, plan.time_control),
                how,
                book: shared.clone(),
                rng: fastrand::Rng::with_seed(rng.u64(..)),
            };
            let ctx = h.ctx.clone();
            let first = targets[seat.at];
            let tok = seat.token.clone();
            h.spawn(
                async move { damka::connect(&ctx, &first, &tok).await },
                move |ctx, s| player(ctx, s, seat),
            );
        }
    }
    h.wait_connected().await;
    let chaos = tokio::spawn(havoc(h.ctx.clone(), nodes, redis, port, plan.clone()));
    let mut report = h
        .finish(&backend, "chaos", plan.duration, plan.games as u64)
        .await;
    let (survivor, events) = match chaos.await {
        Ok(Ok(x)) => x,
        Ok(Err(e)) => return Err(e),
        Err(e) => return Err(RunError::Setup(format!("the chaos task failed: {e}"))),
    };
    let sources = SourcePool::new(common.sources)?;
    let book = std::mem::take(&mut *book(&shared));
    report.extra = verify(&book, survivor.target, &sources, plan.variant).await;
    for (name, at) in events {
        report.extra.insert(name, at);
    }
    drop(survivor);
    let _ = std::fs::remove_file(&sqlite);
    Ok(report)
}

/// Kills node 2 at `kill_at`, kills and restarts Redis at `redis_at`. Returns a node
/// still alive (for the archive), and when things happened.
async fn havoc(
    ctx: Arc<Ctx>,
    mut nodes: Vec<Spawned>,
    mut redis: Spawned,
    port: u16,
    plan: ChaosPlan,
) -> Result<(Spawned, Vec<(String, f64)>), RunError> {
    let window = ctx
        .window()
        .await
        .map_err(|e| RunError::Setup(e.to_string()))?;
    let mut events = Vec::new();
    sleep_until(window.start + plan.kill_at).await;
    if let Some(victim) = nodes.pop() {
        victim.stop().await;
        events.push((
            "node killed at s".to_string(),
            window.start.elapsed().as_secs_f64(),
        ));
    }
    sleep_until(window.start + plan.redis_at).await;
    redis.stop().await;
    let down = Instant::now();
    redis = spawn::redis(port)
        .await
        .map_err(|e| RunError::Setup(format!("redis restart: {e}")))?;
    events.push((
        "redis restarted at s".to_string(),
        window.start.elapsed().as_secs_f64(),
    ));
    events.push((
        "redis down ms".to_string(),
        down.elapsed().as_secs_f64() * 1e3,
    ));
    sleep_until(window.end).await;
    // Keep Redis and the other nodes alive until the games are archived.
    sleep(Duration::from_secs(3)).await;
    let survivor = nodes.remove(0);
    tokio::spawn(async move {
        // Dropped (killed) once the archive has been read.
        sleep(Duration::from_secs(30)).await;
        drop(redis);
        drop(nodes);
    });
    Ok((survivor, events))
}

/// Reads every started game from the archive and checks every acknowledged move is
/// there at its ply.
async fn verify(
    book: &Book,
    node: Target,
    sources: &SourcePool,
    variant: Variant,
) -> BTreeMap<String, f64> {
    let mut client = HttpClient::new(node, sources);
    let mut games_lost = 0u64;
    let mut moves_lost = book.lost_on_resume.len() as u64;
    let mut moves_checked = 0u64;
    for id in &book.started {
        let archived = match client.get(&format!("/api/games/{}", id.0)).await {
            Ok(body) => serde_json::from_str::<serde_json::Value>(&body).ok(),
            Err(e) => {
                eprintln!("chaos: game {} not in the archive: {e}", id.0);
                None
            }
        };
        let Some(archived) = archived else {
            games_lost += 1;
            continue;
        };
        let sans: Vec<String> = archived["moves"]
            .as_array()
            .map(|m| {
                m.iter()
                    .filter_map(|x| x["san"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let Some(acked) = book.acked.get(id) else {
            continue;
        };
        // Compare moves, not texts: replay the archive and parse both on each position.
        let mut position = Position::start(variant);
        for (ply, san) in sans.iter().enumerate() {
            let ply = ply as u32;
            let Ok(mv) = position.parse_move(san) else {
                break;
            };
            if let Some(text) = acked.get(&ply) {
                moves_checked += 1;
                if position.parse_move(text).ok().as_ref() != Some(&mv) {
                    moves_lost += 1;
                    eprintln!(
                        "chaos: game {} ply {ply}: acked {text}, archived {san}",
                        id.0
                    );
                }
            }
            if position.play(&mv).is_err() {
                break;
            }
        }
        let beyond = acked.keys().filter(|p| **p as usize >= sans.len()).count();
        if beyond > 0 {
            eprintln!(
                "chaos: game {}: {beyond} acknowledged moves past the archive's {} plies",
                id.0,
                sans.len()
            );
        }
        moves_lost += beyond as u64;
    }
    for id in &book.unresumable {
        eprintln!("chaos: game {} could not be resumed", id.0);
    }
    let never_ended = book
        .started
        .iter()
        .filter(|g| !book.ended.contains(g))
        .count();
    let mut out = BTreeMap::new();
    out.insert("games".into(), book.started.len() as f64);
    out.insert("games lost".into(), games_lost as f64);
    out.insert("games never ended".into(), never_ended as f64);
    out.insert("games unresumable".into(), book.unresumable.len() as f64);
    out.insert("moves acked checked".into(), moves_checked as f64);
    out.insert("moves lost".into(), moves_lost as f64);
    out.insert("reconnects".into(), book.reconnects.len() as f64);
    let max_ms = |v: &mut dyn Iterator<Item = f64>| v.fold(0.0f64, f64::max);
    out.insert(
        "reconnect max ms".into(),
        max_ms(&mut book.reconnects.iter().map(|d| d.as_secs_f64() * 1e3)),
    );
    out.insert("refunds seen".into(), book.refunds.len() as f64);
    out.insert(
        "refund max ms".into(),
        max_ms(&mut book.refunds.iter().copied()),
    );
    if !book.refunds.is_empty() {
        out.insert(
            "refund mean ms".into(),
            book.refunds.iter().sum::<f64>() / book.refunds.len() as f64,
        );
    }
    out
}

enum Role {
    Seek(mpsc::Sender<SeekId>),
    Accept(mpsc::Receiver<SeekId>),
}

/// One player: its token (to reconnect anywhere), the nodes, and where it is now.
struct Seat {
    token: String,
    nodes: Vec<Target>,
    at: usize,
    role: Option<Role>,
    offset: Duration,
    game: (Variant, TimeControl),
    how: damka::How,
    book: Shared,
    rng: fastrand::Rng,
}

impl Seat {
    /// Connects to the next node that answers, until the window ends.
    async fn reconnect(&mut self, ctx: &Ctx, window: Window) -> Result<Session, BotError> {
        let t0 = Instant::now();
        loop {
            self.at = (self.at + 1) % self.nodes.len();
            let target = self.nodes[self.at];
            if let Ok(Ok(s)) = timeout(
                Duration::from_secs(3),
                damka::connect(ctx, &target, &self.token),
            )
            .await
            {
                book(&self.book).reconnects.push(t0.elapsed());
                return Ok(s);
            }
            if Instant::now() > window.end {
                return Err(BotError::RunEnded);
            }
            sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Pairs through the lobby (seek on one node, accept on another); retried while the
/// lobby is unavailable.
async fn pair(
    ctx: &Ctx,
    s: &mut Session,
    seat: &mut Seat,
    window: Window,
) -> Result<Option<shared::protocol::GameState>, BotError> {
    let (variant, time_control) = seat.game;
    if let Some(Role::Seek(_)) = &seat.role {
        let seek = ClientMessage::Seek {
            variant,
            time_control,
            rated: false,
            color: ColorChoice::Random,
            ruleset: None,
        };
        send(&mut s.ws, &seek).await?;
    }
    loop {
        let seek_id = async {
            match &mut seat.role {
                Some(Role::Accept(rx)) => rx.recv().await,
                _ => std::future::pending().await,
            }
        };
        tokio::select! {
            () = sleep_until(window.end) => return Ok(None),
            id = seek_id => match id {
                Some(seek_id) => send(&mut s.ws, &ClientMessage::AcceptSeek { seek_id }).await?,
                None => return Ok(None),
            },
            msg = recv(&mut s.ws) => match msg? {
                ServerMessage::GameStart { game } => return Ok(Some(game)),
                ServerMessage::SeekCreated { seek } => {
                    if let Some(Role::Seek(tx)) = &seat.role {
                        let _ = tx.send(seek.seek_id).await;
                    }
                }
                ServerMessage::Error { code, .. } => {
                    ctx.stats.server_errors.inc();
                    ctx.stats.reason(format!("pairing error {code}"));
                }
                _ => {}
            }
        }
    }
}

/// How long a player asks again to resume a game the nodes say they do not have.
const RESUME_FOR: Duration = Duration::from_secs(10);

/// A move sent and not yet acknowledged.
struct Pending {
    move_id: u64,
    ply: u32,
    text: String,
    sent: Instant,
}

/// Pairs once, then plays that game to its end through node deaths and Redis restarts.
async fn player(ctx: Arc<Ctx>, mut s: Session, mut seat: Seat) -> Result<(), BotError> {
    let window = ctx.window().await?;
    sleep_until(window.start + seat.offset).await;
    let Some(state) = pair(&ctx, &mut s, &mut seat, window).await? else {
        return Ok(());
    };
    ctx.stats
        .pairing
        .record(window.start.elapsed().saturating_sub(seat.offset));
    let me = if state.white.id == s.user {
        Color::White
    } else {
        Color::Black
    };
    let id = state.game_id.clone();
    if me == Color::White {
        ctx.stats.games_started.inc();
        book(&seat.book).started.push(id.clone());
    }
    let view = GameView::from_state(&state, Some(me))?;
    let clock = (state.clock, Instant::now());
    play(&ctx, s, &mut seat, view, clock, window).await
}

/// The acknowledgement of `p` arrived (by `move_ack`, its event, or a resumed state).
fn acked(ctx: &Ctx, seat: &Seat, id: &GameId, p: &Pending) {
    ctx.stats.stall.record(p.sent.elapsed());
    book(&seat.book)
        .acked
        .entry(id.clone())
        .or_default()
        .insert(p.ply, p.text.clone());
}

fn my_ms(c: &ClockState, me: Color) -> u64 {
    match me {
        Color::White => c.white_ms,
        Color::Black => c.black_ms,
    }
}

async fn play(
    ctx: &Ctx,
    mut s: Session,
    seat: &mut Seat,
    mut view: GameView,
    mut clock: (ClockState, Instant),
    window: Window,
) -> Result<(), BotError> {
    let stats = &ctx.stats;
    let me = view.me.unwrap_or(Color::White);
    let id = view.id.clone();
    let increment = seat.game.1.first().increment_ms;
    let mut due = view
        .my_turn()
        .then(|| Instant::now() + seat.how.think.sample(&mut seat.rng));
    let mut move_id = 0u64;
    let mut pending: Option<Pending> = None;
    // After a resume: when to assume the replay is over and resend an unacknowledged move.
    let mut settle: Option<Instant> = None;
    let mut resigned = false;
    // The connection dropped while our clock ran.
    let mut across = false;
    // The first `game_not_found` answer to a resume.
    let mut not_found: Option<Instant> = None;
    loop {
        let msg = tokio::select! {
            biased;
            msg = recv(&mut s.ws) => msg,
            () = sleep_until(due.unwrap_or(window.end)), if due.is_some() => {
                due = None;
                if view.ply >= seat.how.max_plies {
                    if !resigned {
                        resigned = true;
                        send(&mut s.ws, &ClientMessage::Resign { game_id: id.clone() }).await?;
                    }
                    continue;
                }
                let Some(mv) = view.choose(&mut seat.rng) else { continue };
                move_id += 1;
                let text = view.text(&mv);
                let sent = pending.as_ref().map_or_else(Instant::now, |p| p.sent);
                send(&mut s.ws, &ClientMessage::Move {
                    game_id: id.clone(), text: text.clone(), move_id, think_ms: None, offer_draw: false,
                }).await?;
                stats.moves_sent.inc();
                pending = Some(Pending { move_id, ply: view.ply, text, sent });
                continue;
            }
            () = sleep_until(settle.unwrap_or(window.end)), if settle.is_some() => {
                settle = None;
                // The replay is over and our move is not in it: play again.
                if pending.as_ref().is_some_and(|p| p.ply == view.ply) && view.my_turn() {
                    due = Some(Instant::now());
                }
                continue;
            }
            () = sleep_until(window.end) => {
                if me == Color::White {
                    stats.games_cut.inc();
                    let _ = send(&mut s.ws, &ClientMessage::Resign { game_id: id.clone() }).await;
                    // Wait for the end to be saved so the archive has the game.
                    let over = timeout(Duration::from_secs(3), async {
                        loop {
                            match recv(&mut s.ws).await {
                                Ok(ServerMessage::GameEvent { event: GameEvent::GameOver { .. }, .. }) => return true,
                                Err(_) => return false,
                                Ok(_) => {}
                            }
                        }
                    }).await;
                    if over == Ok(true) {
                        book(&seat.book).ended.push(id.clone());
                    }
                }
                return Ok(());
            }
        };
        let msg = match msg {
            Ok(m) => m,
            Err(BotError::Closed { .. } | BotError::Ws(_)) => {
                stats.reason("chaos: connection dropped");
                s = seat.reconnect(ctx, window).await?;
                // Our clock ran through the outage: see what the server gives back.
                across |= clock.0.running == Some(me);
                send(
                    &mut s.ws,
                    &ClientMessage::Resume {
                        game_id: id.clone(),
                        last_version: view.version,
                    },
                )
                .await?;
                settle = Some(Instant::now() + Duration::from_secs(2));
                continue;
            }
            Err(e) => return Err(e),
        };
        match msg {
            ServerMessage::MoveAck { move_id: m, .. } => {
                if let Some(p) = pending.take_if(|p| p.move_id == m) {
                    acked(ctx, seat, &id, &p);
                }
            }
            ServerMessage::GameState { game } if game.game_id == id => {
                // A resume from a version the server does not know: the whole game.
                {
                    let mut b = book(&seat.book);
                    let lost: Vec<u32> = b
                        .acked
                        .get(&id)
                        .map(|a| {
                            a.iter()
                                .filter(|(ply, text)| game.moves.get(**ply as usize) != Some(*text))
                                .map(|(p, _)| *p)
                                .collect()
                        })
                        .unwrap_or_default();
                    for ply in lost {
                        b.lost_on_resume.push((id.clone(), ply));
                    }
                }
                view = GameView::from_state(&game, Some(me))?;
                clock = (game.clock, Instant::now());
                if let Some(p) =
                    pending.take_if(|p| game.moves.get(p.ply as usize) == Some(&p.text))
                {
                    acked(ctx, seat, &id, &p);
                }
                if game.outcome.is_some() {
                    book(&seat.book).ended.push(id.clone());
                    return Ok(());
                }
                if view.my_turn() && due.is_none() {
                    due = Some(Instant::now() + seat.how.think.sample(&mut seat.rng));
                }
            }
            ServerMessage::GameEvent {
                game_id,
                version,
                event,
            } if game_id == id => {
                match view.sequence(version) {
                    Seq::Next => {}
                    Seq::Gap(n) => stats.events_dropped.add(n),
                    Seq::Stale => {
                        stats.events_out_of_order.inc();
                        continue;
                    }
                }
                match event {
                    GameEvent::Move {
                        by,
                        played,
                        fen,
                        clock: after,
                        ..
                    } => {
                        let now = Instant::now();
                        let ply = view.ply;
                        if let Err(e) = view.apply(&played.text, Some(&fen)) {
                            stats.rule_mismatches.inc();
                            return Err(e.into());
                        }
                        if by == me {
                            if across && clock.0.running == Some(me) {
                                // What we had, less what passed since, against what we
                                // have after the move (without its increment).
                                let expected = my_ms(&clock.0, me) as f64
                                    - now.duration_since(clock.1).as_millis() as f64;
                                let got = my_ms(&after, me) as f64 - increment as f64;
                                book(&seat.book).refunds.push(got - expected);
                            }
                            across = false;
                            if let Some(p) = pending.take_if(|p| p.ply == ply) {
                                // The move the server played at this ply (after a resend
                                // the first one may be it, not the one pending).
                                acked(
                                    ctx,
                                    seat,
                                    &id,
                                    &Pending {
                                        text: played.text.clone(),
                                        ..p
                                    },
                                );
                            }
                        } else {
                            stats.moves_received.inc();
                        }
                        clock = (after, now);
                        if view.my_turn() {
                            due = Some(now + seat.how.think.sample(&mut seat.rng));
                        }
                    }
                    GameEvent::GameOver { .. } => {
                        if me == Color::White {
                            stats.games_finished.inc();
                            book(&seat.book).ended.push(id.clone());
                        }
                        return Ok(());
                    }
                    _ => {}
                }
            }
            ServerMessage::Error {
                code,
                move_id: mid,
                game_id,
                ..
            } => {
                stats.server_errors.inc();
                stats.reason(format!("error {code}"));
                if mid.is_some() && pending.as_ref().is_some_and(|p| Some(p.move_id) == mid) {
                    // Refused (e.g. unavailable during a takeover): play again.
                    pending = pending.map(|p| Pending { move_id: 0, ..p });
                    if view.my_turn() {
                        due = Some(Instant::now() + Duration::from_millis(100));
                    }
                } else if code == ErrorCode::GameNotFound && game_id.as_ref() == Some(&id) {
                    // During a takeover no node may own the game yet: ask again, and
                    // give up only after `RESUME_FOR`.
                    let since = *not_found.get_or_insert_with(Instant::now);
                    if since.elapsed() > RESUME_FOR {
                        book(&seat.book).unresumable.push(id.clone());
                        return Ok(());
                    }
                    sleep(Duration::from_millis(250)).await;
                    send(
                        &mut s.ws,
                        &ClientMessage::Resume {
                            game_id: id.clone(),
                            last_version: view.version,
                        },
                    )
                    .await?;
                }
            }
            _ => {}
        }
    }
}
