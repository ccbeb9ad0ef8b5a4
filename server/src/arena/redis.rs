//! Arena state in Redis (cluster mode), so that any node serves any arena and the
//! organiser can be replaced. Every key of one arena shares the hash tag of its
//! organiser lease, `{o:arena:<id>}`, so that every organiser write is one script that
//! checks the lease token first (fencing): `spec` (JSON: description and password),
//! `p` (hash user → [`PlayerRec`] JSON: who, sheet, colours), `m` (hash user →
//! `active`/`paused`), `busy` (hash user → game being played), `g` (hash game →
//! `[white, black]`: games paired and not yet scored), `board` (the leaderboard: zset
//! user → minus [`board_key`], so that `ZRANGE` gives the order of `shared::arena::rank`),
//! `w` (set of watchers, players included), `v` (the watchers who are not players: at
//! most `arena.max_watchers`, counted here for the whole cluster), `ver` (counter bumped
//! by every change), `next` (wall ms of the next wave), `closed` (set when the arena
//! stopped taking players). The index of live arenas is `{arenas}:all` (zset id → start
//! ms).
//!
//! Who writes what: any node joins, withdraws, pauses, watches (scripts that only touch
//! `p` of a newcomer, `m`, `board` of a newcomer, `w`, `v`); only the lease holder
//! pairs (`PAIR`: a whole wave in one script, each pair only if both players are still
//! active and idle), scores (`SCORE`: once per game, the game leaves `g` in the same
//! script), closes and drops the arena.

use std::collections::HashMap;

use redis::Script;
use serde::{Deserialize, Serialize};
use shared::arena::{ArenaInfo, ArenaMe, ArenaStandings, ArenaStatus, Membership, Sheet, Standing};
use shared::protocol::{GameId, UserId, UserInfo};

use super::{ArenaError, ArenaSpec, JoinRequest};
use crate::cluster::lease::Lease;
use crate::cluster::redis::{Redis, RedisStoreError, wall_ms};

/// The lease kind of arena organisers (`{o:arena:<id>}`).
pub const LEASE_KIND: &str = "arena";

/// One player's record, written whole by whoever last changed it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlayerRec {
    /// Who, with the rating in the arena's perf at joining.
    pub info: UserInfo,
    /// Their games so far.
    pub sheet: Sheet,
    /// White games minus Black games.
    pub color_balance: i32,
    /// Was their last game with White?
    pub last_white: Option<bool>,
}

/// The arena's spec as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct StoredSpec {
    info: ArenaInfo,
    password: Option<String>,
}

/// The leaderboard order as one number: score, then performance, then rating (higher
/// first); the board stores its negation so that `ZRANGE` (ties by user id, ascending)
/// gives exactly the order of `shared::arena::rank`.
pub fn board_key(rec: &PlayerRec) -> f64 {
    let score = f64::from(rec.sheet.score());
    let perf = rec.sheet.performance().unwrap_or(0).clamp(-49_999, 49_999) + 50_000;
    let rating = f64::from(rec.info.rating.unwrap_or(0).min(99_999));
    -(score * 1e10 + perf as f64 * 1e5 + rating)
}

/// Everything an organiser reads at once.
#[derive(Debug, Default)]
pub struct State {
    /// Every player.
    pub players: HashMap<UserId, PlayerRec>,
    /// Their membership.
    pub members: HashMap<UserId, Membership>,
    /// The game each busy player plays.
    pub busy: HashMap<UserId, GameId>,
    /// Games paired and not yet scored: game → (white, black).
    pub games: HashMap<GameId, (UserId, UserId)>,
    /// The change counter when it was read (read first: the rest may be newer).
    pub ver: u64,
}

/// One pair of a wave, as written.
#[derive(Debug)]
pub struct PairWrite {
    /// The game's id, chosen before the game starts.
    pub game: GameId,
    /// White and their record after the pairing.
    pub white: (UserId, PlayerRec),
    /// Black and theirs.
    pub black: (UserId, PlayerRec),
}

/// One scored game, as written.
#[derive(Debug)]
pub struct ScoreWrite {
    /// The game.
    pub game: GameId,
    /// Both players with their records after scoring (`None`: unchanged).
    pub sides: [(UserId, Option<PlayerRec>); 2],
    /// The player paused for not starting.
    pub late: Option<UserId>,
}

