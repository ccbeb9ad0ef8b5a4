//! The Redis [`Lobby`]: seeks, challenges and quick-pairing pools shared by every node.
//! Each change that must be atomic (take a seek, pair two pool entries, drop a user) is
//! one Lua script, so two nodes pairing at the same instant can never both get the same
//! player. Every key lives under the `{lobby}` hash tag (one Cluster slot):
//!
//! - `seq`: counter for seek and challenge ids.
//! - `seeks` (hash id → seek JSON), `useeks:<user>` (set of the user's seek ids).
//! - `ch` (hash id → challenge JSON), `chfrom:<user>`, `chto:<user>` (sets of ids).
//! - `pool:<pool>` (sorted set user → rating), `poolt:<pool>` (sorted set user → wall
//!   ms when they joined), `entry` (hash user → pool entry JSON), `upool` (hash user →
//!   pool name).

use std::collections::HashSet;

use futures_util::future::{BoxFuture, FutureExt};
use redis::Script;
use shared::protocol::{
    ChallengeId, ChallengeInfo, SeekId, SeekInfo, TimeControl, UserId, UserInfo,
};
use shared::rules::Variant;

use super::{Lobby, LobbyError, Pairing, PoolCounts, PoolEntry, Proposal, Window};
use crate::cluster::redis::{Redis, RedisStoreError};

/// Lua helpers shared by the pool scripts. `P` is the key prefix up to and including
/// `{lobby}:`; `KEYS[1]` is `entry`, `KEYS[2]` is `upool`.
const POOL_HELPERS: &str = r"
local P = ARGV[1]
local function leave(uid)
  local old = redis.call('HGET', KEYS[2], uid)
  if old then
    redis.call('ZREM', P .. 'pool:' .. old, uid)
    redis.call('ZREM', P .. 'poolt:' .. old, uid)
    redis.call('HDEL', KEYS[1], uid)
    redis.call('HDEL', KEYS[2], uid)
  end
  return old
end
local function window(since, now, base, growth, max)
  local waited = math.floor(math.max(0, now - since) / 1000)
  return math.min(max, base + waited * growth)
end
local function take(name, uid)
  local json = redis.call('HGET', KEYS[1], uid)
  redis.call('ZREM', P .. 'pool:' .. name, uid)
  redis.call('ZREM', P .. 'poolt:' .. name, uid)
  redis.call('HDEL', KEYS[1], uid)
  redis.call('HDEL', KEYS[2], uid)
  return json
end
";

/// ARGV: prefix, user, entry JSON, pool, rating, since, base. Pairs the newcomer with
/// the closest waiting rating within the base window (ties: who waited longest), or
/// queues it. Returns `{partner JSON}` or `{}`.
const JOIN_POOL: &str = r"
local uid, json, name = ARGV[2], ARGV[3], ARGV[4]
local r, since, base = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
leave(uid)
local cands = redis.call('ZRANGEBYSCORE', P .. 'pool:' .. name, r - base, r + base, 'WITHSCORES')
local best, bestdiff, bestsince = nil, nil, nil
for i = 1, #cands, 2 do
  local other = cands[i]
  local diff = math.abs(r - tonumber(cands[i + 1]))
  local s = tonumber(redis.call('ZSCORE', P .. 'poolt:' .. name, other)) or since
  if best == nil or diff < bestdiff or (diff == bestdiff and s < bestsince) then
    best, bestdiff, bestsince = other, diff, s
  end
end
if best then
  return {take(name, best)}
end
redis.call('ZADD', P .. 'pool:' .. name, r, uid)
redis.call('ZADD', P .. 'poolt:' .. name, since, uid)
redis.call('HSET', KEYS[1], uid, json)
redis.call('HSET', KEYS[2], uid, name)
return {}
";

