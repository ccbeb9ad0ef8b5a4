//! Games owned by another node, and this node's games served to the others, over the
//! cluster's transport ([`crate::cluster`]). A session anywhere gets an ordinary
//! [`GameHandle`]; for a remote game its channels lead to a proxy task here, which
//! sends each command over pub/sub to `cmd:<game>` (whoever owns the game listens
//! there, so the proxy never needs to know which node that is), waits for the answer
//! on its node's `node:<id>` channel, and relays the game's events from `ev:<game>`
//! to the handle's followers, in version order, filling any gap from the game's log
//! in Redis. When the owner changes (takeover), the proxy joins its sessions again on
//! the new owner. As it ends it tells the registry that made it, through
//! [`GameExits`]: it never names the registry.
//!
//! A game's start notice holds the state its players start from and what a proxy needs
//! of the game ([`Started`]): the proxy is then made without reading Redis
//! ([`spawn_started_proxy`]), and answers each player's first join itself, sending the
//! join on to the owner behind it, ahead of anything the session sends next
//! (`docs/cluster.md`, "Game starts").
//!
//! On the owner's side, [`serve`] answers the commands arriving on `cmd:<game>` through
//! the local actor's handle, and holds an attendance ([`Followers::attend`]) for each
//! remote session of a player that joined, until its leave, or until its node is no
//! longer alive ([`Cluster::alive_nodes`]): a node that dies takes its players'
//! presence with it. A proxy tells the owner of a player's leave when the last entry
//! of theirs here goes, however it goes (a session that ends without leaving).
//!
//! Order and bounds: a proxy hands its calls to one caller task over a bounded queue
//! and the caller makes them one after another, and [`serve`] answers one command at a
//! time in arrival order, so the commands of one game reach its actor in the order
//! they were given. Every queue is bounded ([`PROXY_QUEUE`], [`SERVE_QUEUE`]); a full
//! one is counted in `damka_cluster_queue_full_total`. Every task runs on the
//! cluster's tracker.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use shared::protocol::{ErrorCode, GameEvent, GameId, GameState, ServerMessage, UserId};
use shared::rules::{Color, Position, Variant};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::exits::GameExits;
use super::redis_store::GameStore;
use super::replica::{EVENT_PREFIX, MOVER_PREFIX, OWNER_PREFIX};
use super::snapshot::Snapshot;
use super::{
    ActCmd, Acted, Followers, Following, GameCmd, GameError, GameHandle, GameMeta, GameSpec,
    Intent, JoinCmd, JoinReply, MoverCopy, Role, START_JOIN_GRACE, ToMove, Versioned,
};
use crate::cluster::Cluster;
use crate::cluster::member::AliveNodes;
use crate::cluster::member::Started;
use crate::cluster::redis::wall_ms;
use crate::cluster::rpc::{CallError, Request};

/// Commands waiting for a served game's actor.
pub const SERVE_QUEUE: usize = 256;
/// Calls waiting for a proxy's caller task.
pub const PROXY_QUEUE: usize = 256;
/// Published events waiting for a proxy.
const EVENT_QUEUE: usize = 1_024;
/// When a proxy made from a start notice first reads the game's log, for the events
/// published before it subscribed.
const FIRST_CHECK_STARTED: Duration = Duration::from_millis(250);
/// How much shorter than the owner's start grace a proxy answers joins from a start
/// notice (ms): room for the nodes' wall clocks to differ.
const START_CLOCK_MARGIN_MS: u64 = 1_000;

/// What a proxy asks of a game's owner.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// Join as player or spectator.
    Join {
        /// Who.
        user: UserId,
        /// As what.
        role: Role,
        /// Resume after this version.
        since: Option<u64>,
    },
    /// Leave (no answer).
    Leave {
        /// Who.
        user: UserId,
        /// As what.
        role: Role,
    },
    /// The asking node has `sessions` of `user`'s joined as `role` (no answer): the
    /// owner holds exactly that many attendances (a player's) or counted spectators
    /// for that node. Sent when the node learns it was found dead (and so let go by
    /// owners) while its sessions stayed.
    Present {
        /// Who.
        user: UserId,
        /// Sessions joined on the asking node.
        sessions: u32,
        /// As what (a node from before spectators were told again sends none: player).
        #[serde(default = "player")]
        role: Role,
    },
    /// A player's action.
    Act {
        /// Who.
        user: UserId,
        /// What.
        intent: Intent,
    },
    /// The full state.
    State,
}

fn player() -> Role {
    Role::Player
}

