//! The HTTP API (`docs/api.md`), one file per group as lichess's API groups them:
//! [`account`] (register, log in), [`users`] (profiles, game lists, rating history,
//! leaderboards), [`games`] (one archived game as JSON, PDN or PGN), [`analysis`] (its computer
//! analysis), [`arenas`] (list,
//! standings, creation), [`tokens`] (personal API tokens), [`bearer`] (who sends a
//! request), [`lichess`] (lichess's Bot and Board API). Every refusal is a
//! JSON body `{"code": …, "message": …}` with a stable code from
//! `shared::protocol::ErrorCode`.

pub mod account;
pub mod analysis;
pub mod arenas;
pub mod bearer;
pub mod games;
pub mod lichess;
pub mod tokens;
pub mod users;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use shared::protocol::ErrorCode;

use crate::app::App;
use crate::db::DbError;

/// The API's routes.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api/account/register", post(account::register))
        .route("/api/account/login", post(account::login))
        .route("/api/users/{name}", get(users::profile))
        .route("/api/users/{name}/games", get(users::games))
        .route(
            "/api/users/{name}/rating-history",
            get(users::rating_history),
        )
        .route("/api/leaderboard/{perf}", get(users::leaderboard))
        .route("/api/games/{id}", get(games::game))
        .route(
            "/api/games/{id}/analysis",
            get(analysis::show_route).post(analysis::request),
        )
        .route("/api/arenas", get(arenas::list).post(arenas::create))
        .route("/api/arenas/{id}", get(arenas::arena))
        .route("/api/tokens", get(tokens::list).post(tokens::create))
        .route("/api/tokens/{id}", axum::routing::delete(tokens::revoke))
        .route("/api/token", axum::routing::delete(tokens::revoke_own))
        .route("/api/token/test", post(tokens::test))
        .route(
            "/api/account/logout-everywhere",
            post(tokens::logout_everywhere),
        )
        .merge(lichess::routes())
}

/// A refusal: `{"code": …, "message": …}` with an HTTP status.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: ErrorCode,
    message: String,
}

impl ApiError {
    /// A refusal with `status`.
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        // `error` as lichess's clients read it; `code` and `message` as damka's.
        let body = json!({ "code": self.code, "message": self.message, "error": self.message });
        (self.status, axum::Json(body)).into_response()
    }
}

/// A refusal as a response.
pub fn error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    ApiError::new(status, code, message).into_response()
}

/// A database failure, logged; the client is told to try again.
pub fn db_error(e: &DbError) -> Response {
    tracing::warn!(error = %e, "database call failed");
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Unavailable,
        "the database is unavailable: try again shortly",
    )
}

/// The client's address: the peer's, or with `trust_forwarded`, the first address of
/// `X-Forwarded-For` set by the proxy in front.
pub fn client_address(
    connect: ConnectInfo<SocketAddr>,
    headers: &HeaderMap,
    trust_forwarded: bool,
) -> IpAddr {
    if trust_forwarded
        && let Some(ip) = headers
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .and_then(|v| v.trim().parse().ok())
    {
        return ip;
    }
    connect.0.ip()
}
