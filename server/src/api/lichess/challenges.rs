//! Challenges as lichess's API makes them: `POST /api/challenge/{username}` (form or
//! JSON: `rated`, `clock.limit` and `clock.increment` in seconds, `color`, `variant`,
//! `fen`), and `accept`, `decline`, `cancel` by id. The checks and effects are those of
//! a WebSocket player's challenge ([`crate::setup`]).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use shared::protocol::{ColorChoice, DeclineReason, ErrorCode, ServerMessage, TimeControl, UserId};

use super::{Dialect, account_named, challenge_named, fields, ok, shapes};
use crate::api::ApiError;
use crate::api::bearer::{self, Caller};
use crate::app::App;
use crate::lobby::Proposal;
use crate::setup::{self, Refusal};
use crate::tokens::Scope;

const SCOPES: [Scope; 3] = [Scope::ChallengeWrite, Scope::BotPlay, Scope::BoardPlay];

fn refused(r: Refusal) -> Response {
    let status = match r.code {
        ErrorCode::ChallengeNotFound => StatusCode::NOT_FOUND,
        ErrorCode::Unavailable | ErrorCode::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::BAD_REQUEST,
    };
    ApiError::new(status, r.code, r.message).into_response()
}

fn bad(message: impl Into<String>) -> Response {
    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::InvalidMessage, message).into_response()
}

async fn challenger(app: &App, headers: &HeaderMap) -> Result<Caller, Response> {
    let caller = bearer::caller(app, headers)
        .await
        .map_err(IntoResponse::into_response)?;
    caller
        .require_any(&SCOPES)
        .map_err(IntoResponse::into_response)?;
    Ok(caller)
}

/// `POST /api/challenge/{username}`.
#[utoipa::path(
    post,
    path = "/api/challenge/{user}",
    tag = "lichess",
    summary = "Challenge a user",
    params(("user" = String, Path, description = "the user challenged")),
    request_body(content((Object = "application/x-www-form-urlencoded"), (Object = "application/json")), description = "lichess's form fields, as a form or a JSON object"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the challenge", body = serde_json::Value),
        (status = 400, description = "bad fields, or the challenge is refused", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "the token lacks a scope (`missing_scope`) or the account may not do this", body = crate::api::ErrorBody),
        (status = 404, description = "no such user (`unknown_user`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn create(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(name): Path<String>,
    body: Bytes,
) -> Response {
    let caller = match challenger(&app, &headers).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    let f = match fields(&headers, &body) {
        Ok(f) => f,
        Err(e) => return e.into_response(),
    };
    let dialect = Dialect::of(&headers);
    let variant = match f.get("variant").map(String::as_str) {
        None | Some("") => shapes::parse_variant("standard", dialect),
        Some(key) => shapes::parse_variant(key, dialect),
    };
    let Some(variant) = variant else {
        return bad("unknown variant: use a damka variant name or `standard`");
    };
    if f.contains_key("days") {
        return bad("correspondence games are not played here: send clock.limit");
    }
    let secs = |key: &str, default: u32| -> Result<u32, String> {
        match f.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse::<u32>()
                .ok()
                .filter(|n| *n <= 10_800)
                .ok_or_else(|| format!("{key} is whole seconds, at most 10800")),
        }
    };
    let (limit, increment) = match (secs("clock.limit", 300), secs("clock.increment", 0)) {
        (Ok(l), Ok(i)) => (l, i),
        (Err(m), _) | (_, Err(m)) => return bad(m),
    };
    if limit == 0 && increment == 0 {
        return bad("a clock needs time: clock.limit or clock.increment above 0");
    }
    let color = match f.get("color").map(String::as_str) {
        None | Some("random") => ColorChoice::Random,
        Some("white") => ColorChoice::White,
        Some("black") => ColorChoice::Black,
        Some(_) => return bad("color is white, black or random"),
    };
    let rated = matches!(f.get("rated").map(String::as_str), Some("true" | "1"));
    let fen = f.get("fen").filter(|s| !s.is_empty()).cloned();
    let to = match account_named(&app, &name).await {
        Ok(p) => UserId(p.id),
        Err(r) => return r,
    };
    let proposal = Proposal {
        variant,
        time_control: TimeControl::new(limit, increment),
        rated,
        color,
        fen,
        ruleset: None,
        rating_range: None,
    };
    match setup::challenge(&app, &caller.user, to, proposal).await {
        Ok(ch) => {
            // The challenger's own event streams list it too, as lichess's do.
            app.notify_user(
                &caller.user.id,
                ServerMessage::ChallengeSent {
                    challenge: ch.clone(),
                },
            );
            let mut body = shapes::challenge(&ch, &caller.user, dialect);
            body["challenge"] = body.clone();
            axum::Json(body).into_response()
        }
        Err(r) => refused(r),
    }
}

