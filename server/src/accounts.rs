//! Accounts: the rules for usernames and passwords, argon2id hashing (on the blocking
//! pool: a hash costs tens of milliseconds), and the rate limits on logins (per user
//! and per client address) and registrations (per address), kept with `governor`.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use governor::{DefaultKeyedRateLimiter, Quota};

use crate::config::AccountsConfig;

/// The shortest and longest username.
pub const NAME_LEN: std::ops::RangeInclusive<usize> = 3..=20;
/// The shortest and longest password, in bytes.
pub const PASSWORD_LEN: std::ops::RangeInclusive<usize> = 8..=128;

/// Why a username is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Too short or too long.
    #[error("a username has 3 to 20 characters")]
    Length,
    /// A character outside `A-Z a-z 0-9 _ -`.
    #[error("a username has only the letters A-Z and a-z, digits, `_` and `-`")]
    Characters,
    /// Does not start with a letter, or has `_`/`-` twice in a row or at the end.
    #[error(
        "a username starts with a letter, ends with a letter or digit, and has no `_` or `-` twice in a row"
    )]
    Shape,
    /// A name kept for the server (`guest…`, `admin`, …).
    #[error("this username is reserved")]
    Reserved,
}

/// Why a password is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    /// Too short or too long.
    #[error("a password has 8 to 128 bytes")]
    Length,
    /// Control characters.
    #[error("a password has no control characters")]
    Characters,
    /// The same as the username.
    #[error("the password must differ from the username")]
    SameAsName,
}

/// Checks a username: 3-20 ASCII letters, digits, `_` and `-`, starting with a letter,
/// ending with a letter or digit, no two separators in a row, not reserved.
pub fn check_name(name: &str) -> Result<(), NameError> {
    if !NAME_LEN.contains(&name.len()) {
        return Err(NameError::Length);
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(NameError::Characters);
    }
    let bytes = name.as_bytes();
    let sep = |b: u8| b == b'_' || b == b'-';
    if !bytes[0].is_ascii_alphabetic()
        || sep(bytes[bytes.len() - 1])
        || bytes.windows(2).any(|w| sep(w[0]) && sep(w[1]))
    {
        return Err(NameError::Shape);
    }
    let key = name.to_ascii_lowercase();
    const RESERVED: [&str; 6] = ["admin", "damka", "system", "anonymous", "moderator", "root"];
    if key.starts_with("guest") || RESERVED.contains(&key.as_str()) {
        return Err(NameError::Reserved);
    }
    Ok(())
}

/// Checks a new password.
pub fn check_password(name: &str, password: &str) -> Result<(), PasswordError> {
    if !PASSWORD_LEN.contains(&password.len()) {
        return Err(PasswordError::Length);
    }
    if password.chars().any(char::is_control) {
        return Err(PasswordError::Characters);
    }
    if password.eq_ignore_ascii_case(name) {
        return Err(PasswordError::SameAsName);
    }
    Ok(())
}

/// Hashes a password with argon2id (the crate's defaults: 19 MiB, 2 passes) and a
/// random salt, on the blocking pool.
pub async fn hash_password(password: String) -> Result<String, String> {
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| e.to_string())?
}

/// Checks a password against a stored hash, on the blocking pool. An unreadable hash
/// never matches.
pub async fn verify_password(password: String, hash: String) -> bool {
    tokio::task::spawn_blocking(move || {
        PasswordHash::new(&hash).is_ok_and(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
    })
    .await
    .unwrap_or(false)
}

/// The rate limits on logins and registrations.
pub struct Limits {
    login_user: DefaultKeyedRateLimiter<String>,
    login_address: DefaultKeyedRateLimiter<IpAddr>,
    register_address: DefaultKeyedRateLimiter<IpAddr>,
}

impl std::fmt::Debug for Limits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limits").finish_non_exhaustive()
    }
}

