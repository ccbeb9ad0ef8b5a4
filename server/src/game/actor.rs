//! The game actor: one task per live game, the only writer of that game's state, made
//! with its [`GameHandle`] by [`channel`] (a new game) or [`Actor::restored_channel`] (a game
//! resumed or taken over); whoever makes it spawns [`Actor::run`]. It validates every
//! command, keeps the clocks, flags a player from its own timer at the instant the
//! clock says, numbers every event, replays missed events to reconnecting sessions,
//! and tracks connected players and spectators. Once its game is over, archived, and
//! its end shown and stored, it hands the game over to a small [`FinishedGame`] that
//! the registry holds for rematches and late watchers, and exits
//! ([`super::finished`]). It reports its game's end, hand-over and exit, and starts
//! rematches, through [`GameExits`] (the registry, which it never names). Every event
//! it makes is held until its [`Replica`] has stored it (in Redis, fenced by the game's
//! lease, when clustered): only then is it shown to watchers and the command that
//! caused it answered. A write the fence refuses shows nobody anything and the actor
//! stops.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use shared::law::OfferRefusal;
use shared::protocol::{
    AbandonClaim, Away, ClockState, GameEvent, GameState, Outcome, OutcomeReason, ServerMessage,
    UserId,
};
use shared::rules::Color;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use super::START_JOIN_GRACE;
use super::archive::{ArchiveSink, ArchiveState, archived_game, try_archive};
use super::clock::GameClock;
use super::exits::GameExits;
use super::finished::{
    FinishedGame, FinishedParts, GONE_GRACE, RematchStep, StartRematch, drawn, rematch_spec,
    rematch_step,
};
use super::log::{EventLog, Held};
use super::record::{PlayedMove, Record};
use super::redis_store::GameStore;
use super::replica::{GameView, Replica, StartState, Written};
use super::snapshot::Snapshot;
use super::time_claim;
use super::{
    AckTo, ActCmd, Acted, FollowerId, Followers, GameCmd, GameError, GameHandle, GameMeta,
    GameSpec, Intent, JoinCmd, JoinReply, Role, StartFrame, ToMove, Versioned,
};
use crate::cluster::Cluster;
use crate::cluster::lease::Lease;
use crate::cluster::redis::wall_ms;
use crate::config::GameConfig;
use crate::metrics::Metrics;

/// The parts of the actor a write reads, borrowed field by field so that the actor's
/// replica can be borrowed mutably at the same time.
macro_rules! view {
    ($actor:expr) => {
        GameView {
            meta: &$actor.meta,
            record: &$actor.record,
            clock: &$actor.clock,
            log: &$actor.log,
            origin_ms: $actor.origin_ms,
            takeback_offer: $actor.takeback_offer,
            rematch_offer: $actor.rematch_offer,
            rematch_started: $actor.rematch_started,
            ended: $actor.ended_at.is_some(),
            archived: $actor.arch.archived,
        }
    };
}

/// The least time between two announcements of a game's spectator count.
const SPECTATOR_ANNOUNCE_EVERY: Duration = Duration::from_secs(2);

/// The spectator count as last announced, when, and when the next announcement is due.
#[derive(Default)]
struct Announced {
    count: u32,
    last: Option<Instant>,
    due: Option<Instant>,
}

/// An answer held back until the events it reports are in Redis. It lives in the
/// actor's future across the store's awaits, so every live game holds its size: the
/// rare, large answers (a join's state, a state) are boxed, a move's stays inline.
enum Pending {
    Join(
        tokio::sync::oneshot::Sender<Result<JoinReply, GameError>>,
        Box<Result<JoinReply, GameError>>,
    ),
    Act(
        tokio::sync::oneshot::Sender<Result<Acted, GameError>>,
        Result<Acted, GameError>,
    ),
    State(tokio::sync::oneshot::Sender<GameState>, Box<GameState>),
}

/// Everything the actor needs from outside.
pub struct ActorContext {
    /// Game settings.
    pub config: Arc<GameConfig>,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// The registry that runs the game: told of its end, hand-over and exit, and asked
    /// for rematches.
    pub exits: Weak<dyn GameExits>,
    /// Cancelled when the server stops for good: persist and end.
    pub shutdown: CancellationToken,
    /// Without Redis: where the game is stored as it is played.
    pub live: Option<super::store::LiveStore>,
    /// With Redis: the database's write-behind copy of what Redis takes.
    pub mirror: Option<super::mirror::Mirror>,
    /// Several nodes: Redis.
    pub cluster: Option<Arc<Cluster>>,
    /// With Redis: the games' keys there.
    pub store: Option<Arc<GameStore>>,
    /// Where the game is archived when it ends.
    pub archive: ArchiveSink,
}

/// The deadlines of an actor's turn besides its clock's flag: the first move's, the
/// archive's next try, the spectator count's announcement, the end of a finished game's
/// lingering. They share one timer in the actor's `select!`: every live game holds
/// that future while it waits, and each timer is 112 bytes.
struct Chores {
    first_move_by: Option<Instant>,
    retry_at: Option<Instant>,
    announce_at: Option<Instant>,
    linger_until: Option<Instant>,
}

