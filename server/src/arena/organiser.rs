//! The organiser of one arena in cluster mode: the node holding the arena's organiser
//! lease (`cluster/organiser.rs`) runs this task. It keeps no state of its own that is
//! not in Redis ([`super::redis`]): it pairs waves, follows the games, scores them and
//! pushes standings, every write fenced by its lease token; when it dies, another node
//! takes the lease and goes on from what Redis holds. The lease is renewed by a task of
//! its own, so a long wave or push never lets it lapse while this node organises.
//!
//! Nothing is lost or doubled across a takeover:
//! - a wave is written whole by one script, with the ids of its games, *before* the
//!   games start; a pair is written only if both players are still active and idle,
//!   and a wave written again (retried after a late answer) gets back the pairs it
//!   recorded, so their games start;
//! - every game in the arena's `g` hash is followed by the organiser, wherever it is
//!   played: live (here, or on another node through the game layer, which takes the
//!   games of a dead node over) or already archived (a game that ended while nobody
//!   organised): its result is read from the archive;
//! - a game is scored by one script that removes it from `g`: a second report of the
//!   same game changes nothing;
//! - a game written in a wave but never started (the organiser died between the two)
//!   is neither live nor archived: after a grace period it counts for nobody and frees
//!   its players.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use shared::arena::{
    ArenaStandings, ArenaStatus, Membership, Standing, Waiting, pair_wave, pairing_open, rank,
};
use shared::protocol::{GameId, ServerMessage, UserId};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep, sleep_until};
use tokio_util::sync::CancellationToken;

use super::actor::{Ended, archived_end, game_end};
use super::redis::{
    Fenced, PairWrite, ScoreWrite, State, VerStep, line, me_line, remaining, status_of,
};
use super::{ArenaCluster, ArenaDeps, ArenaSpec};
use crate::cluster::lease::Lease;
use crate::cluster::redis::{RedisStoreError, wall_ms};
use crate::db::arenas::{FinalLine, FinishedArena};
use crate::game::{GameHandle, GameSpec, new_game_id};

/// How long a paired game may be neither live nor archived before it counts for
/// nobody, in lease lifetimes (a takeover of its node's games takes about one).
const GRACE_LEASES: u64 = 5;

/// Most ended games scored in one call: every game that ended since the last call,
/// up to this many. Games end in bursts (a wave's games end within seconds of each
/// other), and one fenced call per game left the leaderboard seconds behind.
const SCORE_BATCH: usize = 256;

/// Why the organiser stops.
enum Stop {
    /// The server stops, or the lease is lost.
    Now,
}

/// One arena's organiser.
pub(crate) struct Organiser {
    id: String,
    lease: Lease,
    deps: ArenaDeps,
    cluster: ArenaCluster,
    stop: CancellationToken,
    tx: mpsc::Sender<Ended>,
    rx: mpsc::Receiver<Ended>,
    state: State,
    following: HashSet<GameId>,
    /// The change counter and status last pushed.
    pushed: Option<(u64, ArenaStatus)>,
    /// A game was scored since the last push: its points are due on the leaderboard.
    scored_unpushed: bool,
    next_wave_ms: u64,
}

impl Organiser {
    pub(crate) fn new(
        id: String,
        lease: Lease,
        deps: ArenaDeps,
        cluster: ArenaCluster,
        stop: CancellationToken,
    ) -> Organiser {
        let (tx, rx) = mpsc::channel(deps.config.queue);
        Organiser {
            id,
            lease,
            deps,
            cluster,
            stop,
            tx,
            rx,
            state: State::default(),
            following: HashSet::new(),
            pushed: None,
            scored_unpushed: false,
            next_wave_ms: 0,
        }
    }

