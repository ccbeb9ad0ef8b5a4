//! Games owned by another node. A session anywhere gets an ordinary [`GameHandle`]; for
//! a remote game its channels lead to a proxy task here, which sends each command over
//! pub/sub to `cmd:<game>` (whoever owns the game listens there, so the proxy never
//! needs to know which node that is), waits for the answer on its node's `node:<id>`
//! channel, and relays the game's events from `ev:<game>` into the handle's broadcast,
//! in version order, filling any gap from the game's log in Redis. When the owner
//! changes (takeover), the proxy joins its sessions again on the new owner.
//!
//! On the owner's side, [`serve`] answers the commands arriving on `cmd:<game>` through
//! the local actor's handle.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use shared::protocol::{ErrorCode, GameId, GameState, ServerMessage, UserId};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::node::Cluster;
use crate::game::registry::GameRegistry;
use crate::game::{
    GameCmd, GameError, GameHandle, GameMeta, GameSpec, Intent, JoinReply, Role, Versioned,
};

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

/// A command on the wire.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    /// Matches the answer to the question.
    pub req: u64,
    /// The asking node (answers go to its `node:<id>` channel).
    pub from: String,
    /// What.
    pub op: Op,
}

/// A successful answer.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Answer {
    /// Joined.
    Joined {
        /// The state.
        state: Box<GameState>,
        /// The `game_event` JSON of every event missed.
        missed: Vec<String>,
    },
    /// Acted: the version of the resulting event.
    Acted {
        /// Version.
        version: u64,
    },
    /// The state.
    State {
        /// The state.
        state: Box<GameState>,
    },
    /// Nothing to say (leave).
    Done,
}

/// An answer on the wire.
#[derive(Debug, Serialize, Deserialize)]
pub struct Reply {
    /// The question's number.
    pub req: u64,
    /// The answer, or the refusal's code and message.
    pub result: Result<Answer, (ErrorCode, String)>,
}

/// Parses a stored or published `game_event` JSON.
pub fn versioned(json: &str) -> Option<Arc<Versioned>> {
    match serde_json::from_str::<ServerMessage>(json).ok()? {
        ServerMessage::GameEvent { version, event, .. } => Some(Arc::new(Versioned {
            version,
            event,
            json: json.into(),
        })),
        _ => None,
    }
}

fn refusal(e: GameError) -> (ErrorCode, String) {
    (e.code(), e.to_string())
}

/// Answers the commands for a game this node owns, until the game's channel is
/// unsubscribed.
pub async fn serve(cluster: Arc<Cluster>, handle: GameHandle) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    cluster
        .bus
        .subscribe(cluster.cmd_channel(handle.id()), tx)
        .await;
    while let Some(payload) = rx.recv().await {
        let Ok(request) = serde_json::from_str::<Request>(&payload) else {
            tracing::warn!(game = %handle.id(), "unreadable remote command");
            continue;
        };
        let handle = handle.clone();
        let cluster = cluster.clone();
        tokio::spawn(async move {
            let result = match request.op {
                Op::Join { user, role, since } => {
                    handle
                        .join(user, role, since)
                        .await
                        .map(|r| Answer::Joined {
                            state: Box::new(r.state),
                            missed: r.missed.iter().map(|e| e.json.to_string()).collect(),
                        })
                }
                Op::Leave { user, role } => {
                    handle.leave(user, role).await;
                    return;
                }
                Op::Act { user, intent } => handle
                    .act(user, intent)
                    .await
                    .map(|version| Answer::Acted { version }),
                Op::State => handle.state().await.map(|state| Answer::State {
                    state: Box::new(state),
                }),
            };
            let reply = Reply {
                req: request.req,
                result: result.map_err(refusal),
            };
            if let Ok(json) = serde_json::to_string(&reply) {
                cluster
                    .bus
                    .publish(cluster.node_channel(&request.from), json);
            }
        });
    }
}

/// Where a proxy's owner-change notices and events arrive: `E<game_event JSON>` or
/// `O<lease token>`.
pub const EVENT_PREFIX: char = 'E';
/// See [`EVENT_PREFIX`].
pub const OWNER_PREFIX: char = 'O';

