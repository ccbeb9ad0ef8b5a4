//! A live game's replication to Redis, for its actor: what is written, when, and how it
//! is fenced. The actor numbers its events and holds them; [`Replica::sync`] writes the
//! ones Redis does not have yet in one script call (one round trip per batch of events),
//! checked against the game's lease, and only then are they shown to anyone: published
//! on the game's channel for other nodes (`E<event JSON>`; `Mw<JSON>` or `Mb<JSON>` for
//! an event's copy with the legal moves of the player it puts on the move, White or
//! Black; `O<lease token>` for an owner change: [`EVENT_PREFIX`], [`MOVER_PREFIX`],
//! [`OWNER_PREFIX`]), and handed back to the actor for its own watchers. Redis stores
//! only the copy without legal moves. A move appends its events, the law's new actions and a small [`Tail`]
//! (clock, offers, counts); the whole [`Snapshot`] is written only at the start, at a
//! takeover, after a takeback, after Redis lost the game, and every [`COMPACT_EVERY`]
//! actions, so the bytes a move costs do not grow with the game. A write refused by the
//! fence (another node took the game) shows nobody anything: the actor stops.
//!
//! Without Redis (a single node) the same writes go to the database instead
//! ([`LiveStore`]: rows appended per game, many games' writes committed together), and
//! an event is shown only once its write is committed; a node that crashed or stopped
//! finds its games there at the next start. A write the database refuses keeps the game
//! going locally and is tried again, whole if need be, at the next event. With Redis
//! unreachable, the game goes on locally (its events are shown, counted in
//! `damka_redis_queue_depth`) and is written again, whole if need be, when Redis
//! returns; see `docs/cluster.md`.
//!
//! With Redis and the database's mirror on ([`Mirror`]), every save Redis took is also
//! handed to the mirror, the same strings, without waiting: it reaches the database
//! within `cluster.mirror_ms`, so that a whole-cluster restart that empties Redis finds
//! the game there.

use std::sync::Arc;

use shared::law::OfferRefusal;
use shared::protocol::{GameId, GameState};
use shared::rules::Color;

use super::GameMeta;
use super::clock::GameClock;
use super::log::{EventLog, PLACEHOLDER};
use super::mirror::{self, Mirror};
use super::record::Record;
use super::redis_store::{GameStore, SaveBatch, SaveMode, Saved};
use super::snapshot::{Snapshot, Tail};
use super::store::LiveStore;
use crate::cluster::lease::Lease;
use crate::cluster::member::{GameStartedNotice, Started};
use crate::cluster::redis::{RedisStoreError, wall_ms};
use crate::cluster::{Broadcast, Cluster};
use crate::db::live::LiveWrite;
use crate::metrics::Metrics;

/// Where a proxy's owner-change notices and events arrive on a game's channel:
/// `E<game_event JSON>`, `M<w|b><game_event JSON with legal moves>` or
/// `O<lease token>`.
pub const EVENT_PREFIX: char = 'E';
/// See [`EVENT_PREFIX`]: an event that puts White (`w`) or Black (`b`) on the move, as
/// that player gets it; the other nodes make everyone else's copy from it.
pub const MOVER_PREFIX: char = 'M';
/// See [`EVENT_PREFIX`].
pub const OWNER_PREFIX: char = 'O';

/// The letter of a colour in a [`MOVER_PREFIX`] payload.
pub fn color_char(color: Color) -> char {
    match color {
        Color::White => 'w',
        Color::Black => 'b',
    }
}

/// The law's actions appended after a snapshot before the next write rewrites it whole
/// (and empties the list): keeps the list short for readers at a cost of one snapshot
/// per this many actions.
pub const COMPACT_EVERY: usize = 256;

/// What a write came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// Stored (in Redis, or in the actor alone without Redis): show the events.
    Stored,
    /// Redis is out of reach: kept to be written when it returns; the game goes on
    /// locally.
    Kept,
    /// Another node owns the game now: nothing is shown, the actor stops.
    Fenced,
}

