//! Who sends a request: the `Authorization: Bearer` token read as a personal API token
//! (`dmk_…`, looked up by its hash, with its scopes) or as a session token (a JWT of
//! `crate::auth`, every scope). A session token ended by logging out, or issued before
//! the player's last "log out everywhere" or password change, is refused
//! ([`tokens::check_session`]), as is a revoked personal token: both
//! are read from the database on every request, so a revocation holds on every node at
//! once.

use axum::http::{HeaderMap, StatusCode};
use shared::protocol::{ErrorCode, UserId, UserInfo};

use super::ApiError;
use crate::app::App;
use crate::auth::AuthError;
use crate::hub::Credential;
use crate::tokens::{self, Scope, Scopes, TokenError};

/// The sender of a request.
#[derive(Clone, Debug)]
pub struct Caller {
    /// Who, with `bot` set for bot accounts.
    pub user: UserInfo,
    /// What the token may do.
    pub scopes: Scopes,
    /// The personal token's id; `None` for a session token.
    pub token_id: Option<String>,
    /// When the token expires (Unix seconds); `None` if it does not.
    pub expires_at: Option<u64>,
    /// The token, as ending it names it (an API stream opened with it ends with it).
    pub credential: Credential,
}

fn unauthorized(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, message)
}

/// The bearer token of a request, if it sent one.
pub fn token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

/// The request's sender, or the refusal: 401 with no token, an unknown, revoked or
/// expired one, or a session that was ended.
pub async fn caller(app: &App, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let Some(token) = token(headers) else {
        return Err(unauthorized(AuthError::Missing.to_string()));
    };
    check(app, token).await
}

/// Checks one token (as [`caller`] does).
pub async fn check(app: &App, token: &str) -> Result<Caller, ApiError> {
    if token.starts_with(tokens::PREFIX) {
        return match tokens::check(&app.db, token).await {
            Ok(t) => Ok(Caller {
                user: UserInfo {
                    id: UserId(t.player_id),
                    name: t.player_name,
                    guest: false,
                    rating: None,
                    bot: t.bot,
                },
                scopes: Scopes::parse(&t.scopes).unwrap_or_default(),
                credential: Credential::Personal { id: t.id.clone() },
                token_id: Some(t.id),
                expires_at: None,
            }),
            Err(TokenError::Db(e)) => Err(db_refusal(&e)),
            Err(e) => Err(unauthorized(e.to_string())),
        };
    }
    let identity = app
        .auth
        .verify(token)
        .map_err(|e| unauthorized(e.public_message()))?;
    let flags = match tokens::check_session(&app.db, &identity, token).await {
        Ok(flags) => flags,
        Err(TokenError::Db(e)) => return Err(db_refusal(&e)),
        Err(e) => return Err(unauthorized(e.to_string())),
    };
    let credential = Credential::Session {
        issued_at: identity.issued_at,
        hash: tokens::hash_secret(token),
    };
    let mut user = identity.user;
    user.bot = flags.bot;
    Ok(Caller {
        user,
        scopes: Scopes::all(),
        token_id: None,
        expires_at: Some(identity.expires_at),
        credential,
    })
}

fn db_refusal(e: &crate::db::DbError) -> ApiError {
    tracing::warn!(error = %e, "database call failed");
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Unavailable,
        "the database is unavailable: try again shortly",
    )
}

impl Caller {
    /// 403 `missing_scope` unless the token has `scope`.
    pub fn require(&self, scope: Scope) -> Result<(), ApiError> {
        self.require_any(&[scope])
    }

    /// 403 `missing_scope` unless the token has one of `scopes`.
    pub fn require_any(&self, scopes: &[Scope]) -> Result<(), ApiError> {
        if scopes.iter().any(|s| self.scopes.has(*s)) {
            return Ok(());
        }
        let names: Vec<&str> = scopes.iter().map(|s| s.as_str()).collect();
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            ErrorCode::MissingScope,
            format!("missing scope: this token needs {}", names.join(" or ")),
        ))
    }

    /// 403 unless a registered account (not a guest) sends it.
    pub fn require_account(&self) -> Result<(), ApiError> {
        if self.user.guest {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                ErrorCode::RatedNeedsAccount,
                "this needs an account: register or log in",
            ));
        }
        Ok(())
    }
}
