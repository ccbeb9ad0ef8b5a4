//! Personal API tokens: their scopes, making one (a secret shown once, stored as its
//! SHA-256), and checking one against the store. A token is `dmk_` and 32 characters of
//! base 62; its scopes name what it may do, as lichess's OAuth scopes do
//! (`docs/bots.md`). Session tokens (the JWTs of `crate::auth`) carry every scope, and
//! are checked against the store too ([`check_session`]): one ended by logging out,
//! or issued before the account's last "log out everywhere" or password change, is
//! refused.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::auth::Identity;
use crate::db::tokens::{AccountFlags, StoredToken};
use crate::db::{Db, DbError};

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Scope {
    /// Play as a bot account through the Bot API.
    #[serde(rename = "bot:play")]
    BotPlay,
    /// Play one's games through the Board API.
    #[serde(rename = "board:play")]
    BoardPlay,
    /// See one's challenges.
    #[serde(rename = "challenge:read")]
    ChallengeRead,
    /// Send, accept, decline and cancel challenges.
    #[serde(rename = "challenge:write")]
    ChallengeWrite,
    /// Read one's preferences and account.
    #[serde(rename = "preference:read")]
    PreferenceRead,
    /// Create arenas and tournaments.
    #[serde(rename = "tournament:write")]
    TournamentWrite,
}

impl Scope {
    /// Every scope.
    pub const ALL: [Scope; 6] = [
        Scope::BotPlay,
        Scope::BoardPlay,
        Scope::ChallengeRead,
        Scope::ChallengeWrite,
        Scope::PreferenceRead,
        Scope::TournamentWrite,
    ];

    /// Its name on the wire, e.g. `bot:play`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::BotPlay => "bot:play",
            Scope::BoardPlay => "board:play",
            Scope::ChallengeRead => "challenge:read",
            Scope::ChallengeWrite => "challenge:write",
            Scope::PreferenceRead => "preference:read",
            Scope::TournamentWrite => "tournament:write",
        }
    }

    fn parse(text: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of scopes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scopes(BTreeSet<Scope>);

impl Scopes {
    /// Every scope (a session token's).
    pub fn all() -> Scopes {
        Scopes(Scope::ALL.into_iter().collect())
    }

    /// Reads `bot:play,board:play` (commas or spaces); the unknown name if one is.
    pub fn parse(text: &str) -> Result<Scopes, String> {
        text.split([',', ' '])
            .filter(|s| !s.is_empty())
            .map(|s| Scope::parse(s).ok_or_else(|| s.to_string()))
            .collect::<Result<BTreeSet<_>, _>>()
            .map(Scopes)
    }

    /// Does the set hold `scope`?
    pub fn has(&self, scope: Scope) -> bool {
        self.0.contains(&scope)
    }

    /// The scopes, in order.
    pub fn iter(&self) -> impl Iterator<Item = Scope> + '_ {
        self.0.iter().copied()
    }
}

impl fmt::Display for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|s| s.as_str()).collect();
        f.write_str(&names.join(","))
    }
}

/// The prefix of every personal token: a token is recognised before any lookup.
pub const PREFIX: &str = "dmk_";

/// Why a personal token was refused.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// No such token.
    #[error("unknown token")]
    Unknown,
    /// The token was revoked.
    #[error("this token was revoked")]
    Revoked,
    /// The session token was ended: logged out, logged out everywhere, or the password
    /// changed.
    #[error("this session was ended (logged out, logged out everywhere, or the password changed)")]
    SessionEnded,
    /// The store could not be read.
    #[error(transparent)]
    Db(#[from] DbError),
}

/// A new secret and the id it is listed under.
pub fn new_secret() -> (String, String) {
    (format!("{PREFIX}{}", base62(32)), base62(10))
}

/// The stored form of a secret: its SHA-256, hex.
pub fn hash_secret(secret: &str) -> String {
    let digest = Sha256::digest(secret.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn base62(n: usize) -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut out = String::with_capacity(n);
    while out.len() < n {
        let mut bytes = [0u8; 64];
        // No OS randomness is no token: fastrand's generator is not fit for secrets.
        if getrandom::fill(&mut bytes).is_err() {
            continue;
        }
        // 248 = 4 * 62: bytes at or above it are dropped, so every character is equally likely.
        for b in bytes.iter().filter(|&&b| b < 248) {
            if out.len() < n {
                out.push(ALPHABET[usize::from(*b) % 62] as char);
            }
        }
    }
    out
}

/// Checks a personal token: the stored row, if the token is live.
pub async fn check(db: &Db, secret: &str) -> Result<StoredToken, TokenError> {
    let stored = db
        .token_by_hash(&hash_secret(secret))
        .await?
        .ok_or(TokenError::Unknown)?;
    if stored.revoked_ms.is_some() {
        return Err(TokenError::Revoked);
    }
    Ok(stored)
}

/// Checks a session token whose signature `crate::auth` accepted against the store:
/// refused if it was ended by itself or issued before the account's sessions were all
/// ended. Returns the account's flags (the bot mark); a guest has none to check.
pub async fn check_session(
    db: &Db,
    identity: &Identity,
    token: &str,
) -> Result<AccountFlags, TokenError> {
    if identity.user.guest {
        return Ok(AccountFlags::default());
    }
    let flags = db
        .session_flags(&identity.user.id.0, &hash_secret(token))
        .await?;
    let issued_ms = i64::try_from(identity.issued_at)
        .unwrap_or(i64::MAX)
        .saturating_mul(1000);
    if flags.session_ended || issued_ms < flags.sessions_after_ms {
        return Err(TokenError::SessionEnded);
    }
    Ok(flags)
}

/// [`check_session`] for a WebSocket (its upgrade and its `auth` messages), given
/// `timeout`: `Ok(Some(flags))` for a live session, `Ok(None)` when the store could not
/// be read in time (logged; the signature alone then admits the token, as at every
/// upgrade: a database outage must not shut every player out), and
/// [`TokenError::SessionEnded`] for a session ended.
pub async fn check_session_within(
    db: &Db,
    identity: &Identity,
    token: &str,
    timeout: std::time::Duration,
) -> Result<Option<AccountFlags>, TokenError> {
    match tokio::time::timeout(timeout, check_session(db, identity, token)).await {
        Ok(Ok(flags)) => Ok(Some(flags)),
        Ok(Err(TokenError::Db(e))) => {
            tracing::warn!(error = %e, "cannot check the session");
            Ok(None)
        }
        Ok(Err(e)) => Err(e),
        Err(_) => {
            tracing::warn!("checking the session timed out");
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_read_and_write_back() {
        let s = Scopes::parse("board:play, bot:play").unwrap();
        assert!(s.has(Scope::BotPlay) && s.has(Scope::BoardPlay));
        assert!(!s.has(Scope::ChallengeWrite));
        assert_eq!(s.to_string(), "bot:play,board:play");
        assert_eq!(Scopes::parse("bot:play,root").unwrap_err(), "root");
    }

    #[test]
    fn secrets_are_fresh_and_stored_hashed() {
        let (a, id) = new_secret();
        let (b, _) = new_secret();
        assert!(a.starts_with(PREFIX) && a.len() == PREFIX.len() + 32 && id.len() == 10);
        assert_ne!(a, b);
        assert_eq!(hash_secret(&a).len(), 64);
        assert_ne!(hash_secret(&a), hash_secret(&b));
    }
}
