//! Runs one scenario against one backend: fetches tokens, opens every connection
//! (bounded parallelism), opens the timed window for all bots at once, samples the
//! server's memory, waits for the bots (bounded), and builds the [`RunReport`].

use std::sync::Arc;
use std::time::Duration;

use shared::protocol::GameId;
use shared::rules::Color;
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::bot::{BotError, Ctx, Window};
use crate::computer::{self, ComputerCounts};
use crate::game::Tracks;
use crate::http::{HttpError, guest_tokens};
use crate::plan::{Common, ConnPlan, PairingMode, PlayPlan, Spread, SystemUnderTest};
use crate::procmem;
use crate::report::{Memory, RunReport};
use crate::stats::Stats;
use crate::target::{SourcePool, Target, TargetError};
use crate::{damka, relaybot};

/// Why a run could not be carried out at all (bots failing are counted, not errors).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad source address settings.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// No node to connect to.
    #[error("no damka node given")]
    NoNodes,
    /// The scenario could not set itself up (an organiser, a Redis, a node).
    #[error("{0}")]
    Setup(String),
}

/// Extra time bots get after the window to finish (resign, close).
const GRACE: Duration = Duration::from_secs(15);
/// The longest the connect phase may take.
const CONNECT_LIMIT: Duration = Duration::from_secs(300);

/// Samples the RSS of the server processes.
struct MemProbe {
    pids: Vec<u32>,
    mem: Memory,
}

impl MemProbe {
    fn new(pids: Vec<u32>, fresh: bool) -> MemProbe {
        let mut p = MemProbe {
            pids,
            mem: Memory {
                reused_heap: !fresh,
                ..Memory::default()
            },
        };
        p.mem.base_kib = p.sample().unwrap_or(0);
        p
    }

    fn sample(&mut self) -> Option<u64> {
        if self.pids.is_empty() {
            return None;
        }
        let v = procmem::total_rss_kib(&self.pids).ok()?;
        self.mem.peak_kib = self.mem.peak_kib.max(v);
        Some(v)
    }

    fn connected(&mut self) {
        self.mem.connected_kib = self.sample().unwrap_or(0);
        self.mem.peak_kib = self.mem.connected_kib;
    }

    fn finish(mut self, connections: u64, games: u64) -> Option<Memory> {
        if self.pids.is_empty() {
            return None;
        }
        let m = &mut self.mem;
        m.per_connection_kib = Memory::per_unit(m.base_kib, m.connected_kib, connections);
        m.per_game_kib = Memory::per_unit(m.connected_kib, m.peak_kib, games);
        Some(self.mem)
    }
}

/// A run in progress: the shared context and the bots' tasks.
pub(crate) struct Harness {
    pub(crate) ctx: Arc<Ctx>,
    go: watch::Sender<Option<Window>>,
    sem: Arc<Semaphore>,
    done_tx: mpsc::UnboundedSender<()>,
    done_rx: mpsc::UnboundedReceiver<()>,
    tasks: JoinSet<()>,
    expected: usize,
    /// How long the connect phase took, once it is over.
    connected: Option<f64>,
    /// End the window as soon as every bot is done (scenarios with an end of their own).
    early: bool,
    probe: MemProbe,
    /// What the players of the computer saw, if there are any.
    computer: Option<Arc<ComputerCounts>>,
}

impl Harness {
    pub(crate) fn new(backend: &SystemUnderTest, common: &Common) -> Result<Harness, RunError> {
        let (go, go_rx) = watch::channel(None);
        let (done_tx, done_rx) = mpsc::unbounded_channel();
        Ok(Harness {
            ctx: Arc::new(Ctx {
                stats: Stats::default(),
                tracks: Tracks::default(),
                sources: SourcePool::new(common.sources)?.reserving_ports(common.reserve_ports),
                go: go_rx,
            }),
            go,
            sem: Arc::new(Semaphore::new(common.connect_parallel.max(1))),
            done_tx,
            done_rx,
            tasks: JoinSet::new(),
            expected: 0,
            connected: None,
            early: false,
            probe: MemProbe::new(backend.pids(), backend.fresh()),
            computer: None,
        })
    }

    /// Spawns one damka bot: a session on `target` with `token` (under the connect
    /// limit), then `run`.
    pub(crate) fn spawn_damka<R, RF>(&mut self, target: Target, token: String, run: R)
    where
        R: FnOnce(Arc<Ctx>, damka::Session) -> RF + Send + 'static,
        RF: Future<Output = Result<(), BotError>> + Send + 'static,
    {
        let ctx = self.ctx.clone();
        self.spawn(
            async move { damka::connect(&ctx, &target, &token).await },
            run,
        );
    }

