//! Configuration: the embedded defaults (`config/damka.toml`), an optional file, and
//! `DAMKA_*` environment overrides, merged in that order into one typed [`Config`].

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use shared::clock::LagPolicy;
use shared::protocol::{Speed, TimeControl};
use shared::rules::Variant;

/// The defaults, compiled in.
pub const DEFAULTS: &str = include_str!("../../config/damka.toml");

/// The environment variable prefix.
pub const ENV_PREFIX: &str = "DAMKA_";

/// The environment variable naming the config file (not itself a key).
pub const ENV_CONFIG_FILE: &str = "DAMKA_CONFIG";

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The TOML (file, defaults or an environment value) is malformed or has unknown or
    /// mistyped keys.
    #[error("bad configuration in {origin}: {message}")]
    Parse {
        /// Where: the file, `defaults` or `environment`.
        origin: String,
        /// What.
        message: String,
    },
    /// An environment variable names a key that does not exist.
    #[error("unknown configuration key in environment variable {0}")]
    UnknownEnvKey(String),
    /// A value is out of range.
    #[error("invalid configuration: {0}")]
    Invalid(String),
}

/// The whole configuration.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Address to listen on for HTTP and WebSocket.
    pub listen: SocketAddr,
    /// Simultaneous WebSocket connections; more are answered 503.
    pub max_connections: usize,
    /// This node's name in logs (and, with Redis, as owner of game leases); empty: the
    /// host name is not looked up, the node is simply unnamed.
    pub node_id: String,
    /// Redis, for the multi-node lobby, presence and game leases.
    pub redis: RedisConfig,
    /// Several nodes over Redis: leases, heartbeats, takeover, routing.
    pub cluster: ClusterConfig,
    /// Logging.
    pub log: LogConfig,
    /// WebSocket session limits.
    pub ws: WsConfig,
    /// Token checking and guest tokens.
    pub auth: AuthConfig,
    /// Seeks and pools.
    pub lobby: LobbyConfig,
    /// Live games.
    pub game: GameConfig,
    /// Shutdown.
    pub shutdown: ShutdownConfig,
    /// IDF competitions.
    pub tournaments: TournamentsConfig,
    /// The database: players, ratings, the game archive.
    pub database: DatabaseConfig,
    /// Accounts: registration, login, tokens.
    pub accounts: AccountsConfig,
    /// The HTTP API's request budgets.
    pub api: ApiConfig,
    /// Blitz arenas.
    pub arena: ArenaConfig,
    /// Playing the computer.
    pub computer: ComputerConfig,
    /// Chat rooms: limits and moderators.
    pub chat: ChatConfig,
}

/// Chat (`docs/protocol.md`, "Chat").
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatConfig {
    /// User ids that may delete lines and time users out.
    pub moderators: Vec<String>,
    /// Lines sent on joining a room.
    pub history: u32,
    /// Lines a user may say at once, on one node.
    pub burst: u32,
    /// Lines a user may say per minute sustained, on one node.
    pub per_minute: u32,
}

/// Playing the computer: the engines and their capacity on this node.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputerConfig {
    /// Engine searches run at once, each on a search thread of its own (`SCHED_IDLE`);
    /// more wait in a queue (`damka_computer_queue`). 0: one fewer than the machine's
    /// cores (at least one), so a core is always left to the live games.
    pub max_searches: usize,
    /// Games against the computer live on this node at once; more are refused `busy`.
    pub max_games: usize,
    /// The UCI engine for chess and Chess960 (e.g. Debian's Stockfish); empty or
    /// missing: the built-in fallback plays chess.
    pub uci_engine: String,
    /// An external Hub engine's command line (e.g. `/opt/scan/scan hub`), for the
    /// variants of `hub_variants`; empty: none.
    pub hub_engine: String,
    /// The draughts variants the Hub engine plays in place of damka's own engine.
    pub hub_variants: Vec<String>,
    /// Analyses waiting to run on this node; more are answered `busy`.
    pub analysis_queue: usize,
    /// Think time per ply of an analysis.
    pub analysis_ply_ms: u64,
    /// A user may ask for one analysis this often.
    pub analysis_interval_secs: u64,
    /// While other live games are on the node, a draughts search works at most this
    /// share of its time and pauses for the rest (0 < share <= 1; 1: never paced).
    pub live_share: f64,
}