    /// Retries a Redis call until it answers or the organiser stops.
    async fn retry<T, F, Fut>(&self, mut f: F) -> Result<T, Stop>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, RedisStoreError>>,
    {
        loop {
            match f().await {
                Ok(v) => return Ok(v),
                Err(e) => {
                    tracing::warn!(arena = %self.id, error = %e, "arena organiser: redis call failed");
                    tokio::select! {
                        () = self.stop.cancelled() => return Err(Stop::Now),
                        () = sleep(Duration::from_millis(250)) => {}
                    }
                }
            }
        }
    }

    fn lost(&self) -> Stop {
        tracing::warn!(arena = %self.id, "arena organiser lease lost; another node organises it");
        self.stop.cancel();
        Stop::Now
    }

    /// Organises the arena until it is archived, the lease is lost or the server stops.
    pub(crate) async fn run(mut self) {
        let store = self.cluster.store.clone();
        let id = self.id.clone();
        let spec = match self.retry(|| store.spec(&id)).await {
            Ok(Some(spec)) => spec,
            Ok(None) => {
                // Archived and dropped already: only the index entry was left.
                let _ = store.unlist(&id).await;
                let _ = self.cluster.leases.release(&id, &self.lease).await;
                return;
            }
            Err(Stop::Now) => return,
        };
        let done = self.organise(&spec).await;
        if done.is_err() && !self.deps.shutdown.is_cancelled() {
            return;
        }
        // Finished, or the server stops: let another node take over at once.
        if let Err(e) = self.cluster.leases.release(&id, &self.lease).await {
            tracing::debug!(arena = %id, error = %e, "cannot release the arena lease");
        }
    }

    async fn organise(&mut self, spec: &ArenaSpec) -> Result<(), Stop> {
        self.reload().await?;
        let games: Vec<(GameId, (UserId, UserId))> = self
            .state
            .games
            .iter()
            .map(|(g, p)| (g.clone(), p.clone()))
            .collect();
        for (game, players) in games {
            self.follow(game, players, None);
        }
        let info = &spec.info;
        let ends_at = info.starts_at_ms + info.duration_ms;
        let wave = Duration::from_millis(self.deps.config.wave_ms);
        let push = Duration::from_millis(self.deps.config.standings_ms);
        let _renewing = self.keep_lease();
        let at = |ms: u64| Instant::now() + Duration::from_millis(ms.saturating_sub(wall_ms()));
        let mut next_wave = at(info.starts_at_ms);
        self.next_wave_ms = info.starts_at_ms.max(wall_ms());
        let mut next_push = Instant::now();
        let mut ended = Vec::with_capacity(SCORE_BATCH);
        loop {
            let status = status_of(info, wall_ms());
            if status == ArenaStatus::Finished && self.state.games.is_empty() {
                return self.finish(spec).await;
            }
            tokio::select! {
                () = self.stop.cancelled() => return Err(Stop::Now),
                n = self.rx.recv_many(&mut ended, SCORE_BATCH) => {
                    if n > 0 {
                        self.on_ended(std::mem::take(&mut ended)).await?;
                    }
                }
                () = sleep_until(next_wave.min(at(ends_at))), if status != ArenaStatus::Finished => {
                    next_wave = Instant::now() + wave;
                    self.next_wave_ms = wall_ms() + self.deps.config.wave_ms;
                    // A wave changes no points: unless some are due, the standings
                    // wait one push interval for its games to reach their players
                    // (a push to every watcher amid 5,000 game starts slowed them).
                    if status_of(info, wall_ms()) == ArenaStatus::Running
                        && self.wave(spec).await?
                        && !self.scored_unpushed
                    {
                        next_push = next_push.max(Instant::now() + push);
                    }
                }
                () = sleep_until(next_push) => {
                    next_push = Instant::now() + push;
                    self.push(spec).await?;
                }
            }
        }
    }