/// A successful answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Answer {
    /// Joined.
    Joined {
        /// The state.
        state: Box<GameState>,
        /// The `game_event` JSON of every event missed, as the joiner is to get it;
        /// `None` if the owner no longer holds them all.
        #[serde(default)]
        missed: Option<Vec<String>>,
    },
    /// Acted: the version of the resulting event and the actor's draw offer
    /// permission.
    Acted(Acted),
    /// The state.
    State {
        /// The state.
        state: Box<GameState>,
    },
    /// Nothing to say (leave).
    Done,
}

/// What an owner answers: the answer, or the refusal's code and message.
pub type AnswerResult = Result<Answer, (ErrorCode, String)>;

/// Parses a published event's copy for the player it puts on the move (after
/// [`MOVER_PREFIX`]: `w` or `b`, then the `game_event` JSON with legal moves), and makes
/// everyone else's copy from it.
fn mover_versioned(payload: &str) -> Option<Arc<Versioned>> {
    let mut chars = payload.chars();
    let color = match chars.next()? {
        'w' => Color::White,
        'b' => Color::Black,
        _ => return None,
    };
    let json = chars.as_str();
    let ServerMessage::GameEvent {
        game_id,
        version,
        mut event,
    } = serde_json::from_str::<ServerMessage>(json).ok()?
    else {
        return None;
    };
    event.strip_mover_fields()?;
    let others = Versioned::new(game_id, version, event, None);
    Some(Arc::new(Versioned {
        mover: Some(MoverCopy {
            color,
            json: json.into(),
        }),
        ..others
    }))
}

/// A stored event of game `id` that put a side on the move, with that side's legal
/// moves read from the position it names (FEN is the whole position: a Frisian king's
/// run, castling and en passant included).
fn with_legal_moves(id: &GameId, variant: Variant, e: &Versioned) -> Option<Arc<Versioned>> {
    let (GameEvent::Move { fen, .. } | GameEvent::TakenBack { fen, .. }) = &e.event else {
        return None;
    };
    let position = Position::from_fen(variant, fen).ok()?;
    // The draw offer permission needs the game's record: not told (absent).
    let to_move = ToMove {
        color: position.side_to_move(),
        legal: position.legal_move_texts(),
        draw_offer: None,
    };
    let event = e.event.clone();
    Some(Arc::new(Versioned::new(
        id.clone(),
        e.version,
        event,
        Some(to_move),
    )))
}

fn refusal(e: GameError) -> (ErrorCode, String) {
    (e.code(), e.to_string())
}

/// Who other nodes' sessions are in a game served here, by node and user: since when
/// the node is known alive (its first join here), and an attendance per player's
/// session, or the count of spectator sessions.
#[derive(Default)]
struct Remotes {
    attending: HashMap<(String, UserId), (Instant, Vec<Following>)>,
    watching: HashMap<(String, UserId), (Instant, u32)>,
}

impl Remotes {
    fn is_empty(&self) -> bool {
        self.attending.is_empty() && self.watching.is_empty()
    }

    /// A player's session of `node` joined: it attends.
    fn attends(&mut self, node: String, user: UserId, attendance: Following) {
        let held = self.attending.entry((node, user));
        held.or_insert_with(|| (Instant::now(), Vec::new()))
            .1
            .push(attendance);
    }

    /// A spectator's session of `node` joined.
    fn watches(&mut self, node: String, user: UserId) {
        let watched = self.watching.entry((node, user));
        watched.or_insert_with(|| (Instant::now(), 0)).1 += 1;
    }

    /// `node` says how many sessions of `user` it has (it had been found dead while
    /// only slow): the attendances held for it are made as many.
    fn present(
        &mut self,
        node: String,
        user: UserId,
        sessions: usize,
        mut attend: impl FnMut() -> Option<Following>,
    ) {
        let key = (node, user);
        let (_, held) = self
            .attending
            .entry(key.clone())
            .or_insert_with(|| (Instant::now(), Vec::new()));
        held.truncate(sessions);
        while held.len() < sessions {
            let Some(a) = attend() else { break };
            held.push(a);
        }
        if held.is_empty() {
            self.attending.remove(&key);
        }
    }

    /// `node` says how many spectator sessions of `user` it has (it had been found dead
    /// while only slow): the count held for it is made as many. Returns how many
    /// sessions to join (above 0) or leave (below) to make the game's count agree.
    fn watching_now(&mut self, node: String, user: UserId, sessions: u32) -> i64 {
        let key = (node, user);
        let held = self.watching.get(&key).map_or(0, |(_, n)| *n);
        if sessions == 0 {
            self.watching.remove(&key);
        } else {
            self.watching
                .entry(key)
                .or_insert_with(|| (Instant::now(), 0))
                .1 = sessions;
        }
        i64::from(sessions) - i64::from(held)
    }

