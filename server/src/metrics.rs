//! Metrics: the counters, gauges and histograms the server keeps, exposed at
//! `GET /metrics` in the OpenMetrics text format by the Prometheus project's own
//! client library (`prometheus-client`). Each metric is an atomic handle shared by
//! the tasks that update it; a scrape registers the handles in a registry and encodes
//! it.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::histogram::Histogram as Buckets;
use prometheus_client::registry::Registry;

/// A counter that only goes up (`inc`, `inc_by`, `get`); exposed with `_total`.
pub type Counter = prometheus_client::metrics::counter::Counter;

/// A value that goes up and down (`inc`, `dec`, `inc_by`, `get`).
pub type Gauge = prometheus_client::metrics::gauge::Gauge;

/// Upper bounds of the histograms' buckets (ping lag, arena waves), in milliseconds.
pub const LAG_BUCKETS_MS: [u64; 10] = [5, 10, 25, 50, 100, 200, 400, 800, 1600, 5000];

/// A histogram of milliseconds over [`LAG_BUCKETS_MS`].
#[derive(Debug, Clone)]
pub struct Histogram(Buckets);

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram(Buckets::new(LAG_BUCKETS_MS.iter().map(|&b| b as f64)))
    }
}

impl Histogram {
    /// Records one observation in milliseconds.
    pub fn observe(&self, ms: u64) {
        self.0.observe(ms as f64);
    }
}

/// Upper bounds of the live-game store's histograms, in microseconds: on a node
/// without Redis a commit takes tens of microseconds and a move's wait for it hundreds
/// (`docs/performance.md`, "The SQLite commit's share of a move").
pub const STORE_BUCKETS_US: [u64; 10] = [25, 50, 100, 250, 500, 1000, 2500, 5000, 25_000, 100_000];

/// A histogram of microseconds over [`STORE_BUCKETS_US`].
#[derive(Debug, Clone)]
pub struct Micros(Buckets);

impl Default for Micros {
    fn default() -> Micros {
        Micros(Buckets::new(STORE_BUCKETS_US.iter().map(|&b| b as f64)))
    }
}

impl Micros {
    /// Records one observation.
    pub fn observe(&self, took: std::time::Duration) {
        self.0.observe(took.as_secs_f64() * 1e6);
    }
}

