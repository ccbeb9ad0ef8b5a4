//! Blitz arenas: the [`Arenas`] registry that creates them (from players or the
//! operator's [`schedule`]) and finds them by id, each reached through an
//! [`ArenaHandle`]. On a single node one [`actor`] per arena alone owns its players,
//! sheets and pairing. With Redis (cluster mode) the arena's state lives in Redis
//! ([`redis`]): any node serves join, withdraw, pause and standings from there, and one
//! node at a time organises the arena under the fenced organiser lease ([`organiser`]).
//! Scoring and pairing are `shared::arena`; games are started through the game registry
//! with the arena's id in their spec, so they are archived linked to it.

pub mod actor;
pub mod organiser;
pub mod redis;
pub mod schedule;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use shared::arena::{ArenaInfo, ArenaMe, ArenaStandings, ArenaStatus, Membership};
use shared::protocol::{ErrorCode, ServerMessage, UserId, UserInfo};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::ArenaConfig;
use crate::db::Db;
use crate::game::GameRegistry;

/// Sends a message to every session of a user, on any node.
pub type Notify = Arc<dyn Fn(&UserId, ServerMessage) + Send + Sync>;

/// Sends one arena's standings to many users, on any node: the shared part once, each
/// user's own line beside it (with Redis: in a few notices, not one per user).
pub type NotifyStandings =
    Arc<dyn Fn(ArenaStandings, Vec<(UserId, Option<ArenaMe>)>) + Send + Sync>;

/// Why an arena request was refused. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArenaError {
    /// No such arena (or it is over and its actor gone).
    #[error("no such arena")]
    NotFound,
    /// The arena is over.
    #[error("the arena is over")]
    Closed,
    /// Entry conditions not met.
    #[error("{0}")]
    Conditions(String),
    /// The request is malformed.
    #[error("{0}")]
    Invalid(String),
    /// Guests cannot do this.
    #[error("{0}")]
    NeedsAccount(&'static str),
    /// Not a player of the arena.
    #[error("you have not joined this arena")]
    NotJoined,
    /// Too many arenas at once.
    #[error("too many arenas")]
    TooMany,
    /// The arena has as many watchers (besides its players) as it takes
    /// (`arena.max_watchers`); nothing changed.
    #[error("this arena has as many watchers as it takes")]
    WatchersFull,
    /// The server is stopping.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The arena's shared state (Redis) cannot be reached now; nothing changed.
    #[error("arenas are unavailable, try again")]
    Unavailable,
}

impl ArenaError {
    /// The protocol error code.
    pub fn code(&self) -> ErrorCode {
        match self {
            ArenaError::NotFound | ArenaError::NotJoined => ErrorCode::ArenaNotFound,
            ArenaError::Closed => ErrorCode::ArenaClosed,
            ArenaError::Conditions(_) => ErrorCode::ArenaConditions,
            ArenaError::Invalid(_) => ErrorCode::InvalidMessage,
            ArenaError::NeedsAccount(_) => ErrorCode::RatedNeedsAccount,
            ArenaError::TooMany | ArenaError::WatchersFull => ErrorCode::TooMany,
            ArenaError::ShuttingDown => ErrorCode::ShuttingDown,
            ArenaError::Unavailable => ErrorCode::Unavailable,
        }
    }
}

/// A new arena: its description and, if private, its password.
#[derive(Clone, Debug)]
pub struct ArenaSpec {
    /// What it is (`status` and `players` are kept up to date by the actor).
    pub info: ArenaInfo,
    /// The password to join, if any.
    pub password: Option<String>,
}

impl ArenaSpec {
    /// Checks what a client may get wrong.
    pub fn validate(&self, max_duration_secs: u64) -> Result<(), ArenaError> {
        let i = &self.info;
        let len = i.name.chars().count();
        if !(1..=60).contains(&len) {
            return Err(ArenaError::Invalid(
                "the name must have 1 to 60 characters".into(),
            ));
        }
        if i.duration_ms < 10_000 || i.duration_ms > max_duration_secs.saturating_mul(1000) {
            return Err(ArenaError::Invalid(format!(
                "the duration must be 10 s to {max_duration_secs} s"
            )));
        }
        i.time_control
            .fits(i.variant)
            .map_err(|unfit| ArenaError::Invalid(unfit.to_string()))?;
        if let Some(r) = i.ruleset
            && !r.rules().variants.contains(&i.variant)
        {
            return Err(ArenaError::Invalid(format!(
                "the rule set does not govern {}",
                i.variant
            )));
        }
        if let (Some(lo), Some(hi)) = (i.min_rating, i.max_rating)
            && lo > hi
        {
            return Err(ArenaError::Invalid("min_rating is above max_rating".into()));
        }
        if self
            .password
            .as_ref()
            .is_some_and(|p| p.is_empty() || p.len() > 100)
        {
            return Err(ArenaError::Invalid(
                "the password must have 1 to 100 bytes".into(),
            ));
        }
        Ok(())
    }
}

