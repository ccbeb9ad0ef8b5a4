//! Game ownership and storage in Redis ([`GameStore`]): this file owns the keys of live
//! games. Each live game has, under its own hash tag `{g:<id>}`: `lease` (the owner's
//! token `<fence>:<node>`, a [`Lease`], set with NX and PX and renewed), `fence` (a
//! counter INCRed on every acquisition), `state` (a whole [snapshot] JSON, written at the
//! start, at a takeover, after a takeback and every few hundred actions), `acts` (the
//! law's actions played since that snapshot), `tail` (the latest write's clock, offers
//! and counts) and `log` (a list of every event's JSON, in version order). A move appends
//! to `log` and `acts` and replaces `tail`: its cost does not grow with the game. Every
//! write is a script that first checks the writer's token against the lease, so a node
//! that lost its lease can never overwrite its successor. `{games}:live` is a sorted set
//! of live games by lease deadline (wall ms), where other nodes look for games to take
//! over; `{tv}:<variant>` is the cluster's TV board of a variant, live games by rating.
//! The store runs over the cluster's transport ([`crate::cluster`]): one per node, made
//! by the application from its membership ([`GameStore::of`]), held by the registry
//! and handed to the actors and proxies it starts, shared with the mirror, and lent to
//! the node's takeover and the watch of a game ([`super::GameRegistry::game_store`]).
//!
//! [snapshot]: super::snapshot

use redis::{Script, ScriptInvocation};
use shared::protocol::GameId;

use crate::cluster::Cluster;
use crate::cluster::lease::Lease;
use crate::cluster::redis::{Redis, RedisStoreError, wall_ms};

/// The owner's token `<fence>:<node>`, with a lifetime.
const LEASE: &str = "lease";
/// A counter INCRed on every acquisition.
const FENCE: &str = "fence";
/// The snapshot last written whole.
const STATE: &str = "state";
/// Every event's JSON, in version order.
const LOG: &str = "log";
/// The law's actions played since the snapshot, in order.
const ACTS: &str = "acts";
/// The latest write's small state: clock, offers, counts.
const TAIL: &str = "tail";

/// What Redis holds of a game: the snapshot last written whole, the law's actions
/// appended since, and the small state of the latest write (see [`super::snapshot`]).
#[derive(Debug, Default)]
pub struct Stored {
    /// The `state` key: a whole snapshot JSON.
    pub snapshot: String,
    /// The `tail` key: the latest write's [`super::snapshot::Tail`] JSON (absent
    /// until the first append).
    pub tail: Option<String>,
    /// The `acts` list: the law's actions (JSON) played after the snapshot's.
    pub acts: Vec<String>,
}

/// A game taken over from a dead node.
#[derive(Debug)]
pub struct Acquired {
    /// The new lease.
    pub lease: Lease,
    /// The game as stored.
    pub stored: Stored,
    /// Every event JSON, in order.
    pub events: Vec<String>,
}

/// How a save writes the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveMode {
    /// Appends the new events and actions after the counts the writer expects, and
    /// replaces the tail: what a move costs.
    Append,
    /// Appends the new events, writes the snapshot whole and empties the actions list.
    Compact,
    /// Rewrites everything: the whole log, the snapshot, an empty actions list.
    Full,
}

impl SaveMode {
    fn arg(self) -> &'static str {
        match self {
            SaveMode::Append => "a",
            SaveMode::Compact => "c",
            SaveMode::Full => "f",
        }
    }
}

/// One save: what is appended, after what.
#[derive(Debug)]
pub struct SaveBatch<'a> {
    /// How.
    pub mode: SaveMode,
    /// Events the log holds before `events` (ignored by [`SaveMode::Full`]).
    pub base: u64,
    /// Actions the actions list holds before `acts` (checked by [`SaveMode::Append`]).
    pub acts_base: u64,
    /// The snapshot JSON (written by `Compact` and `Full` only).
    pub snapshot: Option<&'a str>,
    /// The tail JSON.
    pub tail: &'a str,
    /// The new events' JSON (all of them for `Full`).
    pub events: &'a [&'a str],
    /// The law's new actions (JSON) since the snapshot or the last append.
    pub acts: &'a [String],
}

