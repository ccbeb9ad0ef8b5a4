//! Players seen from outside: `GET /api/users/{name}` (profile, ratings per perf, game
//! counts), `GET /api/users/{name}/games` (newest first, streamed as NDJSON, or as one
//! PDN/PGN file when `Accept` asks for it), `GET /api/users/{name}/rating-history` and
//! `GET /api/leaderboard/{perf}`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use shared::protocol::ErrorCode;

use super::{ApiError, db_error};
use crate::app::App;
use crate::db::GameFilter;
use crate::export;
use crate::rating::Perf;

/// The most games one listing returns, and the default.
pub const MAX_GAMES: u32 = 10_000;
/// Games listed when `max` is absent.
pub const DEFAULT_GAMES: u32 = 100;
/// The most leaderboard rows.
pub const MAX_LEADERS: u32 = 200;

fn not_found(name: &str) -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::NotFound,
        format!(
            "no player called {}",
            name.chars().take(40).collect::<String>()
        ),
    )
    .into_response()
}

fn bad_query(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadQuery, message)
}

/// The query string's pairs; refuses repeated or unknown keys.
fn query(raw: Option<String>, allowed: &[&str]) -> Result<HashMap<String, String>, ApiError> {
    let mut pairs = HashMap::new();
    for part in raw.unwrap_or_default().split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        if !allowed.contains(&k) {
            return Err(bad_query(format!(
                "unknown parameter `{}`: expected one of {}",
                k.chars().take(20).collect::<String>(),
                allowed.join(", ")
            )));
        }
        if pairs.insert(k.to_string(), v.to_string()).is_some() {
            return Err(bad_query(format!("parameter `{k}` given twice")));
        }
    }
    Ok(pairs)
}

fn perf(text: &str) -> Result<Perf, ApiError> {
    text.parse().map_err(|e: crate::rating::UnknownPerf| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::UnknownPerf,
            e.to_string(),
        )
    })
}

