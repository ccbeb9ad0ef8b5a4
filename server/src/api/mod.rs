//! The HTTP API (`docs/api.md`), one file per group as lichess's API groups them:
//! [`account`] (register, log in), [`preferences`] (a player's language and board
//! settings), [`users`] (profiles, game lists, rating history, leaderboards), [`games`]
//! (one archived game as JSON, PDN or PGN), [`analysis`] (its computer analysis),
//! [`arenas`] (list, standings, creation), [`tournaments`] (list, view, PDN, an
//! organiser's creation and rounds), [`tv`] (the top live games), [`online`] (players
//! online on the cluster), [`guest`] (guest tokens), [`tokens`] (personal API tokens),
//! [`ws`] (the WebSocket upgrade), [`operations`] (`/healthz`, `/metrics`), [`bearer`]
//! (who sends a request), [`limits`] (request budgets per token), [`openapi`] (the
//! OpenAPI document), [`lichess`] (lichess's Bot and Board API). Every refusal is an
//! [`ApiError`]: a JSON body `{"code": …, "message": …}` with a stable code from
//! `shared::protocol::ErrorCode`. `crate::net` routes the handlers of `guest`,
//! `tournaments`, `tv`, `ws` and `operations` outside [`routes`]'s body limit, as
//! before they moved here.

pub mod account;
pub mod analysis;
pub mod arenas;
pub mod bearer;
pub mod games;
pub mod guest;
pub mod lichess;
pub mod limits;
pub mod online;
pub mod openapi;
pub mod operations;
pub mod preferences;
pub mod tokens;
pub mod tournaments;
pub mod tv;
pub mod users;
pub mod ws;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Request};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use shared::protocol::ErrorCode;

use crate::app::App;
use crate::db::DbError;

/// The API's routes.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api/account/register", post(account::register))
        .route("/api/account/login", post(account::login))
        .route(
            "/api/account/preferences",
            get(preferences::show).put(preferences::update),
        )
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
        .route("/api/online", get(online::online))
        .route("/api/tokens", get(tokens::list).post(tokens::create))
        .route("/api/tokens/{id}", axum::routing::delete(tokens::revoke))
        .route("/api/token", axum::routing::delete(tokens::revoke_own))
        .route("/api/token/test", post(tokens::test))
        .route(
            "/api/account/logout-everywhere",
            post(tokens::logout_everywhere),
        )
        .route("/api/account/logout", post(tokens::logout))
        .route("/api/account/password", post(account::change_password))
        .merge(lichess::routes())
        .layer(axum::middleware::from_fn(limit_body))
        .layer(DefaultBodyLimit::max(MAX_BODY))
}

/// The largest request body the API reads (a token list for `/api/token/test` of 1000
/// tokens is 37 KB).
pub const MAX_BODY: usize = 64 * 1024;

/// `413 body_too_large` for a body declared over [`MAX_BODY`], before it is read; a
/// body sent without its length is cut at the limit by [`DefaultBodyLimit`] (413 too).
async fn limit_body(request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::BodyTooLarge,
            format!("the body is over {MAX_BODY} bytes"),
        )
        .into_response();
    }
    next.run(request).await
}

/// Every refusal's body: damka's `code` and `message`, and lichess's `error` (the same
/// text) where the API answers lichess's clients.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// A stable code of `shared::protocol::ErrorCode` (`docs/api.md`, Codes).
    pub code: String,
    /// What went wrong, for people.
    pub message: String,
    /// The message again, where lichess's clients read it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A refusal: `{"code": …, "message": …}` with an HTTP status, and lichess's `error`
/// unless made [`ApiError::plain`]. The one error type of the HTTP answers.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: ErrorCode,
    message: String,
    /// Whether the body carries lichess's `error` beside `message`.
    lichess: bool,
}

impl ApiError {
    /// A refusal with `status`, readable by lichess's clients too.
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            lichess: true,
        }
    }

    /// A refusal without lichess's `error` field: the guest, tournament and WebSocket
    /// routes and the browser client's (`crate::web`), which lichess's clients never
    /// call, answer `code` and `message` alone.
    pub fn plain(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            lichess: false,
            ..ApiError::new(status, code, message)
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        // `error` as lichess's clients read it; `code` and `message` as damka's.
        let body = ErrorBody {
            code: self.code.as_str().to_string(),
            error: self.lichess.then(|| self.message.clone()),
            message: self.message,
        };
        (self.status, axum::Json(body)).into_response()
    }
}

/// A query string read into `T`, or `400 bad_query` with the reason as JSON (axum's
/// own `Query` answers in plain text).
#[derive(Debug)]
pub struct ApiQuery<T>(pub T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> axum::extract::FromRequestParts<S>
    for ApiQuery<T>
{
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Query(v)| ApiQuery(v))
            .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::BadQuery, e.body_text()))
    }
}

/// A database failure, logged; the client is told to try again.
pub fn db_error(e: &DbError) -> Response {
    tracing::warn!(error = %e, "database call failed");
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Unavailable,
        "the database is unavailable: try again shortly",
    )
    .into_response()
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
