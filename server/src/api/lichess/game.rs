//! A game through the Bot API (`/api/bot/game/...`, bot accounts) or the Board API
//! (`/api/board/game/...`, everyone else): its stream (`gameFull`, then a `gameState`
//! after each change, `opponentGone`, and the end) and what its player does: moves
//! (UCI for chess; damka's notation or lidraughts's `FFTT` hops for draughts, a capture
//! sent hop by hop being played once its route is whole), resignation, abort, draw and
//! takeback offers and answers, claiming victory over a player who left. The stream
//! carries the game's chat lines too, as `chatLine` ([`super::chat`]). Both paths
//! reach the same game actor as a WebSocket player, under the same clocks and law.

use std::sync::Arc;

use axum::Extension;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use shared::protocol::{AbandonClaim, ChatRoom, ErrorCode, GameEvent, GameId, GameRoom, UserId};
use shared::rules::{Color, Position};
use tokio::sync::{broadcast, mpsc};

use super::shapes::Track;
use super::{BotState, Dialect, KEEP_ALIVE, STREAM_QUEUE, check_api, ndjson, not_found, ok, push};
use crate::api::bearer::{self, Caller};
use crate::api::{ApiError, ApiQuery};
use crate::app::App;
use crate::chat::RoomEvent;
use crate::game::{Following, GameError, GameHandle, Intent, Role};

fn game_refusal(e: &GameError) -> ApiError {
    let status = match e {
        GameError::Gone => StatusCode::NOT_FOUND,
        GameError::NotAPlayer => StatusCode::FORBIDDEN,
        GameError::Unavailable(_) | GameError::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::BAD_REQUEST,
    };
    ApiError::new(status, e.code(), e.to_string())
}

/// The caller, allowed on this API, and their live game `id`.
async fn player_game(
    app: &App,
    headers: &HeaderMap,
    api: &str,
    id: &str,
) -> Result<(Caller, GameHandle, Color), ApiError> {
    let caller = bearer::caller(app, headers).await?;
    check_api(&caller, api)?;
    if id.is_empty() || id.len() > 32 || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(not_found());
    }
    let handle = app
        .games
        .find(&GameId(id.to_string()))
        .await
        .ok_or_else(not_found)?;
    let color = handle
        .meta()
        .color_of(&caller.user.id)
        .ok_or_else(not_found)?;
    Ok((caller, handle, color))
}

