//! Authentication: JWT validation with one configured algorithm (HS256 secret, or RS256 /
//! EdDSA public key), issuer, audience and expiry checked; and guest tokens for
//! development. Owns nothing else: sessions decide what to do with an expired token.

use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use shared::protocol::{UserId, UserInfo};

use crate::config::AuthConfig;

/// Why a token (or a guest token request) was refused.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// No token in the request.
    #[error("no token: send `Authorization: Bearer <token>` or `?token=<token>`")]
    Missing,
    /// The token has expired.
    #[error("the token has expired")]
    Expired,
    /// The `sub` or `name` claim is empty, too long, or holds control characters (C0,
    /// C1, bidirectional and invisible format controls): it could not be shown safely.
    #[error("invalid token: the `{0}` claim is empty, too long or holds control characters")]
    BadClaim(&'static str),
    /// Bad signature, algorithm, issuer, audience, claims or form.
    #[error("invalid token: {0}")]
    Invalid(String),
    /// Guest tokens are disabled, or no key to sign them with is configured.
    #[error("guest tokens are disabled on this server")]
    GuestDisabled,
    /// The guest name is not acceptable.
    #[error("a guest name has 2 to 20 letters, digits, `_` or `-`")]
    BadName,
    /// The key material in the configuration is unusable.
    #[error("auth configuration: {0}")]
    Config(String),
}

impl AuthError {
    /// What a client is told: a short, stable text that does not expose the JWT
    /// library's internals (those are logged instead).
    pub fn public_message(&self) -> String {
        match self {
            AuthError::Invalid(_) => "invalid token".into(),
            AuthError::Config(_) => "authentication is misconfigured".into(),
            other => other.to_string(),
        }
    }
}

/// Is `c` a character a user id or name must not hold: a C0/C1 control, a
/// bidirectional control (LRM, RLM, ALM, LRE..RLO, LRI..PDI), or an invisible format
/// character (zero-width space and joiners, line and paragraph separators, BOM)?
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// Is `text` fit to be a user id or display name?
fn claim_ok(text: &str) -> bool {
    !text.is_empty() && text.len() <= 128 && !text.chars().any(is_unsafe_char)
}

/// The claims damka reads and writes. `iss` and `aud` are checked by the validator.
#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    /// The user id.
    pub sub: String,
    /// Display name; the id if absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Expiry, seconds since the Unix epoch.
    pub exp: u64,
    /// Issued at.
    #[serde(default)]
    pub iat: u64,
    /// Issuer.
    pub iss: String,
    /// Audience.
    pub aud: String,
    /// Guest account.
    #[serde(default)]
    pub guest: bool,
}

/// Who a valid token says the bearer is, and until when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// The user.
    pub user: UserInfo,
    /// Expiry, seconds since the Unix epoch.
    pub expires_at: u64,
    /// When the token was issued, seconds since the Unix epoch (0 if it does not say).
    pub issued_at: u64,
}

/// Checks tokens and signs guest tokens.
pub struct Authenticator {
    algorithm: Algorithm,
    decoding: DecodingKey,
    encoding: Option<EncodingKey>,
    validation: Validation,
    issuer: String,
    audience: String,
    guest_enabled: bool,
    guest_ttl_secs: u64,
}

