//! `GET` and `PUT /api/account/preferences`: a registered player's language and board
//! settings (`crate::db::preferences`), read by the browser client at login. `GET` takes
//! a session token or a personal token with `preference:read`; `PUT` takes a session
//! token and a partial object, refused whole (400 `invalid_preferences` or
//! `invalid_message`) when any field is wrong, so that nothing changes.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use shared::protocol::ErrorCode;

use super::bearer::{self, Caller};
use super::{ApiError, db_error};
use crate::app::App;
use crate::db::preferences::PreferencesChange;
use crate::tokens::Scope;

/// Bodies larger than this are refused unread.
const MAX_BODY: usize = 2048;

async fn account(app: &App, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let caller = bearer::caller(app, headers).await?;
    caller.require_account()?;
    Ok(caller)
}

/// `GET /api/account/preferences`: the stored preferences, or the defaults.
#[utoipa::path(
    get,
    path = "/api/account/preferences",
    tag = "accounts",
    summary = "Your language and board settings",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the preferences (the defaults if none are stored)", body = serde_json::Value),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a guest, or a personal token without `preference:read`", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn show(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let caller = match account(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    if caller.token_id.is_some()
        && let Err(e) = caller.require(Scope::PreferenceRead)
    {
        return e.into_response();
    }
    match app.db.preferences(&caller.user.id.0).await {
        Ok(p) => Json(p).into_response(),
        Err(e) => db_error(&e),
    }
}

/// `PUT /api/account/preferences`: changes the fields sent; answers the whole object.
#[utoipa::path(
    put,
    path = "/api/account/preferences",
    tag = "accounts",
    summary = "Change some of your settings",
    request_body(content = serde_json::Value, description = "the fields to change (`docs/api.md`)"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the whole preferences after the change", body = serde_json::Value),
        (status = 400, description = "not an object of known fields (`invalid_message`), or a bad value (`invalid_preferences`): nothing changed", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "a guest, or a personal token (use a session)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn update(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let caller = match account(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    if caller.token_id.is_some() {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::MissingScope,
            "preferences are changed with a session token (log in), not a personal token",
        )
        .into_response();
    }
    if body.len() > MAX_BODY {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            "preferences are a small JSON object",
        )
        .into_response();
    }
    let change: PreferencesChange = match serde_json::from_slice(&body) {
        Ok(c) => c,
        Err(e) => {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidMessage,
                format!("preferences are an object of known fields: {e}"),
            )
            .into_response();
        }
    };
    let settings = match change.validate() {
        Ok(s) => s,
        Err(e) => {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidPreferences,
                e.to_string(),
            )
            .into_response();
        }
    };
    let id = &caller.user.id.0;
    if let Err(e) = app.db.set_preferences(id, &settings).await {
        return db_error(&e);
    }
    match app.db.preferences(id).await {
        Ok(p) => Json(p).into_response(),
        Err(e) => db_error(&e),
    }
}