/// ARGV: prefix, now, base, growth, max, pool names... Pairs oldest first, each with the
/// closest rating both windows admit. Returns first, second, first, second... JSON.
const PAIR_POOLS: &str = r"
local now, base, growth, max = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local out = {}
for p = 6, #ARGV do
  local name = ARGV[p]
  local byrating, bytime = P .. 'pool:' .. name, P .. 'poolt:' .. name
  local waiting = redis.call('ZRANGE', bytime, 0, -1, 'WITHSCORES')
  local gone = {}
  for i = 1, #waiting, 2 do
    local a = waiting[i]
    if not gone[a] then
      local sa = tonumber(waiting[i + 1])
      local ra = tonumber(redis.call('ZSCORE', byrating, a))
      local wa = window(sa, now, base, growth, max)
      local cands = redis.call('ZRANGEBYSCORE', byrating, ra - wa, ra + wa, 'WITHSCORES')
      local best, bestdiff, bestsince = nil, nil, nil
      for j = 1, #cands, 2 do
        local b = cands[j]
        if b ~= a and not gone[b] then
          local sb = tonumber(redis.call('ZSCORE', bytime, b)) or now
          local diff = math.abs(ra - tonumber(cands[j + 1]))
          if diff <= math.min(wa, window(sb, now, base, growth, max)) then
            if best == nil or diff < bestdiff or (diff == bestdiff and sb < bestsince) then
              best, bestdiff, bestsince = b, diff, sb
            end
          end
        end
      end
      if best then
        gone[a] = true
        gone[best] = true
        table.insert(out, take(name, a))
        table.insert(out, take(name, best))
      end
    end
  end
end
return out
";

/// ARGV: prefix, user. Returns 1 if the user was in a pool.
const LEAVE_POOLS: &str = r"
if leave(ARGV[2]) then return 1 end
return 0
";

/// KEYS: entry, upool, seeks, ch. ARGV: prefix, user. Drops the user's pool entry,
/// seeks and challenges; returns the challenges' JSON.
const REMOVE_USER: &str = r"
local uid = ARGV[2]
leave(uid)
local mine = P .. 'useeks:' .. uid
for _, id in ipairs(redis.call('SMEMBERS', mine)) do
  redis.call('HDEL', KEYS[3], id)
end
redis.call('DEL', mine)
local out = {}
for _, set in ipairs({P .. 'chfrom:' .. uid, P .. 'chto:' .. uid}) do
  for _, id in ipairs(redis.call('SMEMBERS', set)) do
    local json = redis.call('HGET', KEYS[4], id)
    if json then
      local c = cjson.decode(json)
      redis.call('SREM', P .. 'chfrom:' .. c['from']['id'], id)
      redis.call('SREM', P .. 'chto:' .. c['to'], id)
      redis.call('HDEL', KEYS[4], id)
      table.insert(out, json)
    end
  end
  redis.call('DEL', set)
end
return out
";

/// KEYS: seeks, useeks of the owner. ARGV: id, JSON, max. 1 if added, 0 if too many.
const ADD_SEEK: &str = r"
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
";

/// KEYS: seeks. ARGV: prefix, id, user, mode (`take`: anyone but the owner; `cancel`:
/// only the owner). Returns {'ok', JSON}, {'own'} or {'none'}.
const TAKE_SEEK: &str = r"
local json = redis.call('HGET', KEYS[1], ARGV[2])
if not json then return {'none'} end
local owner = cjson.decode(json)['user']['id']
if ARGV[4] == 'take' and owner == ARGV[3] then return {'own'} end
if ARGV[4] == 'cancel' and owner ~= ARGV[3] then return {'none'} end
redis.call('HDEL', KEYS[1], ARGV[2])
redis.call('SREM', ARGV[1] .. 'useeks:' .. owner, ARGV[2])
return {'ok', json}
";

/// KEYS: ch, chfrom of the sender, chto of the addressee. ARGV: id, JSON, max.
const ADD_CHALLENGE: &str = r"
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
return 1
";

/// KEYS: ch. ARGV: prefix, id, user, mode (`take`: only the addressee; `remove`: either
/// side). Returns {'ok', JSON} or {'none'}.
const TAKE_CHALLENGE: &str = r"
local json = redis.call('HGET', KEYS[1], ARGV[2])
if not json then return {'none'} end
local c = cjson.decode(json)
local from, to = c['from']['id'], c['to']
local allowed = to == ARGV[3] or (ARGV[4] == 'remove' and from == ARGV[3])
if not allowed then return {'none'} end
redis.call('HDEL', KEYS[1], ARGV[2])
redis.call('SREM', ARGV[1] .. 'chfrom:' .. from, ARGV[2])
redis.call('SREM', ARGV[1] .. 'chto:' .. to, ARGV[2])
return {'ok', json}
";

/// The lobby of every node, in Redis.
pub struct RedisLobby {
    redis: Redis,
    pools: HashSet<(Variant, TimeControl)>,
    pool_names: Vec<String>,
    window: Window,
    max_seeks_per_user: usize,
    join_pool: Script,
    pair_pools: Script,
    leave_pools: Script,
    remove_user: Script,
    add_seek: Script,
    take_seek: Script,
    add_challenge: Script,
    take_challenge: Script,
}