    /// Spawns one bot: `open` under the connect limit, then `run`.
    pub(crate) fn spawn<C, O, R, RF>(&mut self, open: O, run: R)
    where
        O: Future<Output = Result<C, BotError>> + Send + 'static,
        R: FnOnce(Arc<Ctx>, C) -> RF + Send + 'static,
        RF: Future<Output = Result<(), BotError>> + Send + 'static,
        C: Send + 'static,
    {
        self.expected += 1;
        let ctx = self.ctx.clone();
        let sem = self.sem.clone();
        let done = self.done_tx.clone();
        self.tasks.spawn(async move {
            let permit = sem.acquire_owned().await;
            let opened = open.await;
            drop(permit);
            let _ = done.send(());
            match opened {
                Ok(c) => {
                    ctx.stats.conn_opened.inc();
                    if let Err(e) = run(ctx.clone(), c).await {
                        if matches!(e, BotError::Closed { .. } | BotError::Ws(_)) {
                            ctx.stats.conn_lost.inc();
                        }
                        ctx.stats.reason(e.reason());
                    }
                }
                Err(e) => {
                    ctx.stats.conn_failed.inc();
                    ctx.stats.reason(e.reason());
                }
            }
        });
    }

    /// A bot's token; a bot without one (its connection could not even be attempted)
    /// is counted as a failed connection, with the reason.
    pub(crate) fn usable(&mut self, token: Result<String, HttpError>) -> Option<String> {
        match token {
            Ok(t) => Some(t),
            Err(e) => {
                self.ctx.stats.conn_failed.inc();
                self.ctx.stats.reason(format!(
                    "token: {}",
                    e.to_string().chars().take(60).collect::<String>()
                ));
                None
            }
        }
    }

    /// Ends the window as soon as every bot is done, not at its end.
    pub(crate) fn stop_when_done(&mut self) {
        self.early = true;
    }

    /// Waits for every connect attempt (bounded by the connect limit); the seconds
    /// that took.
    pub(crate) async fn wait_connected(&mut self) -> f64 {
        if let Some(secs) = self.connected {
            return secs;
        }
        let t0 = Instant::now();
        let limit = t0 + CONNECT_LIMIT;
        let mut connected = 0;
        while connected < self.expected {
            match tokio::time::timeout_at(limit, self.done_rx.recv()).await {
                Ok(Some(())) => connected += 1,
                _ => break,
            }
        }
        let secs = t0.elapsed().as_secs_f64();
        self.connected = Some(secs);
        secs
    }

    /// Waits for every connect attempt, opens the window, samples memory during it,
    /// waits for the bots, and reports.
    pub(crate) async fn finish(
        mut self,
        backend: &SystemUnderTest,
        scenario: &str,
        duration: Duration,
        games: u64,
    ) -> RunReport {
        let connect_secs = self.wait_connected().await;
        // Let the server settle its allocations before the "connected" sample.
        tokio::time::sleep(Duration::from_millis(500)).await;
        self.probe.connected();
        let start = Instant::now() + Duration::from_millis(200);
        let end = start + duration;
        self.go.send_replace(Some(Window { start, end }));
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        while Instant::now() < end {
            tokio::select! {
                _ = tick.tick() => {
                    self.probe.sample();
                }
                joined = self.tasks.join_next(), if self.early => {
                    if joined.is_none() {
                        break;
                    }
                }
            }
        }
        let played = start.elapsed();
        let _ = tokio::time::timeout(GRACE, async {
            while self.tasks.join_next().await.is_some() {}
        })
        .await;
        self.tasks.abort_all();
        let stats = &self.ctx.stats;
        let mut report = RunReport::from_stats(backend.name(), scenario, stats);
        report.duration_secs = if self.early {
            played.as_secs_f64()
        } else {
            duration.as_secs_f64()
        };
        report.connect_secs = connect_secs;
        report.connects_per_sec = stats.conn_opened.get() as f64 / connect_secs.max(1e-3);
        report.moves_per_sec = stats.moves_received.get() as f64 / report.duration_secs.max(1e-3);
        report.source_addresses = self.ctx.sources.used();
        report.memory = self.probe.finish(stats.conn_opened.get(), games);
        report
    }
}

