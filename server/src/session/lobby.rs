//! The lobby group of client messages: seeks, challenges, quick-pairing pools. Each
//! runs on the session's worker ([`super::request`]): the lobby may be Redis.

use shared::protocol::{ClientMessage, ErrorCode, ServerMessage};

use super::Session;
use super::request::Requester;
use crate::lobby::{PoolEntry, Proposal};

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
            ClientMessage::ListSeeks => match self.app.lobby.seeks().await {
                Ok(seeks) => {
                    self.out.send(&ServerMessage::Seeks { seeks });
                }
                Err(e) => self.lobby_error(&e),
            },
            ClientMessage::Seek {
                variant,
                time_control,
                rated,
                color,
                ruleset,
            } => {
                if self.refuse_if_draining()
                    || !self.ruleset_fits(variant, ruleset)
                    || !self.time_control_fits(variant, time_control)
                    || !self.may_play_rated(rated)
                {
                    return;
                }
                let proposal = Proposal {
                    variant,
                    time_control,
                    rated,
                    color,
                    fen: None,
                    ruleset,
                };
                let me = self.me_for(variant, time_control).await;
                match self.app.lobby.add_seek(&me, proposal).await {
                    Ok(seek) => {
                        self.out.send(&ServerMessage::SeekCreated { seek });
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::CancelSeek { seek_id } => {
                match self
                    .app
                    .lobby
                    .cancel_seek(&self.identity.user.id, seek_id)
                    .await
                {
                    Ok(_) => {
                        self.out.send(&ServerMessage::SeekRemoved { seek_id });
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::AcceptSeek { seek_id } => {
                if self.refuse_if_draining() {
                    return;
                }
                match self
                    .app
                    .lobby
                    .take_seek(&self.identity.user.id, seek_id)
                    .await
                {
                    Ok(seek) => {
                        self.app
                            .notify_user(&seek.user.id, ServerMessage::SeekRemoved { seek_id });
                        let proposal = Proposal::from(&seek);
                        self.start_with(seek.user, &proposal).await;
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::Challenge {
                user,
                variant,
                time_control,
                rated,
                color,
                fen,
                ruleset,
            } => {
                if self.refuse_if_draining()
                    || !self.ruleset_fits(variant, ruleset)
                    || !self.time_control_fits(variant, time_control)
                {
                    return;
                }
                if let Some(fen) = &fen {
                    if rated {
                        self.error(
                            ErrorCode::InvalidPosition,
                            "games from a position are casual",
                        );
                        return;
                    }
                    if let Err(e) = shared::rules::Position::from_fen(variant, fen) {
                        self.error(ErrorCode::InvalidPosition, format!("{variant}: {e}"));
                        return;
                    }
                }
                if !self.may_play_rated(rated) {
                    return;
                }
                if user != self.identity.user.id
                    && !self.app.presence.is_online(&user).await.unwrap_or(false)
                {
                    self.error(ErrorCode::UserOffline, format!("{user} is not online"));
                    return;
                }
                let proposal = Proposal {
                    variant,
                    time_control,
                    rated,
                    color,
                    fen,
                    ruleset,
                };
                match self
                    .app
                    .lobby
                    .add_challenge(&self.me_for(variant, time_control).await, &user, proposal)
                    .await
                {
                    Ok(challenge) => {
                        self.app.notify_user(
                            &user,
                            ServerMessage::ChallengeReceived {
                                challenge: challenge.clone(),
                            },
                        );
                        self.out.send(&ServerMessage::ChallengeSent { challenge });
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::AcceptChallenge { challenge_id } => {
                if self.refuse_if_draining() {
                    return;
                }
                match self
                    .app
                    .lobby
                    .take_challenge(&self.identity.user.id, challenge_id)
                    .await
                {
                    Ok(ch) => {
                        let proposal = Proposal::from(&ch);
                        self.start_with(ch.from, &proposal).await;
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::DeclineChallenge { challenge_id }
            | ClientMessage::CancelChallenge { challenge_id } => {
                match self
                    .app
                    .lobby
                    .remove_challenge(&self.identity.user.id, challenge_id)
                    .await
                {
                    Ok(ch) => {
                        for user in [&ch.from.id, &ch.to] {
                            self.app.notify_user(
                                user,
                                ServerMessage::ChallengeRemoved { challenge_id },
                            );
                        }
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::PoolJoin {
                variant,
                time_control,
                rated,
            } => {
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
                match self.app.lobby.join_pool(entry).await {
                    Ok(pairing) => {
                        self.out.send(&ServerMessage::PoolJoined {
                            variant,
                            time_control,
                            rated,
                        });
                        if let Some(pairing) = pairing {
                            self.app.start_pairing(pairing);
                        }
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::PoolLeave => {
                match self.app.lobby.leave_pools(&self.identity.user.id).await {
                    Ok(_) => {
                        self.out.send(&ServerMessage::PoolLeft);
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            _ => {}
        }
    }
}
