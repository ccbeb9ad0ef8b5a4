//! The Redis [`Presence`], shared by every node. Connections are counted per user and
//! per node; each node says it is alive every `cluster.heartbeat_ms`, and a node silent
//! for `cluster.node_ttl_ms` is dead: its users count as offline at once (status reads
//! check the node's heartbeat) and the next heartbeat of any node forgets them. A node
//! that was only slow (starved past the TTL) learns from its next heartbeat that it was
//! forgotten and registers its open connections again. Every key lives under the
//! `{pres}` hash tag:
//!
//! - `nodes`: sorted set node → wall ms of its last heartbeat.
//! - `u:<user>`: hash with `info` (user JSON), `n:<node>` (connections there) and
//!   `g:<game>` (variant and time control of a live game the user plays, `russian 3+2`).
//! - `n:<node>`: set of the users connected there.
//! - `online`: set of users with a connection on some node.
//! - `playing`: hash `<variant> <time control>` → players in live games.

use futures_util::future::{BoxFuture, FutureExt};
use redis::Script;
use shared::protocol::{GameId, TimeControl, UserId, UserInfo, UserStatus};
use shared::rules::Variant;

use super::{Heartbeat, Presence, PresenceError};
use crate::cluster::redis::{Redis, RedisStoreError, wall_ms};
use crate::lobby::PoolCounts;

/// Lua helper: the connections a user hash counts on nodes (alive ones if `nodes` and a
/// cutoff are given).
const HELPERS: &str = r"
local P = ARGV[1]
local function count(ukey, nodes, cutoff)
  local all = redis.call('HGETALL', ukey)
  local n = 0
  for i = 1, #all, 2 do
    local f = all[i]
    if string.sub(f, 1, 2) == 'n:' then
      local alive = true
      if nodes then
        local seen = redis.call('ZSCORE', nodes, string.sub(f, 3))
        alive = seen and tonumber(seen) >= cutoff
      end
      if alive then n = n + tonumber(all[i + 1]) end
    end
  end
  return n
end
local function games(ukey)
  local all = redis.call('HKEYS', ukey)
  local out = {}
  for _, f in ipairs(all) do
    if string.sub(f, 1, 2) == 'g:' then table.insert(out, string.sub(f, 3)) end
  end
  return out
end
";

/// KEYS: u, n:<node>, online. ARGV: prefix, node, user, info JSON, delta (+n or -1).
/// Returns the user's connections on every node afterwards.
const CONNECT: &str = r"
local field = 'n:' .. ARGV[2]
local c = redis.call('HINCRBY', KEYS[1], field, tonumber(ARGV[5]))
if tonumber(ARGV[5]) > 0 then
  redis.call('HSET', KEYS[1], 'info', ARGV[4])
  redis.call('SADD', KEYS[2], ARGV[3])
  redis.call('SADD', KEYS[3], ARGV[3])
elseif c <= 0 then
  redis.call('HDEL', KEYS[1], field)
  redis.call('SREM', KEYS[2], ARGV[3])
end
local total = count(KEYS[1])
if total == 0 then
  redis.call('SREM', KEYS[3], ARGV[3])
  if #games(KEYS[1]) == 0 then redis.call('DEL', KEYS[1]) end
end
return total
";

/// KEYS: nodes, u:<user>... ARGV: prefix, cutoff ms. Returns {online, {games}} per user.
const STATUS: &str = r"
local cutoff = tonumber(ARGV[2])
local out = {}
for i = 2, #KEYS do
  local online = 0
  if count(KEYS[i], KEYS[1], cutoff) > 0 then online = 1 end
  table.insert(out, {online, games(KEYS[i])})
end
return out
";

/// KEYS: u:<user>..., playing. ARGV: prefix, game, `<variant> <time control>`, on (1/0).
/// One call for a game's players.
const SET_PLAYING: &str = r"
local field = 'g:' .. ARGV[2]
local playing = KEYS[#KEYS]
for i = 1, #KEYS - 1 do
  local ukey = KEYS[i]
  if ARGV[4] == '1' then
    if redis.call('HSETNX', ukey, field, ARGV[3]) == 1 then
      redis.call('HINCRBY', playing, ARGV[3], 1)
    end
  else
    local v = redis.call('HGET', ukey, field)
    if v then
      redis.call('HDEL', ukey, field)
      redis.call('HINCRBY', playing, v, -1)
      if count(ukey) == 0 and #games(ukey) == 0 then redis.call('DEL', ukey) end
    end
  end
end
return 1
";

/// KEYS: nodes, online. ARGV: prefix, node, now, cutoff. Records the heartbeat, then
/// forgets every node silent since before the cutoff; returns whether this node had
/// been forgotten (it was not in `nodes`: never there yet, or removed by another
/// node's heartbeat), the users now offline, and the nodes alive.
const HEARTBEAT: &str = r"
local forgotten = 0
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then forgotten = 1 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[3]), ARGV[2])
local gone = {}
for _, node in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4])) do
  local set = P .. 'n:' .. node
  for _, uid in ipairs(redis.call('SMEMBERS', set)) do
    local ukey = P .. 'u:' .. uid
    redis.call('HDEL', ukey, 'n:' .. node)
    if count(ukey) == 0 then
      redis.call('SREM', KEYS[2], uid)
      table.insert(gone, uid)
      if #games(ukey) == 0 then redis.call('DEL', ukey) end
    end
  end
  redis.call('DEL', set)
  redis.call('ZREM', KEYS[1], node)
