//! The game group of client messages: a player's intents (moves, offers, claims,
//! resignation, takebacks, rematches). The session finds the game's handle among the
//! games it follows; the intent, and the search for a game it does not follow, run on
//! the session's worker ([`super::request`]) in the order the client sent them, since
//! the game may be owned by another node.

use shared::protocol::{ClientMessage, ErrorCode, GameId, ServerMessage};

use super::Session;
use super::request::Requester;
use crate::game::{GameHandle, Intent};

impl Session {
    /// Hands a player's intent to the worker.
    pub(super) fn on_play(&mut self, msg: ClientMessage) {
        let r = self.requester();
        let followed = |id: &GameId| self.games.get(id).map(|s| s.handle.clone());
        let handle = match &msg {
            ClientMessage::Move { game_id, .. }
            | ClientMessage::DrawOffer { game_id }
            | ClientMessage::DrawAccept { game_id }
            | ClientMessage::DrawDecline { game_id }
            | ClientMessage::DrawClaim { game_id, .. }
            | ClientMessage::Resign { game_id }
            | ClientMessage::Berserk { game_id }
            | ClientMessage::Abort { game_id }
            | ClientMessage::TakebackOffer { game_id }
            | ClientMessage::TakebackAccept { game_id }
            | ClientMessage::TakebackDecline { game_id }
            | ClientMessage::Rematch { game_id }
            | ClientMessage::RematchDecline { game_id }
            | ClientMessage::ClaimAbandoned { game_id, .. } => followed(game_id),
            _ => return,
        };
        self.hand_off(r.play(msg, handle));
    }
}

impl Requester {
    async fn play(self, msg: ClientMessage, handle: Option<GameHandle>) {
        let mut this = Player { r: self, handle };
        this.play(msg).await;
    }
}

/// A player's intent on its way to the game.
struct Player {
    r: Requester,
    handle: Option<GameHandle>,
}

impl std::ops::Deref for Player {
    type Target = Requester;
    fn deref(&self) -> &Requester {
        &self.r
    }
}

impl Player {
    async fn play(&mut self, msg: ClientMessage) {
        match msg {
            ClientMessage::Move {
                game_id,
                text,
                move_id,
                think_ms,
                offer_draw,
            } => {
                let intent = Intent::Move {
                    text,
                    lag_ms: self.lag_ms.unwrap_or(0),
                    think_ms,
                    offer: offer_draw,
                };
                if let Some(version) = self.act(&game_id, Some(move_id), intent).await {
                    self.out.send(&ServerMessage::MoveAck {
                        game_id,
                        move_id,
                        version,
                    });
                }
            }
            ClientMessage::DrawOffer { game_id } => {
                self.act_only(&game_id, Intent::DrawOffer).await
            }
            ClientMessage::DrawAccept { game_id } => {
                self.act_only(&game_id, Intent::DrawAccept).await;
            }
            ClientMessage::DrawDecline { game_id } => {
                self.act_only(&game_id, Intent::DrawDecline).await;
            }
            ClientMessage::DrawClaim { game_id, text } => {
                let intent = match text {
                    Some(text) => Intent::DrawClaimWithMove {
                        text,
                        lag_ms: self.lag_ms.unwrap_or(0),
                    },
                    None => Intent::DrawClaim,
                };
                self.act_only(&game_id, intent).await
            }
            ClientMessage::Resign { game_id } => self.act_only(&game_id, Intent::Resign).await,
            ClientMessage::Berserk { game_id } => self.act_only(&game_id, Intent::Berserk).await,
            ClientMessage::Abort { game_id } => self.act_only(&game_id, Intent::Abort).await,
            ClientMessage::TakebackOffer { game_id } => {
                self.act_only(&game_id, Intent::TakebackOffer).await;
            }
            ClientMessage::TakebackAccept { game_id } => {
                self.act_only(&game_id, Intent::TakebackAccept).await;
            }
            ClientMessage::TakebackDecline { game_id } => {
                self.act_only(&game_id, Intent::TakebackDecline).await;
            }
            ClientMessage::Rematch { game_id } => self.act_only(&game_id, Intent::Rematch).await,
            ClientMessage::RematchDecline { game_id } => {
                self.act_only(&game_id, Intent::RematchDecline).await;
            }
            ClientMessage::ClaimAbandoned { game_id, result } => {
                self.act_only(&game_id, Intent::ClaimAbandoned(result))
                    .await;
            }
            _ => {}
        }
    }

    /// Sends a player's intent to the game; answers a refusal with an error.
    async fn act(&mut self, game_id: &GameId, move_id: Option<u64>, intent: Intent) -> Option<u64> {
        let handle = match self.handle.take() {
            Some(h) => Some(h),
            None => self.r.app.games.find(game_id).await,
        };
        let Some(handle) = handle else {
            self.game_error(
                game_id,
                move_id,
                ErrorCode::GameNotFound,
                "no such game".into(),
            );
            return None;
        };
        match handle.act(self.identity.user.id.clone(), intent).await {
            Ok(version) => Some(version),
            Err(e) => {
                self.game_error(game_id, move_id, e.code(), e.to_string());
                None
            }
        }
    }

    async fn act_only(&mut self, game_id: &GameId, intent: Intent) {
        let _ = self.act(game_id, None, intent).await;
    }
}