/// Blitz arenas.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaConfig {
    /// Pause between two pairing waves of a running arena.
    pub wave_ms: u64,
    /// Standings are pushed to watchers at most this often (coalesced).
    pub standings_ms: u64,
    /// Lines in the standings page pushed to watchers.
    pub page_size: usize,
    /// Longest arena a player may create, in seconds.
    pub max_duration_secs: u64,
    /// Arenas live on this node at once.
    pub max_arenas: usize,
    /// Players in one arena.
    pub max_players: usize,
    /// Watchers of one arena who are not players.
    pub max_watchers: usize,
    /// Commands queued to one arena's actor.
    pub queue: usize,
    /// Recurring arenas.
    #[serde(default)]
    pub schedule: Vec<ScheduledArena>,
}

/// A recurring arena.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduledArena {
    /// Its name.
    pub name: String,
    /// The variant (`russian`, `international`...).
    pub variant: String,
    /// The clock (`3+2`).
    pub time_control: String,
    /// Rated.
    #[serde(default)]
    pub rated: bool,
    /// Berserk allowed.
    #[serde(default)]
    pub berserk: bool,
    /// Starts every this many minutes (60: hourly, 1440: daily), at multiples since
    /// the Unix epoch.
    pub every_mins: u64,
    /// Length in minutes.
    pub duration_mins: u64,
    /// Created this long before its start, so players can join.
    pub lead_secs: u64,
}

/// The database.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseConfig {
    /// `postgres://user@host:port/db` or `sqlite://path`; empty: `damka.sqlite` in
    /// [`Self::data_dir`].
    pub url: String,
    /// Where the embedded SQLite database lives when `url` is empty.
    pub data_dir: String,
    /// Connections in the pool (SQLite uses at most 4).
    pub max_connections: u32,
    /// How long a call waits for a connection.
    pub timeout_ms: u64,
    /// How long a finished game waits for its archive write before `game_over` is
    /// shown without rating changes (the write goes on being retried).
    pub archive_wait_ms: u64,
    /// The longest pause between two tries to archive a game while the database is
    /// down (the pause doubles from 250 ms up to this).
    pub retry_max_ms: u64,
}

impl DatabaseConfig {
    /// [`Self::timeout_ms`] as a duration.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// The HTTP API's request budgets: per bearer token, or per client address for a
/// request without one; over a budget a request is answered `429 rate_limited` with
/// `Retry-After`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiConfig {
    /// Requests per minute (moves aside), refilled evenly.
    pub requests_per_min: u32,
    /// Requests that may come at once before the rate applies.
    pub requests_burst: u32,
    /// Moves (`POST /api/{bot,board}/game/{id}/move/{move}`) per minute, a budget of
    /// their own so that a bot playing bullet on several boards is never limited.
    pub moves_per_min: u32,
    /// Moves that may come at once.
    pub moves_burst: u32,
}

/// Accounts.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccountsConfig {
    /// Registration open.
    pub registration: bool,
    /// Lifetime of the token a login returns.
    pub token_ttl_secs: u64,
    /// Login attempts allowed per user per minute (then `rate_limited`).
    pub login_per_user_per_min: u32,
    /// Login attempts allowed per client address per minute.
    pub login_per_address_per_min: u32,
    /// Registrations allowed per client address per hour.
    pub register_per_address_per_hour: u32,
    /// Take the client's address from `X-Forwarded-For` (only behind a proxy that sets it).
    pub trust_forwarded: bool,
}

/// Redis.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedisConfig {
    /// `redis://host:port/db`; empty: the embedded in-memory lobby and presence. With
    /// `cluster`, a comma-separated list of seed nodes.
    pub url: String,
    /// Talk to a Redis Cluster (slot-aware client) instead of one server.
    pub cluster: bool,
    /// Every key and channel starts with this (no braces: hash tags follow it).
    pub prefix: String,
    /// Any one Redis call taking longer than this counts as a failure.
    pub timeout_ms: u64,
}

impl RedisConfig {
    /// Is Redis configured?
    pub fn enabled(&self) -> bool {
        !self.url.trim().is_empty()
    }

    /// [`Self::timeout_ms`] as a duration.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }
}