/// The change counter (`ver`) just before and just after one organiser write. An
/// organiser whose state was current at `before` (no other node changed the arena
/// since it read it) is current at `after` too: it need not read the state again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerStep {
    /// Before the write.
    pub before: u64,
    /// After it (equal if it changed nothing).
    pub after: u64,
}

/// The answer of a counted organiser write: `ok`, the change counter before and
/// after, then the rest.
fn counted(reply: Vec<String>) -> Fenced<(VerStep, Vec<String>)> {
    let mut reply = reply.into_iter();
    if reply.next().as_deref() != Some("ok") {
        return Fenced::Lost;
    }
    let mut ver = || reply.next().and_then(|v| v.parse().ok()).unwrap_or(0);
    let step = VerStep {
        before: ver(),
        after: ver(),
    };
    Fenced::Ok((step, reply.collect()))
}

/// What a fenced write found.
#[derive(Debug, PartialEq, Eq)]
pub enum Fenced<T> {
    /// Done.
    Ok(T),
    /// Another node holds the lease: stop organising.
    Lost,
}

/// KEYS: spec p m board w ver closed v. ARGV: user, record, max players, board score.
/// A newcomer is added (and watches, no longer counted among the other watchers); a
/// known player is active again.
const JOIN: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 'notfound' end
if redis.call('EXISTS', KEYS[7]) == 1 then return 'closed' end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[3], ARGV[1], 'active')
  redis.call('SADD', KEYS[5], ARGV[1])
  redis.call('INCR', KEYS[6])
  return 'active'
end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then return 'toomany' end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[1], 'active')
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[1])
redis.call('SADD', KEYS[5], ARGV[1])
redis.call('SREM', KEYS[8], ARGV[1])
redis.call('INCR', KEYS[6])
return 'active'
";

/// KEYS: spec w v p. ARGV: user, max watchers. Adds a watcher while the arena exists
/// (a dropped arena leaves no watcher set behind): a player always, anyone else while
/// fewer than `max watchers` others watch.
const WATCH: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 'notfound' end
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 0 and redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 0 then
  if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[2]) then return 'full' end
  redis.call('SADD', KEYS[3], ARGV[1])
end
redis.call('SADD', KEYS[2], ARGV[1])
return 'ok'
";

/// KEYS: w v. ARGV: user.
const UNWATCH: &str = r"
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[2], ARGV[1])
return 'ok'
";

/// KEYS: spec p m board busy ver. ARGV: user, pause_only ('1' = pause).
const LEAVE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 'notfound' end
local rec = redis.call('HGET', KEYS[2], ARGV[1])
if not rec then return 'notjoined' end
if ARGV[2] == '0' and redis.call('HEXISTS', KEYS[5], ARGV[1]) == 0
   and #cjson.decode(rec)['sheet']['entries'] == 0 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[4], ARGV[1])
  redis.call('INCR', KEYS[6])
  return 'withdrawn'
end
redis.call('HSET', KEYS[3], ARGV[1], 'paused')
redis.call('INCR', KEYS[6])
return 'paused'
";

/// KEYS: lease p m busy g ver next. ARGV: token, next wave ms, then per pair: game,
/// white, black, white rec, black rec, the `g` value. Answers `ok`, the change counter
/// before and after, then the games accepted. Idempotent: a pair whose game is
/// already recorded with both its players busy in it (the same wave written again,
/// after an answer that came too late) is accepted again and changes nothing, so a
/// retried wave starts every game it wrote.
const PAIR: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'fenced'} end
redis.call('SET', KEYS[7], ARGV[2])
local before = redis.call('GET', KEYS[6]) or '0'
local out = {'ok', before, before}
local wrote = false
local i = 3
while i <= #ARGV do
  local game, w, b = ARGV[i], ARGV[i+1], ARGV[i+2]
  local again = redis.call('HGET', KEYS[5], game) == ARGV[i+5]
    and redis.call('HGET', KEYS[4], w) == game and redis.call('HGET', KEYS[4], b) == game
  local ok = not again
    and redis.call('HGET', KEYS[3], w) == 'active' and redis.call('HGET', KEYS[3], b) == 'active'
    and redis.call('HEXISTS', KEYS[4], w) == 0 and redis.call('HEXISTS', KEYS[4], b) == 0
    and redis.call('HEXISTS', KEYS[2], w) == 1 and redis.call('HEXISTS', KEYS[2], b) == 1
  if again then
    table.insert(out, game)
  elseif ok then
    redis.call('HSET', KEYS[4], w, game, b, game)
    redis.call('HSET', KEYS[5], game, ARGV[i+5])
    redis.call('HSET', KEYS[2], w, ARGV[i+3], b, ARGV[i+4])
    table.insert(out, game)
    wrote = true
  end
  i = i + 6
