//! The organiser lease: at most one node organises a given thing (a tournament, an
//! arena) at a time. Under the hash tag `{o:<kind>:<id>}` Redis holds `lease` (the
//! holder's token `<fence>:<node>`, set with NX and PX and renewed) and `fence` (a
//! counter INCRed on every acquisition). A node that stops renewing (dead, cut off)
//! loses the lease when it expires and another node takes it with a higher fence; the
//! holder's writes elsewhere (the database) carry the fence so that a node that lost the
//! lease can never overwrite its successor. The same token format as the games' lease
//! ([`super::lease::Lease`]).

use redis::Script;

use super::lease::Lease;
use super::redis::{Redis, RedisStoreError};

/// KEYS: lease, fence. ARGV: node, ttl. Takes the lease if nobody holds it; returns the
/// new token or nil.
const ACQUIRE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local f = redis.call('INCR', KEYS[2])
local token = f .. ':' .. ARGV[1]
redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
return token
";

/// KEYS: lease. ARGV: token, ttl. 'ok' if renewed, 'missing' if it lapsed, 'fenced'
/// if another node holds it.
const RENEW: &str = r"
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 'ok'
end
if not cur then return 'missing' end
return 'fenced'
";

/// KEYS: lease. ARGV: token. Deletes the lease if it is still ours.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
";

/// The leases of one kind of organised thing.
#[derive(Clone)]
pub struct OrganiserLeases {
    redis: Redis,
    kind: &'static str,
    node: String,
    ttl_ms: u64,
}

impl OrganiserLeases {
    /// Leases of `kind` (`tournament`, `arena`) held by `node` for `ttl_ms` at a time.
    pub fn new(redis: Redis, kind: &'static str, node: &str, ttl_ms: u64) -> OrganiserLeases {
        OrganiserLeases {
            redis,
            kind,
            node: node.to_string(),
            ttl_ms,
        }
    }

    /// The lease's lifetime: renew well within it.
    pub fn ttl_ms(&self) -> u64 {
        self.ttl_ms
    }

    fn key(&self, id: &str, rest: &str) -> String {
        self.redis.key(&format!("o:{}:{id}", self.kind), rest)
    }

    /// Takes the lease of `id` if nobody holds it.
    pub async fn acquire(&self, id: &str) -> Result<Option<Lease>, RedisStoreError> {
        let script = Script::new(ACQUIRE);
        let mut inv = script.prepare_invoke();
        inv.key(self.key(id, "lease"))
            .key(self.key(id, "fence"))
            .arg(&self.node)
            .arg(self.ttl_ms);
        let token: Option<String> = self.redis.script(&inv).await?;
        token.map(|t| Lease::parse(&t)).transpose()
    }

    /// Renews a held lease: `Ok(true)` renewed; `Ok(false)` lost (lapsed or taken by
    /// another node): the holder must stop organising.
    pub async fn renew(&self, id: &str, lease: &Lease) -> Result<bool, RedisStoreError> {
        let script = Script::new(RENEW);
        let mut inv = script.prepare_invoke();
        inv.key(self.key(id, "lease"))
            .arg(&lease.token)
            .arg(self.ttl_ms);
        let reply: String = self.redis.script(&inv).await?;
        Ok(reply == "ok")
    }

    /// Gives the lease up (the thing is finished, or the node stops).
    pub async fn release(&self, id: &str, lease: &Lease) -> Result<(), RedisStoreError> {
        let script = Script::new(RELEASE);
        let mut inv = script.prepare_invoke();
        inv.key(self.key(id, "lease")).arg(&lease.token);
        let _: i64 = self.redis.script(&inv).await?;
        Ok(())
    }
}
