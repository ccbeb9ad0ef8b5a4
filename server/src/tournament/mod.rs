//! Tournaments run by the server (IDF s.2: round robin and Swiss of micro-matches with
//! ballots, forfeits, withdrawals, tie-breaks), on top of the pure logic in
//! `shared::tournament`.
//!
//! - [`record`]: the whole state of one tournament and the views computed from it.
//! - [`organiser`]: the task that pairs rounds on schedule and plays each micro-match as
//!   live games the organiser creates itself (no seek, no accept step).
//! - [`pdn`]: the whole tournament as one PDN file.
//! - [`store`]: persistence behind a small trait: the database (the server's) and an
//!   in-memory implementation (unit tests).
//!
//! [`Tournaments`] ties them together for the HTTP routes and the sessions, resumes
//! unfinished tournaments after a restart and, with a cluster, organises each under the
//! organiser lease (`cluster::organiser`), takes over those whose organiser died, and
//! relays organisers' views from the bus to this node's watchers.

pub mod organiser;
pub mod pdn;
pub mod record;
pub mod store;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use shared::protocol::{
    ServerMessage, TournamentId, TournamentStatus, TournamentSummary, TournamentView, UserId,
};
use shared::rules::Color;
use shared::tournament::BallotTable;

use crate::cluster::Cluster;
use crate::cluster::lease::Lease;
use crate::cluster::organiser::OrganiserLeases;
use crate::db::Db;
use crate::game::GameRegistry;
use crate::hub::Hub;
use record::{SpecError, TournamentRecord, TournamentSpec};
use store::TournamentStore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Why a tournament request was refused.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// The spec is not acceptable.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// No such tournament.
    #[error("no tournament {0}")]
    NotFound(TournamentId),
    /// The user does not play in it (or left, or it is over).
    #[error("you do not play in this tournament, have left it, or it is over")]
    NotInTournament,
    /// A round is being played, or the tournament is over, or its rounds start on a
    /// schedule.
    #[error("{0}")]
    NoRoundToStart(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] store::TournamentStoreError),
}

/// A tournament being run on this node.
#[derive(Debug)]
pub struct Live {
    record: Mutex<TournamentRecord>,
    watchers: Mutex<HashSet<UserId>>,
    /// The organiser's command to start the next round.
    next_round: tokio::sync::Notify,
    /// Cancelled when this node must stop organising it (the lease is lost).
    stop: CancellationToken,
    /// The organiser lease held for it (with a cluster).
    lease: Option<Lease>,
}

impl Live {
    /// The record, locked (never across an `.await`).
    pub fn record(&self) -> MutexGuard<'_, TournamentRecord> {
        // Every change leaves the record consistent, so a poisoned lock is still usable.
        self.record.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn watchers(&self) -> MutexGuard<'_, HashSet<UserId>> {
        self.watchers.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn new(record: TournamentRecord, lease: Option<Lease>) -> Live {
        Live {
            record: Mutex::new(record),
            watchers: Mutex::new(HashSet::new()),
            next_round: tokio::sync::Notify::new(),
            stop: CancellationToken::new(),
            lease,
        }
    }

    /// Should the organiser stop (the server drains, or the lease was lost)?
    pub fn stopping(&self, app: &impl Host) -> bool {
        app.draining().is_cancelled() || self.stop.is_cancelled()
    }

    /// Resolves when the organiser should stop.
    pub async fn stopped(&self, app: &impl Host) {
        tokio::select! {
            () = app.draining().cancelled() => {}
            () = self.stop.cancelled() => {}
        }
    }
}

