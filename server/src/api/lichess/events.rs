//! `GET /api/stream/event`: the account's events as NDJSON, as lichess sends them:
//! `gameStart` for each game under way when the stream opens and each game that starts,
//! `gameFinish` when one ends (even one over before its state was read), `challenge`
//! for each open challenge sent or received when it opens and each one after (received
//! only, in lidraughts's dialect), `challengeDeclined` (with the reason) /
//! `challengeCanceled` when one goes. An open event stream makes the account online
//! (challenges need the opponent online), as a WebSocket session does; a keep-alive
//! newline goes out every [`KEEP_ALIVE`].

use std::collections::HashMap;
use std::sync::Arc;

use axum::Extension;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use shared::protocol::{
    ChallengeId, ChallengeInfo, DeclineReason, GameEvent, GameId, GameState, ServerMessage,
    UserInfo,
};
use tokio::sync::{broadcast, mpsc};

use super::shapes;
use super::{BotState, Dialect, KEEP_ALIVE, STREAM_QUEUE, ndjson, push};
use crate::api::bearer;
use crate::app::App;
use crate::game::GameHandle;
use crate::hub::Notice;
use crate::tokens::Scope;

/// Notices the stream's hub registration may hold.
const NOTICE_QUEUE: usize = 64;

/// `GET /api/stream/event`.
#[utoipa::path(
    get,
    path = "/api/stream/event",
    tag = "lichess",
    summary = "Your events: challenges, games started and finished",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "one event a line, keep-alive newlines", content_type = "application/x-ndjson", body = String),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "the token lacks a scope (`missing_scope`) or the account may not do this", body = crate::api::ErrorBody),
        (status = 429, description = "too many open streams (`too_many`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn stream(
    State(app): State<Arc<App>>,
    Extension(state): Extension<Arc<BotState>>,
    headers: HeaderMap,
) -> Response {
    let caller = match bearer::caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let allowed = [Scope::ChallengeRead, Scope::BotPlay, Scope::BoardPlay];
    if let Err(e) = caller.require_any(&allowed) {
        return e.into_response();
    }
    let slot = match state.open_stream(&caller.user.id, &app.metrics) {
        Ok(s) => s.until_ended(&app, &caller),
        Err(e) => return e.into_response(),
    };
    let (tx, rx) = mpsc::channel(STREAM_QUEUE);
    let events = Events {
        app: app.clone(),
        user: caller.user,
        dialect: Dialect::of(&headers),
        tx,
        challenges: HashMap::new(),
    };
    app.tracker.spawn(events.run());
    ndjson(rx, slot)
}

struct Events {
    app: Arc<App>,
    user: UserInfo,
    dialect: Dialect,
    tx: mpsc::Sender<String>,
    challenges: HashMap<ChallengeId, ChallengeInfo>,
}

impl Events {
    async fn run(mut self) {
        let conn = self.app.next_conn_id();
        let (notice_tx, notices) = flume::bounded(NOTICE_QUEUE);
        self.app.hub.register(&self.user, conn, notice_tx);
        if let Err(e) = self.app.presence.connect(&self.user).await {
            tracing::warn!(error = %e, "presence connect failed");
        }
        self.games_under_way().await;
        if !self.open_challenges().await {
            return self.close(conn).await;
        }
        let mut keep_alive = tokio::time::interval(KEEP_ALIVE);
        let stopping = self.app.stopping.child_token();
        loop {
            tokio::select! {
                () = self.tx.closed() => break,
                () = stopping.cancelled() => break,
                _ = keep_alive.tick() => {
                    if self.tx.try_send("\n".into()).is_err() {
                        break;
                    }
                }
                notice = notices.recv_async() => match notice {
                    Err(flume::RecvError::Disconnected) => break,
                    Ok(n) => {
                        if !self.on_notice(n) {
                            break;
                        }
                    }
                },
            }
        }
        self.close(conn).await;
    }

    /// The stream ends: the account is offline if it was its last connection.
    async fn close(&self, conn: crate::hub::ConnId) {
        self.app.hub.unregister(&self.user.id, conn);
        let left = self
            .app
            .presence
            .disconnect(&self.user.id)
            .await
            .unwrap_or(0);
        if left == 0 {
            crate::setup::last_connection_closed(&self.app, &self.user.id).await;
        }
    }

    async fn games_under_way(&self) {
        let ids = self
            .app
            .presence
            .games_of(&self.user.id)
            .await
            .unwrap_or_default();
        for id in ids {
            if let Some(handle) = self.app.games.find(&id).await {
                self.follow(handle);
            }
        }
    }

    /// The account's open challenges, sent and received, as lichess lists them when
    /// the stream opens; `false` if the reader is gone or too slow.
    async fn open_challenges(&mut self) -> bool {
        let open = match self.app.lobby.challenges_of(&self.user.id).await {
            Ok(open) => open,
            Err(e) => {
                tracing::warn!(error = %e, "cannot list the open challenges");
                return true;
            }
        };
        open.into_iter().all(|ch| self.challenge_line(ch))
    }

