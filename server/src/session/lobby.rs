//! The lobby group of client messages: seeks, challenges, quick-pairing pools, playing
//! the computer. Each is a request in the session's queue ([`super::request`]): the
//! lobby may be Redis. Following the lobby feed is not: a relay task of the session's
//! (aborted with it) hands the outbox the feed's shared bytes as they change.

use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use shared::protocol::{
    ChallengeId, ClientMessage, ErrorCode, SeekId, ServerMessage, TimeControl, UserId,
};
use shared::rules::Variant;
use tokio::time::Instant;
use tokio_util::task::AbortOnDropHandle;

use super::Done;
use super::Session;
use super::outbox::Outbox;
use super::request::Requester;
use crate::computer::ComputerRequest;
use crate::lobby::feed::Subscription;
use crate::lobby::{LobbyError, PoolEntry, Proposal};
use crate::setup;

/// The longest a paired join's `pool_joined` waits for its game's start.
const HOLD_AT_MOST: Duration = Duration::from_secs(1);

/// A frame the session holds back to send with the next ([`Session::hold`]).
pub(super) struct Held {
    frame: Utf8Bytes,
    /// When it goes out even if nothing else has.
    until: Instant,
}

impl Session {
    /// Queues a lobby message.
    pub(super) fn on_lobby(&mut self, msg: ClientMessage) {
        let r = self.requester();
        self.hand_off(r.lobby(msg));
    }

    /// Holds the `pool_joined` of a join paired at once ([`Done::Hold`]): it goes out
    /// just ahead of the game's `game_start`, in the writer's same write, instead of a
    /// write of its own a moment before. Sent at once if a request waits behind it
    /// (that request's answers follow it).
    pub(super) fn hold(&mut self, frame: Utf8Bytes) {
        self.flush_held();
        if self.requests.has_queued() {
            self.out.send_json(frame);
        } else {
            self.held = Some(Box::new(Held {
                frame,
                until: Instant::now() + HOLD_AT_MOST,
            }));
        }
    }

    /// Sends the held frame, if any: before anything else the session sends or
    /// starts, and at the latest [`HOLD_AT_MOST`] after it was held.
    pub(super) fn flush_held(&mut self) {
        if let Some(held) = self.held.take() {
            self.out.send_json(held.frame);
        }
    }

    /// When the held frame must go out even if the game's start has not come.
    pub(super) fn held_deadline(&self) -> Option<Instant> {
        self.held.as_ref().map(|held| held.until)
    }

    /// Follows the lobby feed: its latest `lobby` message now (once gathered), then
    /// each new one. Following again starts over, with the latest message.
    pub(super) fn follow_lobby(&mut self) {
        self.unfollow_lobby();
        let subscription = self.app.feed.subscribe();
        let relay = tokio::spawn(relay_feed(subscription, self.out.clone()));
        self.lobby_feed = Some(AbortOnDropHandle::new(relay));
    }

    /// Stops following the lobby feed (nothing if not following).
    pub(super) fn unfollow_lobby(&mut self) {
        self.lobby_feed = None;
    }
}

/// Sends each `lobby` message the feed publishes, until the outbox closes.
async fn relay_feed(mut subscription: Subscription, out: Outbox) {
    loop {
        let latest = subscription.latest.borrow_and_update().clone();
        if let Some(json) = latest
            && !out.send_json(json)
        {
            return;
        }
        if subscription.latest.changed().await.is_err() {
            return;
        }
    }
}

impl Requester {
    async fn lobby(self, msg: ClientMessage) -> Done {
        match msg {
            ClientMessage::ListSeeks => {
                if let Some(seeks) = self.lobby_ok(self.app.lobby.seeks().await) {
                    self.out.send(&ServerMessage::Seeks { seeks });
                }
            }
            ClientMessage::Seek {
                variant,
                time_control,
                rated,
                color,
                ruleset,
                rating_range,
            } => {
                let proposal = Proposal {
                    variant,
                    time_control,
                    rated,
                    color,
                    fen: None,
                    ruleset,
                    rating_range,
                };
                self.seek(proposal).await;
            }
            ClientMessage::CancelSeek { seek_id } => {
                let me = &self.identity.user.id;
                let cancelled = self.app.lobby.cancel_seek(me, seek_id).await;
                if self.lobby_ok(cancelled).is_some() {
                    self.out.send(&ServerMessage::SeekRemoved { seek_id });
                }
            }
            ClientMessage::AcceptSeek { seek_id } => self.accept_seek(seek_id).await,
            ClientMessage::Challenge {
                user,
                variant,
                time_control,
                rated,
                color,
                fen,
                ruleset,
            } => {
                let proposal = Proposal {
                    variant,
                    time_control,
                    rated,
                    color,
                    fen,
                    ruleset,
                    rating_range: None,
                };
                self.challenge(user, proposal).await;
            }
            ClientMessage::AcceptChallenge { challenge_id } => {
                self.accept_challenge(challenge_id).await;
            }
            ClientMessage::DeclineChallenge { challenge_id }
            | ClientMessage::CancelChallenge { challenge_id } => {
                let me = &self.identity.user.id;
                self.ok(setup::withdraw(&self.app, me, challenge_id).await);
            }
            ClientMessage::ListChallenges => {
                let open = self.app.lobby.challenges_of(&self.identity.user.id).await;
                if let Some(challenges) = self.lobby_ok(open) {
                    self.out.send(&ServerMessage::Challenges { challenges });
                }
            }
            ClientMessage::PoolJoin {
                variant,
                time_control,
                rated,
            } => return self.pool_join(variant, time_control, rated).await,
            ClientMessage::ComputerPlay {
                variant,
                level,
                time_control,
                color,
                fen,
            } => {
                let req = ComputerRequest {
                    variant,
                    level,
                    time_control,
                    color,
                    fen,
                };
                self.computer_play(req).await;
            }
            ClientMessage::PoolLeave => {
                let left = self.app.lobby.leave_pools(&self.identity.user.id).await;
                if self.lobby_ok(left).is_some() {
                    self.out.send(&ServerMessage::PoolLeft);
                }
            }
            _ => {}
        }
        Done::Nothing
    }