fn nz(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

impl Limits {
    /// The limits the configuration sets.
    pub fn new(config: &AccountsConfig) -> Arc<Limits> {
        Arc::new(Limits {
            login_user: DefaultKeyedRateLimiter::keyed(Quota::per_minute(nz(
                config.login_per_user_per_min
            ))),
            login_address: DefaultKeyedRateLimiter::keyed(Quota::per_minute(nz(
                config.login_per_address_per_min
            ))),
            register_address: DefaultKeyedRateLimiter::keyed(Quota::per_hour(nz(
                config.register_per_address_per_hour
            ))),
        })
    }

    /// May `address` try to log in as `name` now? Counts the attempt.
    pub fn login(&self, name: &str, address: IpAddr) -> bool {
        // Both are counted, so a flood from one address cannot hide behind many names,
        // nor a guess at one name behind many addresses.
        let by_address = self.login_address.check_key(&address).is_ok();
        let by_user = self
            .login_user
            .check_key(&name.to_ascii_lowercase())
            .is_ok();
        by_address && by_user
    }

    /// May `address` register now? Counts the attempt.
    pub fn register(&self, address: IpAddr) -> bool {
        self.register_address.check_key(&address).is_ok()
    }

    /// Forgets keys whose limits have fully recovered (called now and then).
    pub fn forget_idle(&self) {
        self.login_user.retain_recent();
        self.login_address.retain_recent();
        self.register_address.retain_recent();
        self.login_user.shrink_to_fit();
        self.login_address.shrink_to_fit();
        self.register_address.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["alice", "Bob_99", "a-b-c", "Xyz"] {
            assert_eq!(check_name(ok), Ok(()), "{ok}");
        }
        assert_eq!(check_name("ab"), Err(NameError::Length));
        assert_eq!(check_name(&"a".repeat(21)), Err(NameError::Length));
        assert_eq!(check_name("al ice"), Err(NameError::Characters));
        assert_eq!(check_name("a'; DROP"), Err(NameError::Characters));
        assert_eq!(check_name("ålice"), Err(NameError::Characters));
        assert_eq!(check_name("9lives"), Err(NameError::Shape));
        assert_eq!(check_name("al__ice"), Err(NameError::Shape));
        assert_eq!(check_name("alice_"), Err(NameError::Shape));
        assert_eq!(check_name("Guest42"), Err(NameError::Reserved));
        assert_eq!(check_name("ADMIN"), Err(NameError::Reserved));
    }

    #[test]
    fn passwords() {
        assert_eq!(check_password("alice", "correct horse"), Ok(()));
        assert_eq!(check_password("alice", "short"), Err(PasswordError::Length));
        assert_eq!(
            check_password("alice", &"x".repeat(129)),
            Err(PasswordError::Length)
        );
        assert_eq!(
            check_password("alice", "pass\u{0}word"),
            Err(PasswordError::Characters)
        );
        assert_eq!(
            check_password("alicealice", "ALICEALICE"),
            Err(PasswordError::SameAsName)
        );
    }

    #[tokio::test]
    async fn hashes_verify_only_the_right_password() {
        let hash = hash_password("correct horse".into()).await.unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse".into(), hash.clone()).await);
        assert!(!verify_password("wrong horse".into(), hash).await);
        assert!(!verify_password("x".into(), "not a hash".into()).await);
    }

    #[test]
    fn limits_count_per_user_and_per_address() {
        let limits = Limits::new(&AccountsConfig {
            registration: true,
            token_ttl_secs: 60,
            login_per_user_per_min: 2,
            login_per_address_per_min: 3,
            register_per_address_per_hour: 1,
            trust_forwarded: false,
        });
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert!(limits.login("alice", a));
        assert!(limits.login("ALICE", b));
        assert!(!limits.login("alice", b), "third try at one name");
        assert!(limits.login("bob", a));
        assert!(limits.login("carol", a));
        assert!(!limits.login("dave", a), "fourth try from one address");
        assert!(limits.register(a));
        assert!(!limits.register(a));
        assert!(limits.register(b));
    }
}
