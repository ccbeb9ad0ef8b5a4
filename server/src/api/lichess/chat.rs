//! A game's chat through the Bot and Board APIs, in lichess's shapes:
//! `POST /api/{bot|board}/game/{id}/chat` (form or JSON: `room` = `player` or
//! `spectator`, `text`) says a line as its player, `GET` the same path reads the
//! players' room as `[{"user", "text"}]`, oldest first, and a game's stream carries
//! each new line of both rooms as `chatLine` ([`chat_line`]). The rooms, limits and
//! stores are the WebSocket clients' own (`crate::chat`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use shared::protocol::{ChatLine, ChatRoom, ErrorCode, GameId, GameRoom};

use super::{check_api, fields, ok};
use crate::api::ApiError;
use crate::api::bearer::{self, Caller};
use crate::app::App;
use crate::chat::ChatError;
use crate::chat::access::{access, writable};

/// A chat refusal as HTTP.
pub fn refusal(e: &ChatError) -> ApiError {
    let status = match e {
        ChatError::NoSuchPlace(..) | ChatError::LineNotFound => StatusCode::NOT_FOUND,
        ChatError::Forbidden(_) | ChatError::TimedOut { .. } | ChatError::NotAModerator => {
            StatusCode::FORBIDDEN
        }
        ChatError::Flood => StatusCode::TOO_MANY_REQUESTS,
        ChatError::Store(_) => StatusCode::SERVICE_UNAVAILABLE,
        ChatError::BadLine(_) | ChatError::Invalid(_) => StatusCode::BAD_REQUEST,
    };
    ApiError::new(status, e.code(), e.to_string())
}

/// A line as lichess streams it.
pub fn chat_line(side: GameRoom, line: &ChatLine) -> Value {
    json!({
        "type": "chatLine",
        "room": match side {
            GameRoom::Player => "player",
            GameRoom::Spectator => "spectator",
        },
        "username": line.name,
        "text": line.text,
    })
}

/// The caller, allowed on this API, and a player of game `id` (live or archived).
async fn player(
    app: &App,
    headers: &HeaderMap,
    api: &str,
    id: &str,
) -> Result<(Caller, GameId), ApiError> {
    let caller = bearer::caller(app, headers).await?;
    check_api(&caller, api)?;
    let game = GameId(id.to_string());
    let room: ChatRoom = format!("game:{id}:player").parse().map_err(|_| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::GameNotFound,
            "no game of yours has this id",
        )
    })?;
    access(&app.places(), &caller.user, &room)
        .await
        .map_err(|e| match e {
            ChatError::Forbidden(_) => ApiError::new(
                StatusCode::NOT_FOUND,
                ErrorCode::GameNotFound,
                "no game of yours has this id",
            ),
            e => refusal(&e),
        })?;
    Ok((caller, game))
}

/// `POST /api/{bot|board}/game/{id}/chat`.
#[utoipa::path(
    post,
    path = "/api/{api}/game/{id}/chat",
    tag = "lichess",
    summary = "Say a line in a game's players' or spectators' room",
    params(("api" = String, Path, description = "`bot` or `board`", pattern = "^(bot|board)$"), ("id" = String, Path, description = "the game id")),
    request_body(content((Object = "application/x-www-form-urlencoded"), (Object = "application/json")), description = "`room` (`player` or `spectator`) and `text` (at most 140 characters), as a form or a JSON object"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{ok: true}`: the line is stored and sent", body = serde_json::Value),
        (status = 400, description = "no such room (`invalid_message`) or a line that is blank or too long (`bad_chat_line`)", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a missing scope, the wrong API for the account (`not_a_bot`), a room you may not write in (`chat_forbidden`) or a moderator's timeout (`timed_out`)", body = crate::api::ErrorBody),
        (status = 404, description = "no game of yours has this id (`game_not_found`)", body = crate::api::ErrorBody),
        (status = 429, description = "too many lines (`rate_limited`): nothing was said", body = crate::api::ErrorBody),
        (status = 503, description = "the database does not answer (`unavailable`); nothing was said", body = crate::api::ErrorBody)
    )
)]
pub async fn say(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((api, id)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    let (caller, game) = match player(&app, &headers, &api, &id).await {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let form = match fields(&headers, &body) {
        Ok(f) => f,
        Err(e) => return e.into_response(),
    };
    let side = match form.get("room").map(String::as_str) {
        Some("player") => GameRoom::Player,
        Some("spectator") => GameRoom::Spectator,
        _ => {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidMessage,
                "room is player or spectator",
            )
            .into_response();
        }
    };
    let text = form.get("text").map_or("", String::as_str);
    let room = ChatRoom::Game(game, side);
    let said = async {
        writable(access(&app.places(), &caller.user, &room).await?)?;
        app.chat.say(&caller.user, &room, text).await
    };
    match said.await {
        Ok(_) => ok(),
        Err(e) => refusal(&e).into_response(),
    }
}

/// `GET /api/{bot|board}/game/{id}/chat`: the players' room, oldest first.
#[utoipa::path(
    get,
    path = "/api/{api}/game/{id}/chat",
    tag = "lichess",
    summary = "Read a game's players' room",
    params(("api" = String, Path, description = "`bot` or `board`", pattern = "^(bot|board)$"), ("id" = String, Path, description = "the game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`[{user, text}]`, oldest first, without deleted lines and lines of users you block", body = serde_json::Value),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a missing scope or the wrong API for the account (`not_a_bot`)", body = crate::api::ErrorBody),
        (status = 404, description = "no game of yours has this id (`game_not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database does not answer (`unavailable`)", body = crate::api::ErrorBody)
    )
)]
pub async fn read(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((api, id)): Path<(String, String)>,
) -> Response {
    let (caller, game) = match player(&app, &headers, &api, &id).await {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let room = ChatRoom::Game(game, GameRoom::Player);
    let lines = async {
        let blocked = app.chat.blocked_by(&caller.user.id).await?;
        let lines = app.chat.history(&room, None).await?;
        Ok::<_, ChatError>(
            lines
                .into_iter()
                .filter(|l| !blocked.contains(&l.user))
                .map(|l| json!({ "user": l.name, "text": l.text }))
                .collect::<Vec<_>>(),
        )
    };
    match lines.await {
        Ok(lines) => axum::Json(Value::Array(lines)).into_response(),
        Err(e) => refusal(&e).into_response(),
    }
}
