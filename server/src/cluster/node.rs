//! This node as a member of the cluster: its name, Redis, bus and game store, the
//! channels it uses, the calls it has in flight, and its background duties:
//! heartbeats (presence, and forgetting dead nodes' users and their lobby entries),
//! the sweep that takes over games whose owner died, the health check that notices
//! Redis coming back, and recovery then (resubscribe, re-register sessions, write
//! every game's unwritten events, re-acquire leases). Also the broadcast of notices
//! to users on other nodes ("your game started", "you were challenged").

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use shared::protocol::{GameId, ServerMessage, UserId};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::bus::Bus;
use super::lease::GameStore;
use super::redis::{Redis, StoreError, first_url, wall_ms};
use super::remote::Reply;
use crate::app::App;
use crate::config::{ClusterConfig, RedisConfig};
use crate::hub::Notice;
use crate::metrics::Metrics;

/// A notice for users wherever they are connected.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Broadcast {
    /// A message for every session of `user`.
    Message {
        /// The sending node (which delivered it locally already).
        origin: String,
        /// To whom.
        user: UserId,
        /// What.
        msg: Box<ServerMessage>,
    },
    /// A game started: its players' sessions join it.
    GameStarted {
        /// The node that started it (which told its own sessions already).
        origin: String,
        /// The game.
        game_id: GameId,
        /// Its players.
        players: Vec<UserId>,
    },
}

/// The node's cluster membership.
pub struct Cluster {
    /// This node's name.
    pub node: String,
    /// Redis.
    pub redis: Redis,
    /// Pub/sub.
    pub bus: Bus,
    /// Leases, snapshots, logs.
    pub store: GameStore,
    /// Timings.
    pub config: ClusterConfig,
    /// Counters.
    pub metrics: Arc<Metrics>,
    pending: Mutex<HashMap<u64, oneshot::Sender<Reply>>>,
    pub(super) next_req: AtomicU64,
}

impl Cluster {
    /// Connects to Redis and joins the bus as `node`.
    pub async fn start(
        node: &str,
        redis_config: &RedisConfig,
        config: &ClusterConfig,
        metrics: Arc<Metrics>,
        stop: CancellationToken,
    ) -> Result<Arc<Cluster>, StoreError> {
        let redis = Redis::connect(redis_config, metrics.clone()).await?;
        let bus = Bus::start(
            first_url(&redis_config.url),
            redis_config.timeout(),
            metrics.clone(),
            stop,
        )
        .await?;
        let cluster = Arc::new(Cluster {
            node: node.to_string(),
            store: GameStore::new(
                redis.clone(),
                node,
                config.lease_ms,
                config.finished_ttl_secs,
            ),
            redis,
            bus,
            config: config.clone(),
            metrics,
            pending: Mutex::new(HashMap::new()),
            next_req: AtomicU64::new(1),
        });
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        cluster.bus.subscribe(cluster.node_channel(node), tx).await;
        let weak = Arc::downgrade(&cluster);
        tokio::spawn(async move {
            while let Some(payload) = rx.recv().await {
                match weak.upgrade() {
                    Some(c) => c.on_reply(&payload),
                    None => return,
                }
            }
        });
        Ok(cluster)
    }

    pub(super) fn pending(&self) -> MutexGuard<'_, HashMap<u64, oneshot::Sender<Reply>>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where a game's owner listens for commands.
    pub fn cmd_channel(&self, game: &GameId) -> String {
        self.redis.channel(&format!("cmd:{game}"))
    }

    /// Where a game's owner publishes its events.
    pub fn ev_channel(&self, game: &GameId) -> String {
        self.redis.channel(&format!("ev:{game}"))
    }

    /// Where a node gets the answers to its calls.
    pub fn node_channel(&self, node: &str) -> String {
        self.redis.channel(&format!("node:{node}"))
    }

    fn notify_channel(&self) -> String {
        self.redis.channel("notify")
    }

    /// Sends a notice to the other nodes.
    pub fn broadcast(&self, notice: &Broadcast) {
        if let Ok(json) = serde_json::to_string(notice) {
            self.bus.publish(self.notify_channel(), json);
        }
    }

