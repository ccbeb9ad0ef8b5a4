//! Arenas over HTTP: `GET /api/arenas` (upcoming, running and recently finished),
//! `GET /api/arenas/{id}` (a live arena's standings, or a finished one's podium and
//! final standings with every sheet), `POST /api/arenas` (a registered player creates
//! one; `Authorization: Bearer <token>`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;
use shared::arena::{ArenaInfo, ArenaStatus};
use shared::law::RulesetId;
use shared::protocol::{ErrorCode, TimeControl};
use shared::rules::Variant;

use super::{ApiError, db_error};
use crate::app::App;
use crate::arena::{ArenaError, ArenaSpec};
use crate::cluster::redis::wall_ms;

/// `GET /api/arenas`.
#[utoipa::path(
    get,
    path = "/api/arenas",
    tag = "arenas",
    summary = "The arenas",
    responses(
        (status = 200, description = "upcoming, running, finishing, finished", body = serde_json::Value),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn list(State(app): State<Arc<App>>) -> Response {
    let live = app.arenas.list().await;
    let finished = match app.db.finished_arenas(50).await {
        Ok(f) => f,
        Err(e) => return db_error(&e),
    };
    let of =
        |s: ArenaStatus| -> Vec<&ArenaInfo> { live.iter().filter(|a| a.status == s).collect() };
    axum::Json(json!({
        "upcoming": of(ArenaStatus::Upcoming),
        "running": of(ArenaStatus::Running),
        "finishing": of(ArenaStatus::Finished),
        "finished": finished,
    }))
    .into_response()
}

/// `GET /api/arenas/{id}`: a running arena live; an arena over from the archive once
/// archived (until then, live: it is finishing its last games). An arena that still
/// exists but answers neither live nor from the archive is being archived right now:
/// 503 `unavailable`, to be asked again, never 404.
#[utoipa::path(
    get,
    path = "/api/arenas/{id}",
    tag = "arenas",
    summary = "One arena",
    params(("id" = String, Path, description = "the arena id")),
    responses(
        (status = 200, description = "the arena and its standings", body = serde_json::Value),
        (status = 404, description = "no such arena (`arena_not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn arena(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let mut live = None;
    let mut archiving = false;
    if let Some(h) = app.arenas.get(&id) {
        match (h.info().await, h.standings(None).await) {
            (Ok(info), Ok(standings)) => {
                let body =
                    axum::Json(json!({ "arena": info, "standings": standings })).into_response();
                if info.status != ArenaStatus::Finished {
                    return body;
                }
                live = Some(body);
            }
            _ => archiving = true,
        }
    }
    match app.db.arena(&id).await {
        Ok(Some(f)) => {
            let podium: Vec<_> = f.standings.iter().take(3).collect();
            axum::Json(json!({
                "arena": f.arena,
                "ended_at_ms": f.ended_at_ms,
                "podium": podium,
                "standings": f.standings,
            }))
            .into_response()
        }
        Ok(None) if archiving => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            "the arena is being archived: ask again",
        )
        .into_response(),
        Ok(None) => live.unwrap_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                ErrorCode::ArenaNotFound,
                "no such arena",
            )
            .into_response()
        }),
        Err(e) => db_error(&e),
    }
}

/// The body of `POST /api/arenas`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[schema(as = ArenaRequest)]
#[serde(deny_unknown_fields)]
pub(crate) struct Create {
    name: String,
    /// A variant: `russian`, `international`, `chess`, ...
    #[schema(value_type = String)]
    variant: Variant,
    /// `minutes+increment`, e.g. `3+2`.
    #[schema(value_type = String)]
    time_control: TimeControl,
    #[serde(default)]
    rated: bool,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    ruleset: Option<RulesetId>,
    #[serde(default)]
    starts_in_secs: u64,
    duration_secs: u64,
    #[serde(default)]
    berserk: bool,
    #[serde(default)]
    min_games: Option<u32>,
    #[serde(default)]
    min_rating: Option<u32>,
    #[serde(default)]
    max_rating: Option<u32>,
    #[serde(default)]
    password: Option<String>,
}

/// `POST /api/arenas`.
#[utoipa::path(
    post,
    path = "/api/arenas",
    tag = "arenas",
    summary = "Create an arena",
    request_body = Create,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the arena", body = serde_json::Value),
        (status = 400, description = "a bad arena", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a guest (`rated_needs_account`)", body = crate::api::ErrorBody),
        (status = 503, description = "too many arenas, shutting down, or the database does not answer", body = crate::api::ErrorBody)
    )
)]
pub async fn create(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let identity = match token.map(|t| app.auth.verify(t.trim())) {
        Some(Ok(i)) if !i.user.guest => i,
        Some(Ok(_)) => {
            return ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::RatedNeedsAccount,
                "creating an arena needs an account",
            )
            .into_response();
        }
        _ => {
            return ApiError::new(
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                "send a valid `Authorization: Bearer` token",
            )
            .into_response();
        }
    };
    let c: Create = match serde_json::from_slice(&body) {
        Ok(c) => c,
        Err(e) => {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidMessage,
                e.to_string(),
            )
            .into_response();
        }
    };
    let spec = ArenaSpec {
        info: ArenaInfo {
            id: String::new(),
            name: c.name,
            variant: c.variant,
            ruleset: c.ruleset,
            time_control: c.time_control,
            rated: c.rated,
            starts_at_ms: wall_ms() + c.starts_in_secs.min(30 * 86_400) * 1000,
            duration_ms: c.duration_secs.saturating_mul(1000),
            berserk: c.berserk,
            min_games: c.min_games.unwrap_or(0),
            min_rating: c.min_rating,
            max_rating: c.max_rating,
            private: false,
            created_by: identity.user.id.0,
            status: ArenaStatus::Upcoming,
            players: 0,
        },
        password: c.password,
    };
    match app.arenas.create(spec).await {
        Ok(info) => (StatusCode::CREATED, axum::Json(info)).into_response(),
        Err(e) => {
            let status = match e {
                ArenaError::TooMany | ArenaError::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
                _ => StatusCode::BAD_REQUEST,
            };
            ApiError::new(status, e.code(), e.to_string()).into_response()
        }
    }
}