/// What tournaments need of the application they run in. `App` implements it; the
/// tournaments, below the application, know nothing else of it.
pub trait Host: Send + Sync + 'static {
    /// Cancelled when the server begins to drain.
    fn draining(&self) -> &CancellationToken;
    /// Where organisers run, so that shutdown waits for them.
    fn tracker(&self) -> &TaskTracker;
    /// The database.
    fn db(&self) -> &Db;
    /// This node's sessions by user.
    fn hub(&self) -> &Hub;
    /// Live games.
    fn games(&self) -> &Arc<GameRegistry>;
    /// Several nodes: Redis.
    fn cluster(&self) -> Option<&Arc<Cluster>>;
    /// Every tournament of this node.
    fn tournaments(&self) -> &Tournaments;
    /// Sends `msg` to every session of `user`, wherever connected.
    fn notify_user(&self, user: &UserId, msg: ServerMessage);
}

impl<H: Host> Host for Arc<H> {
    fn draining(&self) -> &CancellationToken {
        H::draining(self)
    }
    fn tracker(&self) -> &TaskTracker {
        H::tracker(self)
    }
    fn db(&self) -> &Db {
        H::db(self)
    }
    fn hub(&self) -> &Hub {
        H::hub(self)
    }
    fn games(&self) -> &Arc<GameRegistry> {
        H::games(self)
    }
    fn cluster(&self) -> Option<&Arc<Cluster>> {
        H::cluster(self)
    }
    fn tournaments(&self) -> &Tournaments {
        H::tournaments(self)
    }
    fn notify_user(&self, user: &UserId, msg: ServerMessage) {
        H::notify_user(self, user, msg);
    }
}

/// A tournament created and stored, not yet organised.
pub struct Prepared {
    record: TournamentRecord,
    lease: Option<Lease>,
    ballot: Option<Arc<BallotTable>>,
}

/// Every tournament of this node, and the store.
pub struct Tournaments {
    store: Arc<dyn TournamentStore>,
    live: Mutex<HashMap<TournamentId, Arc<Live>>>,
    ballot_dir: PathBuf,
    leases: Option<OrganiserLeases>,
    /// With a cluster: this node's watchers of tournaments organised elsewhere; they
    /// get the organiser's views relayed over the bus.
    remote_watchers: Mutex<HashMap<TournamentId, HashSet<UserId>>>,
}

/// The bus channel (under the Redis prefix) on which organisers publish their views.
const CHANNEL: &str = "tournaments";

fn lease_error(e: impl std::fmt::Display) -> TournamentError {
    TournamentError::Store(store::TournamentStoreError::Backend(format!(
        "organiser lease: {e}"
    )))
}

impl Tournaments {
    /// Tournaments persisted in `store`, ballot tables read from `ballot_dir`; with a
    /// cluster, each organised under an organiser lease from `leases`.
    pub fn new(
        store: Arc<dyn TournamentStore>,
        ballot_dir: PathBuf,
        leases: Option<OrganiserLeases>,
    ) -> Tournaments {
        Tournaments {
            store,
            live: Mutex::new(HashMap::new()),
            ballot_dir,
            leases,
            remote_watchers: Mutex::new(HashMap::new()),
        }
    }

    fn remote_watchers(&self) -> MutexGuard<'_, HashMap<TournamentId, HashSet<UserId>>> {
        self.remote_watchers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Relays a view published by another node's organiser to this node's watchers.
    fn relay(&self, app: &impl Host, json: &str) {
        let Ok(msg) = serde_json::from_str::<ServerMessage>(json) else {
            return;
        };
        let ServerMessage::Tournament { tournament } = &msg else {
            return;
        };
        let id = &tournament.summary.id;
        if self.live(id).is_some() {
            return;
        }
        let users: Vec<UserId> = self
            .remote_watchers()
            .get(id)
            .map(|w| w.iter().cloned().collect())
            .unwrap_or_default();
        for u in &users {
            app.hub()
                .notify(u, || crate::hub::Notice::message(msg.clone()));
        }
    }

