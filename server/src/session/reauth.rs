//! `auth`: a fresh token replacing the session's, checked as the upgrade checks one. Its
//! signature and user are checked in the loop; whether the store still holds it live
//! (not logged out, not issued before a "log out everywhere" or a password change,
//! `crate::tokens::check_session`) is read by a request in the session's queue
//! ([`super::request`]), once per `auth`, never per move. The loop adopts the token
//! only if the store says it is live and no end of sessions covering it was heard
//! while it was read: an end is written to the store before it is announced, so a read
//! that missed it is followed by its notice, which [`Pending`] keeps until the check
//! is answered. A refusal is a typed `error`
//! (`unauthorized`, `token_expired`, `user_mismatch`) and the session goes on with the
//! token it had.

use shared::protocol::{ErrorCode, ServerMessage};

use super::Done;
use super::{Session, deadline_for};
use crate::auth::{AuthError, Identity};
use crate::db::tokens::AccountFlags;
use crate::hub::{Credential, Ended};
use crate::tokens::{self, TokenError};

/// The `auth` checks under way, and the ends of sessions heard while any is.
#[derive(Debug, Default)]
pub(super) struct Pending {
    checks: usize,
    heard: Vec<Ended>,
}

impl Pending {
    /// Keeps an end of sessions heard while a check runs.
    pub(super) fn heard(&mut self, ended: &Ended) {
        if self.checks > 0 {
            self.heard.push(ended.clone());
        }
    }

    /// A check is answered: was `credential` ended while it ran?
    fn answered(&mut self, credential: &Credential) -> bool {
        let ended = self.heard.iter().any(|e| e.covers(credential));
        self.checks = self.checks.saturating_sub(1);
        if self.checks == 0 {
            self.heard.clear();
        }
        ended
    }
}

impl Session {
    /// Handles `auth`: refuses a token that is not signed, expired or another user's at
    /// once, and queues the store's check of the rest.
    pub(super) fn reauth(&mut self, token: String) {
        let identity = match self.app.auth.verify(&token) {
            Ok(identity) if identity.user.id == self.identity.user.id => identity,
            Ok(_) => {
                self.out.error(
                    ErrorCode::UserMismatch,
                    "the token names another user",
                    None,
                );
                return;
            }
            Err(e) => {
                self.app.metrics.auth_failures.inc();
                let code = match e {
                    AuthError::Expired => ErrorCode::TokenExpired,
                    _ => ErrorCode::Unauthorized,
                };
                tracing::debug!(error = %e, "token refused");
                self.out.error(code, e.public_message(), None);
                return;
            }
        };
        let app = self.app.clone();
        let check = async move {
            let timeout = app.config.database.timeout();
            let standing = tokens::check_session_within(&app.db, &identity, &token, timeout).await;
            let hash = tokens::hash_secret(&token);
            Done::Token {
                identity,
                hash,
                standing,
            }
        };
        if self.hand_off(check) {
            self.reauths.checks += 1;
        }
    }

    /// The store's answer for the token of an `auth`: adopts it if it is live and was
    /// not ended meanwhile. `standing` is `Ok(None)` when the store could not be read
    /// (the signature then admits it, as at the upgrade).
    pub(super) fn adopt_token(
        &mut self,
        identity: Identity,
        hash: String,
        standing: Result<Option<AccountFlags>, TokenError>,
    ) {
        let credential = Credential::Session {
            issued_at: identity.issued_at,
            hash: hash.clone(),
        };
        let ended_meanwhile = self.reauths.answered(&credential);
        let standing = match standing {
            Ok(_) if ended_meanwhile => Err(TokenError::SessionEnded),
            other => other,
        };
        let flags = match standing {
            Ok(flags) => flags,
            Err(e) => {
                self.app.metrics.auth_failures.inc();
                self.out.error(ErrorCode::Unauthorized, e.to_string(), None);
                return;
            }
        };
        // The user (the stored name) stays; the bot mark as the store has it, the
        // token's times and hash change.
        if let Some(flags) = flags {
            self.identity.user.bot = flags.bot;
        }
        self.identity.issued_at = identity.issued_at;
        self.identity.expires_at = identity.expires_at;
        self.token_hash = hash;
        self.token_deadline = deadline_for(identity.expires_at);
        self.out.send(&ServerMessage::AuthOk {
            token_expires_at: identity.expires_at,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session_token(issued_at: u64, hash: &str) -> Credential {
        Credential::Session {
            issued_at,
            hash: hash.into(),
        }
    }

    #[test]
    fn an_end_heard_during_a_check_refuses_the_token_it_covers() {
        let mut pending = Pending::default();
        let logged_out = Ended {
            token_hash: Some("aa".into()),
            ..Ended::default()
        };
        // Heard with no check running: nothing is kept.
        pending.heard(&logged_out);
        pending.checks = 2;
        pending.heard(&logged_out);
        assert!(pending.answered(&session_token(100, "aa")));
        assert!(!pending.answered(&session_token(100, "bb")));
        // Both answered: what was heard is forgotten.
        pending.checks = 1;
        assert!(!pending.answered(&session_token(100, "aa")));
        let everywhere = Ended {
            before_ms: 200_000,
            ..Ended::default()
        };
        pending.heard(&everywhere);
        assert!(!pending.answered(&session_token(150, "cc")));
        pending.checks = 1;
        pending.heard(&everywhere);
        assert!(pending.answered(&session_token(150, "cc")));
    }
}