/// `GET /api/users/{name}`.
#[utoipa::path(
    get,
    path = "/api/users/{name}",
    tag = "users",
    summary = "A player's profile",
    params(("name" = String, Path, description = "the player's name")),
    responses(
        (status = 200, description = "the profile", body = serde_json::Value),
        (status = 404, description = "no such player (`not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn profile(State(app): State<Arc<App>>, Path(name): Path<String>) -> Response {
    match app.db.profile(&name).await {
        Ok(Some(p)) => axum::Json(p).into_response(),
        Ok(None) => not_found(&name),
        Err(e) => db_error(&e),
    }
}

/// `GET /api/users/{name}/games?perf=&before=&max=`.
#[utoipa::path(
    get,
    path = "/api/users/{name}/games",
    tag = "users",
    summary = "A player's archived games",
    params(("name" = String, Path, description = "the player's name"), ("perf" = Option<String>, Query, description = "only this perf, `<variant>-<speed>`"), ("before" = Option<i64>, Query, description = "only games ended before this time (Unix ms)"), ("max" = Option<u32>, Query, description = "1 to 10000, default 100")),
    responses(
        (status = 200, description = "one game a line; PDN/PGN when `Accept` asks for it", content((String = "application/x-ndjson"), (String = "application/x-chess-pgn"), (String = "application/x-draughts-pdn"), (String = "text/plain"))),
        (status = 400, description = "`bad_query` or `unknown_perf`", body = crate::api::ErrorBody),
        (status = 404, description = "no such player (`not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn games(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let q = match query(raw, &["perf", "before", "max"]) {
        Ok(q) => q,
        Err(r) => return r.into_response(),
    };
    let perf = match q.get("perf").map(|p| perf(p)).transpose() {
        Ok(p) => p,
        Err(r) => return r.into_response(),
    };
    let before = match q.get("before").map(|b| b.parse::<i64>()).transpose() {
        Ok(b) if b.is_none_or(|b| b > 0) => b,
        _ => return bad_query("`before` is a time in Unix milliseconds").into_response(),
    };
    let max = match q.get("max").map(|m| m.parse::<u32>()).transpose() {
        Ok(None) => DEFAULT_GAMES,
        Ok(Some(m)) if (1..=MAX_GAMES).contains(&m) => m,
        _ => {
            return bad_query(format!("`max` is a whole number from 1 to {MAX_GAMES}"))
                .into_response();
        }
    };
    let player = match app.db.player_by_name(&name).await {
        Ok(Some(p)) => p,
        Ok(None) => return not_found(&name),
        Err(e) => return db_error(&e),
    };
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let as_text = accept.contains("application/x-chess-pgn")
        || accept.contains("application/x-draughts-pdn")
        || accept.contains("text/plain");
    let filter = GameFilter {
        perf: perf.map(|p| p.key()),
        before,
        max,
    };
    let stream = app
        .db
        .games_of(player.id, filter)
        .map(move |game| match game {
            Ok(g) if as_text => Ok::<_, std::io::Error>(export::export(&g)),
            Ok(g) => Ok(serde_json::to_string(&g).map_or_else(
                |_| String::new(),
                |mut s| {
                    s.push('\n');
                    s
                },
            )),
            Err(e) => {
                tracing::warn!(error = %e, "game listing cut short");
                Err(std::io::Error::other(e.to_string()))
            }
        });
    let content_type = if as_text {
        "text/plain; charset=utf-8"
    } else {
        "application/x-ndjson"
    };
    (
        [(header::CONTENT_TYPE, content_type)],
        Body::from_stream(stream),
    )
        .into_response()
}

/// `GET /api/users/{name}/rating-history?perf=`: `[{"at": ms, "rating": r}, …]`.
#[utoipa::path(
    get,
    path = "/api/users/{name}/rating-history",
    tag = "users",
    summary = "A player's rating after each rated game",
    params(("name" = String, Path, description = "the player's name"), ("perf" = String, Query, description = "the perf, `<variant>-<speed>` (required)")),
    responses(
        (status = 200, description = "the history, oldest first", body = serde_json::Value),
        (status = 400, description = "`bad_query` or `unknown_perf`", body = crate::api::ErrorBody),
        (status = 404, description = "no such player (`not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn rating_history(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let q = match query(raw, &["perf"]) {
        Ok(q) => q,
        Err(r) => return r.into_response(),
    };
    let Some(p) = q.get("perf") else {
        return bad_query("`perf` is required, e.g. perf=russian-blitz").into_response();
    };
    let perf = match perf(p) {
        Ok(p) => p,
        Err(r) => return r.into_response(),
    };
    let player = match app.db.player_by_name(&name).await {
        Ok(Some(p)) => p,
        Ok(None) => return not_found(&name),
        Err(e) => return db_error(&e),
    };
    match app.db.rating_history(&player.id, perf).await {
        Ok(points) => axum::Json(
            points
                .into_iter()
                .map(|(at, rating)| serde_json::json!({ "at": at, "rating": (rating * 10.0).round() / 10.0 }))
                .collect::<Vec<_>>(),
        )
        .into_response(),
        Err(e) => db_error(&e),
    }
}

/// `GET /api/leaderboard/{perf}?max=`: established ratings, best first.
#[utoipa::path(
    get,
    path = "/api/leaderboard/{perf}",
    tag = "users",
    summary = "The best established ratings of a perf",
    params(("perf" = String, Path, description = "`<variant>-<speed>`"), ("max" = Option<u32>, Query, description = "1 to 200, default 100")),
    responses(
        (status = 200, description = "the leaders", body = serde_json::Value),
        (status = 400, description = "`bad_query` or `unknown_perf`", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn leaderboard(
    State(app): State<Arc<App>>,
    Path(perf_name): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let q = match query(raw, &["max"]) {
        Ok(q) => q,
        Err(r) => return r.into_response(),
    };
    let perf = match perf(&perf_name) {
        Ok(p) => p,
        Err(r) => return r.into_response(),
    };
    let max = match q.get("max").map(|m| m.parse::<u32>()).transpose() {
        Ok(None) => 100,
        Ok(Some(m)) if (1..=MAX_LEADERS).contains(&m) => m,
        _ => {
            return bad_query(format!("`max` is a whole number from 1 to {MAX_LEADERS}"))
                .into_response();
        }
    };
    match app.db.leaderboard(perf, max).await {
        Ok(rows) => {
            axum::Json(serde_json::json!({ "perf": perf.key(), "players": rows })).into_response()
        }
        Err(e) => db_error(&e),
    }
}
