//! `GET /api/stream/event`: the account's events as NDJSON, as lichess sends them:
//! `gameStart` for each game under way when the stream opens and each game that starts,
//! `gameFinish` when one ends, `challenge` for each challenge sent or received while it
//! is open, `challengeDeclined` / `challengeCanceled` when one goes. An open event
//! stream makes the account online (challenges need the opponent online), as a
//! WebSocket session does; a keep-alive newline goes out every [`KEEP_ALIVE`].

use std::collections::HashMap;
use std::sync::Arc;

use axum::Extension;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use shared::protocol::{ChallengeId, ChallengeInfo, GameEvent, ServerMessage, UserInfo};
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
    let slot = match state.open_stream(&caller.user.id) {
        Ok(s) => s,
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
        let (notice_tx, mut notices) = mpsc::channel(NOTICE_QUEUE);
        self.app.hub.register(&self.user, conn, notice_tx);
        if let Err(e) = self.app.presence.connect(&self.user).await {
            tracing::warn!(error = %e, "presence connect failed");
        }
        self.games_under_way().await;
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
                notice = notices.recv() => match notice {
                    None => break,
                    Some(n) => {
                        if !self.on_notice(n) {
                            break;
                        }
                    }
                },
            }
        }
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

    /// Follows a game of the account: `gameStart` now, `gameFinish` at its end.
    fn follow(&self, handle: GameHandle) {
        let (user, dialect, tx) = (self.user.clone(), self.dialect, self.tx.clone());
        self.app
            .tracker
            .spawn(game_events(handle, user, dialect, tx));
    }

    /// Handles a notice; `false` if the reader is gone or too slow.
    fn on_notice(&mut self, notice: Notice) -> bool {
        match notice {
            Notice::GameStarted(handle) => {
                self.follow(handle);
                true
            }
            Notice::Message(msg) => match *msg {
                ServerMessage::ChallengeReceived { challenge }
                | ServerMessage::ChallengeSent { challenge } => {
                    let line = json!({
                        "type": "challenge",
                        "challenge": shapes::challenge(&challenge, &self.user, self.dialect),
                    });
                    self.challenges.insert(challenge.challenge_id, challenge);
                    push(&self.tx, &line)
                }
                ServerMessage::ChallengeRemoved { challenge_id } => {
                    let Some(ch) = self.challenges.remove(&challenge_id) else {
                        return true;
                    };
                    // The challenger hears a refusal; the challenged, a withdrawal.
                    let kind = if ch.from.id == self.user.id {
                        "challengeDeclined"
                    } else {
                        "challengeCanceled"
                    };
                    let line = json!({
                        "type": kind,
                        "challenge": shapes::challenge(&ch, &self.user, self.dialect),
                    });
                    push(&self.tx, &line)
                }
                _ => true,
            },
        }
    }
}

async fn game_events(
    handle: GameHandle,
    user: UserInfo,
    dialect: Dialect,
    tx: mpsc::Sender<String>,
) {
    let Ok(mut events) = handle.subscribe() else {
        return;
    };
    let Ok(state) = handle.state().await else {
        return;
    };
    let line = |kind: &str, s: &shared::protocol::GameState| -> Value {
        json!({ "type": kind, "game": shapes::game_summary(s, &user, dialect) })
    };
    if !push(&tx, &line("gameStart", &state)) || state.outcome.is_some() {
        if state.outcome.is_some() {
            push(&tx, &line("gameFinish", &state));
        }
        return;
    }
    loop {
        tokio::select! {
            () = tx.closed() => return,
            event = events.recv() => match event {
                Ok(e) if matches!(e.event, GameEvent::GameOver { .. }) => break,
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            },
        }
    }
    if let Ok(state) = handle.state().await {
        push(&tx, &line("gameFinish", &state));
    }
}