/// A request to join.
#[derive(Debug)]
pub struct JoinRequest {
    /// Who, with their rating in the arena's perf.
    pub user: UserInfo,
    /// Their rated games in the arena's perf.
    pub rated_games: u32,
    /// The password given.
    pub password: Option<String>,
}

/// Checks a newcomer against the entry conditions: password, rated games, rating range
/// (rated arenas also need an account).
pub(crate) fn check_conditions(spec: &ArenaSpec, req: &JoinRequest) -> Result<(), ArenaError> {
    let info = &spec.info;
    if info.rated && req.user.guest {
        return Err(ArenaError::NeedsAccount("rated arenas need an account"));
    }
    if let Some(pw) = &spec.password
        && req.password.as_ref() != Some(pw)
    {
        return Err(ArenaError::Conditions("wrong password".into()));
    }
    if req.rated_games < info.min_games {
        return Err(ArenaError::Conditions(format!(
            "this arena needs {} rated games in its perf",
            info.min_games
        )));
    }
    let rating = req.user.rating.unwrap_or(0);
    if info.min_rating.is_some_and(|lo| rating < lo)
        || info.max_rating.is_some_and(|hi| rating > hi)
    {
        return Err(ArenaError::Conditions(
            "your rating is outside this arena's range".into(),
        ));
    }
    Ok(())
}

/// A message to an arena actor.
#[derive(Debug)]
pub(crate) enum ArenaCmd {
    Join(JoinRequest, oneshot::Sender<Result<Membership, ArenaError>>),
    Withdraw(UserId, oneshot::Sender<Result<Membership, ArenaError>>),
    Pause(UserId, oneshot::Sender<Result<Membership, ArenaError>>),
    Watch(UserId, oneshot::Sender<Result<ArenaStandings, ArenaError>>),
    Unwatch(UserId),
    Info(oneshot::Sender<ArenaInfo>),
    Standings(Option<UserId>, oneshot::Sender<ArenaStandings>),
    Ended(actor::Ended),
}

/// The way to one arena: its actor on this node, or its state in Redis. Cheap to clone.
#[derive(Clone)]
pub struct ArenaHandle {
    id: String,
    via: Via,
}

#[derive(Clone)]
enum Via {
    Local(mpsc::Sender<ArenaCmd>),
    Cluster(redis::ArenaStore),
}

impl std::fmt::Debug for ArenaHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArenaHandle").field("id", &self.id).finish()
    }
}

impl ArenaHandle {
    async fn ask<T>(
        tx: &mpsc::Sender<ArenaCmd>,
        make: impl FnOnce(oneshot::Sender<T>) -> ArenaCmd,
    ) -> Result<T, ArenaError> {
        let (reply, rx) = oneshot::channel();
        tx.send(make(reply))
            .await
            .map_err(|_| ArenaError::NotFound)?;
        rx.await.map_err(|_| ArenaError::NotFound)
    }

    /// The arena's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Joins (or resumes after a pause).
    pub async fn join(&self, req: JoinRequest) -> Result<Membership, ArenaError> {
        match &self.via {
            Via::Local(tx) => Self::ask(tx, |r| ArenaCmd::Join(req, r)).await?,
            Via::Cluster(store) => store.join(&self.id, req).await,
        }
    }

    /// Withdraws.
    pub async fn withdraw(&self, user: UserId) -> Result<Membership, ArenaError> {
        match &self.via {
            Via::Local(tx) => Self::ask(tx, |r| ArenaCmd::Withdraw(user, r)).await?,
            Via::Cluster(store) => store.leave(&self.id, &user, false).await,
        }
    }

    /// Pauses.
    pub async fn pause(&self, user: UserId) -> Result<Membership, ArenaError> {
        match &self.via {
            Via::Local(tx) => Self::ask(tx, |r| ArenaCmd::Pause(user, r)).await?,
            Via::Cluster(store) => store.leave(&self.id, &user, true).await,
        }
    }

    /// Subscribes to standings (players always, others up to `arena.max_watchers` of
    /// them, counted across the cluster); the standings now.
    pub async fn watch(&self, user: UserId) -> Result<ArenaStandings, ArenaError> {
        match &self.via {
            Via::Local(tx) => Self::ask(tx, |r| ArenaCmd::Watch(user, r)).await?,
            Via::Cluster(store) => store.watch(&self.id, &user).await,
        }
    }

