//! Personal API tokens over HTTP (`docs/api.md`, "Tokens"): made, listed and revoked
//! with a session token (a personal token cannot make tokens); `DELETE /api/token`
//! revokes the token it is sent with; `POST /api/token/test` says what tokens are (as
//! lichess's); `POST /api/account/logout` ends the session token it is sent with, and
//! `POST /api/account/logout-everywhere` every session of the player; the WebSocket
//! sessions and the API streams of the tokens ended (revoked personal tokens too) close,
//! on every node within a second (`crate::app::App::end_sessions`).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use shared::protocol::ErrorCode;

use super::bearer::{self, Caller};
use super::{ApiError, db_error};
use crate::app::App;
use crate::db::players::now_ms;
use crate::db::tokens::StoredToken;
use crate::hub::Ended;
use crate::tokens::{self, Scopes};

/// Tokens a player may hold, live or revoked.
pub const MAX_TOKENS: usize = 100;

/// A personal token asked for.
#[derive(Deserialize, utoipa::ToSchema)]
#[schema(as = TokenRequest)]
#[serde(deny_unknown_fields)]
pub(crate) struct Create {
    description: String,
    /// A list of names, or one string of names separated by commas.
    #[schema(value_type = Vec<String>)]
    scopes: Value,
}

fn shown(t: &StoredToken) -> Value {
    json!({
        "id": t.id,
        "description": t.description,
        "scopes": t.scopes,
        "createdAt": t.created_ms,
        "revokedAt": t.revoked_ms,
    })
}

/// The caller, if it is a registered player with a session token (not a personal one).
pub(super) async fn session_caller(app: &App, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let caller = bearer::caller(app, headers).await?;
    caller.require_account()?;
    if caller.token_id.is_some() {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::MissingScope,
            "tokens are managed with a session token (log in), not a personal token",
        ));
    }
    Ok(caller)
}

fn bad(message: impl Into<String>) -> Response {
    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::InvalidMessage, message).into_response()
}

/// `POST /api/tokens`: `{"description": "...", "scopes": ["bot:play"]}`; the secret is
/// in the answer, once.
#[utoipa::path(
    post,
    path = "/api/tokens",
    tag = "tokens",
    summary = "Make a personal token",
    request_body = Create,
    security(("bearer" = [])),
    responses(
        (status = 201, description = "the token, with its secret (shown once)", body = serde_json::Value),
        (status = 400, description = "the request is malformed (`invalid_message`, ...)", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a guest, or a personal token (use a session)", body = crate::api::ErrorBody),
        (status = 409, description = "too many tokens (`too_many`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn create(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let caller = match session_caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let c: Create = match serde_json::from_slice(&body) {
        Ok(c) => c,
        Err(e) => return bad(format!("a token is {{\"description\", \"scopes\"}}: {e}")),
    };
    let description = c.description.trim();
    if description.is_empty() || description.chars().count() > 100 {
        return bad("a description has 1 to 100 characters");
    }
    let text = match &c.scopes {
        Value::String(s) => s.clone(),
        Value::Array(list) if list.iter().all(Value::is_string) => list
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(","),
        _ => return bad("scopes is a list of scope names"),
    };
    let scopes = match Scopes::parse(&text) {
        Ok(s) => s,
        Err(unknown) => return bad(format!("unknown scope `{unknown}`")),
    };
    match app.db.tokens_of(&caller.user.id.0).await {
        Ok(list) if list.len() >= MAX_TOKENS => {
            return ApiError::new(
                StatusCode::CONFLICT,
                ErrorCode::TooMany,
                format!("at most {MAX_TOKENS} tokens: revoke some first"),
            )
            .into_response();
        }
        Ok(_) => {}
        Err(e) => return db_error(&e),
    }
    let (secret, id) = tokens::new_secret();
    let stored = StoredToken {
        id,
        player_id: caller.user.id.0.clone(),
        player_name: caller.user.name.clone(),
        bot: caller.user.bot,
        description: description.to_string(),
        scopes: scopes.to_string(),
        created_ms: now_ms(),
        revoked_ms: None,
    };
    if let Err(e) = app
        .db
        .insert_token(&stored, &tokens::hash_secret(&secret))
        .await
    {
        return db_error(&e);
    }
    let mut body = shown(&stored);
    body["token"] = json!(secret);
    (StatusCode::CREATED, Json(body)).into_response()
}

/// `GET /api/tokens`: the player's tokens, newest first (never their secrets).
#[utoipa::path(
    get,
    path = "/api/tokens",
    tag = "tokens",
    summary = "Your personal tokens",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the tokens, never their secrets", body = serde_json::Value),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a guest, or a personal token (use a session)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn list(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let caller = match session_caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    match app.db.tokens_of(&caller.user.id.0).await {
        Ok(list) => {
            Json(json!({ "tokens": list.iter().map(shown).collect::<Vec<_>>() })).into_response()
        }
        Err(e) => db_error(&e),
    }
}