/// A pool's name in keys: `russian 3+2` → `russian:3+2`.
fn pool_name(variant: Variant, tc: TimeControl, rated: bool) -> String {
    if rated {
        format!("{variant}:{tc}:rated")
    } else {
        format!("{variant}:{tc}")
    }
}

fn store(e: RedisStoreError) -> LobbyError {
    LobbyError::Store(e.to_string())
}

fn decode<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, LobbyError> {
    serde_json::from_str(json).map_err(|e| LobbyError::Store(format!("bad lobby data: {e}")))
}

fn encode(value: &impl serde::Serialize) -> Result<String, LobbyError> {
    serde_json::to_string(value).map_err(|e| LobbyError::Store(e.to_string()))
}

impl RedisLobby {
    /// A lobby with these pools, under `redis`'s prefix.
    pub fn new(
        redis: Redis,
        pools: impl IntoIterator<Item = (Variant, TimeControl)>,
        window: Window,
        max_seeks_per_user: usize,
    ) -> RedisLobby {
        let pools: HashSet<_> = pools.into_iter().collect();
        let mut pool_names: Vec<String> = pools
            .iter()
            .flat_map(|(v, t)| [pool_name(*v, *t, false), pool_name(*v, *t, true)])
            .collect();
        pool_names.sort();
        let pool_script = |body: &str| Script::new(&format!("{POOL_HELPERS}\n{body}"));
        RedisLobby {
            redis,
            pools,
            pool_names,
            window,
            max_seeks_per_user,
            join_pool: pool_script(JOIN_POOL),
            pair_pools: pool_script(PAIR_POOLS),
            leave_pools: pool_script(LEAVE_POOLS),
            remove_user: pool_script(REMOVE_USER),
            add_seek: Script::new(ADD_SEEK),
            take_seek: Script::new(TAKE_SEEK),
            add_challenge: Script::new(ADD_CHALLENGE),
            take_challenge: Script::new(TAKE_CHALLENGE),
        }
    }

    /// `<prefix>{lobby}:<rest>`.
    fn key(&self, rest: &str) -> String {
        self.redis.key("lobby", rest)
    }

    /// The prefix of every lobby key, for scripts that build keys.
    fn key_prefix(&self) -> String {
        self.key("")
    }

    async fn next_id(&self) -> Result<u64, LobbyError> {
        self.redis
            .query(redis::cmd("INCR").arg(self.key("seq")))
            .await
            .map_err(store)
    }

    fn rating(&self, user: &UserInfo) -> u32 {
        user.rating.unwrap_or(self.window.default_rating)
    }

    /// Runs a take script (`script` on the hash `hash`) for the item `id` as `user` in
    /// `mode`: the item, or `refused` of the script's word for why not.
    async fn take_as<T: serde::de::DeserializeOwned>(
        &self,
        script: &Script,
        hash: &str,
        id: u64,
        user: &UserId,
        mode: &str,
        refused: fn(&str) -> LobbyError,
    ) -> Result<T, LobbyError> {
        let mut inv = script.prepare_invoke();
        inv.key(self.key(hash))
            .arg(self.key_prefix())
            .arg(id)
            .arg(&user.0)
            .arg(mode);
        let reply: Vec<String> = self.redis.script(&inv).await.map_err(store)?;
        match reply.first().map(String::as_str) {
            Some("ok") => decode(reply.get(1).map_or("", String::as_str)),
            other => Err(refused(other.unwrap_or_default())),
        }
    }

    async fn take_seek_as(
        &self,
        user: &UserId,
        id: SeekId,
        mode: &str,
    ) -> Result<SeekInfo, LobbyError> {
        let refused = |why: &str| match why {
            "own" => LobbyError::OwnSeek,
            _ => LobbyError::SeekNotFound,
        };
        self.take_as(&self.take_seek, "seeks", id.0, user, mode, refused)
            .await
    }

    async fn take_challenge_as(
        &self,
        user: &UserId,
        id: ChallengeId,
        mode: &str,
    ) -> Result<ChallengeInfo, LobbyError> {
        let refused = |_: &str| LobbyError::ChallengeNotFound;
        self.take_as(&self.take_challenge, "ch", id.0, user, mode, refused)
            .await
    }