    /// A `challenge` line, remembering the challenge for its removal. lidraughts sends
    /// only challenges received (lidraughts-bot takes every `challenge` line for one to
    /// answer, and would decline or accept its own), so a lidraughts stream is not told
    /// of those the account sent.
    fn challenge_line(&mut self, challenge: ChallengeInfo) -> bool {
        if self.dialect == Dialect::Lidraughts && challenge.from.id == self.user.id {
            return true;
        }
        let line = json!({
            "type": "challenge",
            "challenge": shapes::challenge(&challenge, &self.user, self.dialect),
        });
        self.challenges.insert(challenge.challenge_id, challenge);
        push(&self.tx, &line)
    }

    /// The challenger hears a refusal, with its reason (`generic` when the challenge
    /// went for another cause); the challenged, a withdrawal.
    fn challenge_removed(&mut self, id: ChallengeId, reason: Option<DeclineReason>) -> bool {
        let Some(ch) = self.challenges.remove(&id) else {
            return true;
        };
        let mut challenge = shapes::challenge(&ch, &self.user, self.dialect);
        let kind = if ch.from.id == self.user.id {
            let reason = reason.unwrap_or(DeclineReason::Generic);
            challenge["declineReason"] = json!(shapes::decline_reason_text(reason));
            challenge["declineReasonKey"] = json!(shapes::decline_reason_key(reason));
            "challengeDeclined"
        } else {
            "challengeCanceled"
        };
        push(&self.tx, &json!({ "type": kind, "challenge": challenge }))
    }

    /// Follows a game of the account: `gameStart` now, `gameFinish` at its end.
    fn follow(&self, handle: GameHandle) {
        let (user, dialect, tx) = (self.user.clone(), self.dialect, self.tx.clone());
        let app = self.app.clone();
        self.app
            .tracker
            .spawn(game_events(app, handle, user, dialect, tx));
    }

    /// Handles a notice; `false` if the reader is gone or too slow.
    fn on_notice(&mut self, notice: Notice) -> bool {
        match notice {
            Notice::GameStarted(started) => {
                self.follow(started.handle);
                true
            }
            // The answer itself ends if the stream's token is among those ended
            // (`StreamSlot::until_ended`); the reader gone, this loop stops.
            Notice::SessionsEnded(_) => true,
            Notice::Message(msg) => match *msg {
                ServerMessage::ChallengeReceived { challenge }
                | ServerMessage::ChallengeSent { challenge } => {
                    // Listed once, if it was already sent when the stream opened.
                    if self.challenges.contains_key(&challenge.challenge_id) {
                        return true;
                    }
                    self.challenge_line(challenge)
                }
                ServerMessage::ChallengeRemoved {
                    challenge_id,
                    reason,
                } => self.challenge_removed(challenge_id, reason),
                _ => true,
            },
        }
    }
}

/// `gameStart` for a game of the account, then `gameFinish` at its end. The end is
/// never lost: if the game's actor is gone before its state could be read (the game
/// ended at once), the state comes from the archive, or is the last one known with the
/// outcome the game announced.
async fn game_events(
    app: Arc<App>,
    handle: GameHandle,
    user: UserInfo,
    dialect: Dialect,
    tx: mpsc::Sender<String>,
) {
    let id = handle.meta().id.clone();
    let events = handle.subscribe().ok();
    let Some(mut last) = current_or_archived(&app, &handle, &id).await else {
        return;
    };
    let line = |kind: &str, s: &GameState| -> Value {
        json!({ "type": kind, "game": shapes::game_summary(s, &user, dialect) })
    };
    if !push(&tx, &line("gameStart", &last)) {
        return;
    }
    if last.outcome.is_none()
        && let Some(mut events) = events
    {
        loop {
            tokio::select! {
                () = tx.closed() => return,
                event = events.recv() => match event {
                    Ok(e) => {
                        if let GameEvent::GameOver { outcome, clock, .. } = &e.event {
                            last.outcome = Some(outcome.clone());
                            last.clock = *clock;
                            break;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => break,
                },
            }
        }
        if let Some(end) = current_or_archived(&app, &handle, &id).await
            && end.outcome.is_some()
        {
            last = end;
        }
    }
    if last.outcome.is_some() {
        push(&tx, &line("gameFinish", &last));
    }
}

/// The game's state from its actor, or from the archive once the actor is gone.
async fn current_or_archived(app: &App, handle: &GameHandle, id: &GameId) -> Option<GameState> {
    if let Ok(state) = handle.state().await {
        return Some(state);
    }
    let stored = app.db.game(&id.0).await.ok()??;
    crate::game::archive::archived_state(&stored)
}