/// `DELETE /api/tokens/{id}`: revokes one of the player's tokens.
#[utoipa::path(
    delete,
    path = "/api/tokens/{id}",
    tag = "tokens",
    summary = "Revoke a personal token",
    params(("id" = String, Path, description = "the token id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "revoked"),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a guest, or a personal token (use a session)", body = crate::api::ErrorBody),
        (status = 404, description = "no token of yours has this id", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn revoke(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let caller = match session_caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    match app.db.revoke_token(&caller.user.id.0, &id, now_ms()).await {
        Ok(true) => {
            token_revoked(&app, &caller, id);
            StatusCode::NO_CONTENT.into_response()
        }
        Ok(false) => ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::NotFound,
            "no live token of yours has this id",
        )
        .into_response(),
        Err(e) => db_error(&e),
    }
}

/// The API streams opened with the personal token `id`, stored as revoked, end on
/// every node.
fn token_revoked(app: &App, caller: &Caller, id: String) {
    let ended = Ended {
        token_id: Some(id),
        ..Default::default()
    };
    app.end_sessions(&caller.user.id, ended);
}

/// `DELETE /api/token`: revokes the personal token the request is sent with.
#[utoipa::path(
    delete,
    path = "/api/token",
    tag = "tokens",
    summary = "Revoke the token sent (log out)",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "revoked"),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn revoke_own(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let caller = match bearer::caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let Some(id) = caller.token_id.clone() else {
        return bad("a session token ends with POST /api/account/logout-everywhere");
    };
    match app.db.revoke_token(&caller.user.id.0, &id, now_ms()).await {
        Ok(_) => {
            token_revoked(&app, &caller, id);
            StatusCode::NO_CONTENT.into_response()
        }
        Err(e) => db_error(&e),
    }
}

/// `POST /api/account/logout-everywhere`: every session token of the player issued
/// until now stops working (personal tokens are revoked one by one).
#[utoipa::path(
    post,
    path = "/api/account/logout-everywhere",
    tag = "tokens",
    summary = "End every session of the account",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{ok: true}`", body = serde_json::Value),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a guest", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn logout_everywhere(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let caller = match bearer::caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    if let Err(e) = caller.require_account() {
        return e.into_response();
    }
    // Tokens carry `iat` in whole seconds: every session issued up to the end of this
    // second ends (a login in the same second as this call must log in again).
    let cutoff = (now_ms() / 1000 + 1) * 1000;
    if let Err(e) = app.db.end_sessions(&caller.user.id.0, cutoff).await {
        return db_error(&e);
    }
    let ended = Ended {
        before_ms: cutoff,
        ..Default::default()
    };
    app.end_sessions(&caller.user.id, ended);
    Json(json!({ "ok": true })).into_response()
}

/// `POST /api/account/logout`: the session token the request is sent with stops
/// working (a personal token is revoked with `DELETE /api/token`).
#[utoipa::path(
    post,
    path = "/api/account/logout",
    tag = "tokens",
    summary = "End the session token sent",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{ok: true}`", body = serde_json::Value),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a guest, or a personal token (`missing_scope`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn logout(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let caller = match session_caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let Some(token) = bearer::token(&headers) else {
        return bad("no token");
    };
    let hash = tokens::hash_secret(token);
    let expires_ms = caller.expires_at.map_or(i64::MAX, |s| {
        i64::try_from(s.saturating_mul(1000)).unwrap_or(i64::MAX)
    });
    let ended = app
        .db
        .end_session(&caller.user.id.0, &hash, expires_ms, now_ms())
        .await;
    if let Err(e) = ended {
        return db_error(&e);
    }
    let ended = Ended {
        token_hash: Some(hash),
        ..Default::default()
    };
    app.end_sessions(&caller.user.id, ended);
    Json(json!({ "ok": true })).into_response()
}

/// `POST /api/token/test`: the body is tokens separated by commas; the answer maps each
/// to `{userId, scopes, expires}`, or `null` if it is not a live token.
#[utoipa::path(
    post,
    path = "/api/token/test",
    tag = "tokens",
    summary = "Which of these tokens are live",
    request_body(content = String, content_type = "text/plain", description = "tokens separated by commas"),
    responses(
        (status = 200, description = "each token to `{userId, scopes, expires}` or null", body = serde_json::Value),
        (status = 400, description = "more than 1000 tokens", body = crate::api::ErrorBody)
    )
)]
pub async fn test(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let text = String::from_utf8_lossy(&body);
    let list: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    if list.len() > 1000 {
        return bad("at most 1000 tokens");
    }
    let mut out = BTreeMap::new();
    for t in list {
        let value = match bearer::check(&app, t).await {
            Ok(c) => json!({
                "userId": c.user.id.0,
                "scopes": c.scopes.to_string(),
                "expires": c.expires_at.map(|s| s.saturating_mul(1000)),
            }),
            Err(_) => Value::Null,
        };
        out.insert(t.to_string(), value);
    }
    Json(out).into_response()
}