/// Several nodes over Redis.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterConfig {
    /// Lifetime of a game's ownership lease; a dead owner's games are taken over after it.
    pub lease_ms: u64,
    /// How often an owner renews its leases.
    pub renew_ms: u64,
    /// How often a node looks for games whose lease expired.
    pub sweep_ms: u64,
    /// How often a node says it is alive (presence).
    pub heartbeat_ms: u64,
    /// A node silent this long is dead: its users are offline.
    pub node_ttl_ms: u64,
    /// How long a command for a game owned elsewhere may wait for its owner (including
    /// a takeover) before the client gets an error.
    pub command_timeout_ms: u64,
    /// How long a finished game's state and log stay in Redis.
    pub finished_ttl_secs: u64,
    /// Most messages the node sends to Redis in one pipeline (one round trip) on the
    /// pub/sub bus; 1 sends each in its own awaited round trip.
    pub publish_batch: usize,
    /// How often the live games' write-behind mirror writes what Redis took to the
    /// database (one transaction for every game); 0 turns the mirror off. A crash of
    /// every node at once loses at most the moves of about this interval.
    pub mirror_ms: u64,
}

/// Logging.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    /// A `tracing-subscriber` env filter, e.g. `info,damka=debug`. `RUST_LOG` wins if set.
    pub filter: String,
    /// One JSON object per line instead of human-readable text.
    pub json: bool,
}

/// WebSocket session limits.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WsConfig {
    /// Largest message (and frame) accepted; larger ones close the session with 1009.
    pub max_message_bytes: usize,
    /// Bytes a session reads from its socket at a time. Small keeps idle connections
    /// cheap (the library default is 128 KiB per connection); messages larger than it
    /// are still read whole, up to `max_message_bytes`.
    pub read_buffer_bytes: usize,
    /// Messages queued for one client; a client that lets it fill is disconnected.
    pub outgoing_queue: usize,
    /// Interval between WebSocket pings.
    pub ping_interval_ms: u64,
    /// A session that answers no ping for this long is closed.
    pub ping_timeout_ms: u64,
    /// Time allowed between the upgrade and `hello`.
    pub hello_timeout_ms: u64,
    /// Sustained messages per second allowed from a client.
    pub rate_per_sec: f64,
    /// Burst of messages allowed above the rate.
    pub rate_burst: f64,
}

impl WsConfig {
    /// [`Self::ping_interval_ms`] as a duration.
    pub fn ping_interval(&self) -> Duration {
        Duration::from_millis(self.ping_interval_ms)
    }

    /// [`Self::ping_timeout_ms`] as a duration.
    pub fn ping_timeout(&self) -> Duration {
        Duration::from_millis(self.ping_timeout_ms)
    }

    /// [`Self::hello_timeout_ms`] as a duration.
    pub fn hello_timeout(&self) -> Duration {
        Duration::from_millis(self.hello_timeout_ms)
    }
}

/// Token checking and guest tokens.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    /// `HS256`, `RS256` or `EdDSA`. Only this algorithm is accepted.
    pub algorithm: String,
    /// HS256 shared secret; empty means a random one per process (development only).
    pub secret: String,
    /// RS256/EdDSA: PEM file of the public key that verifies tokens.
    pub public_key_file: String,
    /// RS256/EdDSA: PEM file of the private key that signs guest tokens (optional).
    pub private_key_file: String,
    /// Required `iss` claim.
    pub issuer: String,
    /// Required `aud` claim.
    pub audience: String,
    /// Seconds of clock skew tolerated on `exp`.
    pub leeway_secs: u64,
    /// Serve `POST /api/auth/guest`.
    pub guest_enabled: bool,
    /// Lifetime of guest tokens.
    pub guest_ttl_secs: u64,
}

/// Seeks and quick-pairing pools.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LobbyConfig {
    /// The pools, each `"<variant> <minutes>+<increment>"`.
    pub pools: Vec<String>,
    /// Rating difference accepted at once in a pool.
    pub pool_window: u32,
    /// Rating points the window widens per second of waiting.
    pub pool_window_growth_per_sec: u32,
    /// The widest window.
    pub pool_window_max: u32,
    /// How often waiting pool entries are paired.
    pub pool_tick_ms: u64,
    /// The lobby feed is gathered at most this often while someone follows it; its
    /// changes reach subscribers coalesced to one push per period.
    pub feed_ms: u64,
    /// Live games the lobby feed shows.
    pub feed_games: usize,
    /// Open seeks one user may have.
    pub max_seeks_per_user: usize,
    /// Rating assumed for users without one (until the rating store exists).
    pub default_rating: u32,
}