/// The parts of an actor's state a write reads.
pub struct GameView<'a> {
    /// The game.
    pub meta: &'a GameMeta,
    /// The law's record.
    pub record: &'a Record,
    /// The clock.
    pub clock: &'a GameClock,
    /// The events not stored yet, and a few more.
    pub log: &'a EventLog,
    /// Wall-clock ms of the clock's time zero.
    pub origin_ms: u64,
    /// A pending takeback request.
    pub takeback_offer: Option<Color>,
    /// A pending rematch offer.
    pub rematch_offer: Option<Color>,
    /// The rematch has started.
    pub rematch_started: bool,
    /// The game is over.
    pub ended: bool,
    /// The finished game is in the archive.
    pub archived: bool,
}

impl GameView<'_> {
    fn version(&self) -> u64 {
        self.log.version()
    }

    /// The game whole, as stored in Redis's `state` or a persisted file.
    pub fn snapshot(&self) -> Snapshot {
        let spec = &self.meta.spec;
        let (game, external) = self.record.parts();
        Snapshot {
            id: self.meta.id.clone(),
            variant: spec.variant,
            time_control: spec.time_control,
            rated: spec.rated,
            white: spec.white.clone(),
            black: spec.black.clone(),
            start_fen: spec.start_fen.clone(),
            tournament: spec.tournament.clone(),
            arena: spec.arena.clone(),
            berserk: spec.berserk,
            rating: self.meta.rating,
            version: self.version(),
            game: game.clone(),
            external: external.cloned(),
            clock: self.clock.saved(),
            origin_ms: self.origin_ms,
            saved_ms: wall_ms(),
            takeback_offer: self.takeback_offer,
            rematch_offer: self.rematch_offer,
            rematch_started: self.rematch_started,
            ended: self.ended,
            archived: self.archived,
        }
    }

    /// What changes from move to move, without the law's game.
    fn tail(&self) -> Tail {
        let (game, external) = self.record.parts();
        Tail {
            version: self.version(),
            actions: game.actions().len(),
            outcome: game.outcome().copied(),
            external: external.cloned(),
            clock: self.clock.saved(),
            origin_ms: self.origin_ms,
            saved_ms: wall_ms(),
            takeback_offer: self.takeback_offer,
            rematch_offer: self.rematch_offer,
            rematch_started: self.rematch_started,
            ended: self.ended,
            archived: self.archived,
        }
    }
}

/// The strings one save wrote, handed on to the mirror.
struct Encoded {
    snapshot: Option<String>,
    tail: String,
    acts: Vec<String>,
}

/// The game's standing in Redis.
pub struct Replica {
    id: GameId,
    /// With Redis: the cluster, and the games' keys there.
    cluster: Option<(Arc<Cluster>, Arc<GameStore>)>,
    /// Without Redis: the database's live-game store.
    live: Option<LiveStore>,
    /// With Redis: the database's write-behind copy of what Redis took.
    mirror: Option<Mirror>,
    /// The mirror has been handed a whole snapshot by this replica.
    mirrored: bool,
    metrics: Arc<Metrics>,
    /// The lease held, if any yet.
    lease: Option<Lease>,
    /// Events Redis holds.
    synced: u64,
    /// The law's actions Redis holds (the snapshot's and the listed ones).
    acts: usize,
    /// Of those, the ones in the `acts` list after the snapshot.
    listed: usize,
    /// The record's rewrites (takebacks) when last written: another one means the
    /// actions are no longer an extension of what Redis holds.
    rewrites: u64,
    /// Redis holds a snapshot of this game written by this replica.
    snapshotted: bool,
    /// Something could not be written: write again (whole if need be).
    dirty: bool,
    /// Events counted in the Redis queue gauge.
    queued: i64,
    /// Tell the other nodes the game started, once it is in Redis.
    announce: bool,
    /// Tell proxies the owner changed, once written.
    took_over: bool,
    /// When this replica was made (wall ms): a new game's creation.
    created_ms: u64,
    /// The state a new game's players start from, for its start notice (boxed: only
    /// a clustered game has one, until its first write, and every replica holds this).
    start: Option<Box<StartState>>,
}