    /// A session of `node` left.
    fn left(&mut self, node: String, user: UserId, role: Role) {
        let key = (node, user);
        match role {
            Role::Player => {
                if let Some((_, held)) = self.attending.get_mut(&key) {
                    held.pop();
                    if held.is_empty() {
                        self.attending.remove(&key);
                    }
                }
            }
            Role::Spectator => {
                if let Some((_, n)) = self.watching.get_mut(&key) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        self.watching.remove(&key);
                    }
                }
            }
        }
    }

    /// The nodes `reading` finds dead take their players' presence with them; their
    /// spectators are returned, one per session, to be left.
    fn lose(&mut self, reading: &AliveNodes, game: &GameId) -> Vec<UserId> {
        self.attending.retain(|(node, user), (since, _)| {
            let lost = reading.lost(node, *since);
            if lost {
                tracing::info!(%game, %node, %user, "a player of a dead node no longer attends");
            }
            !lost
        });
        let lost = self
            .watching
            .extract_if(|(node, _), (since, _)| reading.lost(node, *since));
        lost.flat_map(|((_, user), (_, n))| std::iter::repeat_n(user, n as usize))
            .collect()
    }
}

/// Answers the commands for a game this node owns, one at a time in arrival order,
/// until the game's channel is unsubscribed (the actor exits) or the node stops.
pub async fn serve(cluster: Arc<Cluster>, handle: GameHandle, stop: CancellationToken) {
    let (tx, mut rx) = mpsc::channel(SERVE_QUEUE);
    cluster
        .bus
        .subscribe(cluster.cmd_channel(handle.id()), tx)
        .await;
    let mut alive = cluster.alive_nodes();
    let mut remotes = Remotes::default();
    loop {
        let payload = tokio::select! {
            // A node's death before what it sent after it was found dead.
            biased;
            () = stop.cancelled() => return,
            Ok(()) = alive.changed(), if !remotes.is_empty() => {
                // A node that joined after the heartbeat was sent may not be in it yet.
                let reading = alive.borrow_and_update().clone();
                for user in remotes.lose(&reading, handle.id()) {
                    handle.leave(user, Role::Spectator).await;
                }
                continue;
            }
            p = rx.recv() => match p {
                Some(p) => p,
                None => return,
            },
        };
        let Ok(request) = serde_json::from_str::<Request<Op>>(&payload) else {
            tracing::warn!(game = %handle.id(), "unreadable remote command");
            continue;
        };
        let result = match request.op {
            Op::Join { user, role, since } => {
                // A player attends from before the join, as a local session does.
                let attends = (role == Role::Player)
                    .then(|| handle.meta().color_of(&user))
                    .flatten()
                    .and_then(|color| handle.attend(color).ok());
                let joined = handle.join(user.clone(), role, since).await;
                if joined.is_ok() {
                    match (role, attends) {
                        (Role::Player, Some(a)) => remotes.attends(request.from.clone(), user, a),
                        (Role::Spectator, _) => remotes.watches(request.from.clone(), user),
                        (Role::Player, None) => {}
                    }
                }
                joined.map(|r| Answer::Joined {
                    state: Box::new(r.state),
                    missed: r.missed.map(|m| m.iter().map(|e| e.to_string()).collect()),
                })
            }
            Op::Present {
                user,
                sessions,
                role: Role::Player,
            } => {
                let Some(color) = handle.meta().color_of(&user) else {
                    continue;
                };
                remotes.present(request.from, user, sessions as usize, || {
                    handle.attend(color).ok()
                });
                continue;
            }
            Op::Present {
                user,
                sessions,
                role: Role::Spectator,
            } => {
                let change = remotes.watching_now(request.from, user.clone(), sessions);
                for _ in 0..change {
                    let _ = handle.join(user.clone(), Role::Spectator, None).await;
                }
                for _ in change..0 {
                    handle.leave(user.clone(), Role::Spectator).await;
                }
                continue;
            }
            Op::Leave { user, role } => {
                remotes.left(request.from, user.clone(), role);
                handle.leave(user, role).await;
                continue;
            }
            Op::Act { user, intent } => handle.acted(user, intent).await.map(Answer::Acted),
            Op::State => handle.state().await.map(|state| Answer::State {
                state: Box::new(state),
            }),
        };
        let result: AnswerResult = result.map_err(refusal);
        cluster.answer(&request.from, request.req, result).await;
    }
}