/// Every metric the server keeps.
#[derive(Debug, Default)]
pub struct Metrics {
    /// WebSocket sessions open now.
    pub connections_open: Gauge,
    /// Streams of the HTTP API (lichess's event, game and seek streams) open now.
    pub api_streams_open: Gauge,
    /// WebSocket sessions ever accepted.
    pub connections_total: Counter,
    /// Upgrades refused because the connection limit was reached.
    pub connections_rejected: Counter,
    /// Tokens refused at upgrade or on `auth`.
    pub auth_failures: Counter,
    /// Client messages received.
    pub messages_in: Counter,
    /// Server messages queued.
    pub messages_out: Counter,
    /// Writes to client sockets: each flushes every frame queued when it began.
    pub socket_writes: Counter,
    /// Client messages answered with an error.
    pub client_errors: Counter,
    /// Sessions closed for flooding.
    pub rate_limited: Counter,
    /// Sessions closed because their outgoing queue filled.
    pub slow_consumers: Counter,
    /// Sessions closed for not answering pings.
    pub ping_timeouts: Counter,
    /// Sessions closed for an oversized message.
    pub oversized: Counter,
    /// Games started.
    pub games_started: Counter,
    /// Games finished (any result, aborts included).
    pub games_finished: Counter,
    /// Game actors alive now.
    pub games_live: Gauge,
    /// Finished games held without an actor now, for rematches and late watchers.
    pub games_held_finished: Gauge,
    /// Moves played.
    pub moves: Counter,
    /// Flags that fell by the server's own timer.
    pub flags: Counter,
    /// WebSocket ping round trips, milliseconds.
    pub lag_ms: Histogram,
    /// Arena pairing waves: pairing the waiting players and starting their games,
    /// milliseconds per wave.
    pub arena_wave_ms: Histogram,
    /// A new game's creation until its first write to Redis is done and the game is
    /// announced to the other nodes (owner node), milliseconds.
    pub game_announce_ms: Histogram,
    /// A game's creation on another node until this node reads its start notice.
    pub game_notice_ms: Histogram,
    /// A game's creation on another node until this node has its proxy (found in
    /// Redis, its events subscribed).
    pub game_found_ms: Histogram,
    /// A player's session joining a game of its own that started: the join (through
    /// the proxy, a call to the owner node when remote) until `game_start` is queued.
    pub game_join_ms: Histogram,
    /// An arena organiser scoring one ended game (the fenced `SCORE`).
    pub arena_score_ms: Histogram,
    /// An arena organiser's standings push (reading the state, ranking, sending).
    pub arena_push_ms: Histogram,
    /// A standings notice from another node: sent until handed to this node's sessions.
    pub standings_notice_ms: Histogram,
    /// Engine searches (computer moves, draw answers) waiting for a search thread.
    pub computer_queue: Gauge,
    /// Engine searches run.
    pub computer_searches: Counter,
    /// Chess moves the external UCI engine chose (the rest: the built-in search).
    pub computer_uci_moves: Counter,
    /// Draughts moves an external Hub engine chose.
    pub computer_hub_moves: Counter,
    /// Games against the computer live on this node.
    pub computer_games: Gauge,
    /// `computer_play` refused because the node's computer players were all busy.
    pub computer_busy: Counter,
    /// Computer games this node's players asked for that another node holds, this
    /// node's computer players being all busy.
    pub computer_placed_elsewhere: Counter,
    /// Redis calls that failed or timed out.
    pub redis_errors: Counter,
    /// Game leases this node acquired (new games, takeovers, re-acquisitions).
    pub leases_acquired: Counter,
    /// Game leases this node lost to another node (fenced writes, failed renewals).
    pub leases_lost: Counter,
    /// Games this node took over from a dead owner.
    pub takeovers: Counter,
    /// Games this node put back into an emptied Redis from the database's mirror.
    pub mirror_restored: Counter,
    /// A node without Redis: a live game's write (a move's, a start's, an archived
    /// game forgotten), handed to the store until its group is committed: what a move
    /// waits before anyone is shown it, microseconds.
    pub live_write_us: Micros,
    /// A node without Redis: one group commit's transaction alone, microseconds.
    pub live_commit_us: Micros,
    /// Group commits of the live-game mirror the database refused (kept, tried again).
    pub mirror_failures: Counter,
    /// Commands sent to games owned by another node.
    pub remote_commands: Counter,
    /// Commands to remote games that got no answer in time.
    pub remote_timeouts: Counter,
    /// Messages that found a full bounded queue on the cluster path (the bus's
    /// publish queue, a channel's handler, a proxy's or a served game's command
    /// queue) and were dropped or had to wait.
    pub cluster_queue_full: Counter,
    /// Players of a game started on another node shown `game_start` by this node from
    /// the start notice, their join to the owner made behind it.
    pub game_start_ahead: Counter,
    /// Players of a game started on this node shown the `game_start` its actor made
    /// as it announced the start, with no join.
    pub game_start_direct: Counter,
    /// Finished games written to the archive by this node.
    pub games_archived: Counter,
    /// Archive writes that failed and were tried again later.
    pub archive_retries: Counter,
    /// Finished games waiting for the database.
    pub archive_pending: Gauge,
    /// Messages waiting to be published to Redis, plus games whose state waits to be
    /// written (Redis unreachable).
    pub redis_queue: Gauge,
}

