//! `POST /api/board/seek`, the Board API's seek as lichess makes it: form or JSON fields
//! `rated`, `time` (minutes), `increment` (seconds), `variant`, `color`, `ratingRange`.
//! The seek joins the lobby as a WebSocket player's does, and the request holds its
//! answer open with a keep-alive newline every [`KEEP_ALIVE`] until someone accepts it
//! (the game then arrives on the event stream as `gameStart`, and the answer ends); the
//! seek is removed when the client goes. Bots are not paired by seeks
//! (`bot_not_paired`, 403); correspondence seeks (`days`) are not played here.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Extension;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use shared::protocol::{
    ColorChoice, ErrorCode, RatingRange, SeekId, ServerMessage, TimeControl, UserInfo,
};
use tokio::sync::mpsc;

use super::{BotState, Dialect, KEEP_ALIVE, STREAM_QUEUE, fields, ndjson, shapes};
use crate::api::ApiError;
use crate::api::bearer;
use crate::app::App;
use crate::hub::Notice;
use crate::lobby::Proposal;
use crate::setup::{self, Refusal};
use crate::tokens::Scope;

/// Notices the seek's hub registration may hold.
const NOTICE_QUEUE: usize = 16;

/// The longest clock a seek may ask for, as lichess: 180 minutes, 180 seconds a move.
const MAX_MINUTES: f64 = 180.0;
const MAX_INCREMENT: u32 = 180;

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::InvalidMessage, message)
}

fn refused(r: Refusal) -> Response {
    let status = match r.code {
        ErrorCode::BotNotPaired | ErrorCode::RatedNeedsAccount => StatusCode::FORBIDDEN,
        ErrorCode::Unavailable | ErrorCode::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::BAD_REQUEST,
    };
    ApiError::new(status, r.code, r.message).into_response()
}

/// The seek the fields describe.
fn proposal(f: &HashMap<String, String>, dialect: Dialect) -> Result<Proposal, ApiError> {
    if f.contains_key("days") {
        return Err(bad("correspondence seeks are not played here: send time"));
    }
    let variant = match f.get("variant").map(String::as_str) {
        None | Some("") => shapes::parse_variant("standard", dialect),
        Some(key) => shapes::parse_variant(key, dialect),
    }
    .ok_or_else(|| bad("unknown variant: use a damka variant name or `standard`"))?;
    let minutes = f
        .get("time")
        .ok_or_else(|| bad("time (minutes) is required"))?
        .parse::<f64>()
        .ok()
        .filter(|m| (0.0..=MAX_MINUTES).contains(m))
        .ok_or_else(|| bad(format!("time is minutes, 0 to {MAX_MINUTES}")))?;
    let increment = match f.get("increment") {
        None => 0,
        Some(v) => v
            .parse::<u32>()
            .ok()
            .filter(|n| *n <= MAX_INCREMENT)
            .ok_or_else(|| bad(format!("increment is whole seconds, 0 to {MAX_INCREMENT}")))?,
    };
    // Whole seconds: 0.5 minutes is 30 s.
    let limit = (minutes * 60.0).round() as u32;
    if limit == 0 && increment == 0 {
        return Err(bad("a clock needs time: time or increment above 0"));
    }
    let color = match f.get("color").map(String::as_str) {
        None | Some("random") => ColorChoice::Random,
        Some("white") => ColorChoice::White,
        Some("black") => ColorChoice::Black,
        Some(_) => return Err(bad("color is white, black or random")),
    };
    let rating_range = match f.get("ratingRange").filter(|r| !r.is_empty()) {
        None => None,
        Some(range) => {
            let parsed = range.split_once('-').and_then(|(lo, hi)| {
                Some(RatingRange {
                    min: lo.parse::<u32>().ok()?,
                    max: hi.parse::<u32>().ok()?,
                })
            });
            match parsed {
                Some(r) if r.problem().is_none() => Some(r),
                _ => return Err(bad("ratingRange is two ratings, low-high (1500-1800)")),
            }
        }
    };
    Ok(Proposal {
        variant,
        time_control: TimeControl::new(limit, increment),
        rated: matches!(f.get("rated").map(String::as_str), Some("true" | "1")),
        color,
        fen: None,
        ruleset: None,
        rating_range,
    })
}

