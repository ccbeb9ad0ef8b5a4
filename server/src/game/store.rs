//! Where a node without Redis stores its live games: the database (SQLite by default,
//! or PostgreSQL), through one writer that commits many games' writes together. An
//! actor hands its write to [`LiveStore::write`] and waits; the writer (on a database
//! connection of its own, [`crate::db::live::LiveWriter`]) takes every write queued at
//! that moment (up to [`GROUP_MAX`]) into one transaction, so a busy node pays one
//! commit (one fsync) for many moves, and answers each actor once the commit returns.
//! On PostgreSQL the writer is a task; on SQLite, whose commit blocks, it runs on a
//! thread of its own, so that an actor's write goes straight to the thread that
//! commits it (no task in between). An archived game is forgotten the same way
//! ([`LiveStore::forget`]), in the next group: no transaction of its own, and no other
//! connection writing the live tables (which would empty the writer's page cache). At
//! start [`LiveStore::load`] reads the games back, with the node's last sign of life,
//! so that the time the node was down is given back to the clocks.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::snapshot::{Snapshot, StoredError};
use crate::cluster::redis::wall_ms;
use crate::db::live::{LiveGroup, LiveWrite, LiveWriter};
use crate::db::{Db, DbError};
use crate::metrics::Metrics;

/// Writes waiting for the writer, at most.
const QUEUE: usize = 4096;
/// Writes in one transaction, at most.
pub const GROUP_MAX: usize = 512;
/// How often the writer records that the node is alive when no game writes.
const ALIVE_EVERY: Duration = Duration::from_secs(1);
/// While games write, a transaction records the node's sign of life only if the last
/// one recorded is this old (ms): a setting rewritten by every commit cost each commit
/// a page of its own. After a crash a game's clock runs until the later of its own
/// last write and this sign of life, so the side to move of a game idle since its last
/// write is given back at most this much more than the true downtime.
const ALIVE_STEP_MS: u64 = 50;
/// After the server stops, how long the writer waits for a last write before ending.
const LAST_WRITES: Duration = Duration::from_millis(300);

/// Why a live game could not be stored or read back.
#[derive(Debug, thiserror::Error)]
pub enum LiveStoreError {
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The group's transaction failed.
    #[error("cannot store the game: {0}")]
    Write(String),
    /// The writer has ended (the server stops).
    #[error("the live-game writer has stopped")]
    Stopped,
    /// A stored game does not read back.
    #[error("game {id}: {error}")]
    Stored {
        /// The game.
        id: String,
        /// Why.
        error: StoredError,
    },
}

/// What an actor or the archive asks of the writer.
enum Change {
    Write(LiveWrite),
    Forget(String),
}

type Job = (Change, oneshot::Sender<Result<(), String>>);

/// A live game read back at start.
#[derive(Debug)]
pub struct Recovered {
    /// Its state.
    pub snapshot: Snapshot,
    /// Every event JSON, in order.
    pub events: Vec<String>,
    /// When the node last stored anything (wall ms): the clock ran until then.
    pub last_alive_ms: u64,
}

/// The node's live-game store; cheap to clone.
#[derive(Clone, Debug)]
pub struct LiveStore {
    db: Db,
    jobs: mpsc::Sender<Job>,
    metrics: Arc<Metrics>,
    /// The node's last sign of life before this start, once the writer has read it
    /// (before its own first write).
    previous_alive: watch::Receiver<Option<u64>>,
}

impl LiveStore {
    /// The store on `db`, its writer spawned on `tracker` until `stopping` (and the
    /// last writes after it); its waits and commits timed in `metrics`.
    pub fn start(
        db: Db,
        metrics: Arc<Metrics>,
        tracker: &TaskTracker,
        stopping: CancellationToken,
    ) -> LiveStore {
        let (jobs, rx) = mpsc::channel(QUEUE);
        let (alive_tx, previous_alive) = watch::channel(None);
        let out = db.live_writer();
        if out.blocks() {
            on_thread(
                tracker,
                writer(out, rx, alive_tx, metrics.clone(), stopping),
            );
        } else {
            tracker.spawn(writer(out, rx, alive_tx, metrics.clone(), stopping));
        }
        LiveStore {
            db,
            jobs,
            metrics,
            previous_alive,
        }
    }

    /// Stores one game's write; returns once it is committed.
    pub async fn write(&self, write: LiveWrite) -> Result<(), LiveStoreError> {
        self.change(Change::Write(write)).await
    }

    /// Forgets a game (archived): its rows go in the next group's transaction.
    pub async fn forget(&self, id: &str) -> Result<(), LiveStoreError> {
        self.change(Change::Forget(id.to_string())).await
    }

    async fn change(&self, change: Change) -> Result<(), LiveStoreError> {
        let handed = Instant::now();
        let (tx, rx) = oneshot::channel();
        self.jobs
            .send((change, tx))
            .await
            .map_err(|_| LiveStoreError::Stopped)?;
        match rx.await {
            Ok(Ok(())) => {
                self.metrics.live_write_us.observe(handed.elapsed());
                Ok(())
            }
            Ok(Err(e)) => Err(LiveStoreError::Write(e)),
            Err(_) => Err(LiveStoreError::Stopped),
        }
    }