impl LobbyConfig {
    /// The pools, parsed.
    pub fn parsed_pools(&self) -> Result<Vec<(Variant, TimeControl)>, ConfigError> {
        self.pools
            .iter()
            .map(|p| {
                let bad = || ConfigError::Invalid(format!("lobby.pools: bad pool `{p}`"));
                let (v, tc) = p.trim().split_once(' ').ok_or_else(bad)?;
                let variant: Variant = v.parse().map_err(|_| bad())?;
                let tc: TimeControl = tc.trim().parse().map_err(|e| {
                    ConfigError::Invalid(format!("lobby.pools: bad pool `{p}`: {e}"))
                })?;
                tc.fits(variant).map_err(|unfit| {
                    ConfigError::Invalid(format!("lobby.pools: `{p}`: {unfit}"))
                })?;
                Ok((variant, tc))
            })
            .collect()
    }
}

/// Live games.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameConfig {
    /// Seconds each player has for the first move of a game (White's from the start,
    /// Black's from White's first move) before the game is aborted; 0 = no limit.
    pub first_move_secs: u64,
    /// Bullet: seconds a player may be away before the opponent may claim.
    pub disconnect_bullet_secs: u64,
    /// Blitz: the same.
    pub disconnect_blitz_secs: u64,
    /// Rapid: the same.
    pub disconnect_rapid_secs: u64,
    /// Classical: the same.
    pub disconnect_classical_secs: u64,
    /// Lag compensation of `shared::clock`: `off`, `lichess` or `damka`.
    pub lag_policy: LagPolicy,
    /// A finished game stays reachable (rematch, late watchers) this long.
    pub linger_after_end_secs: u64,
    /// Commands queued for one game actor.
    pub actor_queue: usize,
    /// Events buffered per game for slow watchers before they are dropped.
    pub event_buffer: usize,
}

impl GameConfig {
    /// How long a player of a game at `speed` may be away before the opponent may claim.
    pub fn disconnect_timeout(&self, speed: Speed) -> Duration {
        Duration::from_secs(match speed {
            Speed::Bullet => self.disconnect_bullet_secs,
            Speed::Blitz => self.disconnect_blitz_secs,
            Speed::Rapid => self.disconnect_rapid_secs,
            Speed::Classical => self.disconnect_classical_secs,
        })
    }
}

/// IDF competitions (docs/tournaments.md).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentsConfig {
    /// Directory of ballot tables a tournament may name (IDF s.2 art. 2.7, 7.2.5: the
    /// operator puts the table in force here).
    pub ballot_dir: String,
    /// User ids allowed to create tournaments with `POST /api/tournaments`.
    pub organisers: Vec<String>,
}

/// Shutdown.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShutdownConfig {
    /// Seconds live games get to finish after a shutdown signal.
    pub grace_secs: u64,
}

impl Config {
    /// The embedded defaults alone.
    pub fn defaults() -> Config {
        match Self::from_value(
            parse_toml(DEFAULTS, "defaults").unwrap_or_default(),
            "defaults",
        ) {
            Ok(c) => c,
            // The defaults are tested; this only guards against an edit that breaks them.
            Err(e) => panic!("embedded defaults are invalid: {e}"),
        }
    }