    /// The lobby's answer; `None` once the client has been told the lobby's refusal.
    fn lobby_ok<T>(&self, answer: Result<T, LobbyError>) -> Option<T> {
        answer.map_err(|e| self.lobby_error(&e)).ok()
    }

    /// Does the proposal fit its variant (rule set, time control)? Answers if not.
    fn proposal_fits(&self, p: &Proposal) -> bool {
        !self.refuse_if_draining()
            && self.ruleset_fits(p.variant, p.ruleset)
            && self.time_control_fits(p.variant, p.time_control)
    }

    async fn seek(&self, proposal: Proposal) {
        if !self.may_be_paired() {
            return;
        }
        if let Some(problem) = proposal.rating_range.and_then(|r| r.problem()) {
            let message = format!("invalid message: {problem}");
            self.out.error(ErrorCode::InvalidMessage, message, None);
            return;
        }
        if !self.proposal_fits(&proposal) || !self.may_play_rated(proposal.rated) {
            return;
        }
        let me = self.me_for(proposal.variant, proposal.time_control).await;
        if let Some(seek) = self.lobby_ok(self.app.lobby.add_seek(&me, proposal).await) {
            self.out.send(&ServerMessage::SeekCreated { seek });
        }
    }

    async fn accept_seek(&self, seek_id: SeekId) {
        if !self.may_be_paired()
            || self.refuse_if_draining()
            || !self.in_rating_range(seek_id).await
        {
            return;
        }
        let taken = self
            .app
            .lobby
            .take_seek(&self.identity.user.id, seek_id)
            .await;
        if let Some(seek) = self.lobby_ok(taken) {
            self.app
                .notify_user(&seek.user.id, ServerMessage::SeekRemoved { seek_id });
            let proposal = Proposal::from(&seek);
            self.start_with(seek.user, &proposal).await;
        }
    }

    /// Is this session's user one the pools and seeks pair? Answers if not.
    fn may_be_paired(&self) -> bool {
        self.ok(setup::may_be_paired(&self.identity.user)).is_some()
    }

    /// Does the taker's rating fit the seek's rating range, if it has one? Answers
    /// `outside_rating_range` if not. A seek gone by now is left for the take to
    /// refuse.
    async fn in_rating_range(&self, seek_id: SeekId) -> bool {
        let Some(seeks) = self.lobby_ok(self.app.lobby.seeks().await) else {
            return false;
        };
        let Some(seek) = seeks.into_iter().find(|s| s.seek_id == seek_id) else {
            return true;
        };
        let Some(range) = seek.rating_range else {
            return true;
        };
        let me = self.me_for(seek.variant, seek.time_control).await;
        let rating = me.rating.unwrap_or(self.app.config.lobby.default_rating);
        if range.admits(rating) {
            return true;
        }
        self.lobby_error(&LobbyError::OutsideRatingRange {
            rating,
            min: range.min,
            max: range.max,
        });
        false
    }

    async fn challenge(&self, user: UserId, proposal: Proposal) {
        let sent = setup::challenge(&self.app, &self.identity.user, user, proposal).await;
        if let Some(challenge) = self.ok(sent) {
            self.out.send(&ServerMessage::ChallengeSent { challenge });
        }
    }

    async fn accept_challenge(&self, challenge_id: ChallengeId) {
        self.ok(setup::accept(&self.app, &self.identity.user, challenge_id).await);
    }

    async fn computer_play(&self, req: ComputerRequest) {
        self.ok(setup::computer_play(&self.app, &self.identity.user, req).await);
    }

    /// Joins a pool. A join paired at once starts its game here and returns its
    /// `pool_joined` for the session to hold until the game's start ([`Session::hold`]).
    async fn pool_join(&self, variant: Variant, time_control: TimeControl, rated: bool) -> Done {
        if !self.may_be_paired() || self.refuse_if_draining() || !self.may_play_rated(rated) {
            return Done::Nothing;
        }
        let entry = PoolEntry {
            user: self.me_for(variant, time_control).await,
            variant,
            time_control,
            rated,
            since_ms: crate::cluster::redis::wall_ms(),
        };
        let Some(pairing) = self.lobby_ok(self.app.lobby.join_pool(entry).await) else {
            return Done::Nothing;
        };
        let joined = ServerMessage::PoolJoined {
            variant,
            time_control,
            rated,
        };
        match pairing {
            Some(pairing) => {
                self.app.start_pairing(pairing);
                Done::Hold(joined.to_json().into())
            }
            None => {
                self.out.send(&joined);
                Done::Nothing
            }
        }
    }
}