fn no_such() -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::ChallengeNotFound,
        "no such challenge",
    )
    .into_response()
}

/// `POST /api/challenge/{id}/accept`.
#[utoipa::path(
    post,
    path = "/api/challenge/{id}/accept",
    tag = "lichess",
    summary = "Accept a challenge",
    params(("id" = String, Path, description = "the challenge id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{ok: true}`", body = serde_json::Value),
        (status = 400, description = "bad fields, or refused", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "the token lacks a scope (`missing_scope`) or the account may not do this", body = crate::api::ErrorBody),
        (status = 404, description = "no such challenge (`challenge_not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn accept(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let caller = match challenger(&app, &headers).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    let Some(id) = challenge_named(&app, &caller.user.id, &id).await else {
        return no_such();
    };
    match setup::accept(&app, &caller.user, id).await {
        Ok(_) => ok(),
        Err(r) => refused(r),
    }
}

/// `POST /api/challenge/{id}/decline`, with lichess's `reason` (`generic` if none), which
/// the challenger's event stream reports in `challengeDeclined`.
#[utoipa::path(
    post,
    path = "/api/challenge/{id}/decline",
    tag = "lichess",
    summary = "Decline a challenge",
    params(("id" = String, Path, description = "the challenge id")),
    request_body(content((Object = "application/x-www-form-urlencoded"), (Object = "application/json")), description = "lichess's form fields, as a form or a JSON object"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{ok: true}`", body = serde_json::Value),
        (status = 400, description = "bad fields, or refused", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "the token lacks a scope (`missing_scope`) or the account may not do this", body = crate::api::ErrorBody),
        (status = 404, description = "no such challenge (`challenge_not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn decline(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let f = match fields(&headers, &body) {
        Ok(f) => f,
        Err(e) => return e.into_response(),
    };
    let reason = match f.get("reason").map(|r| shapes::parse_decline_reason(r)) {
        None => DeclineReason::Generic,
        Some(Some(r)) => r,
        Some(None) => return bad("unknown reason: use one of lichess's decline reasons"),
    };
    withdraw(&app, &headers, &id, Some(reason)).await
}

/// `POST /api/challenge/{id}/cancel`.
#[utoipa::path(
    post,
    path = "/api/challenge/{id}/cancel",
    tag = "lichess",
    summary = "Cancel your challenge",
    params(("id" = String, Path, description = "the challenge id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{ok: true}`", body = serde_json::Value),
        (status = 400, description = "bad fields, or refused", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "the token lacks a scope (`missing_scope`) or the account may not do this", body = crate::api::ErrorBody),
        (status = 404, description = "no such challenge (`challenge_not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn cancel(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    withdraw(&app, &headers, &id, None).await
}

async fn withdraw(
    app: &Arc<App>,
    headers: &HeaderMap,
    id: &str,
    reason: Option<DeclineReason>,
) -> Response {
    let caller = match challenger(app, headers).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    let Some(id) = challenge_named(app, &caller.user.id, id).await else {
        return no_such();
    };
    match setup::withdraw_with(app, &caller.user.id, id, reason).await {
        Ok(_) => ok(),
        Err(r) => refused(r),
    }
}