/// KEYS: lease, fence, state, log, acts, tail. ARGV: token, fence, node, ttl, base,
/// acts base, mode ('a' append, 'c' compact, 'f' full), tail, snapshot, event count,
/// events..., actions... Checks the lease first: a missing lease (expired while Redis
/// was out of reach, or Redis restarted empty) is taken again unless another node
/// acquired the game since. Append checks that the log and the actions list end where
/// the writer thinks; compact and full write the snapshot and empty the actions list;
/// full also rewrites the log. Then appends, replaces the tail and renews the lease,
/// all at once. Returns {'ok', token}, {'fenced'} or {'gap'}.
const SAVE: &str = r"
local cur = redis.call('GET', KEYS[1])
local token = ARGV[1]
if cur and cur ~= token then return {'fenced'} end
if not cur then
  local f = tonumber(redis.call('GET', KEYS[2]) or '0')
  if f > tonumber(ARGV[2]) then return {'fenced'} end
end
local mode = ARGV[7]
if mode == 'f' then
  redis.call('DEL', KEYS[4])
elseif redis.call('LLEN', KEYS[4]) ~= tonumber(ARGV[5]) then
  return {'gap'}
elseif mode == 'a' and redis.call('LLEN', KEYS[5]) ~= tonumber(ARGV[6]) then
  return {'gap'}
end
if not cur then
  local f = redis.call('INCR', KEYS[2])
  if f <= tonumber(ARGV[2]) then
    f = tonumber(ARGV[2]) + 1
    redis.call('SET', KEYS[2], f)
  end
  token = f .. ':' .. ARGV[3]
end
if mode ~= 'a' then
  redis.call('SET', KEYS[3], ARGV[9])
  redis.call('DEL', KEYS[5])
end
local last = 10 + tonumber(ARGV[10])
for i = 11, last do redis.call('RPUSH', KEYS[4], ARGV[i]) end
for i = last + 1, #ARGV do redis.call('RPUSH', KEYS[5], ARGV[i]) end
redis.call('SET', KEYS[6], ARGV[8])
redis.call('SET', KEYS[1], token, 'PX', ARGV[4])
return {'ok', token}
";

/// KEYS: lease. ARGV: token, ttl. Returns 'ok', 'lost' (another owner) or 'missing'.
const RENEW: &str = r"
local cur = redis.call('GET', KEYS[1])
if not cur then return 'missing' end
if cur ~= ARGV[1] then return 'lost' end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 'ok'
";