    /// Renews the lease every third of its lifetime in a task of its own, so that a
    /// long wave, push or scoring never lets it lapse while this node organises (a
    /// successor would then pair beside it until its next fenced write). The lease
    /// lost (lapsed, or another node holds it), it stops the organiser. The task ends
    /// when the returned guard is dropped or the organiser stops.
    fn keep_lease(&self) -> tokio_util::sync::DropGuard {
        let done = self.stop.child_token();
        let ended = done.clone();
        let (leases, id, lease) = (
            self.cluster.leases.clone(),
            self.id.clone(),
            self.lease.clone(),
        );
        let stop = self.stop.clone();
        let every = Duration::from_millis((leases.ttl_ms() / 3).max(20));
        self.deps.tracker.spawn(async move {
            loop {
                tokio::select! {
                    () = ended.cancelled() => return,
                    () = sleep(every) => {}
                }
                match leases.renew(&id, &lease).await {
                    Ok(true) => {}
                    Ok(false) if !ended.is_cancelled() => {
                        tracing::warn!(arena = %id, "arena organiser lease lost; another node organises it");
                        stop.cancel();
                        return;
                    }
                    Ok(false) => return,
                    Err(e) => {
                        tracing::warn!(arena = %id, error = %e, "cannot renew the arena lease");
                    }
                }
            }
        });
        done.drop_guard()
    }

    async fn reload(&mut self) -> Result<(), Stop> {
        let store = self.cluster.store.clone();
        let id = self.id.clone();
        self.state = self.retry(|| store.load(&id)).await?;
        Ok(())
    }

    /// Reads the state again only if another node changed the arena since it was read
    /// (its change counter moved past what this organiser's own writes account for):
    /// with 10,000 players a whole read took 0.2 to 1.3 s on the test box, once per wave
    /// and once per standings push, holding up the scoring behind it.
    async fn refresh(&mut self, ver: u64) -> Result<(), Stop> {
        if ver != self.state.ver {
            self.reload().await?;
        }
        Ok(())
    }

    /// Takes the change counter around one of this organiser's own writes: if the
    /// state was current just before it, it is current after it (the write's changes
    /// are made to the state by the caller).
    fn advance(&mut self, step: VerStep) {
        if step.before == self.state.ver {
            self.state.ver = step.after;
        }
    }