    /// Defaults, then the file (if any), then `DAMKA_*` variables from `env`.
    pub fn load(
        file: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let mut value = parse_toml(DEFAULTS, "defaults")?;
        if let Some(path) = file {
            let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
                path: path.to_path_buf(),
                source,
            })?;
            merge(&mut value, parse_toml(&text, &path.display().to_string())?);
        }
        for (name, raw) in env {
            let Some(key) = name.strip_prefix(ENV_PREFIX) else {
                continue;
            };
            if name == ENV_CONFIG_FILE || key.is_empty() {
                continue;
            }
            let path: Vec<String> = key.split("__").map(str::to_ascii_lowercase).collect();
            if !has_key(&value, &path) {
                return Err(ConfigError::UnknownEnvKey(name));
            }
            set(&mut value, &path, env_value(&raw));
        }
        Self::from_value(value, "environment")
    }

    fn from_value(value: toml::Table, origin: &str) -> Result<Config, ConfigError> {
        let config: Config =
            toml::Value::Table(value)
                .try_into()
                .map_err(|e: toml::de::Error| ConfigError::Parse {
                    origin: origin.to_string(),
                    message: e.to_string(),
                })?;
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let invalid = |m: &str| Err(ConfigError::Invalid(m.to_string()));
        if self.max_connections == 0 {
            return invalid("max_connections must be at least 1");
        }
        if !(self.computer.live_share > 0.0 && self.computer.live_share <= 1.0) {
            return invalid("computer.live_share must be above 0 and at most 1");
        }
        if self.arena.wave_ms == 0 || self.arena.standings_ms == 0 || self.arena.queue == 0 {
            return invalid("arena.wave_ms, arena.standings_ms and arena.queue must be positive");
        }
        for e in &self.arena.schedule {
            if e.variant.parse::<shared::rules::Variant>().is_err()
                || e.time_control
                    .parse::<shared::protocol::TimeControl>()
                    .is_err()
                || e.every_mins == 0
                || e.duration_mins == 0
            {
                return invalid(&format!(
                    "arena.schedule `{}`: bad variant, clock or period",
                    e.name
                ));
            }
        }
        if self.chat.burst == 0 || self.chat.per_minute == 0 || self.chat.history == 0 {
            return invalid("chat.burst, chat.per_minute and chat.history must be positive");
        }
        if self.ws.outgoing_queue == 0 || self.ws.max_message_bytes < 256 {
            return invalid("ws.outgoing_queue must be >= 1 and ws.max_message_bytes >= 256");
        }
        if self.ws.read_buffer_bytes < 256 {
            return invalid("ws.read_buffer_bytes must be >= 256");
        }
        if self.ws.ping_interval_ms == 0 || self.ws.ping_timeout_ms < self.ws.ping_interval_ms {
            return invalid("ws.ping_timeout_ms must be >= ws.ping_interval_ms > 0");
        }
        if self.ws.rate_per_sec <= 0.0 || self.ws.rate_burst < 1.0 {
            return invalid("ws.rate_per_sec must be > 0 and ws.rate_burst >= 1");
        }
        if self.game.actor_queue == 0 || self.game.event_buffer == 0 {
            return invalid("game.actor_queue and game.event_buffer must be >= 1");
        }
        if self.lobby.feed_ms < 50 {
            return invalid("lobby.feed_ms must be >= 50");
        }
        if self.lobby.feed_games > 24 {
            return invalid("lobby.feed_games must be <= 24");
        }
        if self.lobby.pool_tick_ms == 0 {
            return invalid("lobby.pool_tick_ms must be >= 1");
        }
        self.lobby.parsed_pools()?;
        let d = &self.database;
        if d.max_connections == 0 || d.timeout_ms == 0 || d.retry_max_ms < 250 {
            return invalid(
                "database.max_connections and database.timeout_ms must be >= 1; database.retry_max_ms >= 250",
            );
        }
        let a = &self.accounts;
        if a.token_ttl_secs == 0
            || a.login_per_user_per_min == 0
            || a.login_per_address_per_min == 0
            || a.register_per_address_per_hour == 0
        {
            return invalid("accounts: the token lifetime and every rate limit must be >= 1");
        }
        let api = &self.api;
        if [
            api.requests_per_min,
            api.requests_burst,
            api.moves_per_min,
            api.moves_burst,
        ]
        .contains(&0)
        {
            return invalid("api: every request budget must be >= 1");
        }
        if self.redis.prefix.contains(['{', '}']) || self.redis.timeout_ms == 0 {
            return invalid("redis.prefix must not contain braces; redis.timeout_ms must be >= 1");
        }
        let c = &self.cluster;
        if c.renew_ms == 0 || c.renew_ms * 2 > c.lease_ms {
            return invalid("cluster.renew_ms must be >= 1 and at most half of cluster.lease_ms");
        }
        if c.sweep_ms == 0 || c.heartbeat_ms == 0 || c.heartbeat_ms * 2 > c.node_ttl_ms {
            return invalid(
                "cluster.sweep_ms must be >= 1; cluster.heartbeat_ms >= 1 and at most half of cluster.node_ttl_ms",
            );
        }
        Ok(())
    }
}

fn parse_toml(text: &str, origin: &str) -> Result<toml::Table, ConfigError> {
    text.parse::<toml::Table>().map_err(|e| ConfigError::Parse {
        origin: origin.to_string(),
        message: e.to_string(),
    })
}