/// Tokens for `count` bots spread over the nodes: `node_of(i)` picks bot `i`'s node.
pub(crate) async fn tokens(
    nodes: &[Target],
    sources: &SourcePool,
    count: usize,
    node_of: impl Fn(usize) -> usize,
) -> Vec<Result<String, HttpError>> {
    let mut per_node: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for i in 0..count {
        per_node[node_of(i) % nodes.len()].push(i);
    }
    let mut out: Vec<Option<Result<String, HttpError>>> = (0..count).map(|_| None).collect();
    for (k, bots) in per_node.iter().enumerate() {
        let got = guest_tokens(nodes[k], sources, &format!("lt{k}x"), bots.len(), 4).await;
        for (i, t) in bots.iter().zip(got) {
            out[*i] = Some(t);
        }
    }
    out.into_iter()
        .map(|t| t.unwrap_or(Err(HttpError::Bad("no token".into()))))
        .collect()
}

/// Plays games: steady, saturation, burst, fan-out and multi-node scenarios.
pub async fn play(
    backend: &SystemUnderTest,
    plan: &PlayPlan,
    common: &Common,
    scenario: &str,
) -> Result<RunReport, RunError> {
    let mut h = Harness::new(backend, common)?;
    let per_game = 2 + plan.spectators;
    let bots = plan.games * per_game;
    let pairs = plan.games.max(1);
    let offset = |i: usize| plan.ramp.mul_f64(i as f64 / pairs as f64);
    let mut rng = fastrand::Rng::with_seed(common.seed);
    // Bot b = game * per_game + slot (0 white-ish, 1 black-ish, 2.. spectators), on
    // node (or linked relay process) node_of(b) of n.
    let node_of = |b: usize, n: usize| match plan.spread {
        Spread::Bot => b % n,
        Spread::Game => (b / per_game) % n,
    };
    match backend {
        SystemUnderTest::Damka { nodes, .. } => {
            if nodes.is_empty() {
                return Err(RunError::NoNodes);
            }
            let node_of = |b: usize| node_of(b, nodes.len());
            let mut toks = tokens(nodes, &h.ctx.sources, bots, node_of)
                .await
                .into_iter();
            computer_players(&mut h, nodes, plan, &mut rng).await;
            for g in 0..plan.games {
                let (variant, time_control) = plan.mix[g % plan.mix.len()];
                let (seek_tx, seek_rx) = mpsc::channel(1);
                let pool = match plan.pairing {
                    PairingMode::Seek => false,
                    PairingMode::Pool => true,
                    PairingMode::Mix => g % 2 == 1,
                };
                let (pairings, publish) = if pool {
                    (
                        [damka::Pairing::Pool, damka::Pairing::Pool],
                        watch::channel(None::<GameId>),
                    )
                } else {
                    (
                        [
                            damka::Pairing::Seek(seek_tx),
                            damka::Pairing::Accept(seek_rx),
                        ],
                        watch::channel(None::<GameId>),
                    )
                };
                let (publish_tx, publish_rx) = publish;
                let mut publish_tx = Some(publish_tx);
                for (slot, pairing) in pairings.into_iter().enumerate() {
                    let b = g * per_game + slot;
                    let Some(token) = toks.next().and_then(|t| h.usable(t)) else {
                        continue;
                    };
                    let player_plan = damka::PlayerPlan {
                        variant,
                        time_control,
                        pairing,
                        offset: offset(g),
                        games: plan.games_per_pair,
                        // The first player tells the spectators which game to watch.
                        publish: if slot == 0 { publish_tx.take() } else { None },
                        max_plies: plan.max_plies,
                        think: plan.think,
                    };
                    let target = nodes[node_of(b)];
                    let seed = rng.u64(..);
                    h.spawn_damka(target, token, move |ctx, s| {
                        damka::player(ctx, s, player_plan, fastrand::Rng::with_seed(seed))
                    });
                }
                for slot in 2..per_game {
                    let b = g * per_game + slot;
                    let Some(token) = toks.next().and_then(|t| h.usable(t)) else {
                        continue;
                    };
                    let target = nodes[node_of(b)];
                    let rx = publish_rx.clone();
                    h.spawn_damka(target, token, move |ctx, s| damka::spectator(ctx, s, rx));
                }
            }
        }
        SystemUnderTest::Relay { targets, .. } => {
            if targets.is_empty() {
                return Err(RunError::NoNodes);
            }
            for g in 0..plan.games {
                let (variant, time_control) = plan.mix[g % plan.mix.len()];
                let room = format!("g{g}");
                for slot in 0..per_game {
                    let target = targets[node_of(g * per_game + slot, targets.len())];
                    let ctx = h.ctx.clone();
                    let room_name = room.clone();
                    let open =
                        async move { relaybot::connect(&ctx, &target, &room_name, per_game).await };
                    let game_id = GameId(room.clone());
                    if slot < 2 {
                        let p = relaybot::RelayPlayer {
                            room: game_id,
                            me: if slot == 0 {
                                Color::White
                            } else {
                                Color::Black
                            },
                            variant,
                            time_control,
                            offset: offset(g),
                            games: plan.games_per_pair,
                            max_plies: plan.max_plies,
                            think: plan.think,
                        };
                        let seed = rng.u64(..);
                        h.spawn(open, move |ctx, mut ws| async move {
                            relaybot::wait_start(&mut ws).await?;
                            relaybot::player(ctx, ws, p, fastrand::Rng::with_seed(seed)).await
                        });
                    } else {
                        let max = plan.max_plies;
                        h.spawn(open, move |ctx, mut ws| async move {
                            relaybot::wait_start(&mut ws).await?;
                            relaybot::spectator(ctx, ws, game_id, variant, max).await
                        });
                    }
                }
            }
        }
    }
    let computer = h.computer.take();
    let mut report = h
        .finish(backend, scenario, plan.duration, plan.games as u64)
        .await;
    if let Some(c) = computer {
        report
            .extra
            .insert("computer_games".into(), c.games.get() as f64);
        report
            .extra
            .insert("computer_moves".into(), c.moves.get() as f64);
        report
            .extra
            .insert("computer_refused".into(), c.refused.get() as f64);
    }
    Ok(report)
}