/// The state a new game's players start from, as the actor makes it before its first
/// write: see [`Started`].
pub struct StartState {
    /// The state as a spectator gets it.
    pub state: GameState,
    /// The legal moves of the side to move.
    pub legal: Vec<String>,
    /// White's and Black's draw offer permission.
    pub refusals: [Option<OfferRefusal>; 2],
}

impl Replica {
    /// The replica of a new game: nothing is in Redis yet.
    pub fn new(
        id: GameId,
        cluster: Option<(Arc<Cluster>, Arc<GameStore>)>,
        metrics: Arc<Metrics>,
    ) -> Replica {
        Replica {
            id,
            cluster,
            live: None,
            mirror: None,
            mirrored: false,
            metrics,
            lease: None,
            synced: 0,
            acts: 0,
            listed: 0,
            rewrites: 0,
            snapshotted: false,
            // Written before anything else: other nodes learn of the game from it.
            dirty: true,
            queued: 0,
            announce: true,
            took_over: false,
            created_ms: wall_ms(),
            start: None,
        }
    }

    /// The replica of a game taken over (or resumed from a file): Redis holds its
    /// `synced` events; the snapshot is written again at once, with the refunded clock,
    /// and the owner change announced.
    pub fn restored(
        id: GameId,
        cluster: Option<(Arc<Cluster>, Arc<GameStore>)>,
        metrics: Arc<Metrics>,
        lease: Option<Lease>,
        synced: u64,
    ) -> Replica {
        Replica {
            lease,
            synced,
            announce: false,
            took_over: true,
            ..Replica::new(id, cluster, metrics)
        }
    }

    /// Stores the game in `live` when there is no Redis.
    pub fn with_live(mut self, live: Option<LiveStore>) -> Replica {
        if self.cluster.is_none() {
            self.live = live;
        }
        self
    }

    /// Mirrors what Redis takes into the database, when clustered.
    pub fn with_mirror(mut self, mirror: Option<Mirror>) -> Replica {
        if self.cluster.is_some() {
            self.mirror = mirror;
        }
        self
    }

    /// Up to which version the events are stored, of those up to `version`: all of
    /// them when the game is stored nowhere.
    pub fn stored_up_to(&self, version: u64) -> u64 {
        if self.cluster.is_none() && self.live.is_none() {
            version
        } else {
            self.synced.min(version)
        }
    }

    /// The state a new game's players start from, sent with its start notice if the
    /// first write stores this version (tournament games judge absence on the owner's
    /// own count, so their actors give none: `docs/cluster.md`).
    pub fn starting(&mut self, start: StartState) {
        if self.wants_start() {
            self.start = Some(Box::new(start));
        }
    }

    /// Will the start notice carry the state the players start from? Only a new game's,
    /// and only with Redis: a node on its own announces nothing.
    pub fn wants_start(&self) -> bool {
        self.announce && self.cluster.is_some()
    }

    /// Write again at the next sync (Redis came back).
    pub fn mark_dirty(&mut self) {
        self.dirty = true;
    }

    fn set_queued(&mut self, n: i64) {
        self.metrics.redis_queue.inc_by(n - self.queued);
        self.queued = n;
    }

