//! The game group of client messages: a player's intents (moves, offers, claims,
//! resignation, takebacks, rematches). Each message becomes an [`Intent`] for one game;
//! the session finds the game's handle among the games it follows and queues the intent
//! for the game's actor from its own loop, the answer awaited there too (no task hop on
//! a move's way). The intent for a game it does not follow (to be found, maybe on
//! another node), or sent while an earlier request still waits, is a request in the
//! session's queue ([`super::request`]) instead, run in the order the client sent it.

use shared::protocol::{ClientMessage, GameId, ServerMessage};

use super::Done;
use super::Session;
use super::outbox::Outbox;
use super::request::{JOB_QUEUE, Requester};
use crate::game::{AckTo, Acted, FollowerId, GameError, GameHandle, Intent};

/// One intent for one game; `move_id` only for a move (it is acknowledged).
struct Act {
    game_id: GameId,
    move_id: Option<u64>,
    intent: Intent,
}

impl Session {
    /// Sends a player's intent to its game: from the loop itself for a game the
    /// session follows, unless an earlier request still waits (the intent then queues
    /// behind it, so that the client's order holds).
    pub(super) fn on_play(&mut self, msg: ClientMessage) {
        let Some(act) = intent_of(msg, self.lag_ms.unwrap_or(0)) else {
            return;
        };
        let followed = self
            .games
            .get(&act.game_id)
            .map(|s| (s.handle.clone(), s.following.id()));
        let act = match &followed {
            Some((handle, follower)) if self.requests.is_idle() && self.acts.len() < JOB_QUEUE => {
                match self.act_now(act, handle, *follower) {
                    Ok(()) => return,
                    Err(act) => act,
                }
            }
            _ => act,
        };
        let r = self.requester();
        self.hand_off(async move {
            r.act(act, followed).await;
            Done::Nothing
        });
    }

    /// Hands an intent to its game's queue if there is room, its answer to the loop's
    /// [`Session::acts`]; else gives it back.
    fn act_now(&mut self, act: Act, handle: &GameHandle, follower: FollowerId) -> Result<(), Act> {
        let ack = act.move_id.map(|move_id| AckTo { follower, move_id });
        let Act {
            game_id,
            move_id,
            intent,
        } = act;
        match handle.try_acted(self.identity.user.id.clone(), intent, ack) {
            Ok(reply) => {
                let out = self.out.clone();
                self.acts.push(Box::pin(async move {
                    let result = reply.await.unwrap_or(Err(GameError::Gone));
                    answer(&out, &game_id, move_id, result);
                }));
                Ok(())
            }
            Err(intent) => Err(Act {
                game_id,
                move_id,
                intent,
            }),
        }
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
        answer(&self.out, &act.game_id, act.move_id, result);
    }
}

/// Answers an intent: a move is acknowledged with its version and the mover's draw
/// offer permission after it (unless the game's actor sent the ack with the move's
/// event); any refusal is a typed error.
fn answer(out: &Outbox, game_id: &GameId, move_id: Option<u64>, result: Result<Acted, GameError>) {
    match (result, move_id) {
        (Ok(acted), Some(_)) if acted.acked => {}
        (Ok(acted), Some(move_id)) => {
            out.send(&ServerMessage::MoveAck {
                game_id: game_id.clone(),
                move_id,
                version: acted.version,
                draw_offer_refusal: acted.draw_offer,
            });
        }
        (Ok(_), None) => {}
        (Err(e), _) => out.error(e.code(), e.to_string(), Some((game_id, move_id))),
    }
}