/// Spawns the plan's players of the computer, spread over the nodes.
async fn computer_players(
    h: &mut Harness,
    nodes: &[Target],
    plan: &PlayPlan,
    rng: &mut fastrand::Rng,
) {
    let Some(ask) = plan.computer.filter(|_| plan.computer_games > 0) else {
        return;
    };
    let counts = Arc::new(ComputerCounts::default());
    h.computer = Some(counts.clone());
    let toks = tokens(nodes, &h.ctx.sources, plan.computer_games, |i| i).await;
    for (i, token) in toks.into_iter().enumerate() {
        let Some(token) = h.usable(token) else {
            continue;
        };
        let (counts, seed) = (counts.clone(), rng.u64(..));
        h.spawn_damka(nodes[i % nodes.len()], token, move |ctx, s| {
            computer::player(ctx, s, ask, counts, fastrand::Rng::with_seed(seed))
        });
    }
}

/// Opens connections and holds them: the idle and storm scenarios. The report's
/// `connections_alive` counts those that still answered at the end.
pub async fn connections(
    backend: &SystemUnderTest,
    plan: &ConnPlan,
    common: &Common,
    scenario: &str,
) -> Result<RunReport, RunError> {
    let mut h = Harness::new(backend, common)?;
    let (alive_tx, mut alive_rx) = mpsc::unbounded_channel::<bool>();
    match backend {
        SystemUnderTest::Damka { nodes, .. } => {
            if nodes.is_empty() {
                return Err(RunError::NoNodes);
            }
            let toks = tokens(nodes, &h.ctx.sources, plan.connections, |i| i).await;
            for (i, token) in toks.into_iter().enumerate() {
                let Some(token) = h.usable(token) else {
                    continue;
                };
                let target = nodes[i % nodes.len()];
                let alive = alive_tx.clone();
                h.spawn_damka(target, token, move |ctx, s| async move {
                    let ok = damka::idle(ctx, s).await?;
                    let _ = alive.send(ok);
                    Ok(())
                });
            }
        }
        SystemUnderTest::Relay { targets, .. } => {
            if targets.is_empty() {
                return Err(RunError::NoNodes);
            }
            for i in 0..plan.connections {
                let target = targets[i % targets.len()];
                let size = if i / 2 * 2 + 1 < plan.connections {
                    2
                } else {
                    1
                };
                let ctx = h.ctx.clone();
                let alive = alive_tx.clone();
                let room = format!("i{}", i / 2);
                h.spawn(
                    async move { relaybot::connect(&ctx, &target, &room, size).await },
                    move |ctx, mut ws| async move {
                        relaybot::wait_start(&mut ws).await?;
                        let ok = size == 1 || relaybot::idle(ctx, ws).await?;
                        let _ = alive.send(ok);
                        Ok(())
                    },
                );
            }
        }
    }
    drop(alive_tx);
    let mut report = h.finish(backend, scenario, plan.hold, 0).await;
    let mut alive = 0;
    while let Ok(ok) = alive_rx.try_recv() {
        alive += u64::from(ok);
    }
    report.connections_alive = Some(alive);
    Ok(report)
}
