//! `GET /api/games/{id}`: an archived game as JSON; `{id}.pdn` or `{id}.pgn` as a
//! download in the game's own format (PDN for draughts, PGN for chess).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use shared::protocol::ErrorCode;

use super::{ApiError, db_error};
use crate::app::App;
use crate::export;

/// `GET /api/games/{id}`, `{id}.pdn`, `{id}.pgn`.
#[utoipa::path(
    get,
    path = "/api/games/{id}",
    tag = "games",
    summary = "An archived game, as JSON or (`{id}.pdn`, `{id}.pgn`) a file",
    params(("id" = String, Path, description = "the game id, or it with `.pdn` / `.pgn`")),
    responses(
        (status = 200, description = "the game", content((serde_json::Value = "application/json"), (String = "application/x-draughts-pdn"), (String = "application/x-chess-pgn"))),
        (status = 404, description = "no archived game has this id (`not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn game(State(app): State<Arc<App>>, Path(raw): Path<String>) -> Response {
    let (id, format) = match raw.rsplit_once('.') {
        Some((id, ext @ ("pdn" | "pgn"))) => (id, Some(ext)),
        _ => (raw.as_str(), None),
    };
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::NotFound,
            "no archived game has this id (a live game is not archived until it ends)",
        )
        .into_response()
    };
    if id.is_empty()
        || id.len() > 64
        || !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return not_found();
    }
    let game = match app.db.game(id).await {
        Ok(Some(g)) => g,
        Ok(None) => return not_found(),
        Err(e) => return db_error(&e),
    };
    let Some(format) = format else {
        return axum::Json(game).into_response();
    };
    let chess = export::is_chess(&game);
    if chess != (format == "pgn") {
        return ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::NotFound,
            if chess {
                "a chess game is exported as .pgn"
            } else {
                "a draughts game is exported as .pdn"
            },
        )
        .into_response();
    }
    let content_type = if chess {
        "application/x-chess-pgn"
    } else {
        "application/x-draughts-pdn"
    };
    (
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"damka-{id}.{format}\""),
            ),
        ],
        export::export(&game),
    )
        .into_response()
}