/// Asks the owner of `game` and waits for the answer.
async fn call(cluster: &Cluster, game: &GameId, op: &Op) -> Result<Answer, GameError> {
    match cluster
        .call::<Op, AnswerResult>(&cluster.cmd_channel(game), op)
        .await
    {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err((ErrorCode::GameNotFound, _))) => Err(GameError::Gone),
        Ok(Err((code, message))) => Err(GameError::Remote(code, message)),
        Err(CallError::NoListener) => {
            Err(GameError::Unavailable("no node owns the game now".into()))
        }
        Err(CallError::Timeout) => Err(GameError::Unavailable(
            "the game's node did not answer".into(),
        )),
        Err(e @ CallError::Codec(_)) => Err(GameError::Unavailable(e.to_string())),
    }
}

/// Who waits on a join a proxy's caller makes.
enum Joiner {
    /// A session, for the owner's answer; counted in the members if accepted.
    Session(oneshot::Sender<Result<JoinReply, GameError>>),
    /// A player shown `game_start` from the start notice already: counted in the
    /// members once the owner has the join, or if the owner could not be reached (a
    /// new owner then joins them again); only a game gone leaves them out.
    Behind,
    /// Nobody: joining a member again on a new owner.
    Again,
}

/// A call a proxy's caller task makes for it, in order.
enum Call {
    /// Join.
    Join(Op, Joiner),
    /// Act, answered with the event's version and the draw offer permission.
    Act(Op, oneshot::Sender<Result<Acted, GameError>>),
    /// The state.
    State(oneshot::Sender<GameState>),
    /// Leave: no answer.
    Leave(Op),
    /// Presence: no answer.
    Present(Op),
}

/// This node's sessions joined to a proxied game, by user and role (one count per
/// session), as the owner accepted them: joined again on an owner change.
type Members = Arc<std::sync::Mutex<HashMap<(UserId, Role), u32>>>;

fn members(m: &Members) -> std::sync::MutexGuard<'_, HashMap<(UserId, Role), u32>> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Makes a proxy's calls one after another, until the proxy drops its queue. A join
/// is counted in `joined` once the owner accepted it, a leave uncounts it, in the
/// order the session sent them.
async fn caller(
    cluster: Arc<Cluster>,
    meta: Arc<GameMeta>,
    followers: Arc<Followers>,
    mut calls: mpsc::Receiver<Call>,
    joined: Members,
) {
    let id = meta.id.clone();
    while let Some(c) = calls.recv().await {
        match c {
            Call::Join(op, joiner) => {
                let result = match call(&cluster, &id, &op).await {
                    Ok(Answer::Joined { state, missed }) => Ok(JoinReply {
                        state: *state,
                        missed: missed.map(|m| m.into_iter().map(Into::into).collect()),
                    }),
                    Ok(_) => Err(GameError::Unavailable("unexpected answer".into())),
                    Err(e) => Err(e),
                };
                let Op::Join { user, role, .. } = &op else {
                    continue;
                };
                let count = match (&joiner, &result) {
                    (Joiner::Again, _) => false,
                    (Joiner::Session(_), r) => r.is_ok(),
                    (Joiner::Behind, Err(GameError::Gone)) => false,
                    (Joiner::Behind, r) => {
                        if let Err(e) = r {
                            tracing::warn!(game = %id, user = %user, error = %e,
                                "a player shown game_start was not joined on the owner");
                        }
                        true
                    }
                };
                if count {
                    *members(&joined).entry((user.clone(), *role)).or_default() += 1;
                    // Its session went while the owner answered: it leaves there too.
                    let gone = *role == Role::Player
                        && meta.color_of(user).is_some_and(|c| !followers.attends(c));
                    if gone {
                        let n = members(&joined).remove(&(user.clone(), *role)).unwrap_or(0);
                        let leave = Op::Leave {
                            user: user.clone(),
                            role: *role,
                        };
                        for _ in 0..n {
                            cluster.send(cluster.cmd_channel(&id), &leave);
                        }
                    }
                }
                if let Joiner::Session(reply) = joiner {
                    let _ = reply.send(result);
                }
            }
            Call::Act(op, reply) => {
                let result = match call(&cluster, &id, &op).await {
                    Ok(Answer::Acted(acted)) => Ok(acted),
                    Ok(_) => Err(GameError::Unavailable("unexpected answer".into())),
                    Err(e) => Err(e),
                };
                let _ = reply.send(result);
            }
            Call::State(reply) => {
                if let Ok(Answer::State { state }) = call(&cluster, &id, &Op::State).await {
                    let _ = reply.send(*state);
                }
            }
            Call::Leave(op) => {
                // Only a member the owner counted is left there: a session's own leave
                // and the one its ending caused (see `Proxy::on_attendance`) are one.
                let counted = match &op {
                    Op::Leave { user, role } => {
                        let key = (user.clone(), *role);
                        let mut m = members(&joined);
                        let n = m.get(&key).copied().unwrap_or(0);
                        match n {
                            0 => false,
                            1 => m.remove(&key).is_some(),
                            _ => {
                                m.insert(key, n - 1);
                                true
                            }
                        }
                    }
                    _ => false,
                };
                if counted {
                    cluster.send(cluster.cmd_channel(&id), &op);
                }
            }
            Call::Present(op) => cluster.send(cluster.cmd_channel(&id), &op),
        }
    }
}