/// A proxy of a game owned by another node.
struct Proxy {
    cluster: Arc<Cluster>,
    meta: Arc<GameMeta>,
    registry: Weak<GameRegistry>,
    commands: mpsc::Receiver<GameCmd>,
    events: broadcast::Sender<Arc<Versioned>>,
    published: mpsc::UnboundedReceiver<String>,
    last: u64,
    members: HashMap<(UserId, Role), u32>,
    ended_at: Option<Instant>,
    unused_since: Option<Instant>,
    linger: Duration,
}

/// Starts a proxy for `id` if Redis knows the game; its handle.
pub async fn spawn_proxy(
    cluster: Arc<Cluster>,
    id: &GameId,
    registry: Weak<GameRegistry>,
    linger: Duration,
    event_buffer: usize,
    shutdown: CancellationToken,
) -> Option<GameHandle> {
    let json = cluster.store.snapshot(id).await.ok()??;
    let snap: super::snapshot::Snapshot = serde_json::from_str(&json).ok()?;
    let (tx, published) = mpsc::unbounded_channel();
    cluster.bus.subscribe(cluster.ev_channel(id), tx).await;
    let last = cluster.store.log_len(id).await.ok()?;
    let meta = Arc::new(GameMeta::new(
        id.clone(),
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
    ));
    let (cmd_tx, commands) = mpsc::channel(64);
    let (events, _) = broadcast::channel(event_buffer);
    let handle = GameHandle::new(meta.clone(), cmd_tx, &events);
    let proxy = Proxy {
        cluster,
        meta,
        registry,
        commands,
        events,
        published,
        last,
        members: HashMap::new(),
        ended_at: snap.ended.then(Instant::now),
        unused_since: None,
        linger,
    };
    tokio::spawn(proxy.run(shutdown));
    Some(handle)
}

