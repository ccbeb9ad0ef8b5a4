//! The game group of client messages: a player's intents (moves, offers, claims,
//! resignation, takebacks, rematches). Each message becomes an [`Intent`] for one game.
//!
//! On the path of a move nothing waits in the session loop. When the session follows
//! the game and its worker ([`super::request`]) has nothing queued, the loop puts the
//! intent straight into the game's queue (no task hop before the game sees it) and
//! hands only the wait for the answer to the worker. Otherwise (a game the session
//! does not follow, which may be owned by another node, a full game queue, or earlier
//! requests still waiting) the whole intent runs on the worker. Either way the
//! client's requests reach their games in the order sent, and a move's `move_ack`
//! follows the move's own event.

use shared::protocol::{ClientMessage, GameId, ServerMessage};
use tokio::sync::{oneshot, watch};

use super::Session;
use super::request::Requester;
use crate::game::{GameError, GameHandle, Intent};

/// How long a move's ack waits for the move's own event to be sent first.
const ACK_AFTER_EVENT: std::time::Duration = std::time::Duration::from_secs(1);

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
        let r = self.requester();
        let followed = self.games.get(&act.game_id);
        let handle = followed.map(|s| s.handle.clone());
        match (handle, followed.map(|s| s.shown.clone())) {
            (Some(handle), Some(shown)) if self.worker.idle() => {
                let user = self.identity.user.id.clone();
                match handle.try_act(user, act.intent) {
                    Ok(answer) => {
                        self.hand_off(r.answered(act.game_id, act.move_id, answer, shown))
                    }
                    Err(intent) => {
                        let act = Act { intent, ..act };
                        self.hand_off(r.act(act, Some(handle)));
                    }
                }
            }
            (handle, _) => self.hand_off(r.act(act, handle)),
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
    /// Finds the game if the session does not follow it, sends the intent, answers.
    async fn act(self, act: Act, handle: Option<GameHandle>) {
        let handle = match handle {
            Some(h) => Some(h),
            None => self.app.games.find(&act.game_id).await,
        };
        let result = match handle {
            Some(handle) => handle.act(self.identity.user.id.clone(), act.intent).await,
            None => Err(GameError::Gone),
        };
        self.answer(&act.game_id, act.move_id, result);
    }

    /// Waits for the answer to an intent already sent, then answers the client: a
    /// move's ack after the move's own event (`shown`: the versions the session's
    /// forwarder has sent), as when the intent waits on the worker; at most
    /// [`ACK_AFTER_EVENT`] later if the event never comes (the game went away).
    async fn answered(
        self,
        game_id: GameId,
        move_id: Option<u64>,
        answer: oneshot::Receiver<Result<u64, GameError>>,
        mut shown: watch::Receiver<u64>,
    ) {
        let result = answer.await.unwrap_or(Err(GameError::Gone));
        if let (Ok(version), Some(_)) = (&result, move_id) {
            let version = *version;
            let _ = tokio::time::timeout(ACK_AFTER_EVENT, shown.wait_for(|v| *v >= version)).await;
        }
        self.answer(&game_id, move_id, result);
    }

    /// A move is acknowledged with its version; any refusal is a typed error.
    fn answer(&self, game_id: &GameId, move_id: Option<u64>, result: Result<u64, GameError>) {
        match (result, move_id) {
            (Ok(version), Some(move_id)) => {
                self.out.send(&ServerMessage::MoveAck {
                    game_id: game_id.clone(),
                    move_id,
                    version,
                });
            }
            (Ok(_), None) => {}
            (Err(e), _) => self.game_error(game_id, move_id, e.code(), e.to_string()),
        }
    }
}
