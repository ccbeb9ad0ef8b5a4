//! Guest tokens: `POST /api/auth/guest` signs a token for a name no registered player
//! holds (`docs/api.md`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;
use shared::protocol::ErrorCode;

use super::ApiError;
use crate::app::App;
use crate::auth::AuthError;

/// The name a guest asks for.
#[derive(Deserialize, utoipa::ToSchema)]
struct GuestRequest {
    name: String,
}

/// `POST /api/auth/guest`: a guest token for a name no registered player holds.
#[utoipa::path(
    post,
    path = "/api/auth/guest",
    tag = "accounts",
    summary = "A guest token",
    request_body = GuestRequest,
    responses(
        (status = 200, description = "the token, the user, its expiry", body = serde_json::Value),
        (status = 400, description = "bad JSON or name", body = super::ErrorBody),
        (status = 403, description = "guests are off", body = super::ErrorBody),
        (status = 409, description = "a registered player's name (`username_taken`)", body = super::ErrorBody),
        (status = 500, description = "the token cannot be signed", body = super::ErrorBody)
    )
)]
pub async fn guest(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<GuestRequest>(&body) else {
        return ApiError::plain(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            r#"expected {"name": "..."}"#,
        )
        .into_response();
    };
    // A guest may not take a registered player's name (in any case): others would
    // take them for that player.
    match app.db.credentials(request.name.trim()).await {
        Ok(Some(_)) => {
            return ApiError::plain(
                StatusCode::CONFLICT,
                ErrorCode::UsernameTaken,
                format!(
                    "{} is a registered player's name: choose another, or log in",
                    request.name.trim()
                ),
            )
            .into_response();
        }
        Ok(None) => {}
        Err(e) => tracing::warn!(error = %e, "cannot check a guest name against the accounts"),
    }
    match app.auth.issue_guest(&request.name) {
        Ok((token, identity)) => axum::Json(json!({
            "token": token,
            "user": identity.user,
            "expires_at": identity.expires_at,
        }))
        .into_response(),
        Err(e @ AuthError::BadName) => ApiError::plain(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            e.to_string(),
        )
        .into_response(),
        Err(e @ AuthError::GuestDisabled) => ApiError::plain(
            StatusCode::FORBIDDEN,
            ErrorCode::Unauthorized,
            e.to_string(),
        )
        .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "cannot issue a guest token");
            ApiError::plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                "cannot issue a token",
            )
            .into_response()
        }
    }
}