    /// Every stored live game; the unreadable ones are returned apart, by id.
    pub async fn load(&self) -> Result<(Vec<Recovered>, Vec<LiveStoreError>), LiveStoreError> {
        let alive = self
            .previous_alive
            .clone()
            .wait_for(Option::is_some)
            .await
            .map_err(|_| LiveStoreError::Stopped)?
            .unwrap_or(0);
        let mut games = Vec::new();
        let mut bad = Vec::new();
        for row in self.db.live_games().await? {
            match Snapshot::from_parts(&row.snapshot, row.tail.as_deref(), &row.acts) {
                Ok(snapshot) => games.push(Recovered {
                    last_alive_ms: alive.max(snapshot.saved_ms),
                    snapshot,
                    events: row.events.into_iter().map(|(_, json)| json).collect(),
                }),
                Err(error) => bad.push(LiveStoreError::Stored { id: row.id, error }),
            }
        }
        Ok((games, bad))
    }
}

/// Runs the writer on a thread of its own with a runtime of its own (its timers), the
/// thread tracked by a task on `tracker` that ends with it. If the thread cannot
/// start, the writer is dropped: writes then fail as [`LiveStoreError::Stopped`].
fn on_thread(tracker: &TaskTracker, writer: impl Future<Output = ()> + Send + 'static) {
    let (done, ended) = oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("damka-live-writer".into())
        .spawn(move || {
            match tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
            {
                Ok(runtime) => runtime.block_on(writer),
                Err(e) => tracing::error!(error = %e, "cannot start the live-game writer"),
            }
            drop(done);
        });
    match thread {
        Ok(_) => {
            tracker.spawn(async move {
                let _ = ended.await;
            });
        }
        Err(e) => tracing::error!(error = %e, "cannot start the live-game writer's thread"),
    }
}

/// Puts `first` and the jobs queued behind it, up to [`GROUP_MAX`], in `group`, their
/// answers' senders in `replies`.
fn take_group(
    first: Job,
    jobs: &mut mpsc::Receiver<Job>,
    group: &mut LiveGroup,
    replies: &mut Vec<oneshot::Sender<Result<(), String>>>,
) {
    let mut next = Some(first);
    while let Some((change, reply)) = next {
        match change {
            Change::Write(write) => group.writes.push(write),
            Change::Forget(id) => group.forget.push(id),
        }
        replies.push(reply);
        next = if replies.len() < GROUP_MAX {
            jobs.try_recv().ok()
        } else {
            None
        };
    }
}

/// Is a sign of life due at `now` (wall ms), the last recorded at `recorded`?
fn alive_due(now: u64, recorded: u64) -> bool {
    now.abs_diff(recorded) >= ALIVE_STEP_MS
}

/// Commits queued writes in groups on `out`; records the node's sign of life when idle.
async fn writer(
    mut out: LiveWriter,
    mut jobs: mpsc::Receiver<Job>,
    previous_alive: watch::Sender<Option<u64>>,
    metrics: Arc<Metrics>,
    stopping: CancellationToken,
) {
    let previous = match out.alive_ms().await {
        Ok(ms) => ms.unwrap_or(0),
        Err(e) => {
            tracing::warn!(error = %e, "cannot read the node's last sign of life");
            0
        }
    };
    previous_alive.send_replace(Some(previous));
    let mut stopped_at: Option<u64> = None;
    let mut recorded = 0;
    let mut alive = tokio::time::interval(ALIVE_EVERY);
    alive.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut group = LiveGroup::default();
    let mut replies = Vec::with_capacity(GROUP_MAX);
    loop {
        let first = tokio::select! {
            biased;
            job = jobs.recv() => job,
            _ = alive.tick() => {
                let now = wall_ms();
                if !alive_due(now, recorded) {
                    continue;
                }
                match out.write(&mut LiveGroup::default(), Some(now)).await {
                    Ok(()) => recorded = now,
                    Err(e) => tracing::debug!(error = %e, "cannot record the node alive"),
                }
                continue;
            }
            () = stopping.cancelled() => {
                // The clocks stop with the server, not with this writer's last wait.
                stopped_at.get_or_insert_with(wall_ms);
                tokio::time::timeout(LAST_WRITES, jobs.recv()).await.ok().flatten()
            }
        };
        let Some(first) = first else {
            break;
        };
        take_group(first, &mut jobs, &mut group, &mut replies);
        let began = Instant::now();
        // After a stop, the time it stopped, always: the clocks stop with the server.
        let now = stopped_at.unwrap_or_else(wall_ms);
        let alive_ms = (stopped_at.is_some() || alive_due(now, recorded)).then_some(now);
        let result = out
            .write(&mut group, alive_ms)
            .await
            .map_err(|e| e.to_string());
        if let (Ok(()), Some(ms)) = (&result, alive_ms) {
            recorded = ms;
        }
        metrics.live_commit_us.observe(began.elapsed());
        if let Err(e) = &result {
            tracing::warn!(error = %e, changes = replies.len(), "cannot store live games");
        }
        for reply in replies.drain(..) {
            let _ = reply.send(result.clone());
        }
    }
    // The node's last moment with its clocks running: a restart gives back what follows.
    if let Err(e) = out
        .write(
            &mut LiveGroup::default(),
            Some(stopped_at.unwrap_or_else(wall_ms)),
        )
        .await
    {
        tracing::debug!(error = %e, "cannot record the node's stop");
    }
}