    /// Runs an add script; too many open ones if it refused.
    async fn added(&self, inv: &redis::ScriptInvocation<'_>) -> Result<(), LobbyError> {
        let added: i64 = self.redis.script(inv).await.map_err(store)?;
        if added == 1 {
            Ok(())
        } else {
            Err(LobbyError::TooMany)
        }
    }

    async fn add_seek_inner(
        &self,
        user: &UserInfo,
        proposal: Proposal,
    ) -> Result<SeekInfo, LobbyError> {
        let seek = proposal.into_seek(SeekId(self.next_id().await?), user);
        let mut inv = self.add_seek.prepare_invoke();
        inv.key(self.key("seeks"))
            .key(self.key(&format!("useeks:{}", user.id)))
            .arg(seek.seek_id.0)
            .arg(encode(&seek)?)
            .arg(self.max_seeks_per_user);
        self.added(&inv).await.map(|()| seek)
    }

    async fn add_challenge_inner(
        &self,
        from: &UserInfo,
        to: &UserId,
        proposal: Proposal,
    ) -> Result<ChallengeInfo, LobbyError> {
        if from.id == *to {
            return Err(LobbyError::SelfChallenge);
        }
        let id = ChallengeId(self.next_id().await?);
        let challenge = proposal.into_challenge(id, from, to);
        let mut inv = self.add_challenge.prepare_invoke();
        inv.key(self.key("ch"))
            .key(self.key(&format!("chfrom:{}", from.id)))
            .key(self.key(&format!("chto:{to}")))
            .arg(challenge.challenge_id.0)
            .arg(encode(&challenge)?)
            .arg(self.max_seeks_per_user);
        self.added(&inv).await.map(|()| challenge)
    }

    async fn join_pool_inner(&self, entry: PoolEntry) -> Result<Option<Pairing>, LobbyError> {
        if !self.pools.contains(&(entry.variant, entry.time_control)) {
            return Err(LobbyError::UnknownPool);
        }
        let mut inv = self.join_pool.prepare_invoke();
        inv.key(self.key("entry"))
            .key(self.key("upool"))
            .arg(self.key_prefix())
            .arg(&entry.user.id.0)
            .arg(encode(&entry)?)
            .arg(pool_name(entry.variant, entry.time_control, entry.rated))
            .arg(self.rating(&entry.user))
            .arg(entry.since_ms)
            .arg(self.window.base);
        let reply: Vec<String> = self.redis.script(&inv).await.map_err(store)?;
        match reply.first() {
            Some(json) => Ok(Some(Pairing {
                first: decode(json)?,
                second: entry,
            })),
            None => Ok(None),
        }
    }

    async fn pair_pools_inner(&self, now_ms: u64) -> Result<Vec<Pairing>, LobbyError> {
        let mut inv = self.pair_pools.prepare_invoke();
        inv.key(self.key("entry"))
            .key(self.key("upool"))
            .arg(self.key_prefix())
            .arg(now_ms)
            .arg(self.window.base)
            .arg(self.window.growth_per_sec)
            .arg(self.window.max);
        for name in &self.pool_names {
            inv.arg(name);
        }
        let reply: Vec<String> = self.redis.script(&inv).await.map_err(store)?;
        reply
            .chunks_exact(2)
            .map(|pair| {
                Ok(Pairing {
                    first: decode(&pair[0])?,
                    second: decode(&pair[1])?,
                })
            })
            .collect()
    }

    async fn remove_user_inner(&self, user: &UserId) -> Result<Vec<ChallengeInfo>, LobbyError> {
        let mut inv = self.remove_user.prepare_invoke();
        inv.key(self.key("entry"))
            .key(self.key("upool"))
            .key(self.key("seeks"))
            .key(self.key("ch"))
            .arg(self.key_prefix())
            .arg(&user.0);
        let reply: Vec<String> = self.redis.script(&inv).await.map_err(store)?;
        reply.iter().map(|j| decode(j)).collect()
    }

    async fn leave_pools_inner(&self, user: &UserId) -> Result<bool, LobbyError> {
        let mut inv = self.leave_pools.prepare_invoke();
        inv.key(self.key("entry"))
            .key(self.key("upool"))
            .arg(self.key_prefix())
            .arg(&user.0);
        let left: i64 = self.redis.script(&inv).await.map_err(store)?;
        Ok(left == 1)
    }