    /// Writes what Redis does not have yet, under the lease, then publishes the new
    /// events to the other nodes. The caller shows its events to its own watchers
    /// unless the answer is [`Written::Fenced`].
    pub async fn sync(&mut self, view: &GameView<'_>) -> Written {
        let Some((cluster, store)) = self.cluster.clone() else {
            return match self.live.clone() {
                Some(live) => self.sync_live(&live, view).await,
                None => Written::Stored,
            };
        };
        let version = view.version();
        if version == self.synced && !self.dirty {
            return Written::Stored;
        }
        let unsynced = i64::try_from(version - self.synced.min(version)).unwrap_or(0);
        if !cluster.redis.is_up() {
            self.dirty = true;
            self.set_queued(unsynced.max(1));
            return Written::Kept;
        }
        let mut mode = self.mode(view);
        loop {
            match self.write(&store, view, mode).await {
                Ok((Saved::Ok(lease), encoded)) => {
                    self.mirror(view, mode, &lease, encoded);
                    self.stored(&cluster, &store, view, mode, lease).await;
                    return Written::Stored;
                }
                Ok((Saved::Gap, _)) if mode != SaveMode::Full => mode = SaveMode::Full,
                Ok((Saved::Gap, _)) => {
                    self.dirty = true;
                    return Written::Kept;
                }
                Err(RedisStoreError::Fenced) => {
                    self.metrics.leases_lost.inc();
                    tracing::warn!(game = %self.id, "lease lost to another node: stopping");
                    return Written::Fenced;
                }
                Err(e) => {
                    tracing::warn!(game = %self.id, error = %e, "cannot write the game; queued");
                    self.dirty = true;
                    self.set_queued(unsynced.max(1));
                    return Written::Kept;
                }
            }
        }
    }

    /// Without Redis: writes what the database does not have yet, in the writer's next
    /// group.
    async fn sync_live(&mut self, live: &LiveStore, view: &GameView<'_>) -> Written {
        let version = view.version();
        if version == self.synced && !self.dirty {
            return Written::Stored;
        }
        let mode = self.mode(view);
        let write = match self.live_write(view, mode) {
            Ok(write) => write,
            Err(e) => {
                tracing::error!(game = %self.id, error = %e, "cannot encode the game");
                self.dirty = true;
                return Written::Kept;
            }
        };
        match live.write(write).await {
            Ok(()) => {
                self.written(view, mode);
                Written::Stored
            }
            Err(e) => {
                tracing::warn!(game = %self.id, error = %e, "cannot store the game; kept");
                self.dirty = true;
                // Whole at the next try: the appended rows may not follow on.
                self.snapshotted = false;
                Written::Kept
            }
        }
    }

    /// The rows of one write to the database.
    fn live_write(
        &self,
        view: &GameView<'_>,
        mode: SaveMode,
    ) -> Result<LiveWrite, serde_json::Error> {
        let snapshot = match mode {
            SaveMode::Append => None,
            _ => Some(serde_json::to_string(&view.snapshot())?),
        };
        let events = view
            .log
            .held_after(self.synced)
            .iter()
            .map(|e| (e.version(), e.json().to_string()))
            .collect();
        let acts = match mode {
            SaveMode::Append => view.record.parts().0.actions()[self.acts..]
                .iter()
                .zip(self.listed as u64..)
                .map(|(a, seq)| Ok((seq, serde_json::to_string(a)?)))
                .collect::<Result<Vec<_>, serde_json::Error>>()?,
            _ => Vec::new(),
        };
        Ok(LiveWrite {
            id: self.id.0.clone(),
            snapshot,
            tail: serde_json::to_string(&view.tail())?,
            events,
            acts,
        })
    }

    /// A write is stored: what it holds now.
    fn written(&mut self, view: &GameView<'_>, mode: SaveMode) {
        let actions = view.record.parts().0.actions().len();
        self.listed = match mode {
            SaveMode::Append => self.listed + (actions - self.acts),
            _ => 0,
        };
        self.acts = actions;
        self.rewrites = view.record.rewrites();
        self.snapshotted = true;
        self.synced = view.version();
        self.dirty = false;
    }

