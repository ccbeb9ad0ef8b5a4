//! This node's duties as a member of the cluster, on top of the transport
//! (`cluster`) and the application (`app`): heartbeats (presence, and forgetting dead
//! nodes' users and their lobby entries), the sweep that takes over games whose owner
//! died, the health check that notices Redis coming back and the recovery then
//! (re-register sessions, write every game's unwritten events), and the handling of
//! notices from other nodes ("your game started", "you were challenged"), and the
//! computer games other nodes ask this one to hold (`computer::placement`).

use std::sync::Arc;
use std::time::Duration;

use shared::protocol::{ServerMessage, UserId};
use tokio::sync::mpsc;

use crate::app::App;
use crate::cluster::member::{GameStartedNotice, NOTICE_QUEUE};
use crate::cluster::redis::wall_ms;
use crate::cluster::rpc::Request;
use crate::cluster::{Broadcast, Cluster};
use crate::computer::placement::{self, PlaceAnswer, PlaceRequest};
use crate::hub::{Notice, StartedGame};
use crate::setup;

/// Computer games other nodes asked this one to hold, waiting to be started.
const PLACE_QUEUE: usize = 64;

/// The node's duties over its cluster membership.
pub struct Node {
    cluster: Arc<Cluster>,
}

impl Node {
    /// The duties of this node in `cluster`.
    pub fn new(cluster: Arc<Cluster>) -> Node {
        Node { cluster }
    }