end
if wrote then out[3] = tostring(redis.call('INCR', KEYS[6])) end
return out
";

/// KEYS: lease p m busy g board ver. ARGV: token, then per game (8 each): game, late,
/// and per side: user, rec ('' = unchanged), board score. Scores many games in one
/// call (the games that ended since the last call): each game once, `dup` if it was
/// scored already; the change counter is bumped once if any was scored. Answers `ok`,
/// the change counter before and after, then `ok` or `dup` per game.
const SCORE: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'fenced'} end
local before = redis.call('GET', KEYS[7]) or '0'
local out = {'ok', before, before}
local scored = false
local g = 2
while g <= #ARGV do
  local game, late = ARGV[g], ARGV[g+1]
  if redis.call('HEXISTS', KEYS[5], game) == 0 then
    table.insert(out, 'dup')
  else
    redis.call('HDEL', KEYS[5], game)
    for i = g + 2, g + 5, 3 do
      local u = ARGV[i]
      if redis.call('HGET', KEYS[4], u) == game then redis.call('HDEL', KEYS[4], u) end
      if ARGV[i+1] ~= '' and redis.call('HEXISTS', KEYS[2], u) == 1 then
        redis.call('HSET', KEYS[2], u, ARGV[i+1])
        redis.call('ZADD', KEYS[6], ARGV[i+2], u)
      end
    end
    if late ~= '' and redis.call('HEXISTS', KEYS[2], late) == 1 then
      redis.call('HSET', KEYS[3], late, 'paused')
    end
    table.insert(out, 'ok')
    scored = true
  end
  g = g + 8
end
if scored then out[3] = tostring(redis.call('INCR', KEYS[7])) end
return out
";

/// KEYS: lease closed ver. ARGV: token. The arena takes no more players.
const CLOSE: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'fenced' end
redis.call('SET', KEYS[2], '1')
redis.call('INCR', KEYS[3])
return 'ok'
";

/// KEYS: lease, then every key to delete. ARGV: token.
const DROP: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'fenced' end
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
return 'ok'
";

/// The arenas' Redis state.
#[derive(Clone)]
pub struct ArenaStore {
    redis: Redis,
    max_players: usize,
    max_watchers: usize,
    page: usize,
}

fn membership(s: &str) -> Membership {
    match s {
        "active" => Membership::Active,
        "withdrawn" => Membership::Withdrawn,
        _ => Membership::Paused,
    }
}

fn store_err(e: RedisStoreError) -> ArenaError {
    tracing::warn!(error = %e, "arena state in redis unavailable");
    ArenaError::Unavailable
}

fn decode<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, RedisStoreError> {
    serde_json::from_str(s).map_err(RedisStoreError::decode)
}

fn encode<T: Serialize>(v: &T) -> String {
    // Plain data: serialising cannot fail.
    serde_json::to_string(v).unwrap_or_default()
}

impl ArenaStore {
    /// The store on `redis`: at most `max_players` players and `max_watchers` other
    /// watchers per arena, standings pages of `page` lines.
    pub fn new(redis: Redis, max_players: usize, max_watchers: usize, page: usize) -> ArenaStore {
        ArenaStore {
            redis,
            max_players,
            max_watchers,
            page,
        }
    }

    fn key(&self, id: &str, rest: &str) -> String {
        self.redis.key(&format!("o:{LEASE_KIND}:{id}"), rest)
    }

    fn index(&self) -> String {
        self.redis.key("arenas", "all")
    }