/// KEYS: lease, fence, state, log, acts, tail. ARGV: node, ttl. Takes a game whose
/// lease expired. Returns {token, snapshot, tail ('' if none), action count,
/// actions..., events...}.
const ACQUIRE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return {} end
local st = redis.call('GET', KEYS[3])
if not st then return {} end
local f = redis.call('INCR', KEYS[2])
local token = f .. ':' .. ARGV[1]
redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
local acts = redis.call('LRANGE', KEYS[5], 0, -1)
local out = {token, st, redis.call('GET', KEYS[6]) or '', tostring(#acts)}
for _, a in ipairs(acts) do table.insert(out, a) end
for _, e in ipairs(redis.call('LRANGE', KEYS[4], 0, -1)) do table.insert(out, e) end
return out
";

/// KEYS: lease, fence, state, log, acts, tail. ARGV: node, ttl, fence floor, snapshot,
/// tail ('' if none), action count, actions..., events.... Puts back a game Redis lost
/// (emptied) from the database's mirror and takes its lease, only if Redis holds
/// neither a lease nor a state of it: of several nodes restoring at once, one does.
/// The fence goes past the floor (the mirror's), so older writers stay fenced.
/// Returns the token, or '' if the game was there.
const RESTORE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[3]) == 1 then return '' end
local f = redis.call('INCR', KEYS[2])
if f <= tonumber(ARGV[3]) then
  f = tonumber(ARGV[3]) + 1
  redis.call('SET', KEYS[2], f)
end
local token = f .. ':' .. ARGV[1]
redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
redis.call('SET', KEYS[3], ARGV[4])
redis.call('DEL', KEYS[4], KEYS[5], KEYS[6])
if ARGV[5] ~= '' then redis.call('SET', KEYS[6], ARGV[5]) end
local n = tonumber(ARGV[6])
for i = 7, 6 + n do redis.call('RPUSH', KEYS[5], ARGV[i]) end
for i = 7 + n, #ARGV do redis.call('RPUSH', KEYS[4], ARGV[i]) end
return token
";

/// KEYS: state, tail, acts. Returns {snapshot, tail ('' if none), actions...} or {}.
const LOAD: &str = r"
local st = redis.call('GET', KEYS[1])
if not st then return {} end
local out = {st, redis.call('GET', KEYS[2]) or ''}
for _, a in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do table.insert(out, a) end
return out
";

/// KEYS: lease, state, log, fence, acts, tail. ARGV: token, keep secs. Ends ownership
/// of a game.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
for i = 2, 6 do redis.call('EXPIRE', KEYS[i], ARGV[2]) end
return 1
";

/// The games' side of Redis.
pub struct GameStore {
    redis: Redis,
    node: String,
    lease_ms: u64,
    keep_secs: u64,
    save: Script,
    renew: Script,
    acquire: Script,
    load: Script,
    release: Script,
    restore: Script,
}

/// The result of a save.
#[derive(Debug)]
pub enum Saved {
    /// Written; the lease (re-acquired if it had lapsed).
    Ok(Lease),
    /// The log in Redis does not end where the writer thought: write it whole.
    Gap,
}

impl GameStore {
    /// The store of `node`, with leases of `lease_ms`; finished games kept `keep_secs`.
    pub fn new(redis: Redis, node: &str, lease_ms: u64, keep_secs: u64) -> GameStore {
        GameStore {
            redis,
            node: node.to_string(),
            lease_ms,
            keep_secs,
            save: Script::new(SAVE),
            renew: Script::new(RENEW),
            acquire: Script::new(ACQUIRE),
            load: Script::new(LOAD),
            release: Script::new(RELEASE),
            restore: Script::new(RESTORE),
        }
    }

    /// The store of this node in `cluster`: its leases and finished games' keep from
    /// the cluster's settings.
    pub fn of(cluster: &Cluster) -> GameStore {
        GameStore::new(
            cluster.redis.clone(),
            &cluster.node,
            cluster.config.lease_ms,
            cluster.config.finished_ttl_secs,
        )
    }

    /// The node's name, written in its leases.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The node's Redis.
    pub fn redis(&self) -> &Redis {
        &self.redis
    }

    /// The lease's lifetime.
    pub fn lease_ms(&self) -> u64 {
        self.lease_ms
    }

    fn key(&self, id: &GameId, rest: &str) -> String {
        self.redis.key(&format!("g:{id}"), rest)
    }

    /// A game's keys in the order the `SAVE`, `ACQUIRE` and `RESTORE` scripts read
    /// them: lease, fence, state, log, acts, tail.
    fn game_keys(&self, inv: &mut ScriptInvocation<'_>, id: &GameId) {
        for rest in [LEASE, FENCE, STATE, LOG, ACTS, TAIL] {
            inv.key(self.key(id, rest));
        }
    }

    fn live_key(&self) -> String {
        self.redis.key("games", "live")
    }

    /// Writes one batch (see [`SaveMode`]), checking and renewing the lease: one
    /// script, one round trip (a new game's live mark goes out beside it).
    pub async fn save(
        &self,
        id: &GameId,
        lease: Option<&Lease>,
        batch: &SaveBatch<'_>,
    ) -> Result<Saved, RedisStoreError> {
        let mut inv = self.save.prepare_invoke();
        self.game_keys(&mut inv, id);
        inv.arg(lease.map_or("", |l| l.token.as_str()))
            .arg(lease.map_or(0, |l| l.fence))
            .arg(&self.node)
            .arg(self.lease_ms)
            .arg(batch.base)
            .arg(batch.acts_base)
            .arg(batch.mode.arg())
            .arg(batch.tail)
            .arg(batch.snapshot.unwrap_or(""))
            .arg(batch.events.len());
        for e in batch.events {
            inv.arg(*e);
        }
        for a in batch.acts {
            inv.arg(a.as_str());
        }
        let reply: Vec<String> = match lease {
            Some(_) => self.redis.script(&inv).await?,
            // A new game's first write creates its lease: it is in the live set, where
            // other nodes look for games to take over, before the write returns and so
            // before any node hears of the game (a node killed right after announcing
            // a game still has it taken over). The two calls go out together.
            None => {
                let (reply, live) = tokio::join!(self.redis.script(&inv), self.mark_live(id));
                if let Err(e) = live {
                    // The lease's renewal marks it live again.
                    tracing::warn!(game = %id, error = %e, "cannot mark a new game live");
                }
                reply?
            }
        };
        match reply.first().map(String::as_str) {
            Some("ok") => Ok(Saved::Ok(Lease::parse(
                reply.get(1).map_or("", String::as_str),
            )?)),
            Some("gap") => Ok(Saved::Gap),
            _ => Err(RedisStoreError::Fenced),
        }
    }

    /// Renews the lease. `Ok(false)`: it lapsed (nobody holds it); `Fenced`: another
    /// node does.
    pub async fn renew(&self, id: &GameId, lease: &Lease) -> Result<bool, RedisStoreError> {
        let mut inv = self.renew.prepare_invoke();
        inv.key(self.key(id, LEASE))
            .arg(&lease.token)
            .arg(self.lease_ms);
        let reply: String = self.redis.script(&inv).await?;
        match reply.as_str() {
            "ok" => {
                self.mark_live(id).await?;
                Ok(true)
            }
            "missing" => Ok(false),
            _ => Err(RedisStoreError::Fenced),
        }
    }

    /// Takes over a game whose lease expired.
    pub async fn acquire(&self, id: &GameId) -> Result<Option<Acquired>, RedisStoreError> {
        let mut inv = self.acquire.prepare_invoke();
        self.game_keys(&mut inv, id);
        inv.arg(&self.node).arg(self.lease_ms);
        let reply: Vec<String> = self.redis.script(&inv).await?;
        let mut reply = reply.into_iter();
        let (Some(token), Some(snapshot), Some(tail), Some(count)) =
            (reply.next(), reply.next(), reply.next(), reply.next())
        else {
            return Ok(None);
        };
        let lease = Lease::parse(&token)?;
        let count: usize = count
            .parse()
            .map_err(|_| RedisStoreError::decode(format!("bad action count {count}")))?;
        let acts = reply.by_ref().take(count).collect();
        let events = reply.collect();
        self.mark_live(id).await?;
        Ok(Some(Acquired {
            lease,
            stored: Stored {
                snapshot,
                tail: Some(tail).filter(|t| !t.is_empty()),
                acts,
            },
            events,
        }))
    }

    /// Puts back a game Redis does not hold (emptied) as the database mirrored it,
    /// taking its lease with a fence above `fence_floor`: `None` if Redis holds the
    /// game (or another node restored it first).
    pub async fn restore(
        &self,
        id: &GameId,
        stored: &Stored,
        events: &[String],
        fence_floor: u64,
    ) -> Result<Option<Lease>, RedisStoreError> {
        let mut inv = self.restore.prepare_invoke();
        self.game_keys(&mut inv, id);
        inv.arg(&self.node)
            .arg(self.lease_ms)
            .arg(fence_floor)
            .arg(&stored.snapshot)
            .arg(stored.tail.as_deref().unwrap_or(""))
            .arg(stored.acts.len());
        for a in &stored.acts {
            inv.arg(a.as_str());
        }
        for e in events {
            inv.arg(e.as_str());
        }
        let token: String = self.redis.script(&inv).await?;
        if token.is_empty() {
            return Ok(None);
        }
        let lease = Lease::parse(&token)?;
        self.mark_live(id).await?;
        Ok(Some(lease))
    }

    /// What Redis holds of a game's state, if anything.
    pub async fn load(&self, id: &GameId) -> Result<Option<Stored>, RedisStoreError> {
        let mut inv = self.load.prepare_invoke();
        inv.key(self.key(id, STATE))
            .key(self.key(id, TAIL))
            .key(self.key(id, ACTS));
        let reply: Vec<String> = self.redis.script(&inv).await?;
        let mut reply = reply.into_iter();
        let (Some(snapshot), Some(tail)) = (reply.next(), reply.next()) else {
            return Ok(None);
        };
        Ok(Some(Stored {
            snapshot,
            tail: Some(tail).filter(|t| !t.is_empty()),
            acts: reply.collect(),
        }))
    }

    /// Ends ownership of a finished game; its state and log expire later.
    pub async fn release(&self, id: &GameId, lease: &Lease) -> Result<(), RedisStoreError> {
        let mut inv = self.release.prepare_invoke();
        inv.key(self.key(id, LEASE))
            .key(self.key(id, STATE))
            .key(self.key(id, LOG))
            .key(self.key(id, FENCE))
            .key(self.key(id, ACTS))
            .key(self.key(id, TAIL))
            .arg(&lease.token)
            .arg(self.keep_secs);
        let _: i64 = self.redis.script(&inv).await?;
        self.not_live(id).await
    }

    /// The stored snapshot JSON.
    pub async fn snapshot(&self, id: &GameId) -> Result<Option<String>, RedisStoreError> {
        self.redis
            .query(redis::cmd("GET").arg(self.key(id, STATE)))
            .await
    }

    /// How many events the log holds.
    pub async fn log_len(&self, id: &GameId) -> Result<u64, RedisStoreError> {
        self.redis
            .query(redis::cmd("LLEN").arg(self.key(id, LOG)))
            .await
    }

    /// Events with versions `from..=to` (1-based).
    pub async fn events(
        &self,
        id: &GameId,
        from: u64,
        to: u64,
    ) -> Result<Vec<String>, RedisStoreError> {
        if from == 0 || to < from {
            return Ok(Vec::new());
        }
        self.redis
            .query(
                redis::cmd("LRANGE")
                    .arg(self.key(id, LOG))
                    .arg(from - 1)
                    .arg(to - 1),
            )
            .await
    }

    /// Records that the game's lease runs until one lease from now.
    pub async fn mark_live(&self, id: &GameId) -> Result<(), RedisStoreError> {
        let deadline = wall_ms() + self.lease_ms;
        self.redis
            .query(
                redis::cmd("ZADD")
                    .arg(self.live_key())
                    .arg(deadline)
                    .arg(&id.0),
            )
            .await
    }

    fn tv_key(&self, variant: shared::rules::Variant) -> String {
        self.redis.key("tv", &variant.to_string())
    }

    /// Puts a live game on the cluster's TV board of its variant, scored by rating.
    pub async fn tv_add(
        &self,
        variant: shared::rules::Variant,
        id: &GameId,
        rating: u32,
    ) -> Result<(), RedisStoreError> {
        self.redis
            .query(
                redis::cmd("ZADD")
                    .arg(self.tv_key(variant))
                    .arg(rating)
                    .arg(&id.0),
            )
            .await
    }

    /// Takes a game off its variant's TV board.
    pub async fn tv_remove(
        &self,
        variant: shared::rules::Variant,
        id: &GameId,
    ) -> Result<(), RedisStoreError> {
        self.redis
            .query(redis::cmd("ZREM").arg(self.tv_key(variant)).arg(&id.0))
            .await
    }

    /// The highest-rated games on a variant's TV board, best first, with their ratings.
    pub async fn tv_top(
        &self,
        variant: shared::rules::Variant,
        n: usize,
    ) -> Result<Vec<(GameId, u32)>, RedisStoreError> {
        let found: Vec<(String, f64)> = self
            .redis
            .query(
                redis::cmd("ZREVRANGE")
                    .arg(self.tv_key(variant))
                    .arg(0)
                    .arg(n.saturating_sub(1))
                    .arg("WITHSCORES"),
            )
            .await?;
        Ok(found
            .into_iter()
            .map(|(id, r)| (GameId(id), r.max(0.0) as u32))
            .collect())
    }

    /// The game no longer needs an owner.
    pub async fn not_live(&self, id: &GameId) -> Result<(), RedisStoreError> {
        self.redis
            .query(redis::cmd("ZREM").arg(self.live_key()).arg(&id.0))
            .await
    }

    /// Live games whose lease deadline has passed, with that deadline (wall ms).
    pub async fn expired(&self, limit: usize) -> Result<Vec<(GameId, u64)>, RedisStoreError> {
        let found: Vec<(String, f64)> = self
            .redis
            .query(
                redis::cmd("ZRANGEBYSCORE")
                    .arg(self.live_key())
                    .arg("-inf")
                    .arg(wall_ms())
                    .arg("WITHSCORES")
                    .arg("LIMIT")
                    .arg(0)
                    .arg(limit),
            )
            .await?;
        Ok(found
            .into_iter()
            .map(|(id, at)| (GameId(id), at as u64))
            .collect())
    }
}
