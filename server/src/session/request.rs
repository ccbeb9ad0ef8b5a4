//! Requests a session hands off rather than await in its loop. Whatever waits on
//! Redis, the database or another node (the lobby, presence, tournaments, a player's
//! intents) runs on the session's one worker task, in the order the client sent it,
//! over a bounded queue ([`JOB_QUEUE`]); the answers go straight to the session's
//! outbox. So a slow Redis delays those answers but never the session loop: pings are
//! answered, pongs measured, closes and limits enforced. A request that finds the
//! queue full is refused with `too_many`. The worker ends with the session.
//!
//! [`Requester`] is what a request may use: the application, the identity the session
//! had when the request arrived and the outbox (an intent carries the lag measured
//! when it arrived). It never touches the session's own state: a request that changes
//! it (watching, TV, resuming: which games the session follows) sends the change to
//! the session loop as an [`Edit`] over a bounded queue ([`EDIT_QUEUE`]) and waits for
//! the loop to make it. The worker runs one request at a time, so each request's edits
//! see the state every earlier request left, and the answers of one client's requests
//! go out in the order sent.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use shared::law::RulesetId;
use shared::protocol::{ErrorCode, GameId, ServerMessage, TimeControl, UserInfo};
use shared::rules::Variant;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::Session;
use super::outbox::Outbox;
use crate::app::App;
use crate::auth::Identity;
use crate::lobby::{LobbyError, Proposal};
use crate::setup::{self, Refusal};

/// Requests one session may have waiting for its worker.
pub const JOB_QUEUE: usize = 32;

type Job = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A session's worker: runs its requests one after another.
pub(super) struct Worker {
    jobs: mpsc::Sender<Job>,
    task: JoinHandle<()>,
    /// Requests queued or running.
    busy: Arc<AtomicUsize>,
}

impl Worker {
    /// Starts the worker task.
    pub(super) fn start() -> Worker {
        let (jobs, mut rx) = mpsc::channel::<Job>(JOB_QUEUE);
        let busy = Arc::new(AtomicUsize::new(0));
        let done = busy.clone();
        let task = tokio::spawn(async move {
            while let Some(job) = rx.recv().await {
                job.await;
                done.fetch_sub(1, Ordering::AcqRel);
            }
        });
        Worker { jobs, task, busy }
    }

    /// Queues a request; false if the queue is full (or the worker gone).
    pub(super) fn push(&self, job: impl Future<Output = ()> + Send + 'static) -> bool {
        self.busy.fetch_add(1, Ordering::AcqRel);
        let queued = self.jobs.try_send(Box::pin(job)).is_ok();
        if !queued {
            self.busy.fetch_sub(1, Ordering::AcqRel);
        }
        queued
    }

    /// Has every request handed to it been answered? Then a game intent may go to its
    /// game from the session loop without overtaking an earlier request.
    pub(super) fn is_idle(&self) -> bool {
        self.busy.load(Ordering::Acquire) == 0
    }

    /// Ends the worker, dropping what it has not started (the client is gone).
    pub(super) fn stop(&self) {
        self.task.abort();
    }
}

/// Changes to a session's state waiting for its loop.
pub const EDIT_QUEUE: usize = 16;

/// A change to the session's state, made by its loop.
pub(super) type Edit = Box<dyn FnOnce(&mut Session) + Send>;

/// Sends [`Edit`]s to a session's loop.
#[derive(Clone)]
pub(super) struct Editor(mpsc::Sender<Edit>);

impl Editor {
    /// An editor and the queue the session loop reads.
    pub(super) fn channel() -> (Editor, mpsc::Receiver<Edit>) {
        let (tx, rx) = mpsc::channel(EDIT_QUEUE);
        (Editor(tx), rx)
    }

    /// Has the session loop run `f` on the session, and returns what it returned;
    /// `None` if the loop has ended (then `f` did not run).
    pub(super) async fn edit<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = oneshot::channel();
        let edit: Edit = Box::new(move |session| {
            let _ = tx.send(f(session));
        });
        self.0.send(edit).await.ok()?;
        rx.await.ok()
    }
}

