//! The HTTP API's request budgets (`api.*` in the configuration): every request under
//! `/api/` is counted against its bearer token (or, without one, its client address);
//! moves count against a budget of their own. Over a budget the answer is lichess's:
//! `429` with a JSON error and `Retry-After: 60`, since lichess tells its clients to
//! wait a full minute after a 429 and the programs written for it do so.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::{DefaultKeyedRateLimiter, Quota};
use sha2::{Digest, Sha256};
use shared::protocol::ErrorCode;

use super::ApiError;
use crate::config::Config;

/// Seconds a client is told to wait after a 429 (lichess's minute).
pub const RETRY_AFTER_SECS: u64 = 60;

/// Requests between two sweeps of the keys whose budgets are full again.
const SWEEP_EVERY: u64 = 4096;

/// Whom a request is counted against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// A bearer token, by its SHA-256 (the token itself is not kept).
    Token([u8; 32]),
    /// A request without a token, by its client address.
    Address(IpAddr),
}

/// The budgets of one node.
pub struct ApiLimits {
    requests: DefaultKeyedRateLimiter<Key>,
    moves: DefaultKeyedRateLimiter<Key>,
    trust_forwarded: bool,
    seen: AtomicU64,
}

impl std::fmt::Debug for ApiLimits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiLimits").finish_non_exhaustive()
    }
}

fn quota(per_min: u32, burst: u32) -> Quota {
    let nz = |n: u32| NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
    Quota::per_minute(nz(per_min)).allow_burst(nz(burst))
}

impl ApiLimits {
    /// The budgets `config.api` sets.
    pub fn new(config: &Config) -> Arc<ApiLimits> {
        let api = &config.api;
        Arc::new(ApiLimits {
            requests: DefaultKeyedRateLimiter::keyed(quota(
                api.requests_per_min,
                api.requests_burst,
            )),
            moves: DefaultKeyedRateLimiter::keyed(quota(api.moves_per_min, api.moves_burst)),
            trust_forwarded: config.accounts.trust_forwarded,
            seen: AtomicU64::new(0),
        })
    }

    /// Counts a request; `false` if its budget is spent.
    fn admit(&self, key: &Key, is_move: bool) -> bool {
        if self.seen.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.requests.retain_recent();
            self.moves.retain_recent();
        }
        let limiter = if is_move { &self.moves } else { &self.requests };
        limiter.check_key(key).is_ok()
    }
}

/// Is `path` a move (`/api/{bot,board}/game/{id}/move/{move}`)?
fn is_move(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    matches!(
        parts.as_slice(),
        ["", "api", "bot" | "board", "game", _, "move", _]
    )
}

/// The middleware: counts every `/api/` request and answers 429 past its budget.
pub async fn limit(State(limits): State<Arc<ApiLimits>>, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if !path.starts_with("/api/") {
        return next.run(request).await;
    }
    let headers = request.headers();
    let key = match super::bearer::token(headers) {
        Some(token) => Key::Token(Sha256::digest(token.as_bytes()).into()),
        None => {
            let peer = request
                .extensions()
                .get::<ConnectInfo<SocketAddr>>()
                .copied()
                .unwrap_or(ConnectInfo(SocketAddr::from(([0, 0, 0, 0], 0))));
            Key::Address(super::client_address(peer, headers, limits.trust_forwarded))
        }
    };
    if limits.admit(&key, is_move(path)) {
        return next.run(request).await;
    }
    let mut response = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::RateLimited,
        format!("too many requests: wait {RETRY_AFTER_SECS} seconds before the next"),
    )
    .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_told_apart() {
        assert!(is_move("/api/bot/game/abc/move/e2e4"));
        assert!(is_move("/api/board/game/abc/move/c3-d4"));
        assert!(!is_move("/api/bot/game/abc/resign"));
        assert!(!is_move("/api/bot/game/abc/move/e2e4/x"));
        assert!(!is_move("/api/other/game/abc/move/e2e4"));
    }
}