    fn live_map(&self) -> MutexGuard<'_, HashMap<TournamentId, Arc<Live>>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn live(&self, id: &str) -> Option<Arc<Live>> {
        self.live_map().get(id).cloned()
    }

    /// Loads a ballot table by file name (no paths: a bare name inside `ballot_dir`).
    /// The file is read on the blocking pool: a slow disk (or a FIFO) holds up this
    /// request only, not the async threads every session runs on.
    async fn ballot(&self, name: &str) -> Result<BallotTable, SpecError> {
        let bare = std::path::Path::new(name)
            .file_name()
            .filter(|f| f.to_str() == Some(name))
            .ok_or_else(|| SpecError::Ballot(format!("`{name}` is not a file name")))?;
        let path = self.ballot_dir.join(bare);
        let text = tokio::task::spawn_blocking(move || std::fs::read_to_string(path))
            .await
            .map_err(|e| SpecError::Ballot(format!("{name}: {e}")))?
            .map_err(|e| SpecError::Ballot(format!("{name}: {e}")))?;
        BallotTable::parse(&text).map_err(|e| SpecError::Ballot(format!("{name}: {e}")))
    }

    /// Creates a tournament and starts its organiser.
    pub async fn create(
        &self,
        app: &Arc<impl Host>,
        spec: TournamentSpec,
    ) -> Result<TournamentView, TournamentError> {
        let prepared = self.prepare(spec).await?;
        Ok(self.launch(app, prepared))
    }

    /// A new tournament's record, checked, leased (with a cluster) and stored, with its
    /// ballot table; not yet organised ([`Tournaments::launch`]). Apart from `create` so
    /// that an organiser can create a next stage (art. 2.5) without its future holding
    /// an organiser's.
    pub async fn prepare(&self, spec: TournamentSpec) -> Result<Prepared, TournamentError> {
        let id = crate::game::new_game_id().to_string();
        self.prepare_as(spec, id)
            .await?
            .ok_or_else(|| lease_error("a new tournament's id is taken"))
    }

    /// The next stage (art. 2.5) of a stage, under the id its previous stage gives it
    /// ([`TournamentRecord::next_stage_id_to_be`]): `None` if a record of that id is
    /// stored already, made by an organiser that died before it recorded the link. So
    /// an organiser that takes a finished stage over never creates a second next stage.
    pub async fn prepare_stage(
        &self,
        spec: TournamentSpec,
        id: TournamentId,
    ) -> Result<Option<Prepared>, TournamentError> {
        if self.store.load(&id).await?.is_some() {
            return Ok(None);
        }
        self.prepare_as(spec, id).await
    }

    /// [`Tournaments::prepare`] under a given id; `None` if a record of that id is
    /// stored already (looked up under the lease, so a dead organiser's last save counts).
    async fn prepare_as(
        &self,
        spec: TournamentSpec,
        id: TournamentId,
    ) -> Result<Option<Prepared>, TournamentError> {
        spec.check()?;
        let ballot = match &spec.ballot {
            Some(name) => {
                let table = self.ballot(name).await?;
                if table.variant != spec.variant {
                    return Err(SpecError::Ballot(format!(
                        "{name} is a table for {}, not {}",
                        table.variant, spec.variant
                    ))
                    .into());
                }
                Some(Arc::new(table))
            }
            None => None,
        };
        let mut spec = spec;
        if spec.initial_colour.is_none() {
            // Dutch E.5: the initial colour is drawn by lot.
            let heads = getrandom::u32().map_or(true, |r| r & 1 == 0);
            spec.initial_colour = Some(if heads { Color::White } else { Color::Black });
        }
        let mut record = TournamentRecord::new(id.clone(), spec);
        let lease = match &self.leases {
            Some(leases) => Some(
                leases
                    .acquire(&id)
                    .await
                    .map_err(lease_error)?
                    .ok_or_else(|| lease_error("a new tournament's lease is taken"))?,
            ),
            None => None,
        };
        if self.store.load(&id).await?.is_some() {
            if let (Some(leases), Some(lease)) = (&self.leases, &lease) {
                let _ = leases.release(&id, lease).await;
            }
            return Ok(None);
        }
        record.fence = lease.as_ref().map_or(0, |l| l.fence);
        self.store.save(&record).await?;
        Ok(Some(Prepared {
            record,
            lease,
            ballot,
        }))
    }

    /// Starts organising a prepared tournament; its view.
    pub fn launch(&self, app: &Arc<impl Host>, prepared: Prepared) -> TournamentView {
        let Prepared {
            record,
            lease,
            ballot,
        } = prepared;
        let id = record.id.clone();
        let view = record.view();
        let live = Arc::new(Live::new(record, lease));
        self.live_map().insert(id.clone(), live.clone());
        app.tracker()
            .spawn(serve_commands(app.clone(), live.clone(), id));
        app.tracker()
            .spawn(organiser::run(app.clone(), live, ballot));
        view
    }

    /// The view of a tournament, live or stored.
    pub async fn view(&self, id: &str) -> Result<TournamentView, TournamentError> {
        if let Some(live) = self.live(id) {
            return Ok(live.record().view());
        }
        match self.store.load(id).await? {
            Some(r) => Ok(r.view()),
            None => Err(TournamentError::NotFound(id.to_string())),
        }
    }

    /// The whole tournament as PDN: every finished game as the game archive holds it
    /// (the record's copy where the archive does not have it yet).
    pub async fn pdn(&self, app: &impl Host, id: &str) -> Result<String, TournamentError> {
        let mut record = match self.live(id) {
            Some(live) => live.record().clone(),
            None => self
                .store
                .load(id)
                .await?
                .ok_or_else(|| TournamentError::NotFound(id.to_string()))?,
        };
        for g in record.games.iter_mut().filter(|g| g.result.is_some()) {
            match app.db().game(&g.game_id.0).await {
                Ok(Some(a)) if a.tournament.as_deref() == Some(id) => {
                    *g = pdn::from_archive(g, &a);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(game = %g.game_id, error = %e, "archive not read"),
            }
        }
        Ok(pdn::tournament(&record))
    }

    /// Resumes every unfinished tournament of the store that this node does not run
    /// yet (at start: the organiser picks up the results of the games played meanwhile).
    /// Returns how many were resumed.
    pub async fn resume(&self, app: &Arc<impl Host>) -> Result<usize, TournamentError> {
        let mut resumed = 0;
        for record in self.store.unfinished().await? {
            if self.live(&record.id).is_some() {
                continue;
            }
            if self.resume_one(app, record, None).await {
                resumed += 1;
            }
        }
        Ok(resumed)
    }

    /// Starts the organiser of a stored record; false if its ballot table is gone.
    async fn resume_one(
        &self,
        app: &Arc<impl Host>,
        record: TournamentRecord,
        lease: Option<Lease>,
    ) -> bool {
        let ballot = match &record.spec.ballot {
            Some(name) => match self.ballot(name).await {
                Ok(t) => Some(Arc::new(t)),
                Err(e) => {
                    tracing::error!(tournament = %record.id, error = %e, "cannot resume the tournament");
                    return false;
                }
            },
            None => None,
        };
        let id = record.id.clone();
        tracing::info!(tournament = %id, round = record.rounds.len(), "tournament resumed");
        let live = Arc::new(Live::new(record, lease));
        if let Some(w) = self.remote_watchers().remove(&id) {
            live.watchers().extend(w);
        }
        self.live_map().insert(id.clone(), live.clone());
        app.tracker()
            .spawn(serve_commands(app.clone(), live.clone(), id));
        app.tracker()
            .spawn(organiser::run(app.clone(), live, ballot));
        true
    }

    /// With a cluster: renews this node's organiser leases (stopping the organiser of
    /// any it lost) and takes over every unfinished tournament whose lease is free (its
    /// organiser died, or nobody resumed it after a restart). Every third of the lease's
    /// lifetime until the server drains.
    pub async fn organise_in_cluster(app: Arc<impl Host>) {
        let Some(leases) = app.tournaments().leases.clone() else {
            return;
        };
        let every = std::time::Duration::from_millis((leases.ttl_ms() / 3).max(20));
        let (tx, mut views) = tokio::sync::mpsc::channel(crate::cluster::member::NOTICE_QUEUE);
        if let Some(c) = app.cluster() {
            c.bus.subscribe(c.redis.channel(CHANNEL), tx).await;
        }
        let mut tick = tokio::time::interval(every);
        loop {
            tokio::select! {
                () = app.draining().cancelled() => return,
                Some(json) = views.recv() => {
                    app.tournaments().relay(&app, &json);
                    continue;
                }
                _ = tick.tick() => {}
            }
            app.tournaments().renew_leases(&leases).await;
            if let Err(e) = app.tournaments().take_over(&app, &leases).await {
                tracing::warn!(error = %e, "cannot look for tournaments to organise");
            }
        }
    }

    async fn renew_leases(&self, leases: &OrganiserLeases) {
        let held: Vec<(TournamentId, Arc<Live>)> = self
            .live_map()
            .iter()
            .map(|(id, l)| (id.clone(), l.clone()))
            .collect();
        for (id, live) in held {
            let Some(lease) = &live.lease else { continue };
            match leases.renew(&id, lease).await {
                Ok(true) => {}
                Ok(false) => {
                    tracing::warn!(tournament = %id, "organiser lease lost; another node organises it");
                    live.stop.cancel();
                    let mut map = self.live_map();
                    if map.get(&id).is_some_and(|l| Arc::ptr_eq(l, &live)) {
                        map.remove(&id);
                    }
                }
                Err(e) => {
                    tracing::warn!(tournament = %id, error = %e, "cannot renew the organiser lease")
                }
            }
        }
    }

    async fn take_over(
        &self,
        app: &Arc<impl Host>,
        leases: &OrganiserLeases,
    ) -> Result<(), TournamentError> {
        for stored in self.store.unfinished().await? {
            if self.live(&stored.id).is_some() {
                continue;
            }
            let Some(lease) = leases.acquire(&stored.id).await.map_err(lease_error)? else {
                continue;
            };
            // Read again under the lease: the previous organiser's last save counts.
            let record = match self.store.load(&stored.id).await? {
                Some(r) if r.status != TournamentStatus::Finished => r,
                _ => {
                    let _ = leases.release(&stored.id, &lease).await;
                    continue;
                }
            };
            let mut record = record;
            record.fence = lease.fence;
            tracing::info!(tournament = %record.id, fence = lease.fence, "taking over a tournament's organisation");
            if !self.resume_one(app, record, Some(lease.clone())).await {
                let _ = leases.release(&stored.id, &lease).await;
            }
        }
        Ok(())
    }

    /// Upcoming, running and finished tournaments.
    pub async fn list(&self) -> Result<Vec<TournamentSummary>, TournamentError> {
        let mut out: HashMap<TournamentId, TournamentSummary> = self
            .store
            .list()
            .await?
            .into_iter()
            .map(|s| (s.id.clone(), s))
            .collect();
        let live: Vec<Arc<Live>> = self.live_map().values().cloned().collect();
        for l in live {
            let s = l.record().summary();
            out.insert(s.id.clone(), s);
        }
        let mut v: Vec<TournamentSummary> = out.into_values().collect();
        let rank = |s: &TournamentStatus| match s {
            TournamentStatus::Running => 0,
            TournamentStatus::Upcoming => 1,
            TournamentStatus::Finished => 2,
        };
        v.sort_by(|a, b| rank(&a.status).cmp(&rank(&b.status)).then(a.id.cmp(&b.id)));
        Ok(v)
    }

    /// The organiser's command: start the next round now (tournaments whose rounds
    /// start on command).
    pub async fn start_round(&self, app: &impl Host, id: &str) -> Result<(), TournamentError> {
        let Some(live) = self.live(id) else {
            return match self.not_live(id).await? {
                None => Err(TournamentError::NoRoundToStart(
                    "the tournament is over".into(),
                )),
                // Organised by another node: asked there.
                Some(_) => remote(app, id, &Command::StartRound).await,
            };
        };
        {
            let mut r = live.record();
            if r.spec.start != record::Start::Command {
                return Err(TournamentError::NoRoundToStart(
                    "this tournament starts its rounds on a schedule".into(),
                ));
            }
            if r.round_running || r.start_requested || r.rounds_over() {
                return Err(TournamentError::NoRoundToStart(
                    "a round is being played or the tournament is over".into(),
                ));
            }
            r.start_requested = true;
        }
        live.next_round.notify_one();
        Ok(())
    }

    /// Follows a tournament; returns its view now. A tournament organised by another
    /// node of the cluster is followed through the views its organiser publishes on the
    /// bus.
    pub async fn watch(&self, id: &str, user: &UserId) -> Result<TournamentView, TournamentError> {
        if let Some(live) = self.live(id) {
            live.watchers().insert(user.clone());
            return Ok(live.record().view());
        }
        let view = self.view(id).await?;
        if self.leases.is_some() && view.summary.status != TournamentStatus::Finished {
            self.remote_watchers()
                .entry(id.to_string())
                .or_default()
                .insert(user.clone());
        }
        Ok(view)
    }

    /// Stops following.
    pub fn unwatch(&self, id: &str, user: &UserId) {
        if let Some(live) = self.live(id) {
            live.watchers().remove(user);
        }
        let mut remote = self.remote_watchers();
        if let Some(w) = remote.get_mut(id) {
            w.remove(user);
            if w.is_empty() {
                remote.remove(id);
            }
        }
    }

    /// Art. 18.2: `user` leaves tournament `id`.
    pub async fn withdraw(
        &self,
        app: &impl Host,
        id: &str,
        user: &UserId,
    ) -> Result<(), TournamentError> {
        let Some(live) = self.live(id) else {
            return match self.not_live(id).await? {
                None => Err(TournamentError::NotInTournament),
                Some(_) => {
                    let cmd = Command::Withdraw { user: user.clone() };
                    remote(app, id, &cmd).await
                }
            };
        };
        let changed = {
            let mut r = live.record();
            let seed = r.seed_of(user).ok_or(TournamentError::NotInTournament)?;
            r.withdraw(seed)
        };
        if !changed {
            return Err(TournamentError::NotInTournament);
        }
        self.publish(app, &live).await;
        Ok(())
    }

    /// Why a tournament this node does not run cannot be acted on: `Ok(None)` if it is
    /// stored and finished, `Ok(Some(record))` if it is stored and still running (another
    /// node organises it), `NotFound` if there is no such tournament.
    async fn not_live(&self, id: &str) -> Result<Option<TournamentRecord>, TournamentError> {
        match self.store.load(id).await? {
            Some(r) if r.status == TournamentStatus::Finished => Ok(None),
            Some(r) => Ok(Some(r)),
            None => Err(TournamentError::NotFound(id.to_string())),
        }
    }

    /// Saves the record, then sends its view to every player and watcher.
    pub async fn publish(&self, app: &impl Host, live: &Live) {
        let (record, view) = {
            let mut r = live.record();
            r.revision += 1;
            (r.clone(), r.view())
        };
        // Stored before anyone is shown it: a view that could not be saved is not sent
        // (the next change that saves carries it).
        if let Err(e) = self.store.save(&record).await {
            tracing::warn!(tournament = %record.id, error = %e, "saving the tournament failed; not shown");
            return;
        }
        let msg = ServerMessage::Tournament {
            tournament: Box::new(view),
        };
        if let (Some(c), Ok(json)) = (app.cluster(), serde_json::to_string(&msg)) {
            c.bus.publish(c.redis.channel(CHANNEL), json);
        }
        let mut users: HashSet<UserId> = live.watchers().clone();
        users.extend(record.spec.players.iter().map(|p| p.id.clone()));
        for u in &users {
            app.notify_user(u, msg.clone());
        }
    }

    /// Drops a finished tournament from this node's live set (the store keeps it).
    fn retire(&self, id: &str) {
        if let Some(live) = self.live_map().remove(id) {
            // Ends its command loop; the organiser itself has returned.
            live.stop.cancel();
        }
    }
}