    /// Stores a new arena (unless one with its id exists: scheduled arenas are created
    /// by every node under the same id) and lists it. `true` if it is new.
    pub async fn create(&self, spec: &ArenaSpec) -> Result<bool, ArenaError> {
        let stored = StoredSpec {
            info: spec.info.clone(),
            password: spec.password.clone(),
        };
        let mut set = redis::cmd("SET");
        set.arg(self.key(&spec.info.id, "spec"))
            .arg(encode(&stored))
            .arg("NX");
        let created: Option<String> = self.redis.query(&set).await.map_err(store_err)?;
        let mut add = redis::cmd("ZADD");
        add.arg(self.index())
            .arg(spec.info.starts_at_ms)
            .arg(&spec.info.id);
        let _: i64 = self.redis.query(&add).await.map_err(store_err)?;
        Ok(created.is_some())
    }

    /// The ids in the index of live arenas.
    pub async fn ids(&self) -> Result<Vec<String>, RedisStoreError> {
        let mut cmd = redis::cmd("ZRANGE");
        cmd.arg(self.index()).arg(0).arg(-1);
        self.redis.query(&cmd).await
    }

    /// The spec (`None`: no such live arena).
    pub async fn spec(&self, id: &str) -> Result<Option<ArenaSpec>, RedisStoreError> {
        let mut get = redis::cmd("GET");
        get.arg(self.key(id, "spec"));
        let s: Option<String> = self.redis.query(&get).await?;
        s.map(|s| {
            decode::<StoredSpec>(&s).map(|st| ArenaSpec {
                info: st.info,
                password: st.password,
            })
        })
        .transpose()
    }

    /// The description now, with its status and number of players.
    pub async fn info(&self, id: &str) -> Result<ArenaInfo, ArenaError> {
        let spec = self
            .spec(id)
            .await
            .map_err(store_err)?
            .ok_or(ArenaError::NotFound)?;
        let mut info = spec.info;
        info.status = status_of(&info, wall_ms());
        info.players = self.hlen(id, "p").await.map_err(store_err)?;
        Ok(info)
    }

    async fn hlen(&self, id: &str, rest: &str) -> Result<u32, RedisStoreError> {
        let mut cmd = redis::cmd("HLEN");
        cmd.arg(self.key(id, rest));
        self.redis.query(&cmd).await
    }

    /// Forgets an arena from the index (archived, or its state is gone).
    pub async fn unlist(&self, id: &str) -> Result<(), RedisStoreError> {
        let mut cmd = redis::cmd("ZREM");
        cmd.arg(self.index()).arg(id);
        let _: i64 = self.redis.query(&cmd).await?;
        Ok(())
    }

    /// Joins (or resumes): conditions are checked here against the stored spec, the
    /// rest atomically in Redis.
    pub async fn join(&self, id: &str, req: JoinRequest) -> Result<Membership, ArenaError> {
        let spec = self
            .spec(id)
            .await
            .map_err(store_err)?
            .ok_or(ArenaError::NotFound)?;
        if status_of(&spec.info, wall_ms()) == ArenaStatus::Finished {
            return Err(ArenaError::Closed);
        }
        let user = req.user.id.clone();
        let known = {
            let mut cmd = redis::cmd("HEXISTS");
            cmd.arg(self.key(id, "p")).arg(&user.0);
            self.redis.query::<bool>(&cmd).await.map_err(store_err)?
        };
        if !known {
            super::check_conditions(&spec, &req)?;
        }
        let rec = PlayerRec {
            info: req.user,
            sheet: Sheet::default(),
            color_balance: 0,
            last_white: None,
        };
        let script = Script::new(JOIN);
        let mut inv = script.prepare_invoke();
        for k in ["spec", "p", "m", "board", "w", "ver", "closed", "v"] {
            inv.key(self.key(id, k));
        }
        inv.arg(&user.0)
            .arg(encode(&rec))
            .arg(self.max_players)
            .arg(board_key(&rec));
        let reply: String = self.redis.script(&inv).await.map_err(store_err)?;
        match reply.as_str() {
            "active" => Ok(Membership::Active),
            "closed" => Err(ArenaError::Closed),
            "toomany" => Err(ArenaError::TooMany),
            _ => Err(ArenaError::NotFound),
        }
    }