impl std::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator")
            .field("algorithm", &self.algorithm)
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .finish_non_exhaustive()
    }
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Authenticator {
    /// [`Authenticator::from_config`] with its key files read on the blocking pool, so
    /// that a slow file does not hold up the async threads (other nodes of the process,
    /// a test's clients) while this node starts.
    pub async fn load(config: AuthConfig) -> Result<Authenticator, AuthError> {
        tokio::task::spawn_blocking(move || Authenticator::from_config(&config))
            .await
            .map_err(|e| AuthError::Config(format!("reading the auth keys: {e}")))?
    }

    /// Builds the authenticator from configuration. An empty HS256 secret becomes a
    /// random one (tokens then live as long as the process).
    pub fn from_config(config: &AuthConfig) -> Result<Authenticator, AuthError> {
        let read = |path: &str| {
            std::fs::read(path).map_err(|e| AuthError::Config(format!("cannot read {path}: {e}")))
        };
        let bad_key = |e: jsonwebtoken::errors::Error| AuthError::Config(e.to_string());
        let (algorithm, decoding, encoding) = match config.algorithm.as_str() {
            "HS256" => {
                let secret = if config.secret.is_empty() {
                    tracing::warn!("auth.secret is empty: using a random secret for this process");
                    let mut bytes = [0u8; 32];
                    getrandom::fill(&mut bytes)
                        .map_err(|e| AuthError::Config(format!("no randomness: {e}")))?;
                    bytes.to_vec()
                } else {
                    config.secret.as_bytes().to_vec()
                };
                (
                    Algorithm::HS256,
                    DecodingKey::from_secret(&secret),
                    Some(EncodingKey::from_secret(&secret)),
                )
            }
            alg @ ("RS256" | "EdDSA") => {
                if config.public_key_file.is_empty() {
                    return Err(AuthError::Config(format!(
                        "{alg} needs auth.public_key_file"
                    )));
                }
                let public = read(&config.public_key_file)?;
                let private = match config.private_key_file.as_str() {
                    "" => None,
                    path => Some(read(path)?),
                };
                if alg == "RS256" {
                    (
                        Algorithm::RS256,
                        DecodingKey::from_rsa_pem(&public).map_err(bad_key)?,
                        private
                            .map(|k| EncodingKey::from_rsa_pem(&k))
                            .transpose()
                            .map_err(bad_key)?,
                    )
                } else {
                    (
                        Algorithm::EdDSA,
                        DecodingKey::from_ed_pem(&public).map_err(bad_key)?,
                        private
                            .map(|k| EncodingKey::from_ed_pem(&k))
                            .transpose()
                            .map_err(bad_key)?,
                    )
                }
            }
            other => {
                return Err(AuthError::Config(format!(
                    "auth.algorithm `{other}`: use HS256, RS256 or EdDSA"
                )));
            }
        };
        // Exactly one algorithm: a token whose header names another (`none`, or HS256
        // signed with our public key) is refused before any signature check.
        let mut validation = Validation::new(algorithm);
        validation.algorithms = vec![algorithm];
        validation.set_issuer(&[&config.issuer]);
        validation.set_audience(&[&config.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.leeway = config.leeway_secs;
        validation.validate_exp = true;
        Ok(Authenticator {
            algorithm,
            decoding,
            encoding,
            validation,
            issuer: config.issuer.clone(),
            audience: config.audience.clone(),
            guest_enabled: config.guest_enabled,
            guest_ttl_secs: config.guest_ttl_secs,
        })
    }

    /// Checks a token and says who it names.
    pub fn verify(&self, token: &str) -> Result<Identity, AuthError> {
        use jsonwebtoken::errors::ErrorKind;
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|e| match e.kind() {
                ErrorKind::ExpiredSignature => AuthError::Expired,
                _ => AuthError::Invalid(e.to_string()),
            })?;
        let claims = data.claims;
        if !claim_ok(&claims.sub) {
            return Err(AuthError::BadClaim("sub"));
        }
        if claims.name.as_deref().is_some_and(|n| !claim_ok(n)) {
            return Err(AuthError::BadClaim("name"));
        }
        Ok(Identity {
            user: UserInfo {
                id: UserId(claims.sub.clone()),
                name: claims.name.unwrap_or(claims.sub),
                guest: claims.guest,
                rating: None,
                bot: false,
            },
            expires_at: claims.exp,
            issued_at: claims.iat,
        })
    }

    /// Signs a token for a new guest called `name`.
    pub fn issue_guest(&self, name: &str) -> Result<(String, Identity), AuthError> {
        if !self.guest_enabled {
            return Err(AuthError::GuestDisabled);
        }
        let valid_name = (2..=20).contains(&name.chars().count())
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
        if !valid_name {
            return Err(AuthError::BadName);
        }
        let mut id = [0u8; 8];
        getrandom::fill(&mut id).map_err(|e| AuthError::Config(format!("no randomness: {e}")))?;
        let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let now = unix_now();
        let claims = Claims {
            sub: format!("guest:{id}"),
            name: Some(name.to_string()),
            exp: now + self.guest_ttl_secs,
            iat: now,
            iss: self.issuer.clone(),
            aud: self.audience.clone(),
            guest: true,
        };
        let token = self.sign(&claims)?;
        let identity = self.verify(&token)?;
        Ok((token, identity))
    }

    /// Can this server sign tokens (HS256, or a private key configured)?
    pub fn can_sign(&self) -> bool {
        self.encoding.is_some()
    }

    /// Signs arbitrary claims with the configured key (guest tokens, tests).
    pub fn sign(&self, claims: &Claims) -> Result<String, AuthError> {
        let key = self.encoding.as_ref().ok_or(AuthError::GuestDisabled)?;
        jsonwebtoken::encode(&Header::new(self.algorithm), claims, key)
            .map_err(|e| AuthError::Config(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn auth() -> Authenticator {
        let mut c = Config::defaults().auth;
        c.secret = "test-secret".into();
        Authenticator::from_config(&c).unwrap()
    }

    fn claims(exp: u64) -> Claims {
        Claims {
            sub: "u1".into(),
            name: None,
            exp,
            iat: 0,
            iss: "damka".into(),
            aud: "damka".into(),
            guest: false,
        }
    }

    #[test]
    fn guest_round_trip() {
        let a = auth();
        let (token, id) = a.issue_guest("Alice").unwrap();
        assert_eq!(a.verify(&token).unwrap(), id);
        assert!(id.user.guest);
        assert!(matches!(a.issue_guest("x"), Err(AuthError::BadName)));
        assert!(matches!(a.issue_guest("a b"), Err(AuthError::BadName)));
    }

    #[test]
    fn refusals() {
        let a = auth();
        let expired = a.sign(&claims(unix_now() - 100)).unwrap();
        assert!(matches!(a.verify(&expired), Err(AuthError::Expired)));
        let mut wrong_iss = claims(unix_now() + 100);
        wrong_iss.iss = "other".into();
        assert!(matches!(
            a.verify(&a.sign(&wrong_iss).unwrap()),
            Err(AuthError::Invalid(_))
        ));
        let mut wrong_aud = claims(unix_now() + 100);
        wrong_aud.aud = "other".into();
        assert!(matches!(
            a.verify(&a.sign(&wrong_aud).unwrap()),
            Err(AuthError::Invalid(_))
        ));
        let mut other = Config::defaults().auth;
        other.secret = "other-secret".into();
        let forged = Authenticator::from_config(&other)
            .unwrap()
            .sign(&claims(unix_now() + 100))
            .unwrap();
        assert!(matches!(a.verify(&forged), Err(AuthError::Invalid(_))));
        assert!(matches!(
            a.verify("not.a.token"),
            Err(AuthError::Invalid(_))
        ));
        assert!(matches!(a.verify(""), Err(AuthError::Invalid(_))));
    }
}
