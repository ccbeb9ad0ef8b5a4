//! Blitz arenas on this node: one [`actor`] per arena that alone owns its players,
//! sheets and pairing, reached through an [`ArenaHandle`]; the [`Arenas`] registry that
//! creates them (from players or the operator's [`schedule`]) and finds them by id.
//! Scoring and pairing are `shared::arena`; games are started through the game registry
//! with the arena's id in their spec, so they are archived linked to it.

pub mod actor;
pub mod schedule;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use shared::arena::{ArenaInfo, ArenaStandings, ArenaStatus, Membership};
use shared::protocol::{ErrorCode, ServerMessage, UserId, UserInfo};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::ArenaConfig;
use crate::db::Db;
use crate::game::GameRegistry;

/// Sends a message to every session of a user, on any node.
pub type Notify = Arc<dyn Fn(&UserId, ServerMessage) + Send + Sync>;

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
    /// The server is stopping.
    #[error("the server is shutting down")]
    ShuttingDown,
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
            ArenaError::TooMany => ErrorCode::TooMany,
            ArenaError::ShuttingDown => ErrorCode::ShuttingDown,
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
        if i.variant.draughts().is_some() && i.time_control.has_delay() {
            return Err(ArenaError::Invalid(
                "delay is a chess clock mode (FIDE 6.2); the draughts texts (IDF s.2 art. 5, \
                 INT 3.6) know sudden death, Fischer and periods only"
                    .into(),
            ));
        }
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

/// A message to an arena actor.
#[derive(Debug)]
pub(crate) enum ArenaCmd {
    Join(JoinRequest, oneshot::Sender<Result<Membership, ArenaError>>),
    Withdraw(UserId, oneshot::Sender<Result<Membership, ArenaError>>),
    Pause(UserId, oneshot::Sender<Result<Membership, ArenaError>>),
    Watch(UserId, oneshot::Sender<ArenaStandings>),
    Unwatch(UserId),
    Info(oneshot::Sender<ArenaInfo>),
    Standings(Option<UserId>, oneshot::Sender<ArenaStandings>),
    Ended(actor::Ended),
}

/// The way to one arena's actor. Cheap to clone.
#[derive(Clone, Debug)]
pub struct ArenaHandle {
    id: String,
    tx: mpsc::Sender<ArenaCmd>,
}

impl ArenaHandle {
    async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<T>) -> ArenaCmd,
    ) -> Result<T, ArenaError> {
        let (tx, rx) = oneshot::channel();
        self.tx
            .send(make(tx))
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
        self.ask(|r| ArenaCmd::Join(req, r)).await?
    }

    /// Withdraws.
    pub async fn withdraw(&self, user: UserId) -> Result<Membership, ArenaError> {
        self.ask(|r| ArenaCmd::Withdraw(user, r)).await?
    }

    /// Pauses.
    pub async fn pause(&self, user: UserId) -> Result<Membership, ArenaError> {
        self.ask(|r| ArenaCmd::Pause(user, r)).await?
    }

    /// Subscribes to standings; the standings now.
    pub async fn watch(&self, user: UserId) -> Result<ArenaStandings, ArenaError> {
        self.ask(|r| ArenaCmd::Watch(user, r)).await
    }

    /// Unsubscribes.
    pub async fn unwatch(&self, user: UserId) {
        let _ = self.tx.send(ArenaCmd::Unwatch(user)).await;
    }

    /// The description now.
    pub async fn info(&self) -> Result<ArenaInfo, ArenaError> {
        self.ask(ArenaCmd::Info).await
    }

    /// The standings now, with `user`'s own line if given.
    pub async fn standings(&self, user: Option<UserId>) -> Result<ArenaStandings, ArenaError> {
        self.ask(|r| ArenaCmd::Standings(user, r)).await
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
    /// Where tasks run.
    pub tracker: TaskTracker,
    /// Cancelled when the server stops.
    pub shutdown: CancellationToken,
}

/// The arenas of this node.
pub struct Arenas {
    map: Mutex<HashMap<String, ArenaHandle>>,
    deps: ArenaDeps,
}

impl Arenas {
    /// An empty registry.
    pub fn new(deps: ArenaDeps) -> Arc<Arenas> {
        Arc::new(Arenas {
            map: Mutex::new(HashMap::new()),
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

    /// Creates an arena and starts its actor.
    pub fn create(self: &Arc<Self>, mut spec: ArenaSpec) -> Result<ArenaInfo, ArenaError> {
        if self.deps.shutdown.is_cancelled() {
            return Err(ArenaError::ShuttingDown);
        }
        spec.validate(self.deps.config.max_duration_secs)?;
        if self.map().len() >= self.deps.config.max_arenas {
            return Err(ArenaError::TooMany);
        }
        spec.info.id = crate::game::new_game_id().0;
        spec.info.status = ArenaStatus::Upcoming;
        spec.info.players = 0;
        spec.info.private = spec.password.is_some();
        let info = spec.info.clone();
        let (tx, rx) = mpsc::channel(self.deps.config.queue);
        let handle = ArenaHandle {
            id: info.id.clone(),
            tx: tx.clone(),
        };
        self.map().insert(info.id.clone(), handle);
        let actor = actor::Actor::new(spec, self.deps.clone(), Arc::downgrade(self), tx, rx);
        self.deps.tracker.spawn(actor.run());
        tracing::info!(arena = %info.id, name = %info.name, "arena created");
        Ok(info)
    }

    /// A live arena (upcoming or running, or finishing its last games).
    pub fn get(&self, id: &str) -> Option<ArenaHandle> {
        self.map().get(id).cloned()
    }

    /// Every live arena's description.
    pub async fn list(&self) -> Vec<ArenaInfo> {
        let handles: Vec<ArenaHandle> = self.map().values().cloned().collect();
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
