//! The registry of live games on this node: makes actors ([`actor::channel`]) and
//! spawns them on the server's task tracker, hands out [`GameHandle`]s by id, announces
//! new games to their players, keeps presence's "current games" in step, and picks the
//! TV game of each variant.
//! With Redis it also finds games owned by other nodes (through proxies, see
//! [`super::remote`]) and restores the games this node takes over. A finished game
//! whose actor has handed it over ([`FinishedGame`]) is held here, with no task, until
//! it has lingered; one task per registry (started with its first game) lets them go.
//! The actors and proxies it makes report back through [`GameExits`], which it
//! implements: they never name it, it uses them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use shared::protocol::{GameId, UserId};
use shared::rules::{Color, Variant};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::actor::{self, Actor, ActorContext};
use super::archive::ArchiveSink;
use super::clock::GameClock;
use super::exits::GameExits;
use super::finished::FinishedGame;
use super::log::{EventLog, PLACEHOLDER};
use super::lookups::Lookups;
use super::mirror::{Mirror, events_for_redis};
use super::record::Record;
use super::redis_store::{Acquired, GameStore, Stored};
use super::remote::{ProxyParts, serve, spawn_proxy, spawn_started_proxy};
use super::snapshot::Snapshot;
use super::store::LiveStore;
use super::{GameError, GameHandle, GameMeta, GameSpec, StartFrame, Versioned, new_game_id};
use crate::cluster::Cluster;
use crate::cluster::lease::Lease;
use crate::cluster::member::Started;
use crate::config::GameConfig;
use crate::metrics::Metrics;
use crate::presence::Presence;

/// Tells a player's sessions on this node that a game of theirs started, with their
/// `game_start` if the actor made one (the application routes it to the hub; the
/// registry knows no sessions).
pub type Announce = Arc<dyn Fn(&UserId, &GameHandle, Option<&StartFrame>) + Send + Sync>;

/// Live games by id.
pub struct GameRegistry {
    games: Mutex<HashMap<GameId, GameHandle>>,
    config: Arc<GameConfig>,
    metrics: Arc<Metrics>,
    announce: Announce,
    presence: Arc<dyn Presence>,
    tracker: TaskTracker,
    shutdown: CancellationToken,
    live: Option<LiveStore>,
    mirror: Option<Mirror>,
    accepting: AtomicBool,
    default_rating: u32,
    cluster: Option<Arc<Cluster>>,
    /// With Redis: the games' keys there.
    store: Option<Arc<GameStore>>,
    archive: ArchiveSink,
    remote: Mutex<HashMap<GameId, GameHandle>>,
    /// One lookup in flight per game owned elsewhere: later askers of the same game
    /// wait for it; askers of other games do not.
    lookups: Lookups<GameId>,
    /// Finished games whose actors have gone, held for rematches and late watchers.
    finished: Mutex<HashMap<GameId, Arc<FinishedGame>>>,
    /// Whether the task that lets finished games go has been started.
    sweeping: AtomicBool,
    /// The actors' context ([`GameRegistry::context`]).
    context: OnceLock<Arc<ActorContext>>,
}

/// How often the finished games held are checked for having lingered long enough.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// What the registry is built from.
pub struct RegistryParts {
    /// Game settings.
    pub config: GameConfig,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// Tells a player's sessions on this node that their game started.
    pub announce: Announce,
    /// To record who plays what.
    pub presence: Arc<dyn Presence>,
    /// Where actor tasks are spawned, so shutdown can wait for them.
    pub tracker: TaskTracker,
    /// Cancelled when the server stops for good.
    pub shutdown: CancellationToken,
    /// Without Redis: where games are stored as they are played.
    pub live: Option<LiveStore>,
    /// With Redis: the database's write-behind copy of what Redis takes.
    pub mirror: Option<Mirror>,
    /// Rating assumed for players without one.
    pub default_rating: u32,
    /// Several nodes: Redis.
    pub cluster: Option<Arc<Cluster>>,
    /// With Redis: the games' keys there (one store per node, shared with the mirror).
    pub store: Option<Arc<GameStore>>,
    /// Where finished games are archived.
    pub archive: ArchiveSink,
}

