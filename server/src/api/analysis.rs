//! `POST /api/games/{id}/analysis` asks for the computer analysis of a finished game
//! (any signed-in user or guest, one a user per `computer.analysis_interval_secs`);
//! `GET /api/games/{id}/analysis` serves it: queued, running, done with every ply's
//! evaluation, best move and mark, or failed.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use shared::protocol::ErrorCode;

use super::{ApiError, db_error};
use crate::app::App;
use crate::computer::AnalysisRefusal;

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn not_found() -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        "no archived game has this id",
    )
    .into_response()
}

/// `POST /api/games/{id}/analysis`.
#[utoipa::path(
    post,
    path = "/api/games/{id}/analysis",
    tag = "games",
    summary = "Ask for a game's computer analysis",
    params(("id" = String, Path, description = "the game id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the analysis, made already", body = serde_json::Value),
        (status = 202, description = "queued or running", body = serde_json::Value),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 404, description = "no archived game has this id (`not_found`)", body = crate::api::ErrorBody),
        (status = 409, description = "the game is still played (`game_not_finished`)", body = crate::api::ErrorBody),
        (status = 429, description = "asked too recently (`rate_limited`)", body = crate::api::ErrorBody),
        (status = 503, description = "the queue is full (`busy`) or the database does not answer", body = crate::api::ErrorBody)
    )
)]
pub async fn request(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let Some(Ok(identity)) = token.map(|t| app.auth.verify(t.trim())) else {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            "send a valid `Authorization: Bearer` token",
        )
        .into_response();
    };
    if !valid_id(&id) {
        return not_found();
    }
    if app
        .games
        .get(&shared::protocol::GameId(id.clone()))
        .is_some_and(|g| g.meta().is_live())
    {
        return ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::GameNotFinished,
            "the game is still being played: analysis is for finished games",
        )
        .into_response();
    }
    match app.db.is_archived(&id).await {
        Ok(true) => {}
        Ok(false) => return not_found(),
        Err(e) => return db_error(&e),
    }
    match app
        .computer
        .request_analysis(&app.db, &id, &identity.user.id.0)
        .await
    {
        Ok(true) => (
            StatusCode::ACCEPTED,
            axum::Json(json!({"status": "queued"})),
        )
            .into_response(),
        Ok(false) => show(&app, &id).await,
        Err(AnalysisRefusal::TooSoon(secs)) => ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!("one analysis every {secs} s: try again later"),
        )
        .into_response(),
        Err(AnalysisRefusal::Busy) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Busy,
            "the analysis queue is full: try again shortly",
        )
        .into_response(),
        Err(AnalysisRefusal::Db(e)) => db_error(&e),
    }
}

/// `GET /api/games/{id}/analysis`.
#[utoipa::path(
    get,
    path = "/api/games/{id}/analysis",
    tag = "games",
    summary = "A game's computer analysis",
    params(("id" = String, Path, description = "the game id")),
    responses(
        (status = 200, description = "done or failed", body = serde_json::Value),
        (status = 202, description = "queued or running", body = serde_json::Value),
        (status = 404, description = "nobody asked (`analysis_not_found`) or no such game", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn show_route(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    if !valid_id(&id) {
        return not_found();
    }
    show(&app, &id).await
}

async fn show(app: &App, id: &str) -> Response {
    let stored = match app.db.analysis(id).await {
        Ok(Some(a)) => a,
        Ok(None) => {
            return ApiError::new(
                StatusCode::NOT_FOUND,
                ErrorCode::AnalysisNotFound,
                "nobody asked for an analysis of this game: POST to this address",
            )
            .into_response();
        }
        Err(e) => return db_error(&e),
    };
    match (stored.status.as_str(), stored.plies) {
        ("done", Some(plies)) => {
            let plies: serde_json::Value = serde_json::from_str(&plies).unwrap_or_default();
            axum::Json(json!({"status": "done", "plies": plies})).into_response()
        }
        ("failed", _) => axum::Json(json!({"status": "failed"})).into_response(),
        (status, _) => {
            (StatusCode::ACCEPTED, axum::Json(json!({"status": status}))).into_response()
        }
    }
}