/// An environment value: a TOML value if it reads as one (number, bool, array), else a
/// plain string.
fn env_value(raw: &str) -> toml::Value {
    format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

fn has_key(table: &toml::Table, path: &[String]) -> bool {
    match path {
        [] => false,
        [last] => table.contains_key(last),
        [first, rest @ ..] => {
            matches!(table.get(first), Some(toml::Value::Table(t)) if has_key(t, rest))
        }
    }
}

fn set(table: &mut toml::Table, path: &[String], value: toml::Value) {
    match path {
        [] => {}
        [last] => {
            // A string-typed key keeps the raw text even when it reads as a number.
            let value = match (table.get(last), value) {
                (Some(toml::Value::String(_)), v) if !v.is_str() => {
                    toml::Value::String(v.to_string())
                }
                (_, v) => v,
            };
            table.insert(last.clone(), value);
        }
        [first, rest @ ..] => {
            if let Some(toml::Value::Table(t)) = table.get_mut(first) {
                set(t, rest, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_take_either_time_control_form_and_refuse_delay_for_draughts() {
        let mut lobby = Config::defaults().lobby;
        lobby.pools = vec![
            "russian 3+2".into(),
            r#"chess {"periods": [{"time_ms": 300000, "delay_ms": 3000}]}"#.into(),
        ];
        let pools = lobby.parsed_pools().expect("valid pools");
        assert!(pools[1].1.has_delay());
        lobby.pools =
            vec![r#"russian {"periods": [{"time_ms": 300000, "delay_ms": 3000}]}"#.into()];
        let err = lobby.parsed_pools().unwrap_err().to_string();
        assert!(err.contains("FIDE 6.2"), "{err}");
        lobby.pools = vec!["chess 0.00001+0".into()];
        let err = lobby.parsed_pools().unwrap_err().to_string();
        assert!(err.contains("does not round"), "{err}");
    }

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_load() {
        let c = Config::defaults();
        assert_eq!(c.listen.port(), 8080);
        assert!(c.lobby.parsed_pools().unwrap().len() > 5);
    }

    #[test]
    fn environment_overrides() {
        let c = Config::load(
            None,
            env(&[
                ("DAMKA_LISTEN", "127.0.0.1:0"),
                ("DAMKA_WS__PING_INTERVAL_MS", "500"),
                ("DAMKA_AUTH__SECRET", "12345"),
                ("DAMKA_LOG__JSON", "true"),
                ("DAMKA_LOBBY__POOLS", r#"["russian 3+2"]"#),
                ("OTHER", "x"),
            ]),
        )
        .unwrap();
        assert_eq!(c.listen.port(), 0);
        assert_eq!(c.ws.ping_interval_ms, 500);
        assert_eq!(c.auth.secret, "12345");
        assert!(c.log.json);
        assert_eq!(c.lobby.pools, vec!["russian 3+2"]);
    }

    /// Every key of the defaults appears in the operations guide.
    #[test]
    fn every_key_is_documented() {
        let doc = include_str!("../../docs/operations.md");
        let defaults: toml::Table = DEFAULTS.parse().unwrap();
        let mut missing = Vec::new();
        for (key, value) in &defaults {
            match value {
                toml::Value::Table(t) => {
                    for sub in t.keys() {
                        let name = format!("`{key}.{sub}`");
                        if !doc.contains(&name) {
                            missing.push(name);
                        }
                    }
                }
                _ if !doc.contains(&format!("`{key}`")) => missing.push(key.clone()),
                _ => {}
            }
        }
        assert!(missing.is_empty(), "undocumented keys: {missing:?}");
    }

    #[test]
    fn unknown_and_bad_keys_are_refused() {
        assert!(matches!(
            Config::load(None, env(&[("DAMKA_LISTN", "x")])),
            Err(ConfigError::UnknownEnvKey(_))
        ));
        assert!(Config::load(None, env(&[("DAMKA_WS__PING_INTERVAL_MS", "soon")])).is_err());
        assert!(Config::load(None, env(&[("DAMKA_LOBBY__POOLS", r#"["go 3+2"]"#)])).is_err());
        let dir = std::env::temp_dir().join(format!("damka-cfg-{}", std::process::id()));
        std::fs::write(&dir, "[ws]\nmax_mesage_bytes = 5\n").unwrap();
        assert!(matches!(
            Config::load(Some(&dir), env(&[])),
            Err(ConfigError::Parse { .. })
        ));
        let _ = std::fs::remove_file(dir);
    }
}