    async fn challenges_of_inner(&self, user: &UserId) -> Result<Vec<ChallengeInfo>, LobbyError> {
        let ids: Vec<u64> = self
            .redis
            .query(
                redis::cmd("SUNION")
                    .arg(self.key(&format!("chfrom:{user}")))
                    .arg(self.key(&format!("chto:{user}"))),
            )
            .await
            .map_err(store)?;
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let found: Vec<Option<String>> = self
            .redis
            .query(redis::cmd("HMGET").arg(self.key("ch")).arg(&ids))
            .await
            .map_err(store)?;
        let mut mine = found
            .iter()
            .flatten()
            .map(|j| decode::<ChallengeInfo>(j))
            .collect::<Result<Vec<_>, _>>()?;
        mine.sort_by_key(|c| c.challenge_id);
        Ok(mine)
    }

    async fn seeks_inner(&self) -> Result<Vec<SeekInfo>, LobbyError> {
        let all: Vec<String> = self
            .redis
            .query(redis::cmd("HVALS").arg(self.key("seeks")))
            .await
            .map_err(store)?;
        let mut seeks = all
            .iter()
            .map(|j| decode::<SeekInfo>(j))
            .collect::<Result<Vec<_>, _>>()?;
        seeks.sort_by_key(|s| s.seek_id);
        Ok(seeks)
    }

    async fn pool_waiting_inner(&self) -> Result<PoolCounts, LobbyError> {
        let all: Vec<String> = self
            .redis
            .query(redis::cmd("HVALS").arg(self.key("entry")))
            .await
            .map_err(store)?;
        let mut counts = PoolCounts::new();
        for json in &all {
            let entry = decode::<PoolEntry>(json)?;
            *counts
                .entry((entry.variant, entry.time_control))
                .or_insert(0) += 1;
        }
        Ok(counts)
    }
}

impl Lobby for RedisLobby {
    fn add_seek<'a>(
        &'a self,
        user: &'a UserInfo,
        proposal: Proposal,
    ) -> BoxFuture<'a, Result<SeekInfo, LobbyError>> {
        self.add_seek_inner(user, proposal).boxed()
    }

    fn cancel_seek<'a>(
        &'a self,
        user: &'a UserId,
        id: SeekId,
    ) -> BoxFuture<'a, Result<SeekInfo, LobbyError>> {
        self.take_seek_as(user, id, "cancel").boxed()
    }

    fn take_seek<'a>(
        &'a self,
        taker: &'a UserId,
        id: SeekId,
    ) -> BoxFuture<'a, Result<SeekInfo, LobbyError>> {
        self.take_seek_as(taker, id, "take").boxed()
    }

    fn seeks(&self) -> BoxFuture<'_, Result<Vec<SeekInfo>, LobbyError>> {
        self.seeks_inner().boxed()
    }

    fn pool_waiting(&self) -> BoxFuture<'_, Result<PoolCounts, LobbyError>> {
        self.pool_waiting_inner().boxed()
    }

    fn add_challenge<'a>(
        &'a self,
        from: &'a UserInfo,
        to: &'a UserId,
        proposal: Proposal,
    ) -> BoxFuture<'a, Result<ChallengeInfo, LobbyError>> {
        self.add_challenge_inner(from, to, proposal).boxed()
    }

    fn take_challenge<'a>(
        &'a self,
        user: &'a UserId,
        id: ChallengeId,
    ) -> BoxFuture<'a, Result<ChallengeInfo, LobbyError>> {
        self.take_challenge_as(user, id, "take").boxed()
    }

    fn remove_challenge<'a>(
        &'a self,
        user: &'a UserId,
        id: ChallengeId,
    ) -> BoxFuture<'a, Result<ChallengeInfo, LobbyError>> {
        self.take_challenge_as(user, id, "remove").boxed()
    }

    fn challenges_of<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Vec<ChallengeInfo>, LobbyError>> {
        self.challenges_of_inner(user).boxed()
    }

    fn join_pool(&self, entry: PoolEntry) -> BoxFuture<'_, Result<Option<Pairing>, LobbyError>> {
        self.join_pool_inner(entry).boxed()
    }

    fn leave_pools<'a>(&'a self, user: &'a UserId) -> BoxFuture<'a, Result<bool, LobbyError>> {
        self.leave_pools_inner(user).boxed()
    }

    fn pair_pools(&self, now_ms: u64) -> BoxFuture<'_, Result<Vec<Pairing>, LobbyError>> {
        self.pair_pools_inner(now_ms).boxed()
    }

    fn remove_user<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Vec<ChallengeInfo>, LobbyError>> {
        self.remove_user_inner(user).boxed()
    }
}