/// A proxy of a game owned by another node.
struct Proxy {
    cluster: Arc<Cluster>,
    /// Where it reads the game's log.
    store: Arc<GameStore>,
    meta: Arc<GameMeta>,
    exits: Weak<dyn GameExits>,
    commands: super::queue::Receiver<GameCmd>,
    followers: Arc<Followers>,
    published: mpsc::Receiver<String>,
    calls: mpsc::Sender<Call>,
    last: u64,
    members: Members,
    ended_at: Option<Instant>,
    unused_since: Option<Instant>,
    linger: Duration,
    /// The game's start notice, while its players may be shown `game_start` from it.
    start: Option<Ahead>,
}

/// A game's start notice, kept by its proxy to answer its players' first joins.
struct Ahead {
    started: Box<Started>,
    /// Until when (wall ms) the owner counts the players as connected without their
    /// join ([`START_JOIN_GRACE`]): the notice's state says so too.
    until_ms: u64,
    /// The player of each colour has been shown it.
    shown: [bool; 2],
}

/// However the proxy's task ends, its followers are told that nothing more comes.
impl Drop for Proxy {
    fn drop(&mut self) {
        self.followers.end();
    }
}

/// Starts a proxy for `id` if Redis knows the game; its handle.
pub async fn spawn_proxy(
    cluster: Arc<Cluster>,
    id: &GameId,
    parts: ProxyParts,
) -> Option<GameHandle> {
    let stored = parts.store.load(id).await.ok()??;
    let snap = Snapshot::from_parts(&stored.snapshot, stored.tail.as_deref(), &stored.acts).ok()?;
    let (tx, published) = mpsc::channel(EVENT_QUEUE);
    cluster.bus.subscribe(cluster.ev_channel(id), tx).await;
    let last = parts.store.log_len(id).await.ok()?;
    let meta = GameMeta::new(
        snap.id.clone(),
        GameSpec {
            variant: snap.variant,
            time_control: snap.time_control,
            rated: snap.rated,
            white: snap.white,
            black: snap.black,
            start_fen: snap.start_fen,
            arena: snap.arena,
            berserk: snap.berserk,
            ruleset: Some(snap.game.ruleset_id()),
            tournament: snap.tournament,
        },
        snap.rating,
        !snap.ended,
    );
    Some(start_proxy(cluster, meta, published, last, None, parts))
}

/// Starts the proxy of a game another node just started, from its start notice
/// (`at_ms`: the game's creation, wall ms), without reading Redis: the notice holds
/// what it needs of the game. The events written after it are read from the log at the
/// proxy's first check, at once; those published later arrive on the channel.
pub async fn spawn_started_proxy(
    cluster: Arc<Cluster>,
    started: Box<Started>,
    at_ms: u64,
    parts: ProxyParts,
) -> GameHandle {
    let (tx, published) = mpsc::channel(EVENT_QUEUE);
    let state = &started.state;
    let id = state.game_id.clone();
    cluster.bus.subscribe(cluster.ev_channel(&id), tx).await;
    let meta = GameMeta::new(
        id,
        GameSpec {
            variant: state.variant,
            time_control: state.time_control,
            rated: state.rated,
            white: state.white.clone(),
            black: state.black.clone(),
            start_fen: started.start_fen.clone(),
            arena: state.arena.clone(),
            berserk: started.berserk,
            ruleset: state.ruleset,
            tournament: state.tournament.clone(),
        },
        started.rating,
        true,
    );
    let last = state.version;
    // A second short of the owner's grace: the nodes' wall clocks may differ a little.
    let grace_ms = u64::try_from(START_JOIN_GRACE.as_millis()).unwrap_or(0);
    let until_ms = at_ms + grace_ms.saturating_sub(START_CLOCK_MARGIN_MS);
    let ahead = Ahead {
        started,
        until_ms,
        shown: [false; 2],
    };
    start_proxy(cluster, meta, published, last, Some(ahead), parts)
}