/// A command for a tournament's organiser sent from another node of the cluster
/// (`POST /api/tournaments/{id}/rounds` or `tournament_withdraw` received there).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Command {
    /// Start the next round.
    StartRound,
    /// `user` withdraws.
    Withdraw {
        /// Who.
        user: UserId,
    },
}

/// Why the organiser refused a command, on the wire.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "refusal", content = "message", rename_all = "snake_case")]
enum Refusal {
    NotFound,
    NotInTournament,
    NoRoundToStart(String),
    Unavailable(String),
}

impl From<TournamentError> for Refusal {
    fn from(e: TournamentError) -> Refusal {
        match e {
            TournamentError::NotFound(_) => Refusal::NotFound,
            TournamentError::NotInTournament => Refusal::NotInTournament,
            TournamentError::NoRoundToStart(m) => Refusal::NoRoundToStart(m),
            e @ (TournamentError::Spec(_) | TournamentError::Store(_)) => {
                Refusal::Unavailable(e.to_string())
            }
        }
    }
}

/// The channel (under the Redis prefix) on which a tournament's organiser takes
/// commands from the other nodes.
fn command_channel(c: &Cluster, id: &str) -> String {
    c.redis.channel(&format!("tcmd:{id}"))
}

/// Asks the node that organises tournament `id` to carry out `cmd`.
async fn remote(app: &impl Host, id: &str, cmd: &Command) -> Result<(), TournamentError> {
    let Some(c) = app.cluster() else {
        return Err(TournamentError::NotFound(id.to_string()));
    };
    match c
        .call::<_, Result<(), Refusal>>(&command_channel(c, id), cmd)
        .await
    {
        Ok(Ok(())) => Ok(()),
        Ok(Err(Refusal::NotFound)) => Err(TournamentError::NotFound(id.to_string())),
        Ok(Err(Refusal::NotInTournament)) => Err(TournamentError::NotInTournament),
        Ok(Err(Refusal::NoRoundToStart(m))) => Err(TournamentError::NoRoundToStart(m)),
        Ok(Err(Refusal::Unavailable(m))) => Err(TournamentError::Store(
            store::TournamentStoreError::Backend(m),
        )),
        Err(e) => Err(TournamentError::Store(
            store::TournamentStoreError::Backend(format!("the organising node: {e}")),
        )),
    }
}

