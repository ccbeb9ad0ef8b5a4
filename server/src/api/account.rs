//! `POST /api/account/register` and `POST /api/account/login`: both take
//! `{"username", "password"}` and answer `{"token", "user", "expires_at"}`, the token
//! being the JWT the WebSocket accepts.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;
use shared::protocol::ErrorCode;

use super::{ApiError, client_address, db_error, error};
use crate::accounts::{self, check_name, check_password};
use crate::app::App;
use crate::auth::{Claims, unix_now};
use crate::db::{DbError, Player};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Credentials {
    username: String,
    password: String,
}

fn read(body: &Bytes) -> Result<Credentials, ApiError> {
    serde_json::from_slice(body).map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            r#"expected {"username": "...", "password": "..."}"#,
        )
    })
}

fn rate_limited() -> Response {
    error(
        StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::RateLimited,
        "too many attempts: wait a minute and try again",
    )
}

/// The token for a registered player.
fn token_for(app: &App, player: &Player) -> Response {
    let now = unix_now();
    let claims = Claims {
        sub: player.id.clone(),
        name: Some(player.name.clone()),
        exp: now + app.config.accounts.token_ttl_secs,
        iat: now,
        iss: app.config.auth.issuer.clone(),
        aud: app.config.auth.audience.clone(),
        guest: false,
    };
    match app.auth.sign(&claims) {
        Ok(token) => axum::Json(json!({
            "token": token,
            "user": { "id": player.id, "name": player.name, "guest": false },
            "expires_at": claims.exp,
        }))
        .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "cannot sign an account token");
            error(
                StatusCode::FORBIDDEN,
                ErrorCode::RegistrationClosed,
                "this server has no key to sign tokens with: accounts come from its identity provider",
            )
        }
    }
}

/// Registers an account and logs it in.
pub async fn register(
    State(app): State<Arc<App>>,
    connect: ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !app.config.accounts.registration || !app.auth.can_sign() {
        return error(
            StatusCode::FORBIDDEN,
            ErrorCode::RegistrationClosed,
            "registration is closed on this server",
        );
    }
    let request = match read(&body) {
        Ok(r) => r,
        Err(r) => return r.into_response(),
    };
    if let Err(e) = check_name(&request.username) {
        return error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadUsername,
            e.to_string(),
        );
    }
    if let Err(e) = check_password(&request.username, &request.password) {
        return error(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadPassword,
            e.to_string(),
        );
    }
    let address = client_address(connect, &headers, app.config.accounts.trust_forwarded);
    if !app.limits.register(address) {
        return rate_limited();
    }
    let hash = match accounts::hash_password(request.password).await {
        Ok(h) => h,
        Err(e) => {
            tracing::error!(error = %e, "cannot hash a password");
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                "cannot register now",
            );
        }
    };
    match app.db.register(&request.username, &hash).await {
        Ok(player) => {
            tracing::info!(user = %player.id, "account registered");
            token_for(&app, &player)
        }
        Err(DbError::Taken) => error(
            StatusCode::CONFLICT,
            ErrorCode::UsernameTaken,
            format!("the username {} is taken", request.username),
        ),
        Err(e) => db_error(&e),
    }
}

/// Logs in.
pub async fn login(
    State(app): State<Arc<App>>,
    connect: ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request = match read(&body) {
        Ok(r) => r,
        Err(r) => return r.into_response(),
    };
    // Names that cannot exist are refused before they are counted or looked up.
    if check_name(&request.username).is_err()
        || request.password.len() > accounts::PASSWORD_LEN.end() * 4
    {
        return error(
            StatusCode::UNAUTHORIZED,
            ErrorCode::UnknownUser,
            "no account has this name",
        );
    }
    let address = client_address(connect, &headers, app.config.accounts.trust_forwarded);
    if !app.limits.login(&request.username, address) {
        return rate_limited();
    }
    let (player, hash) = match app.db.credentials(&request.username).await {
        Ok(Some(found)) => found,
        Ok(None) => {
            return error(
                StatusCode::UNAUTHORIZED,
                ErrorCode::UnknownUser,
                "no account has this name",
            );
        }
        Err(e) => return db_error(&e),
    };
    if !accounts::verify_password(request.password, hash).await {
        return error(
            StatusCode::UNAUTHORIZED,
            ErrorCode::WrongPassword,
            "wrong password",
        );
    }
    token_for(&app, &player)
}
