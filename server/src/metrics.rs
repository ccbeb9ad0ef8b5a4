//! Metrics: a handful of counters, gauges and two histograms kept in atomics, rendered
//! as Prometheus text at `GET /metrics`. Hand-written because the set is small and
//! fixed; no registry, no labels beyond what the names say.

use std::fmt::Write;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// A counter that only goes up.
#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    /// Adds one.
    pub fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    /// Adds `n`.
    pub fn inc_by(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    /// The value.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A value that goes up and down.
#[derive(Debug, Default)]
pub struct Gauge(AtomicI64);

impl Gauge {
    /// Adds one.
    pub fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    /// Takes one.
    pub fn dec(&self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }

    /// Adds `n` (negative to take).
    pub fn add(&self, n: i64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    /// The value.
    pub fn get(&self) -> i64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Upper bounds of the histograms' buckets (ping lag, arena waves), in milliseconds.
pub const LAG_BUCKETS_MS: [u64; 10] = [5, 10, 25, 50, 100, 200, 400, 800, 1600, 5000];

/// A histogram with fixed buckets (cumulative when rendered).
#[derive(Debug, Default)]
pub struct Histogram {
    buckets: [AtomicU64; LAG_BUCKETS_MS.len()],
    count: AtomicU64,
    sum: AtomicU64,
}

impl Histogram {
    /// Records one observation in milliseconds.
    pub fn observe(&self, ms: u64) {
        if let Some(i) = LAG_BUCKETS_MS.iter().position(|&b| ms <= b) {
            self.buckets[i].fetch_add(1, Ordering::Relaxed);
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum.fetch_add(ms, Ordering::Relaxed);
    }

    /// Appends the histogram in the exposition format, buckets cumulative.
    fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let mut cumulative = 0;
        for (bound, bucket) in LAG_BUCKETS_MS.iter().zip(&self.buckets) {
            cumulative += bucket.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {cumulative}");
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let _ = writeln!(out, "{name}_sum {}", self.sum.load(Ordering::Relaxed));
        let _ = writeln!(out, "{name}_count {count}");
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
    /// Commands sent to games owned by another node.
    pub remote_commands: Counter,
    /// Commands to remote games that got no answer in time.
    pub remote_timeouts: Counter,
    /// Messages that found a full bounded queue on the cluster path (the bus's
    /// publish queue, a channel's handler, a proxy's or a served game's command
    /// queue) and were dropped or had to wait.
    pub cluster_queue_full: Counter,
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
    /// Prometheus text exposition format, version 0.0.4.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(4096);
        let counters: [(&str, &str, &Counter); 29] = [
            (
                "damka_computer_hub_moves_total",
                "Draughts moves chosen by the external Hub engine.",
                &self.computer_hub_moves,
            ),
            (
                "damka_computer_uci_moves_total",
                "Chess moves chosen by the external UCI engine.",
                &self.computer_uci_moves,
            ),
            (
                "damka_computer_searches_total",
                "Engine searches run.",
                &self.computer_searches,
            ),
            (
                "damka_computer_busy_total",
                "Computer games refused as busy.",
                &self.computer_busy,
            ),
            (
                "damka_computer_placed_elsewhere_total",
                "Computer games started on another node, this node's being all busy.",
                &self.computer_placed_elsewhere,
            ),
            (
                "damka_cluster_queue_full_total",
                "Messages that found a bounded cluster queue full (dropped or delayed).",
                &self.cluster_queue_full,
            ),
            (
                "damka_connections_total",
                "WebSocket sessions accepted.",
                &self.connections_total,
            ),
            (
                "damka_connections_rejected_total",
                "Upgrades refused at the connection limit.",
                &self.connections_rejected,
            ),
            (
                "damka_auth_failures_total",
                "Tokens refused.",
                &self.auth_failures,
            ),
            (
                "damka_messages_in_total",
                "Client messages received.",
                &self.messages_in,
            ),
            (
                "damka_messages_out_total",
                "Server messages queued.",
                &self.messages_out,
            ),
            (
                "damka_socket_writes_total",
                "Writes to client sockets (each flushes every frame then queued).",
                &self.socket_writes,
            ),
            (
                "damka_client_errors_total",
                "Client messages answered with an error.",
                &self.client_errors,
            ),
            (
                "damka_rate_limited_total",
                "Sessions closed for flooding.",
                &self.rate_limited,
            ),
            (
                "damka_slow_consumers_total",
                "Sessions closed with a full outgoing queue.",
                &self.slow_consumers,
            ),
            (
                "damka_ping_timeouts_total",
                "Sessions closed for unanswered pings.",
                &self.ping_timeouts,
            ),
            (
                "damka_oversized_messages_total",
                "Sessions closed for an oversized message.",
                &self.oversized,
            ),
            (
                "damka_games_started_total",
                "Games started.",
                &self.games_started,
            ),
            (
                "damka_games_finished_total",
                "Games finished.",
                &self.games_finished,
            ),
            ("damka_moves_total", "Moves played.", &self.moves),
            (
                "damka_flags_total",
                "Flags fallen by the server timer.",
                &self.flags,
            ),
            (
                "damka_redis_errors_total",
                "Redis calls failed or timed out.",
                &self.redis_errors,
            ),
            (
                "damka_leases_acquired_total",
                "Game leases acquired.",
                &self.leases_acquired,
            ),
            (
                "damka_leases_lost_total",
                "Game leases lost to another node.",
                &self.leases_lost,
            ),
            (
                "damka_takeovers_total",
                "Games taken over from a dead node.",
                &self.takeovers,
            ),
            (
                "damka_remote_commands_total",
                "Commands sent to games owned by another node.",
                &self.remote_commands,
            ),
            (
                "damka_remote_timeouts_total",
                "Commands to remote games unanswered in time.",
                &self.remote_timeouts,
            ),
            (
                "damka_games_archived_total",
                "Finished games written to the archive.",
                &self.games_archived,
            ),
            (
                "damka_archive_retries_total",
                "Archive writes that failed and were retried.",
                &self.archive_retries,
            ),
        ];
        for (name, help, c) in counters {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {}",
                c.get()
            );
        }
        let gauges: [(&str, &str, &Gauge); 7] = [
            (
                "damka_computer_queue",
                "Engine searches waiting for a search thread.",
                &self.computer_queue,
            ),
            (
                "damka_computer_games",
                "Games against the computer live on this node.",
                &self.computer_games,
            ),
            (
                "damka_connections_open",
                "WebSocket sessions open.",
                &self.connections_open,
            ),
            (
                "damka_api_streams_open",
                "HTTP API streams (event, game, seek) open.",
                &self.api_streams_open,
            ),
            ("damka_games_live", "Game actors alive.", &self.games_live),
            (
                "damka_redis_queue_depth",
                "Publications and game writes waiting for Redis.",
                &self.redis_queue,
            ),
            (
                "damka_archive_pending",
                "Finished games waiting for the database.",
                &self.archive_pending,
            ),
        ];
        for (name, help, g) in gauges {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {}",
                g.get()
            );
        }
        self.lag_ms.render(
            &mut out,
            "damka_ws_lag_milliseconds",
            "WebSocket ping round trip.",
        );
        self.arena_wave_ms.render(
            &mut out,
            "damka_arena_wave_milliseconds",
            "Arena pairing waves: pairing the waiting players and starting their games.",
        );
        let more = [
            (
                &self.game_announce_ms,
                "damka_game_announce_milliseconds",
                "A new game's creation until its first Redis write and its announcement.",
            ),
            (
                &self.game_notice_ms,
                "damka_game_notice_milliseconds",
                "A game's creation on another node until this node reads its start notice.",
            ),
            (
                &self.game_found_ms,
                "damka_game_found_milliseconds",
                "A game's creation on another node until this node has its proxy.",
            ),
            (
                &self.game_join_ms,
                "damka_game_join_milliseconds",
                "A session joining its own new game until game_start is queued.",
            ),
            (
                &self.arena_score_ms,
                "damka_arena_score_milliseconds",
                "An arena organiser scoring one ended game.",
            ),
            (
                &self.arena_push_ms,
                "damka_arena_push_milliseconds",
                "An arena organiser's standings push.",
            ),
            (
                &self.standings_notice_ms,
                "damka_standings_notice_milliseconds",
                "A standings notice from another node: sent until handed to the sessions.",
            ),
        ];
        for (h, name, help) in more {
            h.render(&mut out, name, help);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_prometheus_text() {
        let m = Metrics::default();
        m.connections_total.inc();
        m.connections_open.inc();
        m.lag_ms.observe(30);
        m.lag_ms.observe(9000);
        let text = m.render();
        assert!(text.contains("damka_connections_total 1\n"));
        assert!(text.contains("damka_connections_open 1\n"));
        assert!(text.contains("damka_ws_lag_milliseconds_bucket{le=\"50\"} 1\n"));
        assert!(text.contains("damka_ws_lag_milliseconds_bucket{le=\"+Inf\"} 2\n"));
        assert!(text.contains("damka_ws_lag_milliseconds_sum 9030\n"));
        m.arena_wave_ms.observe(3);
        let text = m.render();
        assert!(text.contains("damka_arena_wave_milliseconds_bucket{le=\"5\"} 1\n"));
        assert!(text.contains("damka_arena_wave_milliseconds_count 1\n"));
    }
}