    /// Withdraws (gone if no game yet, else paused), or pauses.
    pub async fn leave(
        &self,
        id: &str,
        user: &UserId,
        pause: bool,
    ) -> Result<Membership, ArenaError> {
        let script = Script::new(LEAVE);
        let mut inv = script.prepare_invoke();
        for k in ["spec", "p", "m", "board", "busy", "ver"] {
            inv.key(self.key(id, k));
        }
        inv.arg(&user.0).arg(if pause { "1" } else { "0" });
        let reply: String = self.redis.script(&inv).await.map_err(store_err)?;
        match reply.as_str() {
            "withdrawn" => Ok(Membership::Withdrawn),
            "paused" => Ok(Membership::Paused),
            "notjoined" => Err(ArenaError::NotJoined),
            _ => Err(ArenaError::NotFound),
        }
    }

    /// Subscribes `user` to the arena's standings: a player always, anyone else while
    /// fewer than `max_watchers` others watch, on whichever node.
    pub async fn watch(&self, id: &str, user: &UserId) -> Result<ArenaStandings, ArenaError> {
        let script = Script::new(WATCH);
        let mut inv = script.prepare_invoke();
        for k in ["spec", "w", "v", "p"] {
            inv.key(self.key(id, k));
        }
        inv.arg(&user.0).arg(self.max_watchers);
        let reply: String = self.redis.script(&inv).await.map_err(store_err)?;
        match reply.as_str() {
            "ok" => self.standings(id, Some(user)).await,
            "full" => Err(ArenaError::WatchersFull),
            _ => Err(ArenaError::NotFound),
        }
    }

    /// Unsubscribes.
    pub async fn unwatch(&self, id: &str, user: &UserId) {
        let script = Script::new(UNWATCH);
        let mut inv = script.prepare_invoke();
        inv.key(self.key(id, "w"))
            .key(self.key(id, "v"))
            .arg(&user.0);
        if let Err(e) = self.redis.script::<String>(&inv).await {
            tracing::debug!(arena = id, error = %e, "cannot unwatch an arena");
        }
    }

    /// The watchers.
    pub async fn watchers(&self, id: &str) -> Result<Vec<UserId>, RedisStoreError> {
        let mut cmd = redis::cmd("SMEMBERS");
        cmd.arg(self.key(id, "w"));
        let w: Vec<String> = self.redis.query(&cmd).await?;
        Ok(w.into_iter().map(UserId).collect())
    }

    async fn hmget(
        &self,
        id: &str,
        rest: &str,
        users: &[String],
    ) -> Result<Vec<Option<String>>, RedisStoreError> {
        if users.is_empty() {
            return Ok(Vec::new());
        }
        let mut cmd = redis::cmd("HMGET");
        cmd.arg(self.key(id, rest)).arg(users);
        self.redis.query(&cmd).await
    }

    /// The standings from the board: its first page and `user`'s own line, read with a
    /// handful of queries whatever the number of players.
    pub async fn standings(
        &self,
        id: &str,
        user: Option<&UserId>,
    ) -> Result<ArenaStandings, ArenaError> {
        let info = self.info(id).await?;
        self.read_standings(&info, user).await.map_err(store_err)
    }