end
return {forgotten, gone, redis.call('ZRANGE', KEYS[1], 0, -1)}
";

/// KEYS: n:<node>, online. ARGV: prefix, node, then per user: id, info JSON, the
/// connections it has on this node. Adds what the store is missing of each count.
const RESTORE: &str = r"
local field = 'n:' .. ARGV[2]
for i = 3, #ARGV, 3 do
  local ukey = P .. 'u:' .. ARGV[i]
  local known = tonumber(redis.call('HGET', ukey, field) or '0')
  local missing = tonumber(ARGV[i + 2]) - known
  if missing > 0 then
    redis.call('HINCRBY', ukey, field, missing)
    redis.call('HSET', ukey, 'info', ARGV[i + 1])
    redis.call('SADD', KEYS[1], ARGV[i])
    redis.call('SADD', KEYS[2], ARGV[i])
  end
end
return 1
";

/// Users one restore script call registers at most (a node with 20,000 connections
/// makes 40 short calls, not one that blocks Redis).
const RESTORE_BATCH: usize = 500;

/// Presence for every node, in Redis.
pub struct RedisPresence {
    redis: Redis,
    node: String,
    node_ttl_ms: u64,
    connect: Script,
    status: Script,
    set_playing: Script,
    heartbeat: Script,
    restore: Script,
}

fn store(e: RedisStoreError) -> PresenceError {
    PresenceError::Store(e.to_string())
}

impl RedisPresence {
    /// Presence as seen by `node`; nodes silent for `node_ttl_ms` are dead.
    pub fn new(redis: Redis, node: &str, node_ttl_ms: u64) -> RedisPresence {
        let script = |body: &str| Script::new(&format!("{HELPERS}\n{body}"));
        RedisPresence {
            redis,
            node: node.to_string(),
            node_ttl_ms,
            connect: script(CONNECT),
            status: script(STATUS),
            set_playing: script(SET_PLAYING),
            heartbeat: script(HEARTBEAT),
            restore: script(RESTORE),
        }
    }

    fn key(&self, rest: &str) -> String {
        self.redis.key("pres", rest)
    }

    fn cutoff(&self) -> u64 {
        wall_ms().saturating_sub(self.node_ttl_ms)
    }

    async fn change(&self, user: &UserId, info: &str, delta: i64) -> Result<u32, PresenceError> {
        let mut inv = self.connect.prepare_invoke();
        inv.key(self.key(&format!("u:{user}")))
            .key(self.key(&format!("n:{}", self.node)))
            .key(self.key("online"))
            .arg(self.key(""))
            .arg(&self.node)
            .arg(&user.0)
            .arg(info)
            .arg(delta);
        let total: i64 = self.redis.script(&inv).await.map_err(store)?;
        Ok(u32::try_from(total.max(0)).unwrap_or(u32::MAX))
    }

    async fn statuses_inner(&self, users: &[UserId]) -> Result<Vec<UserStatus>, PresenceError> {
        if users.is_empty() {
            return Ok(Vec::new());
        }
        let mut inv = self.status.prepare_invoke();
        inv.key(self.key("nodes"));
        for user in users {
            inv.key(self.key(&format!("u:{user}")));
        }
        inv.arg(self.key("")).arg(self.cutoff());
        let rows: Vec<(i64, Vec<String>)> = self.redis.script(&inv).await.map_err(store)?;
        Ok(users
            .iter()
            .zip(rows)
            .map(|(id, (online, games))| {
                let mut playing: Vec<GameId> = games.into_iter().map(GameId).collect();
                playing.sort();
                UserStatus {
                    id: id.clone(),
                    online: online == 1,
                    playing,
                }
            })
            .collect())
    }

    async fn user_inner(&self, user: &UserId) -> Result<Option<UserInfo>, PresenceError> {
        let online = self
            .statuses_inner(std::slice::from_ref(user))
            .await?
            .first()
            .is_some_and(|s| s.online);
        if !online {
            return Ok(None);
        }
        let info: Option<String> = self
            .redis
            .query(
                redis::cmd("HGET")
                    .arg(self.key(&format!("u:{user}")))
                    .arg("info"),
            )
            .await
            .map_err(store)?;
        Ok(info.and_then(|j| serde_json::from_str(&j).ok()))
    }