/// What a proxy is made with besides its game.
pub struct ProxyParts {
    /// The games' keys in Redis, where it reads its game.
    pub store: Arc<GameStore>,
    /// The registry that made it, told as it exits.
    pub exits: Weak<dyn GameExits>,
    /// How long it stays after the game's end.
    pub linger: Duration,
    /// Events kept for followers.
    pub event_buffer: usize,
    /// The node stops.
    pub shutdown: CancellationToken,
}

/// Starts a proxy of `meta`'s game, its events subscribed (`published`), `last`
/// relayed; its handle.
fn start_proxy(
    cluster: Arc<Cluster>,
    meta: GameMeta,
    published: mpsc::Receiver<String>,
    last: u64,
    start: Option<Ahead>,
    parts: ProxyParts,
) -> GameHandle {
    let ProxyParts {
        store,
        exits,
        linger,
        event_buffer,
        shutdown,
    } = parts;
    let ended = !meta.is_live();
    let meta = Arc::new(meta);
    let (cmd_tx, commands) = super::queue::queue(64);
    let followers = Followers::new(event_buffer);
    let handle = GameHandle::new(meta.clone(), cmd_tx, followers.clone());
    let (calls, calls_rx) = mpsc::channel(PROXY_QUEUE);
    let joined = Members::default();
    cluster.tasks.spawn(caller(
        cluster.clone(),
        meta.clone(),
        followers.clone(),
        calls_rx,
        joined.clone(),
    ));
    let tasks = cluster.tasks.clone();
    let proxy = Proxy {
        calls,
        cluster,
        store,
        meta,
        exits,
        commands,
        followers,
        published,
        last,
        members: joined,
        ended_at: ended.then(Instant::now),
        unused_since: None,
        linger,
        start,
    };
    tasks.spawn(proxy.run(shutdown));
    handle
}

impl Proxy {
    async fn run(mut self, shutdown: CancellationToken) {
        // A proxy made from a start notice has not read the log yet: its first check
        // soon, but not before the players' first joins, which need no Redis.
        let first = match self.start {
            Some(_) => Instant::now() + FIRST_CHECK_STARTED,
            None => Instant::now(),
        };
        let mut check = tokio::time::interval_at(first, Duration::from_secs(1));
        check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let followers = self.followers.clone();
        loop {
            tokio::select! {
                () = shutdown.cancelled() => break,
                () = followers.changed() => self.on_attendance().await,
                cmd = self.commands.recv() => match cmd {
                    Some(cmd) => self.command(cmd).await,
                    None => break,
                },
                payload = self.published.recv() => match payload {
                    Some(p) => self.on_published(&p).await,
                    None => break,
                },
                _ = check.tick() => {
                    if self.should_exit() {
                        break;
                    }
                    if self.start.as_ref().is_some_and(|s| wall_ms() >= s.until_ms) {
                        self.start = None;
                    }
                    // Pub/sub may have dropped messages (reconnection): catch up from
                    // the log.
                    if let Ok(len) = self.store.log_len(&self.meta.id).await
                        && len > self.last
                    {
                        self.catch_up(len).await;
                    }
                }
            }
        }
        self.cluster
            .bus
            .unsubscribe(self.cluster.ev_channel(&self.meta.id));
        if let Some(exits) = self.exits.upgrade() {
            exits.proxy_exited(&self.meta.id);
        }
    }

    /// A player's entries here changed: if none is left while the owner still counts
    /// sessions of theirs from here (one ended without leaving), they leave there.
    async fn on_attendance(&mut self) {
        for color in [Color::White, Color::Black] {
            if self.followers.attends(color) {
                continue;
            }
            let user = self.meta.spec.players()[color.index()].clone();
            let n = members(&self.members)
                .get(&(user.clone(), Role::Player))
                .copied()
                .unwrap_or(0);
            for _ in 0..n {
                let op = Op::Leave {
                    user: user.clone(),
                    role: Role::Player,
                };
                self.call(Call::Leave(op)).await;
            }
        }
    }

    fn should_exit(&mut self) -> bool {
        let now = Instant::now();
        if self.ended_at.is_some_and(|t| now >= t + self.linger) {
            return true;
        }
        if self.followers.count() == 0 && members(&self.members).is_empty() {
            let since = *self.unused_since.get_or_insert(now);
            return now >= since + Duration::from_secs(10);
        }
        self.unused_since = None;
        false
    }