    async fn read_standings(
        &self,
        info: &ArenaInfo,
        user: Option<&UserId>,
    ) -> Result<ArenaStandings, RedisStoreError> {
        let id = info.id.as_str();
        let now = wall_ms();
        let mut range = redis::cmd("ZRANGE");
        range
            .arg(self.key(id, "board"))
            .arg(0)
            .arg(self.page.saturating_sub(1));
        let users: Vec<String> = self.redis.query(&range).await?;
        let recs = self.hmget(id, "p", &users).await?;
        let busy = self.hmget(id, "busy", &users).await?;
        let top: Vec<Standing> = users
            .iter()
            .zip(&recs)
            .enumerate()
            .filter_map(|(i, (u, r))| {
                let rec: PlayerRec = decode(r.as_deref()?).ok()?;
                Some(line(i as u32 + 1, u, &rec))
            })
            .collect();
        let featured = busy.into_iter().flatten().next().map(GameId);
        let mut me = None;
        if let Some(u) = user {
            let mut rank = redis::cmd("ZRANK");
            rank.arg(self.key(id, "board")).arg(&u.0);
            let pos: Option<u32> = self.redis.query(&rank).await?;
            let mine = self.hmget(id, "p", std::slice::from_ref(&u.0)).await?;
            let m = self.hmget(id, "m", std::slice::from_ref(&u.0)).await?;
            let g = self.hmget(id, "busy", std::slice::from_ref(&u.0)).await?;
            let mut next = redis::cmd("GET");
            next.arg(self.key(id, "next"));
            let next: Option<u64> = self.redis.query(&next).await?;
            if let (Some(pos), Some(Some(rec))) = (pos, mine.first()) {
                let rec: PlayerRec = decode(rec)?;
                let membership = m
                    .first()
                    .cloned()
                    .flatten()
                    .map_or(Membership::Paused, |s| membership(&s));
                let game_id = g.first().cloned().flatten().map(GameId);
                me = Some(me_line(
                    line(pos + 1, &u.0, &rec),
                    &rec,
                    membership,
                    game_id,
                    info.status,
                    next,
                ));
            }
        }
        Ok(ArenaStandings {
            arena_id: id.to_string(),
            // `finished` is told by the organiser once the standings are archived.
            status: match info.status {
                ArenaStatus::Finished => ArenaStatus::Running,
                s => s,
            },
            remaining_ms: remaining(info, now),
            players: info.players,
            playing: self.hlen(id, "busy").await?,
            top,
            me,
            featured,
        })
    }

    /// Everything, for the organiser.
    pub async fn load(&self, id: &str) -> Result<State, RedisStoreError> {
        let all = |rest: &str| {
            let mut cmd = redis::cmd("HGETALL");
            cmd.arg(self.key(id, rest));
            cmd
        };
        // The change counter first: a change made while the rest is read leaves the
        // counter ahead of what was read (the organiser reads again), never behind.
        let mut ver = redis::cmd("GET");
        ver.arg(self.key(id, "ver"));
        let ver: Option<u64> = self.redis.query(&ver).await?;
        let p: HashMap<String, String> = self.redis.query(&all("p")).await?;
        let m: HashMap<String, String> = self.redis.query(&all("m")).await?;
        let busy: HashMap<String, String> = self.redis.query(&all("busy")).await?;
        let g: HashMap<String, String> = self.redis.query(&all("g")).await?;
        let mut players = HashMap::with_capacity(p.len());
        for (u, rec) in p {
            players.insert(UserId(u), decode::<PlayerRec>(&rec)?);
        }
        let mut games = HashMap::with_capacity(g.len());
        for (game, pair) in g {
            let (w, b): (String, String) = decode(&pair)?;
            games.insert(GameId(game), (UserId(w), UserId(b)));
        }
        Ok(State {
            players,
            members: m
                .into_iter()
                .map(|(u, s)| (UserId(u), membership(&s)))
                .collect(),
            busy: busy
                .into_iter()
                .map(|(u, g)| (UserId(u), GameId(g)))
                .collect(),
            games,
            ver: ver.unwrap_or(0),
        })
    }

    /// The change counter.
    pub async fn ver(&self, id: &str) -> Result<u64, RedisStoreError> {
        let mut cmd = redis::cmd("GET");
        cmd.arg(self.key(id, "ver"));
        Ok(self.redis.query::<Option<u64>>(&cmd).await?.unwrap_or(0))
    }

    /// Writes a wave (fenced): returns the games whose pairs were still valid.
    pub async fn pair(
        &self,
        id: &str,
        lease: &Lease,
        next_wave_ms: u64,
        pairs: &[PairWrite],
    ) -> Result<Fenced<Vec<GameId>>, RedisStoreError> {
        Ok(
            match self.pair_counted(id, lease, next_wave_ms, pairs).await? {
                Fenced::Ok((_, games)) => Fenced::Ok(games),
                Fenced::Lost => Fenced::Lost,
            },
        )
    }