impl Metrics {
    /// The OpenMetrics text exposition of every metric.
    pub fn render(&self) -> String {
        let mut r = Registry::default();
        r.register(
            "damka_computer_hub_moves",
            "Draughts moves chosen by the external Hub engine",
            self.computer_hub_moves.clone(),
        );
        r.register(
            "damka_computer_uci_moves",
            "Chess moves chosen by the external UCI engine",
            self.computer_uci_moves.clone(),
        );
        r.register(
            "damka_computer_searches",
            "Engine searches run",
            self.computer_searches.clone(),
        );
        r.register(
            "damka_computer_busy",
            "Computer games refused as busy",
            self.computer_busy.clone(),
        );
        r.register(
            "damka_computer_placed_elsewhere",
            "Computer games started on another node, this node's being all busy",
            self.computer_placed_elsewhere.clone(),
        );
        r.register(
            "damka_cluster_queue_full",
            "Messages that found a bounded cluster queue full (dropped or delayed)",
            self.cluster_queue_full.clone(),
        );
        r.register(
            "damka_game_start_ahead",
            "Players shown game_start from another node's start notice, joined behind it",
            self.game_start_ahead.clone(),
        );
        r.register(
            "damka_game_start_direct",
            "Players shown the game_start their game's actor made, with no join",
            self.game_start_direct.clone(),
        );
        r.register(
            "damka_connections",
            "WebSocket sessions accepted",
            self.connections_total.clone(),
        );
        r.register(
            "damka_connections_rejected",
            "Upgrades refused at the connection limit",
            self.connections_rejected.clone(),
        );
        r.register(
            "damka_auth_failures",
            "Tokens refused",
            self.auth_failures.clone(),
        );
        r.register(
            "damka_messages_in",
            "Client messages received",
            self.messages_in.clone(),
        );
        r.register(
            "damka_messages_out",
            "Server messages queued",
            self.messages_out.clone(),
        );
        r.register(
            "damka_socket_writes",
            "Writes to client sockets (each flushes every frame then queued)",
            self.socket_writes.clone(),
        );
        r.register(
            "damka_client_errors",
            "Client messages answered with an error",
            self.client_errors.clone(),
        );
        r.register(
            "damka_rate_limited",
            "Sessions closed for flooding",
            self.rate_limited.clone(),
        );
        r.register(
            "damka_slow_consumers",
            "Sessions closed with a full outgoing queue",
            self.slow_consumers.clone(),
        );
        r.register(
            "damka_ping_timeouts",
            "Sessions closed for unanswered pings",
            self.ping_timeouts.clone(),
        );
        r.register(
            "damka_oversized_messages",
            "Sessions closed for an oversized message",
            self.oversized.clone(),
        );
        r.register(
            "damka_games_started",
            "Games started",
            self.games_started.clone(),
        );
        r.register(
            "damka_games_finished",
            "Games finished",
            self.games_finished.clone(),
        );
        r.register("damka_moves", "Moves played", self.moves.clone());
        r.register(
            "damka_flags",
            "Flags fallen by the server timer",
            self.flags.clone(),
        );
        r.register(
            "damka_redis_errors",
            "Redis calls failed or timed out",
            self.redis_errors.clone(),
        );
        r.register(
            "damka_leases_acquired",
            "Game leases acquired",
            self.leases_acquired.clone(),
        );
        r.register(
            "damka_leases_lost",
            "Game leases lost to another node",
            self.leases_lost.clone(),
        );
        r.register(
            "damka_takeovers",
            "Games taken over from a dead node",
            self.takeovers.clone(),
        );
        r.register(
            "damka_mirror_restored",
            "Games put back into an emptied Redis from the database's mirror",
            self.mirror_restored.clone(),
        );
        r.register(
            "damka_mirror_failures",
            "Live-game mirror writes the database refused (kept and tried again)",
            self.mirror_failures.clone(),
        );
        r.register(
            "damka_remote_commands",
            "Commands sent to games owned by another node",
            self.remote_commands.clone(),
        );
        r.register(
            "damka_remote_timeouts",
            "Commands to remote games unanswered in time",
            self.remote_timeouts.clone(),
        );
        r.register(
            "damka_games_archived",
            "Finished games written to the archive",
            self.games_archived.clone(),
        );
        r.register(
            "damka_archive_retries",
            "Archive writes that failed and were retried",
            self.archive_retries.clone(),
        );
        r.register(
            "damka_computer_queue",
            "Engine searches waiting for a search thread",
            self.computer_queue.clone(),
        );
        r.register(
            "damka_computer_games",
            "Games against the computer live on this node",
            self.computer_games.clone(),
        );
        r.register(
            "damka_connections_open",
            "WebSocket sessions open",
            self.connections_open.clone(),
        );
        r.register(
            "damka_api_streams_open",
            "HTTP API streams (event, game, seek) open",
            self.api_streams_open.clone(),
        );
        r.register(
            "damka_games_live",
            "Game actors alive",
            self.games_live.clone(),
        );
        r.register(
            "damka_games_held_finished",
            "Finished games held without an actor, for rematches and late watchers",
            self.games_held_finished.clone(),
        );
        r.register(
            "damka_redis_queue_depth",
            "Publications and game writes waiting for Redis",
            self.redis_queue.clone(),
        );
        r.register(
            "damka_archive_pending",
            "Finished games waiting for the database",
            self.archive_pending.clone(),
        );
        r.register(
            "damka_ws_lag_milliseconds",
            "WebSocket ping round trip",
            self.lag_ms.0.clone(),
        );
        r.register(
            "damka_arena_wave_milliseconds",
            "Arena pairing waves: pairing the waiting players and starting their games",
            self.arena_wave_ms.0.clone(),
        );
        r.register(
            "damka_game_announce_milliseconds",
            "A new game's creation until its first Redis write and its announcement",
            self.game_announce_ms.0.clone(),
        );
        r.register(
            "damka_game_notice_milliseconds",
            "A game's creation on another node until this node reads its start notice",
            self.game_notice_ms.0.clone(),
        );
        r.register(
            "damka_game_found_milliseconds",
            "A game's creation on another node until this node has its proxy",
            self.game_found_ms.0.clone(),
        );
        r.register(
            "damka_game_join_milliseconds",
            "A session joining its own new game until game_start is queued",
            self.game_join_ms.0.clone(),
        );
        r.register(
            "damka_arena_score_milliseconds",
            "An arena organiser scoring one ended game",
            self.arena_score_ms.0.clone(),
        );
        r.register(
            "damka_arena_push_milliseconds",
            "An arena organiser's standings push",
            self.arena_push_ms.0.clone(),
        );
        r.register(
            "damka_live_write_microseconds",
            "A live game's write handed to the store until its group is committed (no Redis)",
            self.live_write_us.0.clone(),
        );
        r.register(
            "damka_live_commit_microseconds",
            "One group commit of live games' writes (no Redis)",
            self.live_commit_us.0.clone(),
        );
        r.register(
            "damka_standings_notice_milliseconds",
            "A standings notice from another node: sent until handed to the sessions",
            self.standings_notice_ms.0.clone(),
        );
        let mut out = String::with_capacity(8192);
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &r);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_openmetrics_text() {
        let m = Metrics::default();
        m.connections_total.inc();
        m.connections_open.inc();
        m.redis_queue.inc_by(3);
        m.redis_queue.inc_by(-1);
        m.lag_ms.observe(30);
        m.lag_ms.observe(9000);
        let text = m.render();
        assert!(text.contains("damka_connections_total 1\n"), "{text}");
        assert!(
            text.contains("# TYPE damka_connections counter\n"),
            "{text}"
        );
        assert!(text.contains("damka_connections_open 1\n"), "{text}");
        assert!(text.contains("damka_redis_queue_depth 2\n"), "{text}");
        assert!(
            text.contains("damka_ws_lag_milliseconds_bucket{le=\"50.0\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("damka_ws_lag_milliseconds_bucket{le=\"+Inf\"} 2\n"),
            "{text}"
        );
        assert!(
            text.contains("damka_ws_lag_milliseconds_sum 9030.0\n"),
            "{text}"
        );
        assert!(text.ends_with("# EOF\n"), "{text}");
        m.arena_wave_ms.observe(3);
        let text = m.render();
        assert!(
            text.contains("damka_arena_wave_milliseconds_bucket{le=\"5.0\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("damka_arena_wave_milliseconds_count 1\n"),
            "{text}"
        );
    }
}