    /// Hands a call to the caller task; with its queue full, waits for room (the
    /// sessions' commands then wait in the handle's own bounded queue).
    async fn call(&self, call: Call) {
        let call = match self.calls.try_send(call) {
            Ok(()) => return,
            Err(mpsc::error::TrySendError::Closed(_)) => return,
            Err(mpsc::error::TrySendError::Full(call)) => call,
        };
        self.cluster.metrics.cluster_queue_full.inc();
        let _ = self.calls.send(call).await;
    }

    async fn command(&mut self, cmd: GameCmd) {
        match cmd {
            GameCmd::Join(join) => {
                let JoinCmd {
                    user,
                    role,
                    since,
                    reply,
                } = *join;
                let ahead = self.start_ahead(&user, role, since);
                let op = Op::Join { user, role, since };
                let joiner = match ahead {
                    Some(answer) => {
                        // The join follows, before any later command of the session.
                        self.cluster.metrics.game_start_ahead.inc();
                        let _ = reply.send(Ok(answer));
                        Joiner::Behind
                    }
                    None => Joiner::Session(reply),
                };
                self.call(Call::Join(op, joiner)).await;
            }
            GameCmd::Leave(leave) => {
                let (user, role) = *leave;
                self.call(Call::Leave(Op::Leave { user, role })).await;
            }
            GameCmd::Act(act) => {
                let ActCmd {
                    user,
                    intent,
                    reply,
                    ..
                } = *act;
                self.call(Call::Act(Op::Act { user, intent }, reply)).await;
            }
            GameCmd::State { reply } => self.call(Call::State(reply)).await,
            // This node was found dead: the owner let go of its sessions, players'
            // and spectators'.
            GameCmd::Resync => {
                let here: Vec<((UserId, Role), u32)> = members(&self.members)
                    .iter()
                    .map(|(key, n)| (key.clone(), *n))
                    .collect();
                for ((user, role), sessions) in here {
                    let op = Op::Present {
                        user,
                        sessions,
                        role,
                    };
                    self.call(Call::Present(op)).await;
                }
            }
        }
    }

    /// A player's first join of a game that just started, answered from its start
    /// notice: while nothing happened in the game since (no event relayed after the
    /// notice's version) and the owner still counts its players as connected without
    /// their join, the notice's state is what the owner would answer.
    fn start_ahead(&mut self, user: &UserId, role: Role, since: Option<u64>) -> Option<JoinReply> {
        if role != Role::Player || since.is_some() {
            return None;
        }
        let color = self.meta.color_of(user)?;
        let start = self.start.as_mut()?;
        let fresh = self.last == start.started.state.version && wall_ms() < start.until_ms;
        if !fresh || start.shown[color.index()] {
            return None;
        }
        start.shown[color.index()] = true;
        let state = start.started.state_for(color);
        if start.shown == [true; 2] {
            self.start = None;
        }
        Some(JoinReply {
            state,
            missed: Some(Vec::new()),
        })
    }

    async fn on_published(&mut self, payload: &str) {
        let event = if let Some(json) = payload.strip_prefix(EVENT_PREFIX) {
            Versioned::parse(json)
        } else if let Some(copy) = payload.strip_prefix(MOVER_PREFIX) {
            mover_versioned(copy)
        } else {
            None
        };
        if let Some(event) = event {
            self.start = None;
            if event.version > self.last + 1 {
                self.catch_up(event.version - 1).await;
            }
            if event.version > self.last + 1 && !self.meta.is_live() {
                // After its end the owner's finished game stores no more events
                // (`super::finished`): a gap the log cannot fill is left.
                self.last = event.version - 1;
            }
            self.emit(event);
        } else if payload.starts_with(OWNER_PREFIX) {
            // A new owner knows none of our sessions: join them again there.
            tracing::info!(game = %self.meta.id, "game changed owner; rejoining");
            let members: Vec<(UserId, Role, u32)> = members(&self.members)
                .iter()
                .map(|((user, role), n)| (user.clone(), *role, *n))
                .collect();
            for (user, role, n) in members {
                for _ in 0..n {
                    let op = Op::Join {
                        user: user.clone(),
                        role,
                        since: None,
                    };
                    self.call(Call::Join(op, Joiner::Again)).await;
                }
            }
        }
    }