    /// [`Self::pair`], with the change counter around the write.
    pub async fn pair_counted(
        &self,
        id: &str,
        lease: &Lease,
        next_wave_ms: u64,
        pairs: &[PairWrite],
    ) -> Result<Fenced<(VerStep, Vec<GameId>)>, RedisStoreError> {
        let script = Script::new(PAIR);
        let mut inv = script.prepare_invoke();
        for k in ["lease", "p", "m", "busy", "g", "ver", "next"] {
            inv.key(self.key(id, k));
        }
        inv.arg(&lease.token).arg(next_wave_ms);
        for p in pairs {
            inv.arg(&p.game.0)
                .arg(&p.white.0.0)
                .arg(&p.black.0.0)
                .arg(encode(&p.white.1))
                .arg(encode(&p.black.1))
                .arg(encode(&(&p.white.0.0, &p.black.0.0)));
        }
        let reply: Vec<String> = self.redis.script(&inv).await?;
        Ok(match counted(reply) {
            Fenced::Ok((step, games)) => {
                Fenced::Ok((step, games.into_iter().map(GameId).collect()))
            }
            Fenced::Lost => Fenced::Lost,
        })
    }

    /// Scores a game (fenced; a game already scored is left alone: `Ok(false)`).
    pub async fn score(
        &self,
        id: &str,
        lease: &Lease,
        w: &ScoreWrite,
    ) -> Result<Fenced<bool>, RedisStoreError> {
        Ok(
            match self.score_many(id, lease, std::slice::from_ref(w)).await? {
                Fenced::Ok(scored) => Fenced::Ok(scored.first().copied().unwrap_or(false)),
                Fenced::Lost => Fenced::Lost,
            },
        )
    }

    /// Scores games in one call (fenced): for each, whether it was scored now (`false`:
    /// scored already, left alone). A player must not be in two of `writes` (each
    /// carries the player's whole record).
    pub async fn score_many(
        &self,
        id: &str,
        lease: &Lease,
        writes: &[ScoreWrite],
    ) -> Result<Fenced<Vec<bool>>, RedisStoreError> {
        Ok(match self.score_counted(id, lease, writes).await? {
            Fenced::Ok((_, scored)) => Fenced::Ok(scored),
            Fenced::Lost => Fenced::Lost,
        })
    }

    /// [`Self::score_many`], with the change counter around the write.
    pub async fn score_counted(
        &self,
        id: &str,
        lease: &Lease,
        writes: &[ScoreWrite],
    ) -> Result<Fenced<(VerStep, Vec<bool>)>, RedisStoreError> {
        let script = Script::new(SCORE);
        let mut inv = script.prepare_invoke();
        for k in ["lease", "p", "m", "busy", "g", "board", "ver"] {
            inv.key(self.key(id, k));
        }
        inv.arg(&lease.token);
        for w in writes {
            inv.arg(&w.game.0)
                .arg(w.late.as_ref().map_or("", |u| u.0.as_str()));
            for (user, rec) in &w.sides {
                inv.arg(&user.0)
                    .arg(rec.as_ref().map(encode).unwrap_or_default())
                    .arg(rec.as_ref().map_or(0.0, board_key));
            }
        }
        let reply: Vec<String> = self.redis.script(&inv).await?;
        Ok(match counted(reply) {
            Fenced::Ok((step, games)) => {
                Fenced::Ok((step, games.iter().map(|r| r == "ok").collect()))
            }
            Fenced::Lost => Fenced::Lost,
        })
    }

    /// Stops taking players (fenced).
    pub async fn close(&self, id: &str, lease: &Lease) -> Result<Fenced<()>, RedisStoreError> {
        let script = Script::new(CLOSE);
        let mut inv = script.prepare_invoke();
        for k in ["lease", "closed", "ver"] {
            inv.key(self.key(id, k));
        }
        inv.arg(&lease.token);
        let reply: String = self.redis.script(&inv).await?;
        Ok(if reply == "ok" {
            Fenced::Ok(())
        } else {
            Fenced::Lost
        })
    }

    /// Deletes the arena's state once archived (fenced), and unlists it.
    pub async fn drop_arena(&self, id: &str, lease: &Lease) -> Result<Fenced<()>, RedisStoreError> {
        let script = Script::new(DROP);
        let mut inv = script.prepare_invoke();
        inv.key(self.key(id, "lease"));
        for k in [
            "spec", "p", "m", "busy", "g", "board", "w", "v", "ver", "next", "closed",
        ] {
            inv.key(self.key(id, k));
        }
        inv.arg(&lease.token);
        let reply: String = self.redis.script(&inv).await?;
        if reply != "ok" {
            return Ok(Fenced::Lost);
        }
        self.unlist(id).await?;
        Ok(Fenced::Ok(()))
    }
}

