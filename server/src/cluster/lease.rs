//! A lease token `<fence>:<node>`: the fencing number of one acquisition and the node
//! that holds it. Game ownership (`game::redis_store`, which writes these tokens in the
//! `lease` key of each live game) and the organiser leases ([`super::organiser`]) read
//! and hand them around; the keys they live in are their owners'.

use super::redis::RedisStoreError;

/// A held lease: the token written in the `lease` key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The fencing number of this acquisition.
    pub fence: u64,
    /// `<fence>:<node>`.
    pub token: String,
}

impl Lease {
    /// Reads a token `<fence>:<node>`.
    pub fn parse(token: &str) -> Result<Lease, RedisStoreError> {
        let fence = token
            .split(':')
            .next()
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| RedisStoreError::decode(format!("bad lease token {token}")))?;
        Ok(Lease {
            fence,
            token: token.to_string(),
        })
    }
}