    /// The node's background duties, until `app.stopping`.
    pub async fn run(self: Arc<Self>, app: Arc<App>) {
        let (tx, mut notices) = mpsc::unbounded_channel::<String>();
        self.bus.subscribe(self.notify_channel(), tx).await;
        self.heartbeat(&app).await;
        let every = |ms: u64| {
            let mut i = tokio::time::interval(Duration::from_millis(ms));
            i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            i
        };
        let mut heartbeat = every(self.config.heartbeat_ms);
        let mut sweep = every(self.config.sweep_ms);
        let mut health_check = every(250);
        let mut health = self.redis.health();
        loop {
            tokio::select! {
                () = app.stopping.cancelled() => return,
                _ = heartbeat.tick() => self.heartbeat(&app).await,
                _ = sweep.tick(), if !app.draining.is_cancelled() => self.sweep(&app).await,
                _ = health_check.tick() => {
                    if !self.redis.is_up() {
                        self.redis.ping().await;
                    }
                }
                changed = health.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    if *health.borrow_and_update() {
                        self.recover(&app).await;
                    }
                }
                notice = notices.recv() => match notice {
                    Some(json) => self.on_broadcast(&app, &json).await,
                    None => return,
                },
            }
        }
    }

    /// Says this node is alive; drops the lobby entries of users who went offline
    /// with a dead node.
    async fn heartbeat(&self, app: &Arc<App>) {
        let gone = match app.presence.heartbeat().await {
            Ok(gone) => gone,
            Err(e) => {
                tracing::debug!(error = %e, "heartbeat failed");
                return;
            }
        };
        for user in gone {
            tracing::info!(user = %user, "user offline with a dead node");
            if let Ok(dropped) = app.lobby.remove_user(&user).await {
                for ch in dropped {
                    let other = if ch.from.id == user {
                        ch.to.clone()
                    } else {
                        ch.from.id.clone()
                    };
                    app.notify_user(
                        &other,
                        ServerMessage::ChallengeRemoved {
                            challenge_id: ch.challenge_id,
                        },
                    );
                }
            }
        }
    }

    /// Takes over games whose owner stopped renewing their lease.
    async fn sweep(&self, app: &Arc<App>) {
        if !self.redis.is_up() {
            return;
        }
        let Ok(expired) = self.store.expired(16).await else {
            return;
        };
        for (id, deadline) in expired {
            if app.games.get(&id).is_some() {
                continue;
            }
            match self.store.acquire(&id).await {
                Ok(Some(acquired)) => {
                    // The owner was last heard of one lease before the deadline.
                    let last_alive = deadline.saturating_sub(self.config.lease_ms);
                    let outage = wall_ms().saturating_sub(last_alive);
                    tracing::info!(game = %id, outage_ms = outage, "taking over game");
                    self.metrics.leases_acquired.inc();
                    self.metrics.takeovers.inc();
                    if let Err(e) = app.games.restore(acquired, last_alive) {
                        tracing::error!(game = %id, error = %e, "cannot restore game");
                        let _ = self.store.not_live(&id).await;
                    }
                }
                Ok(None) => {
                    // Someone else was faster, or the game is gone: if its state is
                    // gone too, forget it.
                    if let Ok(None) = self.store.snapshot(&id).await {
                        let _ = self.store.not_live(&id).await;
                    }
                }
                Err(e) => tracing::debug!(game = %id, error = %e, "takeover failed"),
            }
        }
    }

    /// Redis is back: register this node's sessions again (in case Redis lost them)
    /// and have every local game write what it could not.
    async fn recover(&self, app: &Arc<App>) {
        tracing::info!("redis is back: recovering");
        let users = app.hub.users();
        if let Err(e) = app.presence.restore(&users).await {
            tracing::warn!(error = %e, "presence restore failed");
        }
        self.heartbeat(app).await;
        app.games.resync_all();
    }

    async fn on_broadcast(&self, app: &Arc<App>, json: &str) {
        let Ok(notice) = serde_json::from_str::<Broadcast>(json) else {
            return;
        };
        match notice {
            Broadcast::Message { origin, user, msg } => {
                if origin != self.node {
                    app.hub.notify(&user, || Notice::Message(msg.clone()));
                }
            }
            Broadcast::GameStarted {
                origin,
                game_id,
                players,
            } => {
                if origin == self.node || !players.iter().any(|p| app.hub.is_connected(p)) {
                    return;
                }
                if let Some(handle) = app.games.find(&game_id).await {
                    for player in &players {
                        app.hub
                            .notify(player, || Notice::GameStarted(handle.clone()));
                    }
                }
            }
        }
    }
}