    /// Unsubscribes.
    pub async fn unwatch(&self, user: UserId) {
        match &self.via {
            Via::Local(tx) => {
                let _ = tx.send(ArenaCmd::Unwatch(user)).await;
            }
            Via::Cluster(store) => store.unwatch(&self.id, &user).await,
        }
    }

    /// The description now.
    pub async fn info(&self) -> Result<ArenaInfo, ArenaError> {
        match &self.via {
            Via::Local(tx) => Self::ask(tx, ArenaCmd::Info).await,
            Via::Cluster(store) => store.info(&self.id).await,
        }
    }

    /// The standings now, with `user`'s own line if given.
    pub async fn standings(&self, user: Option<UserId>) -> Result<ArenaStandings, ArenaError> {
        match &self.via {
            Via::Local(tx) => Self::ask(tx, |r| ArenaCmd::Standings(user, r)).await,
            Via::Cluster(store) => store.standings(&self.id, user.as_ref()).await,
        }
    }
}

/// Cluster mode: the shared state and the organiser leases.
#[derive(Clone)]
pub struct ArenaCluster {
    /// The arenas' state in Redis.
    pub store: redis::ArenaStore,
    /// Who organises which arena.
    pub leases: crate::cluster::organiser::OrganiserLeases,
}

impl ArenaCluster {
    /// The arenas' part of a node's cluster (none without Redis).
    pub fn of(
        cluster: Option<&crate::cluster::Cluster>,
        config: &crate::config::Config,
    ) -> Option<ArenaCluster> {
        let c = cluster?;
        Some(ArenaCluster {
            store: redis::ArenaStore::new(
                c.redis.clone(),
                config.arena.max_players,
                config.arena.max_watchers,
                config.arena.page_size,
            ),
            leases: crate::cluster::organiser::OrganiserLeases::new(
                c.redis.clone(),
                redis::LEASE_KIND,
                &c.node,
                config.cluster.lease_ms,
            ),
        })
    }
}

/// What every arena actor needs.
#[derive(Clone)]
pub struct ArenaDeps {
    /// Settings.
    pub config: ArenaConfig,
    /// Where games are started.
    pub games: Arc<GameRegistry>,
    /// Where final standings go.
    pub db: Db,
    /// How players and watchers are told.
    pub notify: Notify,
    /// How an organiser's standings reach the watchers (cluster mode).
    pub notify_standings: NotifyStandings,
    /// Where tasks run.
    pub tracker: TaskTracker,
    /// Cancelled when the server stops.
    pub shutdown: CancellationToken,
    /// Where the time each pairing wave takes is recorded.
    pub metrics: Arc<crate::metrics::Metrics>,
    /// With Redis: the shared state and the organiser leases.
    pub cluster: Option<ArenaCluster>,
}

/// The arenas: on one node, its actors; in a cluster, the arenas this node organises
/// (any arena is reached through Redis).
pub struct Arenas {
    map: Mutex<HashMap<String, ArenaHandle>>,
    /// Cluster mode: the arenas organised here, each with the token that stops it.
    organised: Mutex<HashMap<String, CancellationToken>>,
    deps: ArenaDeps,
}

impl Arenas {
    /// An empty registry.
    pub fn new(deps: ArenaDeps) -> Arc<Arenas> {
        Arc::new(Arenas {
            map: Mutex::new(HashMap::new()),
            organised: Mutex::new(HashMap::new()),
            deps,
        })
    }

    fn map(&self) -> MutexGuard<'_, HashMap<String, ArenaHandle>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Settings.
    pub fn config(&self) -> &ArenaConfig {
        &self.deps.config
    }

    /// Creates an arena and starts its actor (in a cluster: stores it in Redis and
    /// organises it from this node). A spec with an id (scheduled arenas) keeps it: in a
    /// cluster every node creates the scheduled arena and only the first one counts.
    pub async fn create(self: &Arc<Self>, mut spec: ArenaSpec) -> Result<ArenaInfo, ArenaError> {
        if self.deps.shutdown.is_cancelled() {
            return Err(ArenaError::ShuttingDown);
        }
        spec.validate(self.deps.config.max_duration_secs)?;
        if spec.info.id.is_empty() {
            spec.info.id = crate::game::new_game_id().0;
        }
        spec.info.status = ArenaStatus::Upcoming;
        spec.info.players = 0;
        spec.info.private = spec.password.is_some();
        if let Some(cluster) = &self.deps.cluster {
            return self.create_in_cluster(cluster, spec).await;
        }
        let existing = self.map().get(&spec.info.id).cloned();
        if let Some(h) = existing {
            return h.info().await;
        }
        if self.map().len() >= self.deps.config.max_arenas {
            return Err(ArenaError::TooMany);
        }
        let info = spec.info.clone();
        let (tx, rx) = mpsc::channel(self.deps.config.queue);
        let handle = ArenaHandle {
            id: info.id.clone(),
            via: Via::Local(tx.clone()),
        };
        self.map().insert(info.id.clone(), handle);
        let actor = actor::Actor::new(spec, self.deps.clone(), Arc::downgrade(self), tx, rx);
        self.deps.tracker.spawn(actor.run());
        tracing::info!(arena = %info.id, name = %info.name, "arena created");
        Ok(info)
    }