/// The status at `now`.
pub fn status_of(info: &ArenaInfo, now: u64) -> ArenaStatus {
    if now < info.starts_at_ms {
        ArenaStatus::Upcoming
    } else if now < info.starts_at_ms + info.duration_ms {
        ArenaStatus::Running
    } else {
        ArenaStatus::Finished
    }
}

/// Time to the start (upcoming) or to the end.
pub fn remaining(info: &ArenaInfo, now: u64) -> u64 {
    match status_of(info, now) {
        ArenaStatus::Upcoming => info.starts_at_ms.saturating_sub(now),
        _ => (info.starts_at_ms + info.duration_ms).saturating_sub(now),
    }
}

/// One leaderboard line of a player at `rank`.
pub fn line(rank: u32, user: &str, rec: &PlayerRec) -> Standing {
    let sheet = &rec.sheet;
    Standing {
        rank,
        user: user.to_string(),
        name: rec.info.name.clone(),
        rating: rec.info.rating.unwrap_or(0),
        score: sheet.score(),
        performance: sheet.performance().unwrap_or(0),
        games: sheet.entries.len() as u32,
        fire: sheet.on_fire(),
        points: sheet.entries.iter().map(|e| e.points).collect(),
    }
}

/// A player's own part of the standings.
pub fn me_line(
    standing: Standing,
    rec: &PlayerRec,
    membership: Membership,
    game_id: Option<GameId>,
    status: ArenaStatus,
    next_wave_ms: Option<u64>,
) -> ArenaMe {
    let waiting =
        status == ArenaStatus::Running && game_id.is_none() && membership == Membership::Active;
    ArenaMe {
        standing,
        sheet: rec.sheet.entries.clone(),
        membership,
        game_id,
        next_wave_at_ms: next_wave_ms.filter(|_| waiting),
    }
}

#[cfg(test)]
mod tests {
    use shared::arena::{ArenaResult, GameFor, rank};
    use shared::protocol::UserInfo;

    use super::*;

    fn rec(user: &str, rating: u32, results: &[(ArenaResult, u32)]) -> PlayerRec {
        let mut sheet = Sheet::default();
        for (i, (r, opp)) in results.iter().enumerate() {
            sheet.add(GameFor {
                game_id: format!("{user}{i}"),
                opponent: "x".into(),
                opponent_rating: *opp,
                result: *r,
                berserk: false,
                own_moves: 10,
                plies: 20,
            });
        }
        PlayerRec {
            info: UserInfo {
                id: UserId(user.into()),
                name: user.into(),
                rating: Some(rating),
                guest: false,
                bot: false,
            },
            sheet,
            color_balance: 0,
            last_white: None,
        }
    }

    /// The board's order (by key, then user id) is `rank`'s order.
    #[test]
    fn board_key_orders_as_rank() {
        use ArenaResult::*;
        let recs = [
            rec("a", 1500, &[(Win, 1500), (Loss, 1600)]),
            rec("b", 1500, &[(Win, 1700), (Loss, 1600)]),
            rec("c", 1400, &[(Win, 1500), (Loss, 1600)]),
            rec("d", 1500, &[(Win, 1500), (Loss, 1600)]),
            rec("e", 2000, &[]),
            rec("f", 900, &[(Win, 1500), (Win, 1600), (Win, 100)]),
            rec("g", 900, &[(Draw, 1500), (Draw, 1600), (Loss, 3000)]),
            rec("h", 0, &[(Loss, 0)]),
        ];
        let ranked = rank(recs.iter().map(|r| {
            (
                r.info.id.0.as_str(),
                r.info.name.as_str(),
                r.info.rating.unwrap_or(0),
                &r.sheet,
            )
        }));
        let mut by_key: Vec<&PlayerRec> = recs.iter().collect();
        by_key.sort_by(|a, b| {
            board_key(a)
                .total_cmp(&board_key(b))
                .then(a.info.id.0.cmp(&b.info.id.0))
        });
        let keyed: Vec<&str> = by_key.iter().map(|r| r.info.id.0.as_str()).collect();
        let ranked: Vec<&str> = ranked.iter().map(|s| s.user.as_str()).collect();
        assert_eq!(keyed, ranked);
    }
}
