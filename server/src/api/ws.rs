//! `GET /ws`: the WebSocket upgrade. The token (header, or `token` in the query for
//! browsers) is checked and a connection slot taken before the upgrade; the session
//! then runs in `crate::session`.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use shared::protocol::ErrorCode;

use super::ApiError;
use crate::app::App;
use crate::auth::AuthError;
use crate::session::socket::Handshake;

/// The query of `/ws`.
#[derive(Deserialize)]
pub struct WsQuery {
    token: Option<String>,
}

/// The bearer token from the `Authorization` header.
pub(super) fn bearer_header(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string())
}

/// `GET /ws`: checks the token and a connection slot, then upgrades to a session.
#[utoipa::path(
    get,
    path = "/ws",
    tag = "operations",
    summary = "The WebSocket (docs/protocol.md)",
    params(("token" = Option<String>, Query, description = "the bearer token, for browsers that cannot send a header")),
    responses(
        (status = 101, description = "switched to the WebSocket protocol"),
        (status = 400, description = "not a WebSocket upgrade", content_type = "text/plain", body = String),
        (status = 405, description = "not a GET", content_type = "text/plain", body = String),
        (status = 426, description = "not a WebSocket upgrade", content_type = "text/plain", body = String),
        (status = 401, description = "no valid token (`unauthorized`, `token_expired`)", body = super::ErrorBody),
        (status = 503, description = "too many connections, or shutting down", body = super::ErrorBody)
    )
)]
pub(crate) async fn ws(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    query: Query<WsQuery>,
    upgrade: Handshake,
) -> Response {
    if app.draining.is_cancelled() {
        return ApiError::plain(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "the server is shutting down",
        )
        .into_response();
    }
    let Ok(permit) = app.connections.clone().try_acquire_owned() else {
        app.metrics.connections_rejected.inc();
        return ApiError::plain(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::TooMany,
            "too many connections",
        )
        .into_response();
    };
    let Some(token) = bearer_header(&headers).or_else(|| query.token.clone()) else {
        app.metrics.auth_failures.inc();
        let e = AuthError::Missing;
        return ApiError::plain(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            e.public_message(),
        )
        .into_response();
    };
    let mut identity = match app.auth.verify(&token) {
        Ok(identity) => identity,
        Err(e) => {
            app.metrics.auth_failures.inc();
            let code = match e {
                AuthError::Expired => ErrorCode::TokenExpired,
                _ => ErrorCode::Unauthorized,
            };
            tracing::debug!(error = %e, "token refused");
            return ApiError::plain(StatusCode::UNAUTHORIZED, code, e.public_message())
                .into_response();
        }
    };
    if !identity.user.guest {
        // A token from the external issuer names a player the database may not know
        // yet: the row is made on first sight, and the name shown is the stored one.
        let known = tokio::time::timeout(
            app.config.database.timeout(),
            app.db
                .ensure_player(&identity.user.id.0, &identity.user.name),
        )
        .await;
        match known {
            Ok(Ok(player)) => identity.user.name = player.name,
            Ok(Err(e)) => tracing::warn!(error = %e, "cannot record the player"),
            Err(_) => tracing::warn!("recording the player timed out"),
        }
        // A session ended (logged out, everywhere, or by a password change) opens none.
        let timeout = app.config.database.timeout();
        match crate::tokens::check_session_within(&app.db, &identity, &token, timeout).await {
            Ok(Some(flags)) => identity.user.bot = flags.bot,
            Ok(None) => {}
            Err(e) => {
                app.metrics.auth_failures.inc();
                return ApiError::plain(
                    StatusCode::UNAUTHORIZED,
                    ErrorCode::Unauthorized,
                    e.to_string(),
                )
                .into_response();
            }
        }
    }
    let token_hash = crate::tokens::hash_secret(&token);
    let max = app.config.ws.max_message_bytes;
    let read_buffer = app.config.ws.read_buffer_bytes;
    let config = tungstenite::protocol::WebSocketConfig::default()
        .max_message_size(Some(max))
        .max_frame_size(Some(max))
        .read_buffer_size(read_buffer);
    let tracker = app.tracker.clone();
    upgrade.accept(config, &tracker, move |socket| {
        crate::session::run(Box::new(crate::session::Opening {
            socket,
            app,
            identity,
            token_hash,
            permit,
        }))
    })
}