/// What a handed-off request may use.
#[derive(Clone)]
pub(super) struct Requester {
    pub(super) app: Arc<App>,
    pub(super) identity: Identity,
    pub(super) out: Outbox,
    /// Changes to the session's own state go through here.
    pub(super) edits: Editor,
    /// The arenas the session watches.
    pub(super) watched_arenas: WatchedArenas,
    /// The users the session's user blocks.
    pub(super) blocks: crate::chat::BlockList,
}

/// The arenas a session watches (shared with its worker, which runs the requests).
#[derive(Clone, Default)]
pub(super) struct WatchedArenas(Arc<std::sync::Mutex<std::collections::HashSet<String>>>);

impl WatchedArenas {
    /// Notes a watch (`true`) or an unwatch (`false`).
    pub(super) fn set(&self, arena: &str, watching: bool) {
        let mut set = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if watching {
            set.insert(arena.to_string());
        } else {
            set.remove(arena);
        }
    }

    /// Every arena watched, forgetting them.
    pub(super) fn take(&self) -> Vec<String> {
        let mut set = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        set.drain().collect()
    }
}

impl Requester {
    /// Sends an error without game context.
    pub(super) fn error(&self, code: ErrorCode, message: impl Into<String>) {
        self.app.metrics.client_errors.inc();
        self.out.send(&ServerMessage::error(code, message));
    }

    /// Sends an error about a game.
    pub(super) fn game_error(
        &self,
        game_id: &GameId,
        move_id: Option<u64>,
        code: ErrorCode,
        message: String,
    ) {
        self.app.metrics.client_errors.inc();
        self.out.send(&ServerMessage::Error {
            code,
            message,
            game_id: Some(game_id.clone()),
            move_id,
        });
    }

    /// Answers a refusal; `None` once the client has been told.
    pub(super) fn ok<T>(&self, answer: Result<T, Refusal>) -> Option<T> {
        answer.map_err(|r| self.error(r.code, r.message)).ok()
    }

    /// The user with the rating pairing uses.
    pub(super) fn me(&self) -> UserInfo {
        let mut user = self.identity.user.clone();
        user.rating = user.rating.or(Some(self.app.config.lobby.default_rating));
        user
    }

    /// The user with their rating in the perf of `variant` at `time_control`
    /// ([`setup::rated_user`]).
    pub(super) async fn me_for(&self, variant: Variant, time_control: TimeControl) -> UserInfo {
        setup::rated_user(&self.app, &self.identity.user, variant, time_control).await
    }

    /// Guests play casual games only: answers `rated_needs_account` if so.
    pub(super) fn may_play_rated(&self, rated: bool) -> bool {
        self.ok(setup::may_play_rated(&self.identity.user, rated))
            .is_some()
    }

    /// Does the rule set asked for govern the variant? Answers `invalid_message` if not.
    pub(super) fn ruleset_fits(&self, variant: Variant, ruleset: Option<RulesetId>) -> bool {
        self.ok(setup::ruleset_fits(variant, ruleset)).is_some()
    }

    /// Can the variant be played on this control? Answers `invalid_message` if not.
    pub(super) fn time_control_fits(&self, variant: Variant, tc: TimeControl) -> bool {
        self.ok(setup::time_control_fits(variant, tc)).is_some()
    }

    /// Answers `shutting_down` while the server drains.
    pub(super) fn refuse_if_draining(&self) -> bool {
        self.ok(setup::not_draining(&self.app)).is_none()
    }

    pub(super) fn lobby_error(&self, e: &LobbyError) {
        self.error(e.code(), e.to_string());
    }

    /// Starts the game `proposer` proposed, with this session's user as the opponent;
    /// a refusal is answered with an error.
    pub(super) async fn start_with(&self, proposer: UserInfo, proposal: &Proposal) {
        let started = setup::start_with(&self.app, &self.identity.user, proposer, proposal).await;
        self.ok(started);
    }
}
