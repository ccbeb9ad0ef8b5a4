//! The game group of client messages: a player's intents (moves, offers, claims,
//! resignation, takebacks, rematches). Each message becomes an [`Intent`] for one game;
//! the session finds the game's handle among the games it follows, and the intent (with
//! the search for a game it does not follow, which may be owned by another node) runs
//! on the session's worker ([`super::request`]) in the order the client sent it.

use shared::protocol::{ClientMessage, GameId, ServerMessage};

use super::Session;
use super::request::Requester;
use crate::game::{AckTo, Acted, FollowerId, GameError, GameHandle, Intent};

/// One intent for one game; `move_id` only for a move (it is acknowledged).
struct Act {
    game_id: GameId,
    move_id: Option<u64>,
    intent: Intent,
}

impl Session {
    /// Sends a player's intent to its game.
    pub(super) fn on_play(&mut self, msg: ClientMessage) {
        let Some(act) = intent_of(msg, self.lag_ms.unwrap_or(0)) else {
            return;
        };
        let followed = self
            .games
            .get(&act.game_id)
            .map(|s| (s.handle.clone(), s.following.id()));
        let r = self.requester();
        self.hand_off(r.act(act, followed));
    }
}

/// The intent a message of the game group stands for.
fn intent_of(msg: ClientMessage, lag_ms: u64) -> Option<Act> {
    let only = |game_id: GameId, intent: Intent| Act {
        game_id,
        move_id: None,
        intent,
    };
    Some(match msg {
        ClientMessage::Move {
            game_id,
            text,
            move_id,
            think_ms,
            offer_draw,
        } => Act {
            game_id,
            move_id: Some(move_id),
            intent: Intent::Move {
                text,
                lag_ms,
                think_ms,
                offer: offer_draw,
            },
        },
        ClientMessage::DrawOffer { game_id } => only(game_id, Intent::DrawOffer),
        ClientMessage::DrawAccept { game_id } => only(game_id, Intent::DrawAccept),
        ClientMessage::DrawDecline { game_id } => only(game_id, Intent::DrawDecline),
        ClientMessage::DrawClaim { game_id, text } => only(
            game_id,
            match text {
                Some(text) => Intent::DrawClaimWithMove { text, lag_ms },
                None => Intent::DrawClaim,
            },
        ),
        ClientMessage::Resign { game_id } => only(game_id, Intent::Resign),
        ClientMessage::Berserk { game_id } => only(game_id, Intent::Berserk),
        ClientMessage::Abort { game_id } => only(game_id, Intent::Abort),
        ClientMessage::TakebackOffer { game_id } => only(game_id, Intent::TakebackOffer),
        ClientMessage::TakebackAccept { game_id } => only(game_id, Intent::TakebackAccept),
        ClientMessage::TakebackDecline { game_id } => only(game_id, Intent::TakebackDecline),
        ClientMessage::Rematch { game_id } => only(game_id, Intent::Rematch),
        ClientMessage::RematchDecline { game_id } => only(game_id, Intent::RematchDecline),
        ClientMessage::ClaimAbandoned { game_id, result } => {
            only(game_id, Intent::ClaimAbandoned(result))
        }
        _ => return None,
    })
}

impl Requester {
    /// Finds the game if the session does not follow it, sends the intent, answers. A
    /// followed game's actor sends a move's `move_ack` with the mover's own event.
    async fn act(self, act: Act, followed: Option<(GameHandle, FollowerId)>) {
        let (handle, ack) = match followed {
            Some((h, follower)) => {
                let ack = act.move_id.map(|move_id| AckTo { follower, move_id });
                (Some(h), ack)
            }
            None => (self.app.games.find(&act.game_id).await, None),
        };
        let result = match handle {
            Some(handle) => {
                handle
                    .acted_with(self.identity.user.id.clone(), act.intent, ack)
                    .await
            }
            None => Err(GameError::Gone),
        };
        self.answer(&act.game_id, act.move_id, result);
    }

    /// A move is acknowledged with its version and the mover's draw offer permission
    /// after it; any refusal is a typed error.
    fn answer(&self, game_id: &GameId, move_id: Option<u64>, result: Result<Acted, GameError>) {
        match (result, move_id) {
            (Ok(acted), Some(_)) if acted.acked => {}
            (Ok(acted), Some(move_id)) => {
                self.out.send(&ServerMessage::MoveAck {
                    game_id: game_id.clone(),
                    move_id,
                    version: acted.version,
                    draw_offer_refusal: acted.draw_offer,
                });
            }
            (Ok(_), None) => {}
            (Err(e), _) => self.game_error(game_id, move_id, e.code(), e.to_string()),
        }
    }
}