impl GameRegistry {
    /// An empty registry.
    pub fn new(parts: RegistryParts) -> Arc<GameRegistry> {
        Arc::new(GameRegistry {
            games: Mutex::new(HashMap::new()),
            config: Arc::new(parts.config),
            metrics: parts.metrics,
            announce: parts.announce,
            presence: parts.presence,
            tracker: parts.tracker,
            shutdown: parts.shutdown,
            live: parts.live.filter(|_| parts.cluster.is_none()),
            mirror: parts.mirror.filter(|_| parts.cluster.is_some()),
            accepting: AtomicBool::new(true),
            default_rating: parts.default_rating,
            store: parts.store.filter(|_| parts.cluster.is_some()),
            cluster: parts.cluster,
            archive: parts.archive,
            remote: Mutex::new(HashMap::new()),
            lookups: Lookups::default(),
            finished: Mutex::new(HashMap::new()),
            sweeping: AtomicBool::new(false),
            context: OnceLock::new(),
        })
    }

    fn finished_games(&self) -> MutexGuard<'_, HashMap<GameId, Arc<FinishedGame>>> {
        self.finished.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Lets go of the finished games that have lingered long enough (all of them when
    /// `all`): their followers are told nothing more comes, and other nodes no longer
    /// reach them. The others drop their readers' broadcast once its last reader has
    /// gone (an organiser that read the end), with the events its ring holds.
    fn let_go_finished(&self, all: bool) {
        let now = tokio::time::Instant::now();
        let linger = std::time::Duration::from_secs(self.config.linger_after_end_secs);
        let held: Vec<Arc<FinishedGame>> = self.finished_games().values().cloned().collect();
        let mut due = Vec::new();
        for game in held {
            if all || game.expired(now, linger) {
                due.push(game.meta().id.clone());
            } else {
                game.followers().compact();
            }
        }
        for id in due {
            let Some(game) = self.finished_games().remove(&id) else {
                continue;
            };
            self.metrics.games_held_finished.dec();
            game.followers().end();
            if let Some(cluster) = &self.cluster {
                cluster.bus.unsubscribe(cluster.cmd_channel(&id));
            }
        }
    }

    fn remote(&self) -> MutexGuard<'_, HashMap<GameId, GameHandle>> {
        self.remote.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// This registry as its actors and proxies hold it.
    fn exits(self: &Arc<Self>) -> Weak<dyn GameExits> {
        let exits: Weak<GameRegistry> = Arc::downgrade(self);
        exits
    }

    /// What every actor of this node needs from outside, made once.
    fn context(self: &Arc<Self>) -> Arc<ActorContext> {
        self.context
            .get_or_init(|| {
                Arc::new(ActorContext {
                    config: self.config.clone(),
                    metrics: self.metrics.clone(),
                    exits: self.exits(),
                    shutdown: self.shutdown.clone(),
                    live: self.live.clone(),
                    mirror: self.mirror.clone(),
                    cluster: self.cluster.clone(),
                    store: self.store.clone(),
                    archive: self.archive.clone(),
                })
            })
            .clone()
    }

    /// Registers a local actor's handle and, with Redis, answers commands from other
    /// nodes for it.
    fn register(self: &Arc<Self>, handle: &GameHandle) {
        self.games().insert(handle.id().clone(), handle.clone());
        self.metrics.games_live.inc();
        // The task that lets finished games go, once per registry, with its first game.
        if !self.sweeping.swap(true, Ordering::Relaxed) {
            self.tracker
                .spawn(sweep(Arc::downgrade(self), self.shutdown.clone()));
        }
        if let Some(cluster) = &self.cluster {
            self.tracker.spawn(serve(
                cluster.clone(),
                handle.clone(),
                self.shutdown.clone(),
            ));
        }
    }

    /// A game anywhere: this node's actor, else (with Redis) a proxy of the game on
    /// the node that owns it.
    pub async fn find(self: &Arc<Self>, id: &GameId) -> Option<GameHandle> {
        if let Some(handle) = self.get(id) {
            return Some(handle);
        }
        let (cluster, store) = (self.cluster.clone()?, self.store.clone()?);
        if let Some(handle) = self.remote().get(id) {
            return Some(handle.clone());
        }
        let _one_per_game = self.lookups.turn(id).await;
        if let Some(handle) = self.remote().get(id) {
            return Some(handle.clone());
        }
        let handle = spawn_proxy(cluster, id, self.proxy_parts(store)).await;
        if let Some(handle) = &handle {
            self.remote().insert(id.clone(), handle.clone());
        }
        handle
    }

    /// A game another node just started, from its start notice: this node's actor or
    /// proxy if it has one, else a proxy made from the notice without reading Redis.
    pub async fn started(
        self: &Arc<Self>,
        started: Box<Started>,
        at_ms: u64,
    ) -> Option<GameHandle> {
        let id = started.state.game_id.clone();
        if let Some(handle) = self.get(&id) {
            return Some(handle);
        }
        let (cluster, store) = (self.cluster.clone()?, self.store.clone()?);
        if let Some(handle) = self.remote().get(&id) {
            return Some(handle.clone());
        }
        let _one_per_game = self.lookups.turn(&id).await;
        if let Some(handle) = self.remote().get(&id) {
            return Some(handle.clone());
        }
        let handle = spawn_started_proxy(cluster, started, at_ms, self.proxy_parts(store)).await;
        self.remote().insert(id, handle.clone());
        Some(handle)
    }

    fn proxy_parts(self: &Arc<Self>, store: Arc<GameStore>) -> ProxyParts {
        ProxyParts {
            store,
            exits: self.exits(),
            linger: std::time::Duration::from_secs(self.config.linger_after_end_secs),
            event_buffer: self.config.event_buffer,
            shutdown: self.shutdown.clone(),
        }
    }

    /// Starts the actor of a game taken over from a dead node.
    pub fn restore(
        self: &Arc<Self>,
        acquired: Acquired,
        last_alive_ms: u64,
    ) -> Result<(), GameError> {
        let stored = &acquired.stored;
        let snapshot = Snapshot::from_parts(&stored.snapshot, stored.tail.as_deref(), &stored.acts)
            .map_err(|e| GameError::Law(e.to_string()))?;
        let id = self.resume(
            snapshot,
            &acquired.events,
            Some(acquired.lease),
            last_alive_ms,
        )?;
        tracing::info!(game = %id, "game taken over");
        Ok(())
    }

    /// Starts again the live games this node stored (single node only: with Redis the
    /// other nodes take them over), after a crash or a restart. The time between the
    /// node's last sign of life and now is given back to the side to move. A game that
    /// does not read back is logged and left in the database. Returns how many games
    /// were resumed.
    pub async fn resume_stored(self: &Arc<Self>) -> usize {
        let Some(live) = self.live.clone() else {
            return 0;
        };
        let (games, bad) = match live.load().await {
            Ok(found) => found,
            Err(e) => {
                tracing::error!(error = %e, "cannot read the stored live games");
                return 0;
            }
        };
        for e in bad {
            tracing::error!(error = %e, "cannot resume a stored game");
        }
        let mut resumed = 0;
        for game in games {
            let id = game.snapshot.id.clone();
            match self.resume(game.snapshot, &game.events, None, game.last_alive_ms) {
                Ok(_) => {
                    resumed += 1;
                    tracing::info!(game = %id, "stored game resumed");
                }
                Err(e) => tracing::error!(game = %id, error = %e, "cannot resume a stored game"),
            }
        }
        resumed
    }

    /// With Redis and the mirror, at start: puts back into Redis every mirrored live
    /// game Redis does not hold (emptied by a restart) and takes it up as a takeover
    /// would, the time since its last owner's last sign of life given back to the side
    /// to move. One script per game writes it and takes its lease only if Redis holds
    /// neither (`GameStore::restore`), so of several nodes starting at once one
    /// restores each game; the games Redis holds are left to the usual takeover. A game
    /// found in the archive is forgotten. Returns how many games this node restored.
    pub async fn restore_mirrored(self: &Arc<Self>) -> usize {
        let (Some(mirror), Some(store)) = (self.mirror.clone(), self.store.clone()) else {
            return 0;
        };
        let ids = match mirror.ids().await {
            Ok(ids) => ids,
            Err(e) => {
                tracing::error!(error = %e, "cannot read the mirrored live games");
                return 0;
            }
        };
        let mut restored = 0;
        for id in ids {
            // Only the games Redis lost are read whole.
            if matches!(store.snapshot(&id).await, Ok(None))
                && self.restore_one(&mirror, &store, &id).await
            {
                restored += 1;
            }
        }
        restored
    }

    /// Puts one mirrored game back into Redis and runs it here, unless another node
    /// did first. `true`: restored by this node.
    async fn restore_one(
        self: &Arc<Self>,
        mirror: &Mirror,
        store: &GameStore,
        id: &GameId,
    ) -> bool {
        let fail = |what: &str, e: &dyn std::fmt::Display| {
            tracing::error!(game = %id, error = %e, "cannot {what} a mirrored game");
            false
        };
        let game = match mirror.load(id).await {
            Ok(Some(game)) => game,
            Ok(None) => return false,
            Err(e) => return fail("read", &e),
        };
        let row = game.row;
        let snapshot = match Snapshot::from_parts(&row.snapshot, row.tail.as_deref(), &row.acts) {
            Ok(snapshot) => snapshot,
            Err(e) => return fail("read", &e),
        };
        if mirror.is_archived(id).await.unwrap_or(false) {
            mirror.forget(id);
            return false;
        }
        let stored = Stored {
            snapshot: row.snapshot,
            tail: row.tail,
            acts: row.acts,
        };
        let events = events_for_redis(&row.events, snapshot.version);
        let lease = match store.restore(id, &stored, &events, row.fence).await {
            Ok(Some(lease)) => lease,
            Ok(None) => return false,
            Err(e) => return fail("put back", &e),
        };
        let acquired = Acquired {
            lease,
            stored,
            events,
        };
        match self.restore(acquired, game.last_alive_ms) {
            Ok(()) => {
                self.metrics.mirror_restored.inc();
                self.metrics.leases_acquired.inc();
                true
            }
            Err(e) => fail("restore", &e),
        }
    }

    /// The server has stopped and every actor has ended: writes what they queued for
    /// the mirror on their way out.
    pub async fn finish_mirror(&self) {
        if let Some(mirror) = &self.mirror {
            mirror.finish().await;
        }
    }

    /// Starts an actor from a snapshot and its event log, holding `lease` if clustered;
    /// the clock time since `last_alive_ms` is given back to the side to move.
    fn resume(
        self: &Arc<Self>,
        snapshot: Snapshot,
        events: &[String],
        lease: Option<Lease>,
        last_alive_ms: u64,
    ) -> Result<GameId, GameError> {
        // A full rewrite after Redis lost the game left placeholders for the events
        // its owner no longer held.
        let gone = events.iter().take_while(|j| *j == PLACEHOLDER).count();
        let held: Vec<_> = events[gone..]
            .iter()
            .filter_map(|j| Versioned::parse(j))
            .collect();
        if gone + held.len() != events.len() {
            return Err(GameError::Law("unreadable event in the log".into()));
        }
        let log = EventLog::restored(gone as u64, held);
        let meta = Arc::new(GameMeta::new(
            snapshot.id.clone(),
            GameSpec {
                variant: snapshot.variant,
                time_control: snapshot.time_control,
                rated: snapshot.rated,
                white: snapshot.white.clone(),
                black: snapshot.black.clone(),
                start_fen: snapshot.start_fen.clone(),
                arena: snapshot.arena.clone(),
                berserk: snapshot.berserk,
                ruleset: Some(snapshot.game.ruleset_id()),
                tournament: snapshot.tournament.clone(),
            },
            snapshot.rating,
            !snapshot.ended,
        ));
        let (handle, actor) = Actor::restored_channel(
            meta.clone(),
            self.context(),
            snapshot,
            log,
            lease,
            last_alive_ms,
        );
        self.register(&handle);
        self.tracker.spawn(actor.run());
        Ok(meta.id.clone())
    }

    /// Redis is back: every local game writes what it could not.
    pub fn resync_all(&self) {
        for handle in self.games().values() {
            handle.resync();
        }
    }

    /// This node was found dead (it missed heartbeats) and the owners of the games it
    /// proxies let go of its players' sessions: every proxy tells its owner again how
    /// many it has.
    pub fn present_again(&self) {
        for handle in self.remote().values() {
            handle.resync();
        }
    }

    fn games(&self) -> MutexGuard<'_, HashMap<GameId, GameHandle>> {
        // A panic while holding this lock cannot leave the map inconsistent (single
        // inserts and removes), so a poisoned lock is still usable.
        self.games.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Refuses new games from now on (shutdown has begun).
    pub fn stop_accepting(&self) {
        self.accepting.store(false, Ordering::Relaxed);
    }

    /// Starts a game: spawns its actor and registers it; the actor has both players'
    /// sessions told once the start is stored ([`GameExits::started`]).
    pub fn start(self: &Arc<Self>, spec: GameSpec) -> Result<GameHandle, GameError> {
        self.start_with(spec, new_game_id(), |_, _| None)
    }

    /// Starts a game under an id chosen beforehand (an arena records its pairing,
    /// with the game's id, before the game exists).
    pub fn start_with_id(
        self: &Arc<Self>,
        id: GameId,
        spec: GameSpec,
    ) -> Result<GameHandle, GameError> {
        self.start_with(spec, id, |_, _| None)
    }

    /// Starts a game that follows `previous` in a micro-match: on a match clock (INT
    /// 3.6.4) it starts with the times `previous` left the players; otherwise, or with
    /// no previous game, with the control's starting times.
    pub fn start_after(
        self: &Arc<Self>,
        spec: GameSpec,
        previous: Option<&GameClock>,
    ) -> Result<GameHandle, GameError> {
        self.start_with(spec, new_game_id(), |now, first| {
            previous.and_then(|p| p.next_game(now, first))
        })
    }

    /// Starts a later game of a micro-match whose previous game this node may not own
    /// (a tournament's): on a match clock (INT 3.6.4) it starts with `left`, what the
    /// previous game's clock showed at its end, by this game's colours (see
    /// [`GameClock::carried`]); otherwise, or without `left`, with the control's
    /// starting times.
    ///
    /// `break_ms` > 0: IDF art. 7.3.10, the game begins with the break between the games
    /// of a micro-match on its first mover's clock (see [`GameClock::start_break`]).
    pub fn start_carrying(
        self: &Arc<Self>,
        spec: GameSpec,
        left: Option<[(u64, u32); 2]>,
        break_ms: u64,
    ) -> Result<GameHandle, GameError> {
        let (tc, policy) = (spec.time_control, self.config.lag_policy);
        self.start_with(spec, new_game_id(), |now, first| {
            let mut clock = left
                .and_then(|left| GameClock::carried(tc, policy, now, first, left))
                .or_else(|| GameClock::new(tc, policy, now, first).ok())?;
            if break_ms > 0 {
                clock.start_break(now, break_ms).ok()?;
            }
            Some(clock)
        })
    }

    /// Starts a game whose clock `carried` may give (from `now`, `first` to move); the
    /// control's starting times if it gives none.
    fn start_with(
        self: &Arc<Self>,
        spec: GameSpec,
        id: GameId,
        carried: impl FnOnce(tokio::time::Instant, Color) -> Option<GameClock>,
    ) -> Result<GameHandle, GameError> {
        if !self.accepting.load(Ordering::Relaxed) {
            return Err(GameError::ShuttingDown);
        }
        let record = Record::for_spec(&spec)?;
        let now = tokio::time::Instant::now();
        let clock = match carried(now, record.first_to_move()) {
            Some(clock) => clock,
            None => GameClock::new(
                spec.time_control,
                self.config.lag_policy,
                now,
                record.first_to_move(),
            )
            .map_err(|e| GameError::BadTimeControl(e.to_string()))?,
        };
        let rating = |r: Option<u32>| r.unwrap_or(self.default_rating);
        let mean = (rating(spec.white.rating) + rating(spec.black.rating)) / 2;
        let meta = Arc::new(GameMeta::new(id, spec, mean, true));
        let (handle, actor) = actor::channel(meta.clone(), self.context(), record, clock);
        self.register(&handle);
        self.metrics.games_started.inc();
        self.tracker.spawn(actor.run());
        tracing::info!(game = %meta.id, variant = %meta.spec.variant, tc = %meta.spec.time_control,
            white = %meta.spec.white.id, black = %meta.spec.black.id, "game started");
        let presence = self.presence.clone();
        let meta2 = meta.clone();
        self.tracker.spawn(async move {
            let players = meta2.spec.players();
            if let Err(e) = presence
                .set_playing(&players, &meta2.id, meta2.spec.pool(), true)
                .await
            {
                tracing::warn!(error = %e, "presence update failed");
            }
        });
        Ok(handle)
    }

    /// With Redis: the games' keys there, for the node's takeover and the watch of a
    /// game no node serves.
    pub fn game_store(&self) -> Option<&GameStore> {
        self.store.as_deref()
    }

    /// The handle of a game still on this node: its actor's, or that of the finished
    /// game it handed over.
    pub fn get(&self, id: &GameId) -> Option<GameHandle> {
        if let Some(handle) = self.games().get(id).cloned() {
            return Some(handle);
        }
        let game = self.finished_games().get(id).cloned()?;
        Some(GameHandle::of_finished(&game))
    }

    /// Games registered (live, lingering after their end, or finished and held without
    /// an actor).
    pub fn len(&self) -> usize {
        let live = self.games().len();
        live + self.finished_games().len()
    }

    /// Finished games held without an actor, for rematches and late watchers.
    pub fn finished_held(&self) -> usize {
        self.finished_games().len()
    }

    /// Is no game registered?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Games still being played.
    pub fn live(&self) -> usize {
        self.games().values().filter(|h| h.meta.is_live()).count()
    }

    /// The highest-rated live game of `variant` (the smaller id among equals).
    pub fn tv(&self, variant: Variant) -> Option<GameHandle> {
        self.games()
            .values()
            .filter(|h| h.meta.is_live() && h.meta.spec.variant == variant)
            .max_by(|a, b| {
                a.meta
                    .rating
                    .cmp(&b.meta.rating)
                    .then(b.meta.id.cmp(&a.meta.id))
            })
            .cloned()
    }

    /// The highest-rated live game of a variant on any node: this node's best, or the
    /// best of the cluster's TV board if it is rated higher (reached through a proxy).
    /// Entries of games that are over or gone are dropped from the board on the way.
    pub async fn tv_anywhere(self: &Arc<Self>, variant: Variant) -> Option<GameHandle> {
        let local = self.tv(variant);
        let Some(store) = self.store.clone() else {
            return local;
        };
        let local_rating = local.as_ref().map(|h| h.meta.rating);
        let top = store.tv_top(variant, 4).await.unwrap_or_default();
        for (id, rating) in top {
            if local_rating.is_some_and(|r| r >= rating) {
                break;
            }
            match self.find(&id).await {
                Some(h) if h.meta.is_live() => return Some(h),
                _ => {
                    let _ = store.tv_remove(variant, &id).await;
                }
            }
        }
        local
    }

    /// The `n` highest-rated live games on any node (this node's alone without Redis),
    /// the highest first and the smaller id first among equals: the lobby feed's games.
    pub async fn top_anywhere(self: &Arc<Self>, n: usize) -> Vec<GameHandle> {
        let mut ranked: Vec<(u32, GameId)> = self
            .games()
            .values()
            .filter(|h| h.meta.is_live())
            .map(|h| (h.meta.rating, h.meta.id.clone()))
            .collect();
        if let Some(store) = self.store.clone() {
            for variant in Variant::ALL {
                let top = store.tv_top(variant, n).await.unwrap_or_default();
                ranked.extend(top.into_iter().map(|(id, rating)| (rating, id)));
            }
        }
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        ranked.dedup_by(|a, b| a.1 == b.1);
        let mut found = Vec::with_capacity(n);
        for (_, id) in ranked {
            if found.len() == n {
                break;
            }
            if let Some(h) = self.find(&id).await.filter(|h| h.meta.is_live()) {
                found.push(h);
            }
        }
        found
    }
}

/// What the actors and proxies this registry makes tell it.
impl GameExits for GameRegistry {
    /// Both players' sessions on this node are told, each with its own `game_start`.
    fn started(&self, id: &GameId, starts: Option<[StartFrame; 2]>) {
        let Some(handle) = self.games().get(id).cloned() else {
            return;
        };
        let spec = &handle.meta().spec;
        for (player, color) in [(&spec.white, Color::White), (&spec.black, Color::Black)] {
            let start = starts.as_ref().map(|s| &s[color.index()]);
            (self.announce)(&player.id, &handle, start);
        }
    }