impl Proxy {
    async fn run(mut self, shutdown: CancellationToken) {
        let mut check = tokio::time::interval(Duration::from_secs(1));
        check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => break,
                cmd = self.commands.recv() => match cmd {
                    Some(cmd) => self.command(cmd),
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
                    // Pub/sub may have dropped messages (reconnection): catch up from
                    // the log.
                    if let Ok(len) = self.cluster.store.log_len(&self.meta.id).await
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
        if let Some(registry) = self.registry.upgrade() {
            registry.remove_remote(&self.meta.id);
        }
    }

    fn should_exit(&mut self) -> bool {
        let now = Instant::now();
        if self.ended_at.is_some_and(|t| now >= t + self.linger) {
            return true;
        }
        if self.events.receiver_count() == 0 && self.members.is_empty() {
            let since = *self.unused_since.get_or_insert(now);
            return now >= since + Duration::from_secs(10);
        }
        self.unused_since = None;
        false
    }

    fn command(&mut self, cmd: GameCmd) {
        let cluster = self.cluster.clone();
        let id = self.meta.id.clone();
        match cmd {
            GameCmd::Join {
                user,
                role,
                since,
                reply,
            } => {
                *self.members.entry((user.clone(), role)).or_default() += 1;
                tokio::spawn(async move {
                    let result = match cluster.call(&id, Op::Join { user, role, since }).await {
                        Ok(Answer::Joined { state, missed }) => Ok(JoinReply {
                            state: *state,
                            missed: missed.iter().filter_map(|j| versioned(j)).collect(),
                        }),
                        Ok(_) => Err(GameError::Unavailable("unexpected answer".into())),
                        Err(e) => Err(e),
                    };
                    let _ = reply.send(result);
                });
            }
            GameCmd::Leave { user, role } => {
                let key = (user.clone(), role);
                if let Some(n) = self.members.get_mut(&key) {
                    *n -= 1;
                    if *n == 0 {
                        self.members.remove(&key);
                    }
                }
                cluster.send(&id, Op::Leave { user, role });
            }
            GameCmd::Act {
                user,
                intent,
                reply,
            } => {
                tokio::spawn(async move {
                    let result = match cluster.call(&id, Op::Act { user, intent }).await {
                        Ok(Answer::Acted { version }) => Ok(version),
                        Ok(_) => Err(GameError::Unavailable("unexpected answer".into())),
                        Err(e) => Err(e),
                    };
                    let _ = reply.send(result);
                });
            }
            GameCmd::State { reply } => {
                tokio::spawn(async move {
                    if let Ok(Answer::State { state }) = cluster.call(&id, Op::State).await {
                        let _ = reply.send(*state);
                    }
                });
            }
            GameCmd::Resync => {}
        }
    }

    async fn on_published(&mut self, payload: &str) {
        if let Some(json) = payload.strip_prefix(EVENT_PREFIX) {
            if let Some(event) = versioned(json) {
                if event.version > self.last + 1 {
                    self.catch_up(event.version - 1).await;
                }
                self.emit(event);
            }
        } else if payload.starts_with(OWNER_PREFIX) {
            // A new owner knows none of our sessions: join them again there.
            tracing::info!(game = %self.meta.id, "game changed owner; rejoining");
            for ((user, role), n) in &self.members {
                for _ in 0..*n {
                    let cluster = self.cluster.clone();
                    let id = self.meta.id.clone();
                    let op = Op::Join {
                        user: user.clone(),
                        role: *role,
                        since: None,
                    };
                    tokio::spawn(async move {
                        let _ = cluster.call(&id, op).await;
                    });
                }
            }
        }
    }

    /// Relays the stored events after the last one relayed, up to `to`.
    async fn catch_up(&mut self, to: u64) {
        let stored = self
            .cluster
            .store
            .events(&self.meta.id, self.last + 1, to)
            .await
            .unwrap_or_default();
        for json in stored {
            if let Some(event) = versioned(&json) {
                self.emit(event);
            }
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
        let _ = self.events.send(event);
    }
}

impl Cluster {
    /// Sends `op` to whoever owns `game` and waits for the answer. While nobody owns
    /// it (a takeover is under way), retries until `cluster.command_timeout_ms`.
    pub async fn call(&self, game: &GameId, op: Op) -> Result<Answer, GameError> {
        self.metrics.remote_commands.inc();
        let deadline = Instant::now() + Duration::from_millis(self.config.command_timeout_ms);
        let channel = self.cmd_channel(game);
        loop {
            let req = self.next_req.fetch_add(1, Ordering::Relaxed);
            let (tx, rx) = oneshot::channel();
            self.pending().insert(req, tx);
            let request = Request {
                req,
                from: self.node.clone(),
                op: op.clone(),
            };
            let json = serde_json::to_string(&request)
                .map_err(|e| GameError::Unavailable(e.to_string()))?;
            let delivered = self.bus.publish_now(&channel, &json).await.unwrap_or(0);
            if delivered > 0 {
                let answer = tokio::time::timeout_at(deadline, rx).await;
                self.pending().remove(&req);
                return match answer {
                    Ok(Ok(reply)) => reply.result.map_err(|(code, message)| {
                        if code == ErrorCode::GameNotFound {
                            GameError::Gone
                        } else {
                            GameError::Remote(code, message)
                        }
                    }),
                    _ => {
                        self.metrics.remote_timeouts.inc();
                        Err(GameError::Unavailable(
                            "the game's node did not answer".into(),
                        ))
                    }
                };
            }
            self.pending().remove(&req);
            if Instant::now() >= deadline {
                self.metrics.remote_timeouts.inc();
                return Err(GameError::Unavailable("no node owns the game now".into()));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Sends `op` to the owner without waiting for an answer.
    pub fn send(&self, game: &GameId, op: Op) {
        let request = Request {
            req: 0,
            from: self.node.clone(),
            op,
        };
        if let Ok(json) = serde_json::to_string(&request) {
            self.bus.publish(self.cmd_channel(game), json);
        }
    }

    /// Completes the call an answer on this node's channel belongs to.
    pub fn on_reply(&self, payload: &str) {
        let Ok(reply) = serde_json::from_str::<Reply>(payload) else {
            return;
        };
        if let Some(tx) = self.pending().remove(&reply.req) {
            let _ = tx.send(reply);
        }
    }
}