    async fn create_in_cluster(
        self: &Arc<Self>,
        cluster: &ArenaCluster,
        spec: ArenaSpec,
    ) -> Result<ArenaInfo, ArenaError> {
        let live = cluster.store.ids().await.map_err(|e| {
            tracing::warn!(error = %e, "cannot list arenas");
            ArenaError::Unavailable
        })?;
        if live.len() >= self.deps.config.max_arenas {
            return Err(ArenaError::TooMany);
        }
        let id = spec.info.id.clone();
        if cluster.store.create(&spec).await? {
            tracing::info!(arena = %id, name = %spec.info.name, "arena created");
            self.try_organise(cluster, &id).await;
        }
        cluster.store.info(&id).await
    }

    /// Cluster mode: organises `id` from this node if nobody does.
    async fn try_organise(self: &Arc<Self>, cluster: &ArenaCluster, id: &str) {
        if self.organised_map().contains_key(id) {
            return;
        }
        let lease = match cluster.leases.acquire(id).await {
            Ok(Some(lease)) => lease,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(arena = id, error = %e, "cannot take an arena's organiser lease");
                return;
            }
        };
        let stop = self.deps.shutdown.child_token();
        self.organised_map().insert(id.to_string(), stop.clone());
        tracing::info!(arena = id, fence = lease.fence, "organising an arena");
        let org = organiser::Organiser::new(
            id.to_string(),
            lease,
            self.deps.clone(),
            cluster.clone(),
            stop,
        );
        let me = Arc::downgrade(self);
        let id = id.to_string();
        self.deps.tracker.spawn(async move {
            org.run().await;
            if let Some(a) = me.upgrade() {
                a.organised_map().remove(&id);
            }
        });
    }

    fn organised_map(&self) -> MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.organised.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Cluster mode, until the server stops: every third of the lease's lifetime,
    /// takes the organiser lease of every listed arena that nobody organises (its
    /// organiser died) and organises it here.
    pub async fn organise_in_cluster(self: Arc<Self>) {
        let Some(cluster) = self.deps.cluster.clone() else {
            return;
        };
        let every = Duration::from_millis((cluster.leases.ttl_ms() / 3).max(20));
        loop {
            tokio::select! {
                () = self.deps.shutdown.cancelled() => return,
                () = tokio::time::sleep(every) => {}
            }
            match cluster.store.ids().await {
                Ok(ids) => {
                    for id in ids {
                        self.try_organise(&cluster, &id).await;
                    }
                }
                Err(e) => tracing::debug!(error = %e, "cannot list arenas to organise"),
            }
        }
    }

    /// A live arena (upcoming or running, or finishing its last games). In a cluster
    /// any arena: whether it exists is known when it is asked something.
    pub fn get(&self, id: &str) -> Option<ArenaHandle> {
        if let Some(c) = &self.deps.cluster {
            return Some(ArenaHandle {
                id: id.to_string(),
                via: Via::Cluster(c.store.clone()),
            });
        }
        self.map().get(id).cloned()
    }

    /// Every live arena's description (in a cluster, of every node).
    pub async fn list(&self) -> Vec<ArenaInfo> {
        let handles: Vec<ArenaHandle> = match &self.deps.cluster {
            Some(c) => match c.store.ids().await {
                Ok(ids) => ids.iter().filter_map(|id| self.get(id)).collect(),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot list arenas");
                    Vec::new()
                }
            },
            None => self.map().values().cloned().collect(),
        };
        let mut out = Vec::with_capacity(handles.len());
        for h in handles {
            if let Ok(info) = h.info().await {
                out.push(info);
            }
        }
        out.sort_by(|a, b| a.starts_at_ms.cmp(&b.starts_at_ms).then(a.id.cmp(&b.id)));
        out
    }

    fn remove(&self, id: &str) {
        self.map().remove(id);
    }
}

/// Called by an actor as it exits.
fn exited(arenas: &Weak<Arenas>, id: &str) {
    if let Some(a) = arenas.upgrade() {
        a.remove(id);
    }
}