    /// Presence stops counting the players in the game, in a task of its own.
    fn ended(&self, meta: &Arc<GameMeta>) {
        let presence = self.presence.clone();
        let meta = meta.clone();
        self.tracker.spawn(async move {
            let players = meta.spec.players();
            if let Err(e) = presence
                .set_playing(&players, &meta.id, meta.spec.pool(), false)
                .await
            {
                tracing::warn!(error = %e, "presence update failed");
            }
        });
    }

    /// Every handle of the game sends its commands to `game` from now on, held here
    /// in the actor's place until it has lingered.
    fn handed_over(&self, game: Arc<FinishedGame>) {
        let id = game.meta().id.clone();
        let handle = self.games().get(&id).cloned();
        if let Some(handle) = &handle {
            handle.hand_over(&game);
        }
        self.finished_games().insert(id.clone(), game);
        self.games().remove(&id);
        self.metrics.games_held_finished.inc();
    }

    /// The game leaves this node, and other nodes no longer reach it here.
    fn exited(&self, meta: &GameMeta) {
        self.games().remove(&meta.id);
        if let Some(cluster) = &self.cluster {
            cluster.bus.unsubscribe(cluster.cmd_channel(&meta.id));
        }
    }

    fn proxy_exited(&self, id: &GameId) {
        self.remote().remove(id);
    }

    fn rematch(
        self: Arc<Self>,
        spec: GameSpec,
        previous: Option<&GameClock>,
    ) -> Result<GameHandle, GameError> {
        self.start_after(spec, previous)
    }
}

/// Lets go of the finished games held once they have lingered, until the node stops
/// (then of all of them).
async fn sweep(registry: Weak<GameRegistry>, stop: CancellationToken) {
    let mut every = tokio::time::interval(SWEEP_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            _ = every.tick() => {}
        }
        let Some(registry) = registry.upgrade() else {
            return;
        };
        registry.let_go_finished(false);
    }
    if let Some(registry) = registry.upgrade() {
        registry.let_go_finished(true);
    }
}
