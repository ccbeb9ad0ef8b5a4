//! The lobby group of client messages: seeks, challenges, quick-pairing pools, playing
//! the computer. Each
//! runs on the session's worker ([`super::request`]): the lobby may be Redis.

use shared::protocol::{ChallengeId, ClientMessage, SeekId, ServerMessage, TimeControl, UserId};
use shared::rules::Variant;

use super::Session;
use super::request::Requester;
use crate::computer::ComputerRequest;
use crate::lobby::{LobbyError, PoolEntry, Proposal};
use crate::setup;

impl Session {
    /// Hands a lobby message to the worker.
    pub(super) fn on_lobby(&mut self, msg: ClientMessage) {
        let r = self.requester();
        self.hand_off(r.lobby(msg));
    }
}

impl Requester {
    async fn lobby(self, msg: ClientMessage) {
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
            } => {
                let proposal = Proposal {
                    variant,
                    time_control,
                    rated,
                    color,
                    fen: None,
                    ruleset,
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
            ClientMessage::PoolJoin {
                variant,
                time_control,
                rated,
            } => self.pool_join(variant, time_control, rated).await,
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
        if !self.proposal_fits(&proposal) || !self.may_play_rated(proposal.rated) {
            return;
        }
        let me = self.me_for(proposal.variant, proposal.time_control).await;
        if let Some(seek) = self.lobby_ok(self.app.lobby.add_seek(&me, proposal).await) {
            self.out.send(&ServerMessage::SeekCreated { seek });
        }
    }

    async fn accept_seek(&self, seek_id: SeekId) {
        if self.refuse_if_draining() {
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
        if self.refuse_if_draining() || !self.time_control_fits(req.variant, req.time_control) {
            return;
        }
        if let Err(e) = self.app.computer.check_engine(req.variant).await {
            self.error(e.code(), e.to_string());
            return;
        }
        let me = self.me_for(req.variant, req.time_control).await;
        if let Err(e) = self.app.computer.play(&self.app.games, me, req) {
            self.error(e.code(), e.to_string());
        }
    }

    async fn pool_join(&self, variant: Variant, time_control: TimeControl, rated: bool) {
        if self.refuse_if_draining() || !self.may_play_rated(rated) {
            return;
        }
        let entry = PoolEntry {
            user: self.me_for(variant, time_control).await,
            variant,
            time_control,
            rated,
            since_ms: crate::cluster::redis::wall_ms(),
        };
        if let Some(pairing) = self.lobby_ok(self.app.lobby.join_pool(entry).await) {
            self.out.send(&ServerMessage::PoolJoined {
                variant,
                time_control,
                rated,
            });
            if let Some(pairing) = pairing {
                self.app.start_pairing(pairing);
            }
        }
    }
}
