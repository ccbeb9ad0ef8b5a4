//! Requests a session waits on without waiting in its loop. Whatever waits on Redis,
//! the database or another node (the lobby, presence, tournaments, arenas, chat,
//! watching, a player's intents for a game it cannot reach from the loop) becomes a
//! future that returns a typed [`Done`], held in the session's bounded queue
//! ([`JOB_QUEUE`]; a request that finds it full is refused with `too_many`). The
//! session loop polls the head of the queue in its own `select!` beside the socket,
//! the pings and the limits, so a slow Redis delays those answers but never a pong or
//! a close; the requests run one at a time, in the order the client sent them.
//!
//! A request never touches the session's state: it answers into the outbox, and what
//! it changes (which games the session follows, its TV, its rooms, its token) it
//! returns as its [`Done`], which the loop applies to its own state. Applying may start
//! the request's next stage (a `watch` finds its game, then the loop marks it as being
//! joined, then the join runs), which stays at the head of the queue, so each stage
//! sees the state every earlier request left. Joins and leaves not asked by the client
//! (its own game starting, the TV moving on) run beside the queue (`Session::side`).

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;

use shared::law::RulesetId;
use shared::protocol::{TimeControl, UserInfo};
use shared::rules::Variant;

use super::outbox::Outbox;
use super::{Done, Pending, Subscription};
use crate::app::App;
use crate::auth::Identity;
use crate::lobby::{LobbyError, Proposal};
use crate::setup::{self, Refusal};

/// Requests one session may have queued or running.
pub const JOB_QUEUE: usize = 32;

/// A session's requests: the client's, in order, and the joins beside them.
#[derive(Default)]
pub(super) struct Requests {
    /// The client's requests after the running one, in the order sent.
    queue: VecDeque<Pending>,
    /// The running request, and whether it must run to its end even if the session
    /// ends first (it joins or leaves a game: a join is always matched by a leave).
    head: Option<(Pending, bool)>,
}

/// A request's next stage, started by the loop as it applies the last one's result.
pub(super) struct Stage {
    pub(super) request: Pending,
    /// Run to its end even if the session ends first (it joins or leaves a game).
    whole: bool,
}

impl Stage {
    /// A stage that joins or leaves a game.
    pub(super) fn whole(request: Pending) -> Stage {
        Stage {
            request,
            whole: true,
        }
    }

    /// A stage that only reads (and answers): dropped if the session ends first.
    pub(super) fn read(request: Pending) -> Stage {
        Stage {
            request,
            whole: false,
        }
    }
}

impl Requests {
    /// Queues a client's request; false (nothing queued) if [`JOB_QUEUE`] are waiting.
    pub(super) fn push(&mut self, request: impl Future<Output = Done> + Send + 'static) -> bool {
        if self.queue.len() + usize::from(self.head.is_some()) >= JOB_QUEUE {
            return false;
        }
        self.queue.push_back(Box::pin(request));
        if self.head.is_none() {
            self.head = self.queue.pop_front().map(|r| (r, false));
        }
        true
    }

    /// Has every request been answered? Then a game intent may go to its game from the
    /// session loop without overtaking an earlier request.
    pub(super) fn is_idle(&self) -> bool {
        self.head.is_none()
    }

    /// Does a client's request wait behind the running one?
    pub(super) fn has_queued(&self) -> bool {
        !self.queue.is_empty()
    }

    /// The running request's result, once it has one (pending for ever while none
    /// runs). Cancel-safe: the request stays in place until it is done.
    pub(super) async fn next(&mut self) -> Done {
        let done = std::future::poll_fn(|cx| match &mut self.head {
            Some((request, _)) => request.as_mut().poll(cx),
            None => std::task::Poll::Pending,
        })
        .await;
        self.head = None;
        done
    }

    /// After the running request's result is applied: its next stage runs now (to
    /// its end, like a join), else the next request sent.
    pub(super) fn advance(&mut self, next_stage: Option<Stage>) {
        self.head = match next_stage {
            Some(stage) => Some((stage.request, stage.whole)),
            None => self.queue.pop_front().map(|r| (r, false)),
        };
    }

    /// The session ends: the running request runs to its end if it must (its result
    /// for the caller to undo), the rest is dropped.
    pub(super) async fn finish(&mut self) -> Vec<Done> {
        self.queue.clear();
        let mut done = Vec::new();
        if let Some((request, true)) = self.head.take() {
            done.push(request.await);
        }
        done
    }
}

/// What a request may use: the application, the identity the session had when the
/// request arrived, and the outbox (an intent carries the lag measured when it arrived).
#[derive(Clone)]
pub(super) struct Requester {
    pub(super) app: Arc<App>,
    pub(super) identity: Identity,
    pub(super) out: Outbox,
    /// The users the session's user blocks (shared with its chat relays).
    pub(super) blocks: crate::chat::BlockList,
}

impl Requester {
    /// Answers a refusal; `None` once the client has been told.
    pub(super) fn ok<T>(&self, answer: Result<T, Refusal>) -> Option<T> {
        answer
            .map_err(|r| self.out.error(r.code, r.message, None))
            .ok()
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
        self.out.error(e.code(), e.to_string(), None);
    }

    /// Starts the game `proposer` proposed, with this session's user as the opponent;
    /// a refusal is answered with an error.
    pub(super) async fn start_with(&self, proposer: UserInfo, proposal: &Proposal) {
        let started = setup::start_with(&self.app, &self.identity.user, proposer, proposal).await;
        self.ok(started);
    }
}

/// Leaves a subscription's game (the session let go of it): a request of its own.
pub(super) fn leave(user: shared::protocol::UserId, sub: Subscription) -> Pending {
    Box::pin(async move {
        sub.following.stop();
        sub.handle.leave(user, sub.role).await;
        Done::Nothing
    })
}