/// With a cluster: takes the commands other nodes send for `live` (round commands and
/// withdrawals), one at a time, until this node stops organising it.
async fn serve_commands(app: Arc<impl Host>, live: Arc<Live>, id: TournamentId) {
    let Some(c) = app.cluster().cloned() else {
        return;
    };
    let channel = command_channel(&c, &id);
    let (tx, mut rx) = tokio::sync::mpsc::channel(crate::cluster::member::NOTICE_QUEUE);
    c.bus.subscribe(channel.clone(), tx).await;
    loop {
        let payload = tokio::select! {
            () = live.stopped(&app) => break,
            p = rx.recv() => match p {
                Some(p) => p,
                None => break,
            },
        };
        let Ok(request) = serde_json::from_str::<crate::cluster::rpc::Request<Command>>(&payload)
        else {
            tracing::warn!(tournament = %id, "unreadable tournament command");
            continue;
        };
        let tournaments = app.tournaments();
        let result = match &request.op {
            Command::StartRound => tournaments.start_round(&*app, &id).await,
            Command::Withdraw { user } => tournaments.withdraw(&*app, &id, user).await,
        };
        let result: Result<(), Refusal> = result.map_err(Refusal::from);
        c.answer(&request.from, request.req, result).await;
    }
    c.bus.unsubscribe(channel);
}
