//! `POST /api/account/register` and `POST /api/account/login`: both take
//! `{"username", "password"}` and answer `{"token", "user", "expires_at"}`, the token
//! being the JWT the WebSocket accepts. `POST /api/account/password` changes the
//! password (`{"old_password", "new_password"}`): every session token of the account
//! ends, its WebSocket sessions close on every node, and the answer is a fresh token.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;
use shared::protocol::ErrorCode;

use super::{ApiError, client_address, db_error};
use crate::accounts::{self, check_name, check_password};
use crate::app::App;
use crate::auth::{Claims, unix_now};
use crate::db::players::now_ms;
use crate::db::{DbError, Player};

/// A name and a password.
#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Credentials {
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
    ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::RateLimited,
        "too many attempts: wait a minute and try again",
    )
    .into_response()
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
            ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::RegistrationClosed,
                "this server has no key to sign tokens with: accounts come from its identity provider",
            ).into_response()
        }
    }
}

/// Registers an account and logs it in.
#[utoipa::path(
    post,
    path = "/api/account/register",
    tag = "accounts",
    summary = "Register",
    request_body = Credentials,
    responses(
        (status = 200, description = "the token, the user, its expiry", body = serde_json::Value),
        (status = 400, description = "bad body (`invalid_message`), `bad_username`, `bad_password`", body = crate::api::ErrorBody),
        (status = 403, description = "registration closed (`registration_closed`)", body = crate::api::ErrorBody),
        (status = 409, description = "the name is taken (`username_taken`)", body = crate::api::ErrorBody),
        (status = 429, description = "too many registrations from this address (`rate_limited`)", body = crate::api::ErrorBody),
        (status = 500, description = "the password cannot be hashed", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn register(
    State(app): State<Arc<App>>,
    connect: ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !app.config.accounts.registration || !app.auth.can_sign() {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::RegistrationClosed,
            "registration is closed on this server",
        )
        .into_response();
    }
    let request = match read(&body) {
        Ok(r) => r,
        Err(r) => return r.into_response(),
    };
    if let Err(e) = check_name(&request.username) {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadUsername,
            e.to_string(),
        )
        .into_response();
    }
    if let Err(e) = check_password(&request.username, &request.password) {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadPassword,
            e.to_string(),
        )
        .into_response();
    }
    let address = client_address(connect, &headers, app.config.accounts.trust_forwarded);
    if !app.limits.register(address) {
        return rate_limited();
    }
    let hash = match accounts::hash_password(request.password).await {
        Ok(h) => h,
        Err(e) => {
            tracing::error!(error = %e, "cannot hash a password");
            return ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                "cannot register now",
            )
            .into_response();
        }
    };
    match app.db.register(&request.username, &hash).await {
        Ok(player) => {
            tracing::info!(user = %player.id, "account registered");
            token_for(&app, &player)
        }
        Err(DbError::Taken) => ApiError::new(
            StatusCode::CONFLICT,
            ErrorCode::UsernameTaken,
            format!("the username {} is taken", request.username),
        )
        .into_response(),
        Err(e) => db_error(&e),
    }
}

/// Logs in.
#[utoipa::path(
    post,
    path = "/api/account/login",
    tag = "accounts",
    summary = "Log in",
    request_body = Credentials,
    responses(
        (status = 200, description = "the token, the user, its expiry", body = serde_json::Value),
        (status = 400, description = "the request is malformed (`invalid_message`, ...)", body = crate::api::ErrorBody),
        (status = 401, description = "`unknown_user` or `wrong_password`", body = crate::api::ErrorBody),
        (status = 403, description = "no signing key (`registration_closed`)", body = crate::api::ErrorBody),
        (status = 429, description = "too many attempts (`rate_limited`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
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
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::UnknownUser,
            "no account has this name",
        )
        .into_response();
    }
    let address = client_address(connect, &headers, app.config.accounts.trust_forwarded);
    if !app.limits.login(&request.username, address) {
        return rate_limited();
    }
    let (player, hash) = match app.db.credentials(&request.username).await {
        Ok(Some(found)) => found,
        Ok(None) => {
            return ApiError::new(
                StatusCode::UNAUTHORIZED,
                ErrorCode::UnknownUser,
                "no account has this name",
            )
            .into_response();
        }
        Err(e) => return db_error(&e),
    };
    if !accounts::verify_password(request.password, hash).await {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::WrongPassword,
            "wrong password",
        )
        .into_response();
    }
    token_for(&app, &player)
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct PasswordChange {
    old_password: String,
    new_password: String,
}

/// Changes the password of the session's account; answers as `login` does.
#[utoipa::path(
    post,
    path = "/api/account/password",
    tag = "accounts",
    summary = "Change the password (every session ends)",
    request_body = PasswordChange,
    security(("bearer" = [])),
    responses(
        (status = 200, description = "a fresh token, the user, its expiry", body = serde_json::Value),
        (status = 400, description = "bad body (`invalid_message`), `bad_password`", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`), `wrong_password`", body = crate::api::ErrorBody),
        (status = 403, description = "a guest, a personal token (`missing_scope`), or an account without a password here", body = crate::api::ErrorBody),
        (status = 429, description = "too many attempts (`rate_limited`)", body = crate::api::ErrorBody),
        (status = 500, description = "the password cannot be hashed", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn change_password(
    State(app): State<Arc<App>>,
    connect: ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let caller = match super::tokens::session_caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let Ok(request) = serde_json::from_slice::<PasswordChange>(&body) else {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            r#"expected {"old_password": "...", "new_password": "..."}"#,
        )
        .into_response();
    };
    let name = caller.user.name.clone();
    if request.old_password.len() > accounts::PASSWORD_LEN.end() * 4 {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::WrongPassword,
            "wrong password",
        )
        .into_response();
    }
    if let Err(e) = check_password(&name, &request.new_password) {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::BadPassword,
            e.to_string(),
        )
        .into_response();
    }
    // The old password is guessed no faster here than at the login.
    let address = client_address(connect, &headers, app.config.accounts.trust_forwarded);
    if !app.limits.login(&name, address) {
        return rate_limited();
    }
    let (player, hash) = match app.db.credentials(&name).await {
        Ok(Some(found)) => found,
        Ok(None) => {
            return ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::RegistrationClosed,
                "this account has no password here: it comes from the identity provider",
            )
            .into_response();
        }
        Err(e) => return db_error(&e),
    };
    if !accounts::verify_password(request.old_password, hash).await {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            ErrorCode::WrongPassword,
            "wrong password",
        )
        .into_response();
    }
    let Ok(new_hash) = accounts::hash_password(request.new_password).await else {
        return ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            "cannot change the password now",
        )
        .into_response();
    };
    // Tokens carry `iat` in whole seconds: every session issued up to the end of this
    // second ends, and the fresh token is signed once that second is over.
    let cutoff = (now_ms() / 1000 + 1) * 1000;
    if let Err(e) = app.db.change_password(&player.id, &new_hash, cutoff).await {
        return db_error(&e);
    }
    app.end_sessions(
        &caller.user.id,
        crate::hub::Ended {
            before_ms: cutoff,
            ..Default::default()
        },
    );
    tracing::info!(user = %player.id, "password changed");
    let wait = u64::try_from(cutoff - now_ms()).unwrap_or(0);
    tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
    token_for(&app, &player)
}