    /// How the next write goes: an append unless the snapshot must be written whole.
    fn mode(&self, view: &GameView<'_>) -> SaveMode {
        let actions = view.record.parts().0.actions().len();
        let rewritten = view.record.rewrites() != self.rewrites || actions < self.acts;
        if !self.snapshotted || rewritten || self.listed + (actions - self.acts) > COMPACT_EVERY {
            SaveMode::Compact
        } else {
            SaveMode::Append
        }
    }

    /// Hands a save Redis took to the mirror (before [`Replica::written`] moves the
    /// counts on): the new events (all those held at this replica's first), the
    /// actions appended, the tail and the snapshot, as written.
    fn mirror(&mut self, view: &GameView<'_>, mode: SaveMode, lease: &Lease, encoded: Encoded) {
        let Some(mirror) = &self.mirror else {
            return;
        };
        let from = match mode {
            SaveMode::Full => 0,
            _ if !self.mirrored => 0,
            _ => self.synced.min(view.version()),
        };
        let events = view
            .log
            .held_after(from)
            .iter()
            .map(|e| (e.version(), e.json().clone()))
            .collect();
        mirror.queue(
            &self.id,
            mirror::Saved {
                snapshot: encoded.snapshot,
                tail: encoded.tail,
                events,
                acts: (self.listed as u64..).zip(encoded.acts).collect(),
                fence: lease.fence,
            },
        );
        self.mirrored = true;
    }

    /// One save script call; the strings it wrote, for the mirror.
    async fn write(
        &self,
        store: &GameStore,
        view: &GameView<'_>,
        mode: SaveMode,
    ) -> Result<(Saved, Encoded), RedisStoreError> {
        let snapshot = match mode {
            SaveMode::Append => None,
            _ => Some(serde_json::to_string(&view.snapshot()).map_err(RedisStoreError::decode)?),
        };
        let tail = serde_json::to_string(&view.tail()).map_err(RedisStoreError::decode)?;
        let from = match mode {
            SaveMode::Full => 0,
            _ => self.synced.min(view.version()),
        };
        // A full rewrite writes a placeholder for each event no longer held.
        let gone = match mode {
            SaveMode::Full => view.log.dropped(),
            _ => 0,
        };
        let events: Vec<&str> =
            std::iter::repeat_n(PLACEHOLDER, usize::try_from(gone).unwrap_or(0))
                .chain(view.log.held_after(from).iter().map(|e| &**e.json()))
                .collect();
        let acts = match mode {
            SaveMode::Append => view.record.parts().0.actions()[self.acts..]
                .iter()
                .map(serde_json::to_string)
                .collect::<Result<Vec<_>, _>>()
                .map_err(RedisStoreError::decode)?,
            _ => Vec::new(),
        };
        let batch = SaveBatch {
            mode,
            base: from,
            acts_base: self.listed as u64,
            snapshot: snapshot.as_deref(),
            tail: &tail,
            events: &events,
            acts: &acts,
        };
        let saved = store.save(&self.id, self.lease.as_ref(), &batch).await?;
        Ok((
            saved,
            Encoded {
                snapshot,
                tail,
                acts,
            },
        ))
    }