    /// Relays the stored events after the last one relayed, up to `to`. Redis keeps no
    /// legal moves: the last of them that puts a side on the move, unless the game
    /// ended after it, gets that side's from its position here.
    async fn catch_up(&mut self, to: u64) {
        let stored = self
            .store
            .events(&self.meta.id, self.last + 1, to)
            .await
            .unwrap_or_default();
        let mut events: Vec<Arc<Versioned>> =
            stored.iter().filter_map(|j| Versioned::parse(j)).collect();
        let last_position = events.iter().rposition(|e| e.event.puts_on_move());
        if let Some(i) = last_position
            && !events[i..]
                .iter()
                .any(|e| matches!(e.event, GameEvent::GameOver { .. }))
            && let Some(event) = with_legal_moves(&self.meta.id, self.meta.spec.variant, &events[i])
        {
            events[i] = event;
        }
        for event in events {
            self.emit(event);
        }
    }

    fn emit(&mut self, event: Arc<Versioned>) {
        if event.version != self.last + 1 {
            return;
        }
        self.last = event.version;
        if matches!(event.event, shared::protocol::GameEvent::GameOver { .. }) {
            self.meta.set_over();
            self.ended_at = Some(Instant::now());
        }
        self.followers.publish(&event, None);
    }
}

#[cfg(test)]
mod tests {
    use shared::protocol::ClockState;

    use super::super::replica::color_char;
    use super::*;

    /// 1. e4 in chess, as the actor announces it with Black's legal moves.
    fn e4() -> (Versioned, Vec<String>) {
        let start = Position::start(Variant::Chess);
        let mv = start.parse_move("e2e4").expect("a move");
        let mut after = start.clone();
        after.play(&mv).expect("legal");
        let event = GameEvent::Move {
            by: Color::White,
            played: start.move_info(&mv),
            fen: after.fen(),
            legal_moves: Vec::new(),
            draw_offer_refusal: None,
            clock: ClockState {
                white_ms: 60_000,
                black_ms: 60_000,
                running: Some(Color::Black),
            },
        };
        let legal = after.legal_move_texts();
        let id = GameId::from("g1");
        let to_move = ToMove {
            color: Color::Black,
            legal: legal.clone(),
            draw_offer: Some(Some(shared::law::OfferRefusal::Barred)),
        };
        let made = Versioned::new(id, 4, event, Some(to_move));
        (made, legal)
    }

    #[test]
    fn a_published_copy_for_the_mover_makes_both_copies_again() {
        let (made, _) = e4();
        let mover = made.mover.as_ref().expect("a copy for Black");
        assert!(
            !made.json.as_str().contains("legal_moves"),
            "{}",
            made.json.as_str()
        );
        assert!(!made.json.as_str().contains("draw_offer_refusal"));
        assert!(
            mover
                .json
                .as_str()
                .contains(r#""draw_offer_refusal":{"kind":"barred"}"#),
            "{}",
            mover.json.as_str()
        );
        let payload = format!("{}{}", color_char(mover.color), mover.json.as_str());
        let read = mover_versioned(&payload).expect("readable");
        assert_eq!(read.json, made.json);
        assert_eq!(read.event, made.event);
        let copy = read.mover.as_ref().expect("a copy for Black");
        assert_eq!((copy.color, &copy.json), (Color::Black, &mover.json));
        assert_eq!(read.json_for(Some(Color::Black)), &mover.json);
        assert_eq!(read.json_for(Some(Color::White)), &made.json);
        assert_eq!(read.json_for(None), &made.json);
        assert!(mover_versioned(&format!("x{}", mover.json.as_str())).is_none());
    }

    #[test]
    fn a_stored_event_gets_the_legal_moves_of_its_position() {
        let (made, legal) = e4();
        let stored = Versioned::parse(made.json.as_str()).expect("readable");
        assert!(stored.mover.is_none());
        let id = GameId::from("g1");
        let again = with_legal_moves(&id, Variant::Chess, &stored).expect("a position event");
        let copy = again.mover.as_ref().expect("a copy for Black");
        assert_eq!(copy.color, Color::Black);
        // The draw offer permission needs the game's record: not told in a rebuilt copy.
        let told = made.mover.as_ref().expect("made").json.as_str();
        let untold = told.replace(r#","draw_offer_refusal":{"kind":"barred"}"#, "");
        assert_ne!(untold, told);
        assert_eq!(copy.json.as_str(), untold);
        let listed = format!("\"legal_moves\":{}", serde_json::json!(legal));
        assert!(
            copy.json.as_str().contains(&listed),
            "{}",
            copy.json.as_str()
        );
        let offer = GameEvent::DrawOffered { by: Color::White };
        let offer = Versioned::new(id.clone(), 5, offer, None);
        assert!(with_legal_moves(&id, Variant::Chess, &offer).is_none());
    }
}