    async fn playing_counts_inner(&self) -> Result<PoolCounts, PresenceError> {
        let all: Vec<(String, i64)> = self
            .redis
            .query(redis::cmd("HGETALL").arg(self.key("playing")))
            .await
            .map_err(store)?;
        Ok(all
            .into_iter()
            .filter_map(|(pool, n)| {
                let (variant, tc) = pool.split_once(' ')?;
                let n = u32::try_from(n).ok().filter(|n| *n > 0)?;
                Some(((variant.parse().ok()?, tc.parse().ok()?), n))
            })
            .collect())
    }

    async fn set_playing_inner(
        &self,
        users: &[UserId],
        game: &GameId,
        (variant, tc): (Variant, TimeControl),
        playing: bool,
    ) -> Result<(), PresenceError> {
        let mut inv = self.set_playing.prepare_invoke();
        for user in users {
            inv.key(self.key(&format!("u:{user}")));
        }
        inv.key(self.key("playing"))
            .arg(self.key(""))
            .arg(&game.0)
            .arg(format!("{variant} {tc}"))
            .arg(if playing { "1" } else { "0" });
        let _: i64 = self.redis.script(&inv).await.map_err(store)?;
        Ok(())
    }

    async fn heartbeat_inner(&self) -> Result<Heartbeat, PresenceError> {
        let mut inv = self.heartbeat.prepare_invoke();
        inv.key(self.key("nodes"))
            .key(self.key("online"))
            .arg(self.key(""))
            .arg(&self.node)
            .arg(wall_ms())
            .arg(self.cutoff());
        let (forgotten, gone, alive): (i64, Vec<String>, Vec<String>) =
            self.redis.script(&inv).await.map_err(store)?;
        Ok(Heartbeat {
            offline: gone.into_iter().map(UserId).collect(),
            forgotten: forgotten == 1,
            alive,
        })
    }

    async fn restore_inner(&self, users: &[(UserInfo, u32)]) -> Result<(), PresenceError> {
        for batch in users.chunks(RESTORE_BATCH) {
            let mut inv = self.restore.prepare_invoke();
            inv.key(self.key(&format!("n:{}", self.node)))
                .key(self.key("online"))
                .arg(self.key(""))
                .arg(&self.node);
            for (user, count) in batch {
                let info = serde_json::to_string(user).unwrap_or_default();
                inv.arg(&user.id.0).arg(info).arg(*count);
            }
            let _: i64 = self.redis.script(&inv).await.map_err(store)?;
        }
        Ok(())
    }
}

impl Presence for RedisPresence {
    fn connect<'a>(&'a self, user: &'a UserInfo) -> BoxFuture<'a, Result<u32, PresenceError>> {
        async move {
            let info =
                serde_json::to_string(user).map_err(|e| PresenceError::Store(e.to_string()))?;
            self.change(&user.id, &info, 1).await
        }
        .boxed()
    }

    fn disconnect<'a>(&'a self, user: &'a UserId) -> BoxFuture<'a, Result<u32, PresenceError>> {
        self.change(user, "", -1).boxed()
    }

    fn is_online<'a>(&'a self, user: &'a UserId) -> BoxFuture<'a, Result<bool, PresenceError>> {
        async move {
            let statuses = self.statuses_inner(std::slice::from_ref(user)).await?;
            Ok(statuses.first().is_some_and(|s| s.online))
        }
        .boxed()
    }

    fn user<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Option<UserInfo>, PresenceError>> {
        self.user_inner(user).boxed()
    }

    fn online_count(&self) -> BoxFuture<'_, Result<usize, PresenceError>> {
        async move {
            self.redis
                .query(redis::cmd("SCARD").arg(self.key("online")))
                .await
                .map_err(store)
        }
        .boxed()
    }

    fn playing_counts(&self) -> BoxFuture<'_, Result<PoolCounts, PresenceError>> {
        self.playing_counts_inner().boxed()
    }

    fn set_playing<'a>(
        &'a self,
        users: &'a [UserId],
        game: &'a GameId,
        pool: (Variant, TimeControl),
        playing: bool,
    ) -> BoxFuture<'a, Result<(), PresenceError>> {
        self.set_playing_inner(users, game, pool, playing).boxed()
    }

    fn games_of<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Vec<GameId>, PresenceError>> {
        async move {
            let statuses = self.statuses_inner(std::slice::from_ref(user)).await?;
            Ok(statuses
                .into_iter()
                .next()
                .map(|s| s.playing)
                .unwrap_or_default())
        }
        .boxed()
    }

    fn statuses<'a>(
        &'a self,
        users: &'a [UserId],
    ) -> BoxFuture<'a, Result<Vec<UserStatus>, PresenceError>> {
        self.statuses_inner(users).boxed()
    }

    fn heartbeat(&self) -> BoxFuture<'_, Result<Heartbeat, PresenceError>> {
        self.heartbeat_inner().boxed()
    }

    fn restore<'a>(
        &'a self,
        users: &'a [(UserInfo, u32)],
    ) -> BoxFuture<'a, Result<(), PresenceError>> {
        self.restore_inner(users).boxed()
    }
}