    /// A write went through: the new events go out to the other nodes, and a new
    /// game is announced (its first write marked it live, see [`GameStore::save`]),
    /// before its TV entry is written (the players wait on the notice, only TV reads
    /// the board).
    async fn stored(
        &mut self,
        cluster: &Cluster,
        store: &GameStore,
        view: &GameView<'_>,
        mode: SaveMode,
        lease: Lease,
    ) {
        let channel = cluster.ev_channel(&self.id);
        let new_lease = self.lease.as_ref() != Some(&lease);
        // A new game has no proxy yet to tell of its owner: they are made from its
        // start notice, or read from Redis, after this write.
        if self.took_over || (new_lease && !self.announce) {
            self.took_over = false;
            cluster
                .bus
                .publish(channel.clone(), format!("{OWNER_PREFIX}{}", lease.token));
        }
        let version = view.version();
        for e in view.log.held_after(self.synced.min(version)) {
            let payload = match e.mover() {
                Some(m) => format!("{MOVER_PREFIX}{}{}", color_char(m.color), m.json),
                None => format!("{EVENT_PREFIX}{}", e.json()),
            };
            cluster.bus.publish(channel.clone(), payload);
        }
        let announce = std::mem::take(&mut self.announce);
        if announce {
            self.announce(cluster, view);
        }
        if new_lease {
            self.metrics.leases_acquired.inc();
            if self.lease.is_some() {
                // A lease taken again after it lapsed.
                let _ = store.mark_live(&self.id).await;
            }
        }
        self.written(view, mode);
        self.lease = Some(lease);
        self.set_queued(0);
        if announce && !view.ended {
            let spec = &view.meta.spec;
            let _ = store.tv_add(spec.variant, &self.id, view.meta.rating).await;
        }
    }

    /// Tells the other nodes that the game started, with what its players' nodes need
    /// to show them `game_start` (the state the actor gave [`Replica::starting`], if it
    /// is of the version just written).
    fn announce(&mut self, cluster: &Cluster, view: &GameView<'_>) {
        let spec = &view.meta.spec;
        let start = self
            .start
            .take()
            .filter(|s| s.state.version == view.version() && !view.ended)
            .map(|s| {
                let s = *s;
                Box::new(Started {
                    state: s.state,
                    start_fen: spec.start_fen.clone(),
                    berserk: spec.berserk,
                    rating: view.meta.rating,
                    legal: s.legal,
                    refusals: s.refusals,
                })
            });
        cluster.broadcast(&Broadcast::GameStarted(GameStartedNotice {
            origin: cluster.node.clone(),
            game_id: self.id.clone(),
            players: spec.players().to_vec(),
            at_ms: self.created_ms,
            start,
        }));
        self.metrics
            .game_announce_ms
            .observe(wall_ms().saturating_sub(self.created_ms));
    }

    /// Renews the lease (or takes it again if it lapsed, writing what is pending).
    pub async fn renew(&mut self, view: &GameView<'_>) -> Written {
        let Some((cluster, store)) = self.cluster.clone() else {
            return Written::Stored;
        };
        if !cluster.redis.is_up() {
            return Written::Kept;
        }
        let Some(lease) = self.lease.clone() else {
            return self.sync(view).await;
        };
        if self.dirty {
            return self.sync(view).await;
        }
        match store.renew(&self.id, &lease).await {
            Ok(true) => Written::Stored,
            Ok(false) => {
                self.dirty = true;
                self.sync(view).await
            }
            Err(RedisStoreError::Fenced) => {
                self.metrics.leases_lost.inc();
                tracing::warn!(game = %self.id, "lease lost to another node: stopping");
                Written::Fenced
            }
            Err(_) => Written::Kept,
        }
    }

    /// Gives the game up as its actor ends: a finished and archived game's lease is
    /// released and its stored state expires; any other stays claimable, so that
    /// another node archives or goes on with it.
    pub async fn release(&mut self, done: bool) {
        if let (Some(mirror), true) = (&self.mirror, done) {
            mirror.forget(&self.id);
        }
        if let (Some(live), true) = (&self.live, done)
            && let Err(e) = live.forget(&self.id.0).await
        {
            tracing::warn!(game = %self.id, error = %e, "cannot forget the archived game");
        }
        if let (Some((_, store)), Some(lease), true) =
            (self.cluster.clone(), self.lease.clone(), done)
        {
            let _ = store.release(&self.id, &lease).await;
        }
        self.set_queued(0);
    }

    /// The actor stops without writing (lost to another node, or the server stops).
    pub fn abandon(&mut self) {
        self.set_queued(0);
    }
}