impl Chores {
    /// The earliest deadline.
    fn next(&self) -> Option<Instant> {
        [
            self.first_move_by,
            self.retry_at,
            self.announce_at,
            self.linger_until,
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

/// However the actor's task ends (its game over, the node stopping, the game lost to
/// another node, or the task aborted), its followers are told that nothing more comes,
/// unless it handed its finished game over: they follow that from then on.
impl Drop for Actor {
    fn drop(&mut self) {
        if !self.handed_over {
            self.followers.end();
        }
    }
}

/// The state of one live game, owned by its task.
pub struct Actor {
    meta: Arc<GameMeta>,
    /// The node's, shared by all its games.
    ctx: Arc<ActorContext>,
    commands: super::queue::Receiver<GameCmd>,
    followers: Arc<Followers>,
    log: EventLog,
    record: Record,
    clock: GameClock,
    takeback_offer: Option<Color>,
    rematch_offer: Option<Color>,
    rematch_started: bool,
    /// Which players attended when the game last looked ([`Followers::attends`] is
    /// the truth; this is what `player_left` and `player_returned` were told from).
    present: [bool; 2],
    /// Until when a player told of the game's start, whose session has not joined yet,
    /// counts as connected: both players are told at once and their sessions join one
    /// after the other, so the first to join must not see the other as away.
    joining_until: [Option<Instant>; 2],
    away_since: [Option<Instant>; 2],
    spectators: HashMap<UserId, u32>,
    /// Spectator-count announcements, coalesced so that joins and leaves cannot flood
    /// the game's log.
    announced: Announced,
    /// When the player to make the first move of the game (White's, then Black's) was
    /// put on the move: the game is aborted if that move has not come in
    /// `game.first_move_secs`.
    first_move_from: Instant,
    ended_at: Option<Instant>,
    /// Since when neither player has a session in the game.
    players_gone_at: Option<Instant>,
    origin_ms: u64,
    /// The game's replication, and what it has stored.
    replica: Replica,
    /// The version of the last event shown to watchers; the rest wait for the replica
    /// to store them.
    shown: u64,
    /// A move's `move_ack` (its version, the mover's session, the frame), to go with
    /// the last event shown next, and the version of the last one that went so.
    ack: Option<(u64, FollowerId, Utf8Bytes)>,
    acked: Option<u64>,
    arch: ArchiveState,
    /// The finished game went to a [`FinishedGame`], which its followers now follow.
    handed_over: bool,
    /// A new game: its players are told of it once its start is stored.
    new_game: bool,
}

/// A new game's handle and its actor, not yet running, with its (not started) clock:
/// the caller spawns [`Actor::run`]. The handle's commands wait in a queue of
/// `game.actor_queue`.
pub fn channel(
    meta: Arc<GameMeta>,
    ctx: Arc<ActorContext>,
    record: Record,
    clock: GameClock,
) -> (GameHandle, Box<Actor>) {
    let (handle, commands, followers) = queue(&meta, &ctx.config);
    let actor = Actor::new(meta, ctx, record, clock, commands, followers);
    (handle, Box::new(actor))
}

/// A game's bounded command queue and its followers, and the handle on both.
fn queue(
    meta: &Arc<GameMeta>,
    config: &GameConfig,
) -> (GameHandle, super::queue::Receiver<GameCmd>, Arc<Followers>) {
    let (commands_tx, commands) = super::queue::queue(config.actor_queue);
    let followers = Followers::new(config.event_buffer);
    let handle = GameHandle::new(meta.clone(), commands_tx, followers.clone());
    (handle, commands, followers)
}

impl Actor {
    /// A new game, not yet running, with its (not started) clock.
    fn new(
        meta: Arc<GameMeta>,
        ctx: Arc<ActorContext>,
        record: Record,
        clock: GameClock,
        commands: super::queue::Receiver<GameCmd>,
        followers: Arc<Followers>,
    ) -> Actor {
        let now = Instant::now();
        let replica = Replica::new(
            meta.id.clone(),
            ctx.cluster.clone().zip(ctx.store.clone()),
            ctx.metrics.clone(),
        )
        .with_live(ctx.live.clone())
        .with_mirror(ctx.mirror.clone());
        // After a 7.3.10 break the first move is due once the break is over.
        let first_move_from = clock.break_until().map_or(now, |(until, _)| until);
        Actor {
            record,
            clock,
            meta: meta.clone(),
            ctx,
            commands,
            followers,
            log: EventLog::default(),
            takeback_offer: None,
            rematch_offer: None,
            rematch_started: false,
            present: [false; 2],
            // Tournament games judge absence (IDF art. 17) on `connected`: exact there.
            joining_until: if meta.spec.tournament.is_none() {
                [Some(now + START_JOIN_GRACE); 2]
            } else {
                [None; 2]
            },
            // Until a player's first session joins they count as away, so a player who
            // never shows up can be claimed against.
            away_since: [Some(now); 2],
            spectators: HashMap::new(),
            announced: Announced::default(),
            ended_at: None,
            players_gone_at: Some(now),
            first_move_from,
            origin_ms: wall_ms(),
            replica,
            shown: 0,
            ack: None,
            acked: None,
            arch: ArchiveState::default(),
            handed_over: false,
            new_game: true,
        }
    }

    /// The handle and actor, not yet running, of a game resumed or taken over from
    /// another node: its snapshot and events, the lease now held, and when its previous
    /// owner was last known alive (wall ms). The clock time that ran since then is given
    /// back to the side to move. The caller spawns [`Actor::run`].
    pub fn restored_channel(
        meta: Arc<GameMeta>,
        ctx: Arc<ActorContext>,
        snapshot: Snapshot,
        log: EventLog,
        lease: Option<Lease>,
        last_alive_ms: u64,
    ) -> (GameHandle, Box<Actor>) {
        let (handle, commands, followers) = queue(&meta, &ctx.config);
        let now = Instant::now();
        let now_ms = wall_ms();
        let to_instant = |ms: u64| {
            now.checked_sub(Duration::from_millis(now_ms.saturating_sub(ms)))
                .unwrap_or(now)
        };
        let mut clock = GameClock::restore(
            snapshot.clock,
            ctx.config.lag_policy,
            to_instant(snapshot.origin_ms),
        );
        let last_alive = to_instant(last_alive_ms.max(snapshot.saved_ms));
        clock.refund(last_alive, now);
        let synced = log.version();
        let replica = Replica::restored(
            meta.id.clone(),
            ctx.cluster.clone().zip(ctx.store.clone()),
            ctx.metrics.clone(),
            lease,
            synced,
        )
        .with_live(ctx.live.clone())
        .with_mirror(ctx.mirror.clone());
        let record = Record::from_parts(snapshot.game, snapshot.external);
        let mut arch = ArchiveState {
            archived: snapshot.archived,
            ..ArchiveState::default()
        };
        if snapshot.ended && !snapshot.archived {
            let announced = log.over_announced();
            match record.outcome() {
                // The previous owner died between the end and its `game_over`.
                Some(outcome) if !announced => {
                    arch.pending = Some((outcome, clock.state(now)));
                }
                _ => arch.next_try = Some(now),
            }
        }
        let actor = Actor {
            record,
            clock,
            meta,
            ctx,
            commands,
            followers,
            log,
            takeback_offer: snapshot.takeback_offer,
            rematch_offer: snapshot.rematch_offer,
            rematch_started: snapshot.rematch_started,
            present: [false; 2],
            joining_until: [None; 2],
            away_since: [Some(now); 2],
            spectators: HashMap::new(),
            announced: Announced::default(),
            ended_at: snapshot.ended.then_some(now),
            players_gone_at: Some(now),
            first_move_from: now,
            origin_ms: snapshot.origin_ms,
            replica,
            // Every restored event is stored already.
            shown: synced,
            ack: None,
            acked: None,
            arch,
            handed_over: false,
            new_game: false,
        };
        (handle, Box::new(actor))
    }

    /// Has the replica store the events not stored yet, then shows them to this
    /// node's watchers. `false`: another node owns the game now; nobody was shown them.
    ///
    /// The write's future (Redis's or the store's, ~1.4 KiB) is boxed: held inline, it
    /// would be part of the future of [`Actor::run`], which every live game holds while
    /// it waits for its next command.
    async fn sync(&mut self) -> bool {
        let written = Box::pin(self.replica.sync(&view!(self))).await;
        self.settle(written)
    }

    /// Renews the lease (writing what is pending). `false`: lost. Boxed as in
    /// [`Actor::sync`].
    async fn renew(&mut self) -> bool {
        let written = Box::pin(self.replica.renew(&view!(self))).await;
        self.settle(written)
    }

    /// Shows the events a write stored (or, Redis away, kept), unless it was fenced.
    fn settle(&mut self, written: Written) -> bool {
        if written == Written::Fenced {
            return false;
        }
        // A move's ack goes with the last event shown now (the move's own, or the
        // game's end it caused): the mover has seen all its move did once acked.
        // Events not shown yet are held whole ([`super::log::Held`]).
        let shown = self.log.held_after(self.shown);
        let last = shown.last().map(Held::version);
        let ack = self.ack.take();
        for event in shown.iter().filter_map(Held::whole) {
            let with = ack
                .as_ref()
                .filter(|(version, ..)| Some(event.version) == last && *version <= event.version)
                .map(|(_, to, frame)| (*to, frame.clone()));
            if self.followers.publish(event, with) {
                self.acked = ack.as_ref().map(|(version, ..)| *version);
            }
        }
        self.shown = self.log.version();
        // The events shown are held as their frames (a replay makes the mover's copy
        // anew, [`Actor::missed`]); those stored long ago go.
        self.log.shown(self.shown);
        self.log
            .trim(self.replica.stored_up_to(self.shown), self.shown);
        true
    }

    /// Gives the replica the state this new game's players start from, for its start
    /// notice: their nodes show it as `game_start` without asking this actor (see
    /// `remote`). Not for tournament games: they judge absence (IDF art. 17) on the
    /// players' joins, exactly, and the notice's state shows both players connected.
    /// Not made at all where no notice carries it (a node without Redis).
    fn give_start(&mut self) {
        if !self.replica.wants_start()
            || self.meta.spec.tournament.is_some()
            || self.ended_at.is_some()
        {
            return;
        }
        let refusals = [Color::White, Color::Black].map(|c| self.record.offer_refusal(c));
        self.replica.starting(StartState {
            state: self.state(None),
            legal: self.legal(),
            refusals,
        });
    }

    /// Tells a new game's players, once its start is stored, each with the
    /// `game_start` their sessions show without joining. None is made for a game lost
    /// at its first write (their joins are refused) nor for a tournament game (its
    /// players' joins judge their absence, IDF art. 17, as in [`Actor::give_start`]).
    fn announce_start(&mut self, owned: bool) {
        if !std::mem::take(&mut self.new_game) {
            return;
        }
        let Some(exits) = self.ctx.exits.upgrade() else {
            return;
        };
        let starts = (owned && self.meta.spec.tournament.is_none()).then(|| self.start_frames());
        exits.started(&self.meta.id, starts);
    }

    /// Each player's `game_start` (White's, then Black's): the state made once for no
    /// one, each player's own fields appended to its text.
    fn start_frames(&self) -> [StartFrame; 2] {
        let shared = ServerMessage::GameStart {
            game: self.state(None),
        }
        .to_json();
        let turn = self.record.turn();
        let legal = self.legal();
        [Color::White, Color::Black].map(|color| {
            let own: &[String] = if color == turn { &legal } else { &[] };
            let json = ServerMessage::with_mover_fields(&shared, own, self.draw_offer_of(color))
                .unwrap_or_else(|| {
                    ServerMessage::GameStart {
                        game: self.state(Some(color)),
                    }
                    .to_json()
                });
            StartFrame {
                version: self.version(),
                json: json.into(),
            }
        })
    }

    fn spec(&self) -> &GameSpec {
        &self.meta.spec
    }

    /// Runs the game until it has ended and is handed over (or has lingered, if it
    /// cannot be), or the server stops. The actor is boxed: an `async fn` taking it by
    /// value would hold it twice in its future (the argument and the moved binding),
    /// and every live game holds that future.
    pub async fn run(mut self: Box<Self>) {
        let linger = Duration::from_secs(self.ctx.config.linger_after_end_secs);
        let renew_ms = self
            .ctx
            .cluster
            .as_ref()
            .map_or(1000, |c| c.config.renew_ms);
        // The first write takes the lease: the first renewal is one period after it,
        // not at once (a wave of new games would renew each at its start).
        let renew_every = Duration::from_millis(renew_ms);
        let mut renew = tokio::time::interval_at(Instant::now() + renew_every, renew_every);
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let clustered = self.ctx.cluster.is_some();
        // The server's token is shared by every task; waiting on it locks its node on
        // every turn of this loop. A child is this game's alone.
        let shutdown = self.ctx.shutdown.child_token();
        self.conclude().await;
        self.give_start();
        let mut owned = self.sync().await;
        self.announce_start(owned);
        while owned {
            if self.done() && !linger.is_zero() && Box::pin(self.hand_over()).await {
                return;
            }
            let flag_at = if self.ended_at.is_none() {
                self.clock.flag_deadline()
            } else {
                None
            };
            // A finished game that cannot be handed over yet (its end not stored) lingers
            // for rematches once it is archived, and leaves memory early once neither
            // player follows it any more.
            let linger_until =
                self.ended_at
                    .filter(|_| self.arch.archived)
                    .map(|t| match self.players_gone_at {
                        Some(gone) => (t + linger).min(gone.max(t) + GONE_GRACE),
                        None => t + linger,
                    });
            let chores = Chores {
                first_move_by: self.first_move_deadline(),
                retry_at: self.arch.next_try,
                announce_at: self.announced.due,
                linger_until,
            };
            let followers = self.followers.clone();
            tokio::select! {
                biased;
                // Every event is stored already (in Redis or the database).
                () = shutdown.cancelled() => break,
                () = sleep_until(flag_at.unwrap_or_else(Instant::now)), if flag_at.is_some() => {
                    self.on_flag(Instant::now());
                    self.conclude().await;
                    owned = self.sync().await;
                }
                // Before the commands: a busy game must not starve its lease.
                _ = renew.tick(), if clustered => owned = self.renew().await,
                cmd = self.commands.recv() => match cmd {
                    Some(cmd) => {
                        let pending = self.handle(cmd);
                        self.conclude().await;
                        owned = self.sync().await;
                        self.answer(pending, owned);
                    }
                    None => break,
                },
                // One timer for the chores, in this order when several are due.
                () = sleep_until(chores.next().unwrap_or_else(Instant::now)), if chores.next().is_some() => {
                    let now = Instant::now();
                    if chores.first_move_by.is_some_and(|t| t <= now) {
                        self.on_first_move_timeout(now);
                        self.conclude().await;
                    } else if chores.retry_at.is_some_and(|t| t <= now) {
                        Box::pin(self.retry_archive()).await;
                    } else if chores.announce_at.is_some_and(|t| t <= now) {
                        self.announce_spectators(now);
                    } else if chores.linger_until.is_some_and(|t| t <= now) {
                        break;
                    }
                    owned = self.sync().await;
                }
                () = followers.changed() => {
                    self.reconcile(Instant::now());
                    owned = self.sync().await;
                }
            }
        }
        if owned {
            let done = self.ended_at.is_some() && self.arch.archived;
            Box::pin(self.replica.release(done)).await;
        } else {
            self.replica.abandon();
        }
        self.meta.live.store(false, Ordering::Relaxed);
        if let Some(exits) = self.ctx.exits.upgrade() {
            exits.exited(&self.meta);
        }
        self.ctx.metrics.games_live.dec();
    }

    /// Over, archived, every event shown and stored: nothing is left for the actor to
    /// do but answer rematches and late watchers, which a [`FinishedGame`] does.
    fn done(&self) -> bool {
        let version = self.version();
        self.ended_at.is_some()
            && self.arch.archived
            && self.arch.pending.is_none()
            && self.shown == version
            && self.replica.stored_up_to(version) == version
    }

    /// Hands the finished game over to a [`FinishedGame`] held by the registry: the
    /// stored copy is released (as at any end), every handle sends its commands there
    /// from now on, and those already queued here are answered there. `false` if it
    /// cannot be (the registry is gone): the actor goes on as before.
    async fn hand_over(&mut self) -> bool {
        let Some(exits) = self.ctx.exits.upgrade() else {
            return false;
        };
        let parts = self.finished_parts();
        let cluster = self.ctx.cluster.clone();
        let game = match FinishedGame::new(parts, cluster, self.rematch_starter()) {
            Ok(game) => Arc::new(game),
            Err(e) => {
                tracing::warn!(game = %self.meta.id, error = %e, "cannot hand the finished game over");
                return false;
            }
        };
        self.replica.release(true).await;
        self.handed_over = true;
        exits.handed_over(game.clone());
        self.commands.close();
        while let Some(cmd) = self.commands.recv().await {
            game.handle(cmd);
        }
        self.ctx.metrics.games_live.dec();
        true
    }

    /// How the [`FinishedGame`] this one becomes starts its rematch: through the
    /// registry, while there is one.
    fn rematch_starter(&self) -> StartRematch {
        let exits = self.ctx.exits.clone();
        Arc::new(move |spec, previous| {
            let exits = exits.upgrade().ok_or(GameError::ShuttingDown)?;
            exits.rematch(spec, previous)
        })
    }

    /// What a [`FinishedGame`] keeps of this one.
    fn finished_parts(&self) -> FinishedParts {
        let held = self.log.held_after(0);
        let from = held.iter().rposition(Held::is_over).unwrap_or(held.len());
        let now = Instant::now();
        let first = self.record.first_to_move();
        let carry = self
            .record
            .outcome()
            .filter(|o| drawn(o.winner, o.reason))
            .and_then(|_| self.clock.next_game(now, first))
            .map(|_| self.clock.clone());
        FinishedParts {
            meta: self.meta.clone(),
            followers: self.followers.clone(),
            state: self.state(None),
            frames: held[from..].iter().map(|e| e.json().clone()).collect(),
            rematch_offer: self.rematch_offer,
            rematch_started: self.rematch_started,
            carry,
            spectators: self.spectators.values().sum(),
            ended_at: self.ended_at.unwrap_or(now),
            players_gone_at: self.players_gone_at,
        }
    }

    fn handle(&mut self, cmd: GameCmd) -> Option<Pending> {
        match cmd {
            GameCmd::Join(join) => {
                let JoinCmd {
                    user,
                    role,
                    since,
                    reply,
                } = *join;
                let result = self.join(user, role, since);
                Some(Pending::Join(reply, Box::new(result)))
            }
            GameCmd::Leave(leave) => {
                let (user, role) = *leave;
                self.leave(&user, role);
                None
            }
            GameCmd::Act(act) => {
                let ActCmd {
                    user,
                    intent,
                    ack,
                    reply,
                } = *act;
                let result = self.act(&user, intent).map(|version| Acted {
                    version,
                    draw_offer: self
                        .meta
                        .color_of(&user)
                        .and_then(|c| self.draw_offer_of(c)),
                    acked: false,
                });
                if let (Ok(acted), Some(to)) = (&result, ack) {
                    self.ack = Some((acted.version, to.follower, self.move_ack(acted, to)));
                }
                Some(Pending::Act(reply, result))
            }
            GameCmd::State { reply } => {
                let state = self.state(Some(self.record.turn()));
                Some(Pending::State(reply, Box::new(state)))
            }
            GameCmd::Resync => {
                self.replica.mark_dirty();
                None
            }
        }
    }

    /// Sends an answer once its events are written. A game lost to another node
    /// refuses the intent and the join (its successor never saw what they made), and
    /// drops a state request (it may show events never stored).
    fn answer(&self, pending: Option<Pending>, owned: bool) {
        match pending {
            None => {}
            Some(Pending::Join(reply, result)) => {
                let result = if owned {
                    *result
                } else {
                    Err(GameError::Unavailable(
                        "the game moved to another node: resume it".into(),
                    ))
                };
                let _ = reply.send(result);
            }
            Some(Pending::Act(reply, result)) => {
                let result = if owned {
                    result.map(|acted| Acted {
                        acked: self.acked == Some(acted.version),
                        ..acted
                    })
                } else {
                    Err(GameError::Unavailable(
                        "the game moved to another node: resume it".into(),
                    ))
                };
                let _ = reply.send(result);
            }
            Some(Pending::State(reply, state)) if owned => {
                let _ = reply.send(*state);
            }
            Some(Pending::State(..)) => {}
        }
    }

    /// The `move_ack` of a move that made the event of `acted`'s version.
    fn move_ack(&self, acted: &Acted, to: AckTo) -> Utf8Bytes {
        ServerMessage::MoveAck {
            game_id: self.meta.id.clone(),
            move_id: to.move_id,
            version: acted.version,
            draw_offer_refusal: acted.draw_offer,
        }
        .to_json()
        .into()
    }

    /// Numbers an event that leaves the position as it was, for everyone alike.
    fn emit(&mut self, event: GameEvent) -> u64 {
        self.push(event, None)
    }

    /// Numbers an event that puts a side on the move (`move`, `taken_back`, given
    /// without legal moves): that side's player gets a copy with them.
    fn emit_position(&mut self, event: GameEvent) -> u64 {
        let to_move = self.to_move();
        self.push(event, to_move)
    }

    fn push(&mut self, event: GameEvent, to_move: Option<ToMove>) -> u64 {
        let version = self.log.version() + 1;
        let versioned = Versioned::new(self.meta.id.clone(), version, event, to_move);
        // Held until stored (see `Actor::sync`): a move that ends the game also waits
        // for its `game_over`, which waits for the archive, before this node's followers
        // see it (other nodes get it once the end is stored, before the archive).
        self.log.push(Arc::new(versioned));
        version
    }

    /// The side to move, its legal moves and its draw offer permission, while there are
    /// legal moves and the game is on.
    fn to_move(&self) -> Option<ToMove> {
        let legal = self.legal();
        (!legal.is_empty()).then(|| {
            let color = self.record.turn();
            ToMove {
                color,
                legal,
                draw_offer: self.draw_offer_of(color),
            }
        })
    }

    /// Whether the player of `color` may offer a draw in their present turn
    /// (`Some(None)`: yes; `Some(Some(_))`: why not), while the game is on; `None` once
    /// it is over. Cheap: no search.
    fn draw_offer_of(&self, color: Color) -> Option<Option<OfferRefusal>> {
        self.is_on().then(|| self.record.offer_refusal(color))
    }

    /// The legal moves of the side to move (none once over): made when asked, once
    /// a move for its mover's copy, not held (a chess position's are ~1 KiB).
    fn legal(&self) -> Vec<String> {
        if self.is_on() {
            self.record.position().legal_move_texts()
        } else {
            Vec::new()
        }
    }

    /// Is the game still being played (not ended, no outcome on the record)?
    fn is_on(&self) -> bool {
        self.ended_at.is_none() && self.record.outcome().is_none()
    }

    fn version(&self) -> u64 {
        self.log.version()
    }

    fn clock_state(&self) -> ClockState {
        self.clock.state(Instant::now())
    }

    /// The full state now, with the legal moves if `plays` is the side to move (`None`:
    /// a spectator, who never gets them).
    pub fn state(&self, plays: Option<Color>) -> GameState {
        let spec = self.spec();
        let turn = self.record.turn();
        GameState {
            game_id: self.meta.id.clone(),
            ruleset: Some(self.record.ruleset()),
            version: self.version(),
            variant: spec.variant,
            time_control: spec.time_control,
            speed: Some(self.meta.speed),
            rated: spec.rated,
            white: spec.white.clone(),
            black: spec.black.clone(),
            initial_fen: self.record.initial_fen(),
            fen: self.record.fen(),
            moves: self.record.moves().map(str::to_owned).collect(),
            last_move: self.record.last_move().cloned(),
            turn,
            legal_moves: if plays == Some(turn) {
                self.legal()
            } else {
                Vec::new()
            },
            draw_offer_refusal: plays.and_then(|c| self.draw_offer_of(c)),
            clock: self.clock_state(),
            draw_offer: self.record.pending_offer(),
            takeback_offer: self.takeback_offer,
            connected: [
                self.is_connected(Color::White),
                self.is_connected(Color::Black),
            ],
            away: self.away(),
            spectators: self.spectators.values().sum(),
            outcome: self.record.outcome(),
            archived: false,
            berserk: [Color::White, Color::Black]
                .into_iter()
                .filter(|&c| self.clock.is_berserk(c))
                .collect(),
            arena: spec.arena.clone(),
            tournament: spec.tournament.clone(),
            created_ms: Some(self.origin_ms),
            break_until_ms: self
                .clock
                .break_until()
                .filter(|_| self.record.ply() == 0)
                .map(|(_, wall)| wall),
        }
    }

    /// The players of a live game who have left it (`player_left` told), with the time
    /// left until the opponent may claim.
    fn away(&self) -> Vec<Away> {
        if self.ended_at.is_some() {
            return Vec::new();
        }
        let now = Instant::now();
        let timeout = self.disconnect_timeout();
        [Color::White, Color::Black]
            .into_iter()
            .filter(|c| !self.is_connected(*c))
            .filter_map(|color| {
                let since = self.away_since[color.index()]?;
                let left = (since + timeout).saturating_duration_since(now);
                Some(Away {
                    color,
                    claim_after_ms: u64::try_from(left.as_millis()).unwrap_or(u64::MAX),
                })
            })
            .collect()
    }

    /// Does the player of `color` attend the game (a session's outbox, an
    /// attendance), or is their session about to join it (see `joining_until`)?
    fn is_connected(&self, color: Color) -> bool {
        self.followers.attends(color)
            || self.joining_until[color.index()].is_some_and(|t| Instant::now() < t)
    }

    /// Tells what changed of who attends since the game last looked: a player whose
    /// last entry went is away (`player_left`, unless the game is over), one who came
    /// back is told returned if their leaving was told.
    fn reconcile(&mut self, now: Instant) {
        for color in [Color::White, Color::Black] {
            let i = color.index();
            let attends = self.followers.attends(color);
            if attends == self.present[i] {
                continue;
            }
            self.present[i] = attends;
            self.joining_until[i] = None;
            tracing::debug!(game = %self.meta.id, ?color, attends, "attendance changed");
            if attends {
                self.players_gone_at = None;
                let was_announced =
                    self.away_since[i].take().is_some() && self.log.left_announced(color);
                if was_announced && self.ended_at.is_none() {
                    self.emit(GameEvent::PlayerReturned { color });
                }
                continue;
            }
            if self.present == [false, false] {
                self.players_gone_at = Some(now);
            }
            if self.ended_at.is_none() {
                self.away_since[i] = Some(now);
                let timeout = self.disconnect_timeout();
                self.emit(GameEvent::PlayerLeft {
                    color,
                    claim_after_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
                });
            }
        }
    }

    fn join(
        &mut self,
        user: UserId,
        role: Role,
        since: Option<u64>,
    ) -> Result<JoinReply, GameError> {
        let plays = match role {
            Role::Player => Some(self.meta.color_of(&user).ok_or(GameError::NotAPlayer)?),
            Role::Spectator => None,
        };
        match plays {
            // The player's session (or attendance) came before its join.
            Some(_) => self.reconcile(Instant::now()),
            None => {
                *self.spectators.entry(user).or_default() += 1;
                self.spectators_changed(Instant::now());
            }
        }
        let missed = match since {
            Some(v) => self.missed(v, plays),
            None => Some(Vec::new()),
        };
        Ok(JoinReply {
            state: self.state(plays),
            missed,
        })
    }

    /// The frames of the events after version `since` for a follower who plays `plays`,
    /// as it would have had them live, except that only the last event that put a side
    /// on the move carries legal moves: those of now, if `plays` is to move now. `None`
    /// if some of those events are no longer held: the follower gets the state instead.
    fn missed(&self, since: u64, plays: Option<Color>) -> Option<Vec<Utf8Bytes>> {
        let missed = self.log.after(since)?;
        let mut frames: Vec<Utf8Bytes> = missed.iter().map(|e| e.json().clone()).collect();
        let last_position = missed.iter().rposition(Held::puts_on_move);
        let turn = self.record.turn();
        if let Some(i) = last_position
            && plays == Some(turn)
            && self.is_on()
        {
            let held = &missed[i];
            let made = match held.mover() {
                Some(m) if m.color == turn => Some(m.json.clone()),
                // Shown already (its copy let go), or restored from the store (taken
                // over, or after a restart): made now, legal moves and all.
                _ => held
                    .versioned()
                    .zip(self.to_move())
                    .and_then(|(e, to_move)| {
                        let id = self.meta.id.clone();
                        let again = Versioned::new(id, e.version, e.event.clone(), Some(to_move));
                        again.mover.map(|m| m.json)
                    }),
            };
            if let Some(frame) = made {
                frames[i] = frame;
            }
        }
        Some(frames)
    }

    fn leave(&mut self, user: &UserId, role: Role) {
        match role {
            // Whether a player is away is read from who attends, not counted.
            Role::Player => self.reconcile(Instant::now()),
            Role::Spectator => {
                let Some(n) = self.spectators.get_mut(user) else {
                    return;
                };
                *n -= 1;
                if *n == 0 {
                    self.spectators.remove(user);
                }
                self.spectators_changed(Instant::now());
            }
        }
    }

    /// Schedules an announcement of the spectator count: at once if none was made in
    /// the last [`SPECTATOR_ANNOUNCE_EVERY`], otherwise when that much time has passed.
    fn spectators_changed(&mut self, now: Instant) {
        let a = &mut self.announced;
        if a.due.is_none() {
            a.due = Some(
                a.last
                    .map_or(now, |t| (t + SPECTATOR_ANNOUNCE_EVERY).max(now)),
            );
        }
    }

    /// Announces the spectator count if it changed since the last announcement.
    fn announce_spectators(&mut self, now: Instant) {
        let count: u32 = self.spectators.values().sum();
        let a = &mut self.announced;
        a.due = None;
        if count != a.count {
            a.count = count;
            a.last = Some(now);
            self.emit(GameEvent::Spectators { count });
        }
    }

    fn disconnect_timeout(&self) -> Duration {
        self.ctx.config.disconnect_timeout(self.meta.speed)
    }

    fn act(&mut self, user: &UserId, intent: Intent) -> Result<u64, GameError> {
        let color = self.meta.color_of(user).ok_or(GameError::NotAPlayer)?;
        let now = Instant::now();
        // A flag whose grace has run out but whose timer has not fired yet counts first.
        if self.ended_at.is_none() && self.clock.flag_deadline().is_some_and(|t| t <= now) {
            self.on_flag(now);
        }
        let over = self.ended_at.is_some();
        let them = color.opponent();
        match intent {
            Intent::Rematch => return self.rematch(color),
            Intent::RematchDecline => {
                if !over || self.rematch_offer != Some(them) {
                    return Err(GameError::NoOffer);
                }
                self.rematch_offer = None;
                return Ok(self.emit(GameEvent::RematchDeclined { by: color }));
            }
            _ if over => return Err(GameError::Over),
            _ => {}
        }
        match intent {
            Intent::Move {
                text,
                lag_ms,
                think_ms,
                offer,
            } => self.play(color, &text, offer, lag_ms, think_ms, now),
            Intent::DrawOffer => {
                match self.record.pending_offer() {
                    // Offering against a standing offer accepts it.
                    Some(c) if c == them => {
                        let outcome = self.record.accept_draw(color)?;
                        return Ok(self.finish_with(outcome, now));
                    }
                    Some(_) => return Ok(self.version()),
                    None => {}
                }
                self.record.offer_draw(color)?;
                Ok(self.emit(GameEvent::DrawOffered { by: color }))
            }
            Intent::DrawAccept => {
                let outcome = self.record.accept_draw(color)?;
                Ok(self.finish_with(outcome, now))
            }
            Intent::DrawDecline => {
                self.record.decline_draw(color)?;
                Ok(self.emit(GameEvent::DrawDeclined { by: color }))
            }
            Intent::DrawClaim => self.claim(color, None, 0, now),
            Intent::DrawClaimWithMove { text, lag_ms } => {
                self.claim(color, Some(&text), lag_ms, now)
            }
            Intent::Berserk => self.berserk(color, now),
            Intent::Resign => {
                let outcome = self.record.resign(color)?;
                Ok(self.finish_with(outcome, now))
            }
            Intent::Abort => {
                let outcome = self.record.abort(color)?;
                Ok(self.finish_with(outcome, now))
            }
            Intent::TakebackOffer => {
                if self.spec().rated {
                    return Err(GameError::TakebackNotAllowed("no takebacks in rated games"));
                }
                if self.takeback_offer == Some(them) {
                    return self.take_back(them, now);
                }
                if self.record.moves_made(color) == 0 {
                    return Err(GameError::TakebackNotAllowed(
                        "you have no move to take back",
                    ));
                }
                self.takeback_offer = Some(color);
                Ok(self.emit(GameEvent::TakebackOffered { by: color }))
            }
            Intent::TakebackAccept => {
                if self.takeback_offer != Some(them) {
                    return Err(GameError::NoOffer);
                }
                self.take_back(them, now)
            }
            Intent::TakebackDecline => {
                if self.takeback_offer != Some(them) {
                    return Err(GameError::NoOffer);
                }
                self.takeback_offer = None;
                Ok(self.emit(GameEvent::TakebackDeclined { by: color }))
            }
            Intent::ClaimAbandoned(claim) => {
                let gone_long_enough = !self.followers.attends(them)
                    && self.away_since[them.index()]
                        .is_some_and(|t| now >= t + self.disconnect_timeout());
                if !gone_long_enough {
                    return Err(GameError::ClaimRefused(
                        "your opponent has not been away long enough".into(),
                    ));
                }
                let outcome = Outcome {
                    winner: (claim == AbandonClaim::Win).then_some(color),
                    reason: OutcomeReason::Abandoned,
                    detail: None,
                };
                self.record.finish_external(outcome.clone());
                Ok(self.finish_with(outcome, now))
            }
            Intent::Rematch | Intent::RematchDecline => Err(GameError::Over),
        }
    }

    fn play(
        &mut self,
        color: Color,
        text: &str,
        offer: bool,
        lag_ms: u64,
        think_ms: Option<u64>,
        now: Instant,
    ) -> Result<u64, GameError> {
        if let Some((until, wall)) = self.clock.break_until()
            && self.record.ply() == 0
            && now < until
        {
            return Err(GameError::BreakNotOver(wall));
        }
        let played = self.record.play(color, text, offer)?;
        self.after_move(color, played, lag_ms, think_ms, now)
    }

    /// A draw claim, on the position now or with the declared next move. A refused
    /// claim with a move lets the move stand (IDF s.2 13, FIDE 9.5): it is timed and
    /// announced like any move, and the claim is still answered `claim_refused`.
    fn claim(
        &mut self,
        color: Color,
        intended: Option<&str>,
        lag_ms: u64,
        now: Instant,
    ) -> Result<u64, GameError> {
        match self.record.claim_draw(color, intended)? {
            Ok(outcome) => Ok(self.finish_with(outcome, now)),
            Err(failure) => {
                let short = if intended.is_none() {
                    match self.short_of_time_claim(color, now) {
                        Ok(outcome) => return Ok(self.finish_with(outcome, now)),
                        Err(why) => why,
                    }
                } else {
                    None
                };
                if let Some(played) = failure.played {
                    self.after_move(color, played, lag_ms, None, now)?;
                }
                if failure.offered && self.ended_at.is_none() {
                    self.emit(GameEvent::DrawOffered { by: color });
                }
                let mut message = failure.message;
                if let Some(why) = short {
                    message.push_str(&format!("; {} does not apply: {why}", time_claim::ARTICLE));
                }
                Err(GameError::ClaimRefused(message))
            }
        }
    }

    /// IDF art. 7.3.9: a player with less than a minute left, in a control to the end of
    /// the game without increment, records a draw in a won position. The draw, or why
    /// not (`None`: the article does not belong to this game's rules).
    fn short_of_time_claim(
        &mut self,
        color: Color,
        now: Instant,
    ) -> Result<Outcome, Option<String>> {
        let ruleset = self.record.ruleset();
        if !time_claim::applies(ruleset) || self.ended_at.is_some() {
            return Err(None);
        }
        let left = self
            .clock
            .short_of_time_to_the_end(color, now)
            .map_err(Some)?;
        let why = time_claim::won_position(self.record.position(), color, ruleset).ok_or_else(|| {
            Some("the server cannot show the position won (a forced win within a few plies, or three kings against a lone king off the long diagonal)".to_string())
        })?;
        let outcome = Outcome {
            winner: None,
            reason: shared::protocol::OutcomeReason::RuleDraw,
            detail: Some(format!("{} ({} ms left, {why})", time_claim::ARTICLE, left)),
        };
        self.record.finish_external(outcome.clone());
        Ok(outcome)
    }

    /// What follows a move the record has taken: the clock is pressed, the move and
    /// what it caused are announced.
    fn after_move(
        &mut self,
        color: Color,
        played: PlayedMove,
        lag_ms: u64,
        think_ms: Option<u64>,
        now: Instant,
    ) -> Result<u64, GameError> {
        // Black's first move is timed from White's.
        self.first_move_from = now;
        let pressed = if self.record.ply() == 1 {
            // The clocks start with the first move: Black's runs from White's move.
            self.clock.first_move(now).map(|()| None)
        } else {
            self.clock.press(color, now, lag_ms, think_ms)
        };
        if !matches!(pressed, Ok(None)) {
            // Out of time by the clock's own reckoning (its timer was about to fire):
            // the move does not stand.
            self.record.take_back(1)?;
            self.on_flag(now);
            return Err(GameError::Over);
        }
        self.ctx.metrics.moves.inc();
        if played.declined_offer {
            self.emit(GameEvent::DrawDeclined { by: color });
        }
        self.takeback_offer = None;
        let version = self.emit_position(GameEvent::Move {
            by: color,
            played: played.info,
            fen: self.record.fen(),
            legal_moves: Vec::new(),
            draw_offer_refusal: None,
            clock: self.clock.state(now),
        });
        if let Some(outcome) = self.record.outcome() {
            self.finish_with(outcome, now);
        } else if played.offered {
            self.emit(GameEvent::DrawOffered { by: color });
        }
        Ok(version)
    }

    fn take_back(&mut self, requester: Color, now: Instant) -> Result<u64, GameError> {
        let plies = if self.record.turn() == requester {
            2
        } else {
            1
        };
        let plies = plies.min(self.record.ply());
        self.record.take_back(plies)?;
        self.takeback_offer = None;
        self.first_move_from = now;
        if self.record.ply() == 0 {
            self.clock.reset(self.record.first_to_move());
        } else if plies == 1 {
            // The turn goes back to the requester; nobody is charged for the takeback.
            let _ = self.clock.hand_back(now);
        }
        Ok(self.emit_position(GameEvent::TakenBack {
            plies: plies as u32,
            fen: self.record.fen(),
            legal_moves: Vec::new(),
            draw_offer_refusal: None,
            clock: self.clock.state(now),
        }))
    }

    /// While a player has yet to make their first move: when the game is aborted if
    /// they do not.
    fn first_move_deadline(&self) -> Option<Instant> {
        let secs = self.ctx.config.first_move_secs;
        (secs > 0 && self.ended_at.is_none() && self.record.ply() < 2)
            .then(|| self.first_move_from + Duration::from_secs(secs))
    }

    /// The first move did not come in time: the game is aborted, charged to the player
    /// who did not move.
    fn on_first_move_timeout(&mut self, now: Instant) {
        if self.first_move_deadline().is_none_or(|d| d > now) {
            return;
        }
        let late = self.record.turn();
        if let Ok(mut outcome) = self.record.abort(late) {
            outcome.detail = Some(super::NO_START.into());
            // Kept with its detail in the record too: the state, the stored game and a
            // successor's `game_over` then tell the same end as this one.
            self.record.finish_external(outcome.clone());
            self.finish_with(outcome, now);
        }
    }

    fn on_flag(&mut self, now: Instant) {
        if self.ended_at.is_some() {
            return;
        }
        let Some(loser) = self.clock.settle_flag(now) else {
            return;
        };
        self.ctx.metrics.flags.inc();
        if let Ok(outcome) = self.record.flag(loser) {
            self.finish_with(outcome, now);
        }
    }

    /// Ends the game with `outcome`, already recorded in the record. Its `game_over`
    /// is emitted by [`Self::conclude`] once the game is archived; the version returned
    /// is the one that event will have.
    fn finish_with(&mut self, outcome: Outcome, now: Instant) -> u64 {
        self.clock.stop(now);
        self.takeback_offer = None;
        self.ended_at = Some(now);
        self.meta.live.store(false, Ordering::Relaxed);
        self.ctx.metrics.games_finished.inc();
        if let Some(exits) = self.ctx.exits.upgrade() {
            exits.ended(&self.meta);
        }
        self.arch.pending = Some((outcome, self.clock.state(now)));
        self.version() + 1
    }

    /// The game as the archive stores it.
    fn archived_game(&self, outcome: &Outcome) -> crate::db::ArchivedGame {
        let berserk: Vec<Color> = [Color::White, Color::Black]
            .into_iter()
            .filter(|&c| self.clock.is_berserk(c))
            .collect();
        archived_game(
            &self.meta,
            &self.record,
            (self.log.move_clocks(), &berserk),
            outcome,
            self.origin_ms,
            wall_ms(),
        )
    }

    /// A game that just ended: stores its end (Redis, or the live-game store), archives
    /// it (waiting at most `database.archive_wait_ms`) and then emits `game_over` with
    /// the rating changes. If the database is slow or down, `game_over` goes out without
    /// them and the write is retried.
    ///
    /// The end is stored before the archive: a node that dies between the two leaves a
    /// game its successor knows is over (it archives and announces that end), never a
    /// game it would go on with and end a second time while the archive, which keeps
    /// the first record of a game, holds the first end. A game lost to another node is
    /// not archived here: its new owner decides its end.
    async fn conclude(&mut self) {
        // Called after every command: the ending's futures (the archive, the database)
        // are large and run once, so they are boxed rather than held by every game.
        if let Some((outcome, clock)) = self.arch.pending.take() {
            Box::pin(self.conclude_now(outcome, clock)).await;
        }
    }

    async fn conclude_now(&mut self, outcome: Outcome, clock: ClockState) {
        // Even with no new event (a flag, a first move not made), the end is written.
        self.replica.mark_dirty();
        if self.replica.sync(&view!(self)).await == Written::Fenced {
            // The next sync is refused too and the actor stops.
            return;
        }
        if let Some(store) = &self.ctx.store {
            let _ = store.tv_remove(self.meta.spec.variant, &self.meta.id).await;
        }
        let game = self.archived_game(&outcome);
        let ratings = self.archive_renewing(&game, self.ctx.archive.wait).await;
        match ratings {
            Some(_) => self.archived(),
            None => self.archive_failed(),
        }
        self.emit(GameEvent::GameOver {
            outcome,
            clock,
            ratings: ratings.filter(|r| r.white.is_some() || r.black.is_some()),
        });
    }

    /// Archives `game`, waiting at most `wait`, and meanwhile keeps renewing the
    /// game's lease: a slow database must not hand a live node's game to another node.
    /// A lease lost meanwhile is found by the next write, which stops the actor.
    async fn archive_renewing(
        &mut self,
        game: &crate::db::ArchivedGame,
        wait: Duration,
    ) -> Option<shared::protocol::Ratings> {
        let sink = self.ctx.archive.clone();
        let archive = try_archive(&sink, game, wait);
        tokio::pin!(archive);
        let Some(every) = self.ctx.cluster.as_ref().map(|c| c.config.renew_ms) else {
            return archive.await;
        };
        let every = Duration::from_millis(every);
        let mut renew = tokio::time::interval_at(Instant::now() + every, every);
        let mut owned = true;
        loop {
            tokio::select! {
                biased;
                ratings = &mut archive => return ratings,
                _ = renew.tick(), if owned => owned = self.renew().await,
            }
        }
    }

    fn archived(&mut self) {
        if self.arch.failures > 0 {
            self.ctx.metrics.archive_pending.dec();
        }
        self.arch.archived = true;
        self.arch.next_try = None;
        self.arch.failures = 0;
        self.ctx.metrics.games_archived.inc();
    }

    fn archive_failed(&mut self) {
        if self.arch.failures == 0 {
            self.ctx.metrics.archive_pending.inc();
        } else {
            self.ctx.metrics.archive_retries.inc();
        }
        self.arch.failures += 1;
        self.arch.next_try = Some(Instant::now() + self.arch.backoff(self.ctx.archive.retry_max));
    }

    /// Tries again to archive a game whose `game_over` went out without it; on
    /// success, tells everyone with an `archived` event.
    async fn retry_archive(&mut self) {
        let Some(outcome) = self.record.outcome() else {
            self.arch.next_try = None;
            return;
        };
        let game = self.archived_game(&outcome);
        let wait = self.ctx.archive.retry_max.max(self.ctx.archive.wait);
        match self.archive_renewing(&game, wait).await {
            Some(ratings) => {
                self.archived();
                self.emit(GameEvent::Archived {
                    ratings: Some(ratings).filter(|r| r.white.is_some() || r.black.is_some()),
                });
            }
            None => self.archive_failed(),
        }
    }

    /// `color` goes berserk: allowed in arena games that allow it, before the player's
    /// first move.
    fn berserk(&mut self, color: Color, now: Instant) -> Result<u64, GameError> {
        if !self.spec().berserk {
            return Err(GameError::BerserkNotAllowed(
                "berserk is allowed only in arenas that allow it",
            ));
        }
        let moved = if color == self.record.first_to_move() {
            self.record.ply() >= 1
        } else {
            self.record.ply() >= 2
        };
        if moved {
            return Err(GameError::BerserkNotAllowed(
                "berserk only before your first move",
            ));
        }
        self.clock
            .berserk(color)
            .map_err(|_| GameError::BerserkNotAllowed("already berserk"))?;
        Ok(self.emit(GameEvent::Berserk {
            by: color,
            clock: self.clock.state(now),
        }))
    }

    fn rematch(&mut self, color: Color) -> Result<u64, GameError> {
        if self.ended_at.is_none() {
            return Err(GameError::RematchNotAllowed("the game is not over"));
        }
        match rematch_step(self.spec(), self.rematch_started, self.rematch_offer, color)? {
            RematchStep::Standing => return Ok(self.version()),
            RematchStep::Offer => {
                self.rematch_offer = Some(color);
                return Ok(self.emit(GameEvent::RematchOffered { by: color }));
            }
            RematchStep::Start => {}
        }
        let exits = self.ctx.exits.upgrade().ok_or(GameError::ShuttingDown)?;
        let spec = self.spec();
        // A match clock runs on through drawn games until the first win (INT 3.6.4).
        let was_drawn = self
            .record
            .outcome()
            .is_some_and(|o| drawn(o.winner, o.reason));
        let handle = exits.rematch(rematch_spec(spec), was_drawn.then_some(&self.clock))?;
        self.rematch_started = true;
        self.rematch_offer = None;
        Ok(self.emit(GameEvent::RematchStarted {
            game_id: handle.id().clone(),
        }))
    }
}