    /// Follows a paired game to its end, wherever it is played; reports it.
    fn follow(&mut self, game: GameId, players: (UserId, UserId), handle: Option<GameHandle>) {
        if !self.following.insert(game.clone()) {
            return;
        }
        let deps = self.deps.clone();
        let tx = self.tx.clone();
        let stop = self.stop.clone();
        let grace = Duration::from_millis(self.cluster.leases.ttl_ms() * GRACE_LEASES);
        self.deps.tracker.spawn(async move {
            let since = Instant::now();
            let mut handle = handle;
            loop {
                let live = match handle.take() {
                    Some(h) => Some(h),
                    None => deps.games.find(&game).await,
                };
                let ended = match live {
                    Some(h) => {
                        let events = h.subscribe_end().ok();
                        game_end(&h, events, &deps.db).await
                    }
                    None => match archived_end(&deps.db, &game, players.clone()).await {
                        Some(e) => Some(e),
                        None if since.elapsed() > grace => {
                            tracing::warn!(game = %game, "an arena game never started; it counts for nobody");
                            Some(Ended::void(game.clone(), players.0.clone(), players.1.clone()))
                        }
                        None => None,
                    },
                };
                if let Some(e) = ended {
                    let _ = tx.send(e).await;
                    return;
                }
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = sleep(Duration::from_millis(250)) => {}
                }
            }
        });
    }

    /// One pairing wave, written whole before its games start; whether it paired
    /// anyone.
    async fn wave(&mut self, spec: &ArenaSpec) -> Result<bool, Stop> {
        let started = std::time::Instant::now();
        let store = self.cluster.store.clone();
        let id = self.id.clone();
        let ver = self.retry(|| store.ver(&id)).await?;
        self.refresh(ver).await?;
        let loaded = started.elapsed();
        let info = &spec.info;
        let remaining = (info.starts_at_ms + info.duration_ms).saturating_sub(wall_ms());
        let mut writes = Vec::new();
        if pairing_open(remaining, info.time_control) {
            let s = &self.state;
            let active = s
                .members
                .values()
                .filter(|m| **m == Membership::Active)
                .count();
            let waiting: Vec<Waiting> = self
                .ranked()
                .iter()
                .filter_map(|line| {
                    let u = UserId(line.user.clone());
                    let p = s.players.get(&u)?;
                    (s.members.get(&u) == Some(&Membership::Active) && !s.busy.contains_key(&u))
                        .then(|| Waiting {
                            user: line.user.clone(),
                            last_opponent: p.sheet.last_opponent().map(str::to_string),
                            color_balance: p.color_balance,
                            last_white: p.last_white,
                        })
                })
                .collect();
            for pair in pair_wave(&waiting, active) {
                let (w, b) = (UserId(pair.white), UserId(pair.black));
                let (Some(wr), Some(br)) = (s.players.get(&w), s.players.get(&b)) else {
                    continue;
                };
                let (mut wr, mut br) = (wr.clone(), br.clone());
                wr.color_balance += 1;
                wr.last_white = Some(true);
                br.color_balance -= 1;
                br.last_white = Some(false);
                writes.push(PairWrite {
                    game: new_game_id(),
                    white: (w, wr),
                    black: (b, br),
                });
            }
        }
        let paired_at = started.elapsed();
        let store = self.cluster.store.clone();
        let (id, lease, next) = (self.id.clone(), self.lease.clone(), self.next_wave_ms);
        let accepted = match self
            .retry(|| store.pair_counted(&id, &lease, next, &writes))
            .await?
        {
            Fenced::Ok((step, ids)) => {
                self.advance(step);
                ids
            }
            Fenced::Lost => return Err(self.lost()),
        };
        let written = started.elapsed();
        let accepted: HashSet<GameId> = accepted.into_iter().collect();
        let paired = !accepted.is_empty();
        for w in writes.into_iter().filter(|w| accepted.contains(&w.game)) {
            self.start(spec, w);
        }
        if paired {
            // As on one node: reading the state, pairing, the fenced write, the starts.
            let took = started.elapsed();
            self.deps
                .metrics
                .arena_wave_ms
                .observe(took.as_millis() as u64);
            tracing::info!(arena = %self.id, games = accepted.len(),
                load_ms = loaded.as_millis() as u64,
                pair_ms = (paired_at - loaded).as_millis() as u64,
                write_ms = (written - paired_at).as_millis() as u64,
                start_ms = (took - written).as_millis() as u64, "arena wave");
        }
        Ok(paired)
    }

    fn start(&mut self, spec: &ArenaSpec, w: PairWrite) {
        let info = &spec.info;
        let (white, black) = (w.white.0.clone(), w.black.0.clone());
        let game = GameSpec {
            variant: info.variant,
            time_control: info.time_control,
            rated: info.rated,
            white: w.white.1.info.clone(),
            black: w.black.1.info.clone(),
            start_fen: None,
            ruleset: info.ruleset,
            arena: Some(info.id.clone()),
            berserk: info.berserk,
            tournament: None,
        };
        self.state
            .games
            .insert(w.game.clone(), (white.clone(), black.clone()));
        self.state.busy.insert(white.clone(), w.game.clone());
        self.state.busy.insert(black.clone(), w.game.clone());
        self.state.players.insert(white.clone(), w.white.1);
        self.state.players.insert(black.clone(), w.black.1);
        match self.deps.games.start_with_id(w.game.clone(), game) {
            Ok(handle) => self.follow(w.game, (white, black), Some(handle)),
            Err(e) => {
                // Recorded but never started: after the grace period it counts for
                // nobody (as after a takeover).
                tracing::warn!(arena = %self.id, error = %e, "cannot start an arena game");
                self.follow(w.game, (white, black), None);
            }
        }
    }

    /// Scores games that ended (each once: a second report changes nothing), in as few
    /// fenced calls as their players allow (a player in two of them, which waves never
    /// make, waits for the next call: each call carries the player's whole record).
    async fn on_ended(&mut self, ended: Vec<Ended>) -> Result<(), Stop> {
        let started = std::time::Instant::now();
        let mut rest = ended;
        while !rest.is_empty() {
            let mut users = HashSet::new();
            let (now, later): (Vec<Ended>, Vec<Ended>) = rest.into_iter().partition(|e| {
                let (white, black) = e.players();
                let white_free = users.insert(white.clone());
                let black_free = users.insert(black.clone());
                white_free && black_free
            });
            rest = later;
            let writes: Vec<ScoreWrite> = now.iter().map(|e| self.score_write(e)).collect();
            self.score(writes).await?;
        }
        let took = started.elapsed().as_millis() as u64;
        self.deps.metrics.arena_score_ms.observe(took);
        Ok(())
    }

    /// What scoring `e` writes: both players' records with the game on their sheets.
    fn score_write(&mut self, e: &Ended) -> ScoreWrite {
        self.following.remove(e.game_id());
        let rating = |u: &UserId| {
            self.state
                .players
                .get(u)
                .map_or(0, |p| p.info.rating.unwrap_or(0))
        };
        let sides = e.for_sides(rating).map(|(user, game)| {
            let rec = game.and_then(|g| {
                let mut rec = self.state.players.get(&user)?.clone();
                rec.sheet.add(g);
                Some(rec)
            });
            (user, rec)
        });
        ScoreWrite {
            game: e.game_id().clone(),
            sides,
            late: e.late_player().cloned(),
        }
    }

    /// Writes scored games (fenced, in one call) and takes them into the state.
    async fn score(&mut self, writes: Vec<ScoreWrite>) -> Result<(), Stop> {
        let store = self.cluster.store.clone();
        let (id, lease) = (self.id.clone(), self.lease.clone());
        let scored = match self
            .retry(|| store.score_counted(&id, &lease, &writes))
            .await?
        {
            Fenced::Ok((step, scored)) => {
                self.advance(step);
                scored
            }
            Fenced::Lost => return Err(self.lost()),
        };
        for (write, scored) in writes.into_iter().zip(scored) {
            self.state.games.remove(&write.game);
            if scored {
                self.scored(write);
            }
        }
        Ok(())
    }

    /// A game scored: its players are free, their records updated, a late one paused.
    fn scored(&mut self, write: ScoreWrite) {
        self.scored_unpushed = true;
        for (user, rec) in write.sides {
            if self.state.busy.get(&user) == Some(&write.game) {
                self.state.busy.remove(&user);
            }
            if let Some(rec) = rec {
                self.state.players.insert(user, rec);
            }
        }
        if let Some(late) = write.late {
            self.state.members.insert(late.clone(), Membership::Paused);
            (self.deps.notify)(
                &late,
                ServerMessage::ArenaMember {
                    arena_id: self.id.clone(),
                    membership: Membership::Paused,
                },
            );
        }
    }

    fn ranked(&self) -> Vec<Standing> {
        rank(self.state.players.iter().map(|(id, p)| {
            (
                id.0.as_str(),
                p.info.name.as_str(),
                p.info.rating.unwrap_or(0),
                &p.sheet,
            )
        }))
    }

    /// Sends the standings to every watcher if anything changed since the last push.
    async fn push(&mut self, spec: &ArenaSpec) -> Result<(), Stop> {
        let store = self.cluster.store.clone();
        let id = self.id.clone();
        let ver = self.retry(|| store.ver(&id)).await?;
        // `finished` is told once the final standings are archived (see `finish`).
        let status = match status_of(&spec.info, wall_ms()) {
            ArenaStatus::Finished => ArenaStatus::Running,
            s => s,
        };
        if self.pushed == Some((ver, status)) {
            return Ok(());
        }
        let started = std::time::Instant::now();
        self.refresh(ver).await?;
        let loaded = started.elapsed();
        let watchers = self.retry(|| store.watchers(&id)).await?;
        self.send_standings(spec, status, &watchers);
        self.pushed = Some((ver, status));
        self.scored_unpushed = false;
        let took = started.elapsed();
        self.deps
            .metrics
            .arena_push_ms
            .observe(took.as_millis() as u64);
        tracing::info!(arena = %self.id, watchers = watchers.len(),
            load_ms = loaded.as_millis() as u64, total_ms = took.as_millis() as u64,
            "arena standings pushed");
        Ok(())
    }

    fn send_standings(&self, spec: &ArenaSpec, status: ArenaStatus, watchers: &[UserId]) {
        let order = self.ranked();
        let s = &self.state;
        let page = self.deps.config.page_size;
        let featured = order
            .iter()
            .find_map(|l| s.busy.get(&UserId(l.user.clone())).cloned());
        let mut info = spec.info.clone();
        info.status = status;
        let base = ArenaStandings {
            arena_id: self.id.clone(),
            status,
            remaining_ms: remaining(&info, wall_ms()),
            players: s.players.len() as u32,
            playing: s.busy.len() as u32,
            top: order.iter().take(page).cloned().collect(),
            me: None,
            featured,
        };
        let position: HashMap<&str, usize> = order
            .iter()
            .enumerate()
            .map(|(i, l)| (l.user.as_str(), i))
            .collect();
        let lines = watchers
            .iter()
            .map(|user| {
                let me = position.get(user.0.as_str()).and_then(|&i| {
                    let rec = s.players.get(user)?;
                    let membership = s.members.get(user).copied().unwrap_or(Membership::Paused);
                    Some(me_line(
                        line(i as u32 + 1, &user.0, rec),
                        rec,
                        membership,
                        s.busy.get(user).cloned(),
                        status,
                        Some(self.next_wave_ms),
                    ))
                });
                (user.clone(), me)
            })
            .collect();
        (self.deps.notify_standings)(base, lines);
    }

    /// The arena is over and its last game scored: stop joins, archive, tell the
    /// watchers, drop the state.
    async fn finish(&mut self, spec: &ArenaSpec) -> Result<(), Stop> {
        let store = self.cluster.store.clone();
        let (id, lease) = (self.id.clone(), self.lease.clone());
        if self.retry(|| store.close(&id, &lease)).await? == Fenced::Lost {
            return Err(self.lost());
        }
        self.reload().await?;
        let standings = self
            .ranked()
            .into_iter()
            .map(|standing| {
                let sheet = self
                    .state
                    .players
                    .get(&UserId(standing.user.clone()))
                    .map(|p| p.sheet.entries.clone())
                    .unwrap_or_default();
                FinalLine { standing, sheet }
            })
            .collect();
        let mut arena = spec.info.clone();
        arena.status = ArenaStatus::Finished;
        arena.players = self.state.players.len() as u32;
        let finished = FinishedArena {
            arena,
            ended_at_ms: wall_ms(),
            standings,
        };
        let mut pause = Duration::from_millis(250);
        while let Err(e) = self.deps.db.save_arena(&finished).await {
            tracing::warn!(arena = %id, error = %e, "cannot archive the arena yet");
            tokio::select! {
                () = self.stop.cancelled() => return Err(Stop::Now),
                () = sleep(pause) => {}
            }
            pause = (pause * 2).min(Duration::from_secs(30));
        }
        let watchers = self.retry(|| store.watchers(&id)).await?;
        self.send_standings(spec, ArenaStatus::Finished, &watchers);
        if self.retry(|| store.drop_arena(&id, &lease)).await? == Fenced::Lost {
            return Err(self.lost());
        }
        tracing::info!(arena = %id, players = finished.standings.len(), "arena finished");
        Ok(())
    }
}