/// `GET /api/{bot|board}/game/stream/{id}`.
#[utoipa::path(
    get,
    path = "/api/{api}/game/stream/{id}",
    tag = "lichess",
    summary = "A game's stream: gameFull, then gameState, chatLine, opponentGone",
    params(("api" = String, Path, description = "`bot` or `board`", pattern = "^(bot|board)$"), ("id" = String, Path, description = "the game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "one state a line, keep-alive newlines", content_type = "application/x-ndjson", body = String),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a missing scope or the wrong API for the account (`not_a_bot`)", body = crate::api::ErrorBody),
        (status = 404, description = "no live game of yours has this id (`game_not_found`)", body = crate::api::ErrorBody),
        (status = 429, description = "too many open streams (`too_many`)", body = crate::api::ErrorBody),
        (status = 500, description = "the game's moves do not replay", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn stream(
    State(app): State<Arc<App>>,
    Extension(state): Extension<Arc<BotState>>,
    headers: HeaderMap,
    Path((api, id)): Path<(String, String)>,
) -> Response {
    let (caller, handle, color) = match player_game(&app, &headers, &api, &id).await {
        Ok(g) => g,
        Err(e) => return e.into_response(),
    };
    let slot = match state.open_stream(&caller.user.id, &app.metrics) {
        Ok(s) => s.until_ended(&app, &caller),
        Err(e) => return e.into_response(),
    };
    let Ok(events) = handle.subscribe() else {
        return not_found().into_response();
    };
    // The stream attends as the player while it is open.
    let Ok(attending) = handle.attend(color) else {
        return not_found().into_response();
    };
    let joined = match handle
        .join(caller.user.id.clone(), Role::Player, None)
        .await
    {
        Ok(j) => j,
        Err(e) => return game_refusal(&e).into_response(),
    };
    let Some(track) = Track::of(joined.state) else {
        handle.leave(caller.user.id.clone(), Role::Player).await;
        return ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            "the game's moves do not replay",
        )
        .into_response();
    };
    let (tx, rx) = mpsc::channel(STREAM_QUEUE);
    let rooms = Rooms {
        player: app
            .chat
            .subscribe(&ChatRoom::Game(handle.id().clone(), GameRoom::Player)),
        spectator: app
            .chat
            .subscribe(&ChatRoom::Game(handle.id().clone(), GameRoom::Spectator)),
        blocked: app
            .chat
            .blocked_by(&caller.user.id)
            .await
            .unwrap_or_default(),
    };
    let follower = Follower {
        _attending: attending,
        handle,
        user: caller.user.id,
        color,
        dialect: Dialect::of(&headers),
        tx,
        track,
    };
    app.tracker.spawn(follower.run(events, rooms));
    ndjson(rx, slot)
}

struct Follower {
    /// The player attends the game while this is held.
    _attending: Following,
    handle: GameHandle,
    user: UserId,
    color: Color,
    dialect: Dialect,
    tx: mpsc::Sender<String>,
    track: Track,
}

/// A game's two chat rooms as its stream follows them, and the users whose lines it
/// leaves out.
struct Rooms {
    player: broadcast::Receiver<Arc<RoomEvent>>,
    spectator: broadcast::Receiver<Arc<RoomEvent>>,
    blocked: Vec<UserId>,
}

impl Rooms {
    /// The line of a chat event, as `chatLine`, if it is one to show.
    fn line(
        &self,
        side: GameRoom,
        event: Result<Arc<RoomEvent>, broadcast::error::RecvError>,
    ) -> Option<serde_json::Value> {
        match &*event.ok()? {
            RoomEvent::Line { line } if !self.blocked.contains(&line.user) => {
                Some(super::chat::chat_line(side, line))
            }
            _ => None,
        }
    }
}

enum Step {
    Event(Result<Arc<crate::game::Versioned>, broadcast::error::RecvError>),
    Chat(Option<serde_json::Value>),
    KeepAlive,
    Gone,
}

impl Follower {
    async fn run(
        mut self,
        mut events: broadcast::Receiver<Arc<crate::game::Versioned>>,
        mut rooms: Rooms,
    ) {
        let mut alive = push(&self.tx, &self.track.game_full(self.dialect))
            && self.track.state.outcome.is_none();
        let mut keep_alive = tokio::time::interval(KEEP_ALIVE);
        keep_alive.tick().await;
        while alive {
            let step = tokio::select! {
                () = self.tx.closed() => Step::Gone,
                _ = keep_alive.tick() => Step::KeepAlive,
                event = events.recv() => Step::Event(event),
                e = rooms.player.recv() => Step::Chat(rooms.line(GameRoom::Player, e)),
                e = rooms.spectator.recv() => Step::Chat(rooms.line(GameRoom::Spectator, e)),
            };
            alive = match step {
                Step::Gone => false,
                Step::Chat(None) => true,
                Step::Chat(Some(line)) => push(&self.tx, &line),
                Step::KeepAlive => self.tx.try_send("\n".into()).is_ok(),
                Step::Event(Ok(e)) if e.version <= self.track.state.version => true,
                Step::Event(Ok(e)) => {
                    self.track.state.version = e.version;
                    match self.on_event(&e.event) {
                        Some(alive) => alive,
                        None => self.resync().await,
                    }
                }
                Step::Event(Err(broadcast::error::RecvError::Lagged(_))) => self.resync().await,
                Step::Event(Err(broadcast::error::RecvError::Closed)) => false,
            };
        }
        self.handle.leave(self.user.clone(), Role::Player).await;
    }

    /// Reads the whole state again (after missed events, or a takeback); `false` if the
    /// game is gone or over.
    async fn resync(&mut self) -> bool {
        let Some(track) = self.handle.state().await.ok().and_then(Track::of) else {
            return false;
        };
        self.track = track;
        push(&self.tx, &self.track.game_state()) && self.track.state.outcome.is_none()
    }

    /// Applies an event: whether the stream goes on (not once the game is over or the
    /// reader gone), or `None` if the state must be read again.
    fn on_event(&mut self, event: &GameEvent) -> Option<bool> {
        let s = &mut self.track.state;
        match event {
            GameEvent::Move { played, clock, .. } => {
                s.clock = *clock;
                s.draw_offer = None;
                s.takeback_offer = None;
                if !self.track.play(&played.text) {
                    return None;
                }
            }
            GameEvent::DrawOffered { by } => s.draw_offer = Some(*by),
            GameEvent::DrawDeclined { .. } => s.draw_offer = None,
            GameEvent::TakebackOffered { by } => s.takeback_offer = Some(*by),
            GameEvent::TakebackDeclined { .. } => s.takeback_offer = None,
            GameEvent::TakenBack { .. } => return None,
            GameEvent::PlayerLeft {
                color,
                claim_after_ms,
            } if *color != self.color => {
                let line = json!({
                    "type": "opponentGone",
                    "gone": true,
                    "claimWinInSeconds": claim_after_ms / 1000,
                });
                return Some(push(&self.tx, &line));
            }
            GameEvent::PlayerReturned { color } if *color != self.color => {
                let line = json!({ "type": "opponentGone", "gone": false });
                return Some(push(&self.tx, &line));
            }
            GameEvent::GameOver { outcome, clock, .. } => {
                s.outcome = Some(outcome.clone());
                s.clock = *clock;
                push(&self.tx, &self.track.game_state());
                return Some(false);
            }
            _ => return Some(true),
        }
        Some(push(&self.tx, &self.track.game_state()))
    }
}

#[derive(serde::Deserialize)]
/// The query string.
pub struct MoveQuery {
    #[serde(default, rename = "offeringDraw")]
    offering_draw: Option<String>,
}

fn yes(text: &str) -> Option<bool> {
    match text {
        "yes" | "true" | "1" | "accept" => Some(true),
        "no" | "false" | "0" | "decline" => Some(false),
        _ => None,
    }
}

/// `POST /api/{bot|board}/game/{id}/move/{move}` (with `?offeringDraw=true`).
#[utoipa::path(
    post,
    path = "/api/{api}/game/{id}/move/{mv}",
    tag = "lichess",
    summary = "Play a move",
    params(("api" = String, Path, description = "`bot` or `board`", pattern = "^(bot|board)$"), ("id" = String, Path, description = "the game id"), ("mv" = String, Path, description = "the move: UCI in chess; damka's notation or two-digit squares in draughts"), ("offeringDraw" = Option<bool>, Query, description = "offer a draw with it")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{ok: true}`", body = serde_json::Value),
        (status = 400, description = "an illegal move (`illegal_move`) or a refused action", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a missing scope, the wrong API for the account (`not_a_bot`), or not your game", body = crate::api::ErrorBody),
        (status = 404, description = "no live game of yours has this id (`game_not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn play(
    State(app): State<Arc<App>>,
    Extension(bots): Extension<Arc<BotState>>,
    headers: HeaderMap,
    Path((api, id, mv)): Path<(String, String, String)>,
    ApiQuery(q): ApiQuery<MoveQuery>,
) -> Response {
    let (caller, handle, _) = match player_game(&app, &headers, &api, &id).await {
        Ok(g) => g,
        Err(e) => return e.into_response(),
    };
    let offer = q.offering_draw.as_deref().and_then(yes).unwrap_or(false);
    let text = match hop_move(&bots, &handle, &caller.user.id, &mv).await {
        Ok(Some(text)) => text,
        Ok(None) => return ok(),
        Err(e) => return e.into_response(),
    };
    let intent = Intent::Move {
        text,
        lag_ms: 0,
        think_ms: None,
        offer,
    };
    match handle.act(caller.user.id, intent).await {
        Ok(_) => ok(),
        Err(e) => game_refusal(&e).into_response(),
    }
}

/// The move to play for `text`: as sent, unless it is draughts hops (`3228`, or several
/// squares of two digits each), which are matched against the legal routes together
/// with the hops of this capture sent before: `None` while the route is not whole.
async fn hop_move(
    bots: &BotState,
    handle: &GameHandle,
    user: &UserId,
    text: &str,
) -> Result<Option<String>, ApiError> {
    let digits =
        text.len() >= 4 && text.len().is_multiple_of(2) && text.bytes().all(|b| b.is_ascii_digit());
    if handle.meta().spec.variant.is_chess() || !digits {
        return Ok(Some(text.to_string()));
    }
    let illegal = |m: String| ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::IllegalMove, m);
    let state = handle.state().await.map_err(|e| game_refusal(&e))?;
    let position = Position::from_fen(state.variant, &state.fen)
        .map_err(|e| illegal(format!("the position does not read: {e}")))?;
    let game = &state.game_id.0;
    let sent: Vec<u8> = text
        .as_bytes()
        .chunks(2)
        .filter_map(|c| std::str::from_utf8(c).ok()?.parse().ok())
        .collect();
    let mut route = bots.hops(game, user);
    // A new hop continues the route where it stopped; anything else starts afresh.
    if route.last().is_some() && route.last() == sent.first() {
        route.extend_from_slice(&sent[1..]);
    } else {
        route = sent;
    }
    let routes = position.numbered_routes();
    if let Some((mv, _)) = routes.iter().find(|(_, r)| *r == route) {
        bots.set_hops(game, user, Vec::new());
        return Ok(Some(position.move_text(mv)));
    }
    if routes.iter().any(|(_, r)| r.starts_with(&route)) {
        bots.set_hops(game, user, route);
        return Ok(None);
    }
    bots.set_hops(game, user, Vec::new());
    let shown: Vec<String> = route.iter().map(|n| format!("{n:02}")).collect();
    Err(illegal(format!(
        "no legal move follows the squares {}",
        shown.join("-")
    )))
}

/// `POST /api/{bot|board}/game/{id}/{resign|abort|claim-victory|claim-draw}`.
#[utoipa::path(
    post,
    path = "/api/{api}/game/{id}/{action}",
    tag = "lichess",
    summary = "Resign, abort, claim victory or a draw",
    params(("api" = String, Path, description = "`bot` or `board`", pattern = "^(bot|board)$"), ("id" = String, Path, description = "the game id"), ("action" = String, Path, description = "`resign`, `abort`, `claim-victory` or `claim-draw`", pattern = "^(resign|abort|claim-victory|claim-draw)$")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{ok: true}`", body = serde_json::Value),
        (status = 400, description = "an illegal move (`illegal_move`) or a refused action", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a missing scope, the wrong API for the account (`not_a_bot`), or not your game", body = crate::api::ErrorBody),
        (status = 404, description = "no live game of yours has this id (`game_not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn act(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((api, id, action)): Path<(String, String, String)>,
    _body: Bytes,
) -> Response {
    let intent = match action.as_str() {
        "resign" => Intent::Resign,
        "abort" => Intent::Abort,
        "claim-victory" => Intent::ClaimAbandoned(AbandonClaim::Win),
        "claim-draw" => Intent::DrawClaim,
        _ => return not_found().into_response(),
    };
    run(&app, &headers, &api, &id, |_| Some(intent)).await
}

/// `POST /api/{bot|board}/game/{id}/{draw|takeback}/{yes|no}`: `yes` offers, or accepts
/// the opponent's offer; `no` declines it.
#[utoipa::path(
    post,
    path = "/api/{api}/game/{id}/{action}/{answer}",
    tag = "lichess",
    summary = "Offer, accept or decline a draw or takeback",
    params(("api" = String, Path, description = "`bot` or `board`", pattern = "^(bot|board)$"), ("id" = String, Path, description = "the game id"), ("action" = String, Path, description = "`draw` or `takeback`", pattern = "^(draw|takeback)$"), ("answer" = String, Path, description = "`yes` offers or accepts, `no` declines", pattern = "^(yes|no)$")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{ok: true}`", body = serde_json::Value),
        (status = 400, description = "an illegal move (`illegal_move`) or a refused action", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a missing scope, the wrong API for the account (`not_a_bot`), or not your game", body = crate::api::ErrorBody),
        (status = 404, description = "no live game of yours has this id (`game_not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn answer(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((api, id, action, answer)): Path<(String, String, String, String)>,
) -> Response {
    let Some(yes) = yes(&answer) else {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            "answer yes or no",
        )
        .into_response();
    };
    let pick = move |pending: Option<(Option<Color>, Option<Color>, Color)>| {
        let (draw, takeback, me) = pending?;
        let theirs = |offer: Option<Color>| offer.is_some_and(|c| c != me);
        Some(match (action.as_str(), yes) {
            ("draw", true) if theirs(draw) => Intent::DrawAccept,
            ("draw", true) => Intent::DrawOffer,
            ("draw", false) => Intent::DrawDecline,
            ("takeback", true) if theirs(takeback) => Intent::TakebackAccept,
            ("takeback", true) => Intent::TakebackOffer,
            ("takeback", false) => Intent::TakebackDecline,
            _ => return None,
        })
    };
    run(&app, &headers, &api, &id, pick).await
}

/// Sends the intent `pick` makes of the pending offers (draw, takeback, own colour).
async fn run(
    app: &App,
    headers: &HeaderMap,
    api: &str,
    id: &str,
    pick: impl FnOnce(Option<(Option<Color>, Option<Color>, Color)>) -> Option<Intent>,
) -> Response {
    let (caller, handle, color) = match player_game(app, headers, api, id).await {
        Ok(g) => g,
        Err(e) => return e.into_response(),
    };
    let pending = match handle.state().await {
        Ok(s) => (s.draw_offer, s.takeback_offer, color),
        Err(e) => return game_refusal(&e).into_response(),
    };
    let Some(intent) = pick(Some(pending)) else {
        return not_found().into_response();
    };
    match handle.act(caller.user.id, intent).await {
        Ok(_) => ok(),
        Err(e) => game_refusal(&e).into_response(),
    }
}