    /// The node's background duties, until `app.stopping`.
    pub async fn run(self, app: Arc<App>) {
        let (tx, mut notices) = mpsc::channel::<String>(NOTICE_QUEUE);
        self.cluster
            .bus
            .subscribe(self.cluster.notify_channel(), tx)
            .await;
        // Notices are handled by a task of their own: a heartbeat or a sweep waiting on
        // Redis must not leave them to pile up (a full queue drops them).
        let reader = Node::new(self.cluster.clone());
        let app2 = app.clone();
        app.tracker.spawn(async move {
            loop {
                tokio::select! {
                    () = app2.stopping.cancelled() => return,
                    notice = notices.recv() => match notice {
                        Some(json) => reader.on_broadcast(&app2, &json).await,
                        None => return,
                    },
                }
            }
        });
        let (tx, mut placements) = mpsc::channel::<String>(PLACE_QUEUE);
        let computer_channel = placement::channel(&self.cluster, &self.cluster.node);
        self.cluster.bus.subscribe(computer_channel, tx).await;
        let every = |ms: u64| {
            let mut i = tokio::time::interval(Duration::from_millis(ms));
            i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            i
        };
        let mut heartbeat = every(self.cluster.config.heartbeat_ms);
        let mut sweep = every(self.cluster.config.sweep_ms);
        let mut health_check = every(250);
        let mut health = self.cluster.redis.health();
        loop {
            tokio::select! {
                () = app.stopping.cancelled() => return,
                _ = heartbeat.tick() => self.heartbeat(&app).await,
                _ = sweep.tick(), if !app.draining.is_cancelled() => self.sweep(&app).await,
                _ = health_check.tick() => {
                    if !self.cluster.redis.is_up() {
                        self.cluster.redis.ping().await;
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
                ask = placements.recv() => match ask {
                    Some(json) => self.place_here(&app, json),
                    None => return,
                },
            }
        }
    }

    /// Starts the computer game another node asked this one to hold, and answers.
    fn place_here(&self, app: &Arc<App>, json: String) {
        let Ok(ask) = serde_json::from_str::<Request<PlaceRequest>>(&json) else {
            tracing::debug!("unreadable computer placement");
            return;
        };
        let (app2, cluster) = (app.clone(), self.cluster.clone());
        app.tracker.spawn(async move {
            let PlaceRequest { human, request } = ask.op;
            let answer: PlaceAnswer = setup::computer_here(&app2, human, request)
                .await
                .map_err(|e| (e.code(), e.to_string()));
            cluster.answer(&ask.from, ask.req, answer).await;
        });
    }

    /// Says this node is alive (and how many computer games it has room for); drops
    /// the lobby entries of users who went offline with a dead node; registers this
    /// node's users again if another node had found it dead and forgotten them. The
    /// first is made before the node serves: a node another one hears from is one its
    /// heartbeats can tell alive or dead (see `AliveNodes::lost`).
    pub async fn heartbeat(&self, app: &Arc<App>) {
        placement::advertise(&self.cluster, &app.computer).await;
        let asked_at = tokio::time::Instant::now();
        let beat = match app.presence.heartbeat().await {
            Ok(beat) => beat,
            Err(e) => {
                tracing::debug!(error = %e, "heartbeat failed");
                return;
            }
        };
        if !beat.alive.is_empty() {
            self.cluster.set_alive(asked_at, beat.alive);
        }
        if beat.forgotten {
            app.games.present_again();
            let users = app.hub.users();
            if !users.is_empty() {
                tracing::warn!(
                    users = users.len(),
                    "this node was found dead: presence restored"
                );
                if let Err(e) = app.presence.restore(&users).await {
                    tracing::warn!(error = %e, "presence restore failed");
                }
            }
        }
        for user in beat.offline {
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
                            reason: None,
                        },
                    );
                }
            }
        }
    }

    /// Takes over games whose owner stopped renewing their lease.
    async fn sweep(&self, app: &Arc<App>) {
        let Some(store) = app.games.game_store() else {
            return;
        };
        if !self.cluster.redis.is_up() {
            return;
        }
        let Ok(expired) = store.expired(16).await else {
            return;
        };
        for (id, deadline) in expired {
            if app.games.get(&id).is_some() {
                continue;
            }
            match store.acquire(&id).await {
                Ok(Some(acquired)) => {
                    // The owner was last heard of one lease before the deadline.
                    let last_alive = deadline.saturating_sub(self.cluster.config.lease_ms);
                    let outage = wall_ms().saturating_sub(last_alive);
                    tracing::info!(game = %id, outage_ms = outage, "taking over game");
                    self.cluster.metrics.leases_acquired.inc();
                    self.cluster.metrics.takeovers.inc();
                    if let Err(e) = app.games.restore(acquired, last_alive) {
                        tracing::error!(game = %id, error = %e, "cannot restore game");
                        let _ = store.not_live(&id).await;
                    }
                }
                Ok(None) => {
                    // Someone else was faster, or the game is gone: if its state is
                    // gone too, forget it.
                    if let Ok(None) = store.snapshot(&id).await {
                        let _ = store.not_live(&id).await;
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
        let node = &self.cluster.node;
        let wanted = |origin: &str, players: &[UserId]| {
            origin != node && players.iter().any(|p| app.hub.is_connected(p))
        };
        let Ok(Some(notice)) = Broadcast::decode(json, wanted) else {
            return;
        };
        match notice {
            Broadcast::Message { origin, user, msg } => {
                if origin != self.cluster.node {
                    app.hub.notify(&user, || Notice::Message(msg.clone()));
                }
            }
            Broadcast::SessionsEnded {
                origin,
                user,
                before_ms,
                token_hash,
                token_id,
            } => {
                if origin != self.cluster.node {
                    let ended = crate::hub::Ended {
                        before_ms,
                        token_hash,
                        token_id,
                    };
                    app.hub.end(&user, &ended);
                }
            }
            Broadcast::Standings {
                origin,
                standings,
                me,
                at_ms,
            } => {
                if origin != self.cluster.node {
                    app.hub.notify_standings(&standings, &me);
                    if at_ms > 0 {
                        app.metrics
                            .standings_notice_ms
                            .observe(wall_ms().saturating_sub(at_ms));
                    }
                }
            }
            // Decoded only if wanted: another node's game, with a player here.
            Broadcast::GameStarted(GameStartedNotice {
                origin: _,
                game_id,
                players,
                at_ms,
                start,
            }) => {
                let since = |at_ms: u64| wall_ms().saturating_sub(at_ms);
                if at_ms > 0 {
                    app.metrics.game_notice_ms.observe(since(at_ms));
                }
                // Finding the game asks Redis and subscribes to it: in a task of its
                // own, so that a wave of game starts does not hold up the notices
                // behind it (which a full queue would drop) or the heartbeats.
                let app = app.clone();
                app.tracker.clone().spawn(async move {
                    // The notice's state spares the proxy its `LOAD` (older nodes
                    // send none: then Redis is asked).
                    let found = match start {
                        Some(start) if start.state.game_id == game_id => {
                            app.games.started(start, at_ms).await
                        }
                        _ => app.games.find(&game_id).await,
                    };
                    if let Some(handle) = found {
                        if at_ms > 0 {
                            app.metrics.game_found_ms.observe(since(at_ms));
                        }
                        for player in &players {
                            app.hub.notify(player, || {
                                Notice::GameStarted(StartedGame::to_join(handle.clone()))
                            });
                        }
                    }
                });
            }
        }
    }
}