/// `POST /api/board/seek`.
#[utoipa::path(
    post,
    path = "/api/board/seek",
    tag = "lichess",
    summary = "Seek an opponent (held open until accepted)",
    request_body(content((Object = "application/x-www-form-urlencoded"), (Object = "application/json")), description = "lichess's form fields, as a form or a JSON object"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "NDJSON: keep-alive newlines until the seek is accepted", content_type = "application/x-ndjson", body = String),
        (status = 400, description = "bad fields (`invalid_message`), or the seek is refused", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "the token lacks `board:play` (`missing_scope`), a bot (`bot_not_paired`), a guest asking a rated seek", body = crate::api::ErrorBody),
        (status = 429, description = "too many open streams (`too_many`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`), or the server is stopping; nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn seek(
    State(app): State<Arc<App>>,
    Extension(state): Extension<Arc<BotState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let caller = match bearer::caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    if let Err(e) = caller.require(Scope::BoardPlay) {
        return e.into_response();
    }
    let proposal = match fields(&headers, &body).and_then(|f| proposal(&f, Dialect::of(&headers))) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let checks = setup::may_be_paired(&caller.user)
        .and_then(|()| setup::may_play_rated(&caller.user, proposal.rated))
        .and_then(|()| setup::proposal_fits(&app, &proposal));
    if let Err(r) = checks {
        return refused(r);
    }
    let slot = match state.open_stream(&caller.user.id, &app.metrics) {
        Ok(s) => s.until_ended(&app, &caller),
        Err(e) => return e.into_response(),
    };
    let me = setup::rated_user(&app, &caller.user, proposal.variant, proposal.time_control).await;
    // Listening before the seek exists: its acceptance cannot come first.
    let conn = app.next_conn_id();
    let (notice_tx, notices) = flume::bounded(NOTICE_QUEUE);
    app.hub.register(&caller.user, conn, notice_tx);
    let seek = match app.lobby.add_seek(&me, proposal).await {
        Ok(s) => s,
        Err(e) => {
            app.hub.unregister(&caller.user.id, conn);
            return refused(e.into());
        }
    };
    let (tx, rx) = mpsc::channel(STREAM_QUEUE);
    let held = Held {
        app: app.clone(),
        user: caller.user,
        seek_id: seek.seek_id,
        conn,
    };
    app.tracker.spawn(held.run(tx, notices));
    ndjson(rx, slot)
}

/// A seek held open by its request.
struct Held {
    app: Arc<App>,
    user: UserInfo,
    seek_id: SeekId,
    conn: crate::hub::ConnId,
}

impl Held {
    /// Keeps the answer alive until the seek is taken, the client goes or the server
    /// stops; a seek not taken is removed.
    async fn run(self, tx: mpsc::Sender<String>, notices: flume::Receiver<Notice>) {
        let mut keep_alive = tokio::time::interval(KEEP_ALIVE);
        let stopping = self.app.stopping.child_token();
        let taken = loop {
            tokio::select! {
                () = tx.closed() => break false,
                () = stopping.cancelled() => break false,
                _ = keep_alive.tick() => {
                    if tx.try_send("\n".into()).is_err() {
                        break false;
                    }
                }
                notice = notices.recv_async() => match notice {
                    Err(flume::RecvError::Disconnected) => break false,
                    Ok(Notice::Message(msg)) => {
                        if matches!(*msg, ServerMessage::SeekRemoved { seek_id } if seek_id == self.seek_id) {
                            break true;
                        }
                    }
                    Ok(_) => {}
                },
            }
        };
        self.app.hub.unregister(&self.user.id, self.conn);
        if !taken {
            match self
                .app
                .lobby
                .cancel_seek(&self.user.id, self.seek_id)
                .await
            {
                Ok(_) => self.app.notify_user(
                    &self.user.id,
                    ServerMessage::SeekRemoved {
                        seek_id: self.seek_id,
                    },
                ),
                // Taken meanwhile: the game goes on.
                Err(e) => tracing::debug!(error = %e, "seek already gone"),
            }
        }
    }
}
