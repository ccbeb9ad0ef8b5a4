//! The results: one [`RunReport`] per backend (damka, relay), their ratios in a
//! [`Comparison`], printed as a table and written as JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::stats::{Stats, Summary};

/// Server memory over a run, in KiB (RSS of the server processes).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Memory {
    /// Before any bot connected.
    pub base_kib: u64,
    /// Once every bot had connected (before play).
    pub connected_kib: u64,
    /// The highest sample during play.
    pub peak_kib: u64,
    /// (connected - base) / connections.
    pub per_connection_kib: Option<f64>,
    /// (peak - connected) / games in play at once.
    pub per_game_kib: Option<f64>,
    /// The server was not started by this run (`--url`): memory freed by earlier
    /// connections is reused without growing RSS, so the deltas under-count (down to 0).
    pub reused_heap: bool,
}

impl Memory {
    /// `(to - from) / count`, or `None` when there is nothing to divide by or RSS did
    /// not grow (a delta of 0 is no measurement: the allocator reused freed memory).
    pub fn per_unit(from: u64, to: u64, count: u64) -> Option<f64> {
        (count > 0 && to > from).then(|| (to - from) as f64 / count as f64)
    }
}

/// What one scenario measured on one backend.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunReport {
    /// `damka` or `relay`.
    pub backend: String,
    /// The scenario.
    pub scenario: String,
    /// Length of the timed phase, in seconds.
    pub duration_secs: f64,
    /// Seconds the connect phase took.
    pub connect_secs: f64,
    /// Connections opened per second in the connect phase.
    pub connects_per_sec: f64,
    /// Connections opened.
    pub connections_opened: u64,
    /// Connections that failed to open.
    pub connections_failed: u64,
    /// Connections lost during the run.
    pub connections_lost: u64,
    /// Idle and storm: connections that still answered at the end.
    pub connections_alive: Option<u64>,
    /// 127.0.0.x source addresses used.
    pub source_addresses: usize,
    /// Games started.
    pub games_started: u64,
    /// Games finished by the rules, a flag or a resignation at the ply cap.
    pub games_finished: u64,
    /// Games cut by the end of the run.
    pub games_cut: u64,
    /// Moves sent.
    pub moves_sent: u64,
    /// Moves received by opponents.
    pub moves_received: u64,
    /// Moves received by opponents per second of the timed phase.
    pub moves_per_sec: f64,
    /// Moves received by spectators.
    pub spectator_moves: u64,
    /// Bytes of a move event's frame as a spectator received it, on average.
    pub spectator_bytes_per_move: Option<f64>,
    /// `legal_moves` misdirected (to a spectator or the player who just moved) or
    /// naming other moves than the bot's own copy of the rules.
    pub legal_moves_wrong: u64,
    /// Move round trip (mover's send to opponent's receipt).
    pub move_rtt: Summary,
    /// The seconds with the most move round trips of 10 ms or more (ten at most).
    pub slow_move_seconds: Vec<crate::stats::SlowSecond>,
    /// Mover's send to a spectator's receipt.
    pub fanout: Summary,
    /// Connect to usable.
    pub setup: Summary,
    /// Seek or pool join to game start.
    pub pairing: Summary,
    /// Arena start to `game_start` for the players of its first wave.
    pub wave: Summary,
    /// Arena game over to the standings event that shows the game.
    pub leaderboard: Summary,
    /// Move sent to move acknowledged (chaos: reconnection and resume included).
    pub stall: Summary,
    /// What the scenario measured beyond the common numbers (arena: the server's wave
    /// histogram; chaos: games and moves lost, time refunded), by name.
    pub extra: BTreeMap<String, f64>,
    /// Events missing (version gaps).
    pub events_dropped: u64,
    /// Events seen twice or late.
    pub events_out_of_order: u64,
    /// Moves our rules refused or positions that differed from the server's.
    pub rule_mismatches: u64,
    /// `error` messages received.
    pub server_errors: u64,
    /// Error codes, close reasons and outcomes, counted.
    pub reasons: BTreeMap<String, u64>,
    /// Server memory, when its process is known.
    pub memory: Option<Memory>,
}

impl RunReport {
    /// Fills the counters and histograms from a run's stats.
    pub fn from_stats(backend: &str, scenario: &str, stats: &Stats) -> RunReport {
        RunReport {
            backend: backend.into(),
            scenario: scenario.into(),
            connections_opened: stats.conn_opened.get(),
            connections_failed: stats.conn_failed.get(),
            connections_lost: stats.conn_lost.get(),
            games_started: stats.games_started.get(),
            games_finished: stats.games_finished.get(),
            games_cut: stats.games_cut.get(),
            moves_sent: stats.moves_sent.get(),
            moves_received: stats.moves_received.get(),
            spectator_moves: stats.spectator_moves.get(),
            spectator_bytes_per_move: (stats.spectator_moves.get() > 0)
                .then(|| stats.spectator_bytes.get() as f64 / stats.spectator_moves.get() as f64),
            legal_moves_wrong: stats.legal_moves_wrong.get(),
            move_rtt: stats.move_rtt.summary(),
            slow_move_seconds: stats.move_rtt.slow_seconds(10),
            fanout: stats.fanout.summary(),
            setup: stats.setup.summary(),
            pairing: stats.pairing.summary(),
            wave: stats.wave.summary(),
            leaderboard: stats.leaderboard.summary(),
            stall: stats.stall.summary(),
            events_dropped: stats.events_dropped.get(),
            events_out_of_order: stats.events_out_of_order.get(),
            rule_mismatches: stats.rule_mismatches.get(),
            server_errors: stats.server_errors.get(),
            reasons: stats.reasons(),
            ..RunReport::default()
        }
    }
}

/// damka against the relay for one scenario.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// The scenario.
    pub scenario: String,
    /// The run's settings.
    pub settings: serde_json::Value,
    /// When (seconds since the Unix epoch).
    pub unix_time: u64,
    /// damka's numbers.
    pub damka: Option<RunReport>,
    /// The relay's numbers.
    pub relay: Option<RunReport>,
    /// damka / relay for each metric both have (latencies: higher is worse; rates:
    /// lower is worse).
    pub ratios: BTreeMap<String, f64>,
}

fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0 && a.is_finite()).then(|| a / b)
}

impl Comparison {
    /// Builds the comparison and its ratios.
    pub fn new(
        scenario: &str,
        settings: serde_json::Value,
        damka: Option<RunReport>,
        relay: Option<RunReport>,
    ) -> Comparison {
        let mut ratios = BTreeMap::new();
        if let (Some(d), Some(r)) = (&damka, &relay) {
            let mut put = |name: &str, a: f64, b: f64| {
                if let Some(x) = ratio(a, b) {
                    ratios.insert(name.to_string(), x);
                }
            };
            put("moves_per_sec", d.moves_per_sec, r.moves_per_sec);
            put("connects_per_sec", d.connects_per_sec, r.connects_per_sec);
            for (name, a, b) in [
                ("move_rtt", d.move_rtt, r.move_rtt),
                ("fanout", d.fanout, r.fanout),
                ("setup", d.setup, r.setup),
                ("pairing", d.pairing, r.pairing),
                ("wave", d.wave, r.wave),
                ("leaderboard", d.leaderboard, r.leaderboard),
                ("stall", d.stall, r.stall),
            ] {
                if a.count > 0 && b.count > 0 {
                    put(&format!("{name}_p50"), a.p50_ms, b.p50_ms);
                    put(&format!("{name}_p99"), a.p99_ms, b.p99_ms);
                    put(&format!("{name}_p999"), a.p999_ms, b.p999_ms);
                }
            }
            if let (Some(dm), Some(rm)) = (d.memory, r.memory) {
                if let (Some(a), Some(b)) = (dm.per_connection_kib, rm.per_connection_kib) {
                    put("rss_per_connection", a, b);
                }
                if let (Some(a), Some(b)) = (dm.per_game_kib, rm.per_game_kib) {
                    put("rss_per_game", a, b);
                }
            }
        }
        Comparison {
            scenario: scenario.into(),
            settings,
            unix_time: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            damka,
            relay,
            ratios,
        }
    }

    /// The comparison as a plain-text table.
    pub fn table(&self) -> String {
        let reports: Vec<&RunReport> = [&self.damka, &self.relay].into_iter().flatten().collect();
        let mut rows: Vec<(String, Vec<String>, Option<f64>)> = Vec::new();
        let mut row = |name: &str, f: &dyn Fn(&RunReport) -> String, ratio: Option<&str>| {
            rows.push((
                name.to_string(),
                reports.iter().map(|r| f(r)).collect(),
                ratio.and_then(|k| self.ratios.get(k).copied()),
            ));
        };
        let n = |v: u64| v.to_string();
        let f1 = |v: f64| format!("{v:.1}");
        let ms = |v: f64| format!("{v:.2}");
        row("connections opened", &|r| n(r.connections_opened), None);
        row("connections failed", &|r| n(r.connections_failed), None);
        row("connections lost", &|r| n(r.connections_lost), None);
        row(
            "connections alive at end",
            &|r| r.connections_alive.map_or("-".into(), n),
            None,
        );
        row(
            "connect phase s",
            &|r| format!("{:.2}", r.connect_secs),
            None,
        );
        row(
            "connects/s",
            &|r| f1(r.connects_per_sec),
            Some("connects_per_sec"),
        );
        row("games started", &|r| n(r.games_started), None);
        row("games finished", &|r| n(r.games_finished), None);
        row("games cut at end", &|r| n(r.games_cut), None);
        row("moves sent", &|r| n(r.moves_sent), None);
        row(
            "moves/s (received)",
            &|r| f1(r.moves_per_sec),
            Some("moves_per_sec"),
        );
        row("spectator moves", &|r| n(r.spectator_moves), None);
        row(
            "spectator bytes/move",
            &|r| r.spectator_bytes_per_move.map_or("-".into(), f1),
            None,
        );
        for (label, key, get) in [
            (
                "move rtt",
                "move_rtt",
                (|r: &RunReport| r.move_rtt) as fn(&RunReport) -> Summary,
            ),
            ("fan-out", "fanout", |r: &RunReport| r.fanout),
            ("setup", "setup", |r: &RunReport| r.setup),
            ("pairing", "pairing", |r: &RunReport| r.pairing),
            ("arena wave", "wave", |r: &RunReport| r.wave),
            ("leaderboard", "leaderboard", |r: &RunReport| r.leaderboard),
            ("move ack", "stall", |r: &RunReport| r.stall),
        ] {
            if reports.iter().all(|r| get(r).count == 0) {
                continue;
            }
            row(&format!("{label} count"), &|r| n(get(r).count), None);
            row(
                &format!("{label} p50 ms"),
                &|r| ms(get(r).p50_ms),
                Some(&format!("{key}_p50")),
            );
            row(&format!("{label} p90 ms"), &|r| ms(get(r).p90_ms), None);
            row(
                &format!("{label} p99 ms"),
                &|r| ms(get(r).p99_ms),
                Some(&format!("{key}_p99")),
            );
            row(
                &format!("{label} p99.9 ms"),
                &|r| ms(get(r).p999_ms),
                Some(&format!("{key}_p999")),
            );
            row(&format!("{label} max ms"), &|r| ms(get(r).max_ms), None);
        }
        row("events dropped", &|r| n(r.events_dropped), None);
        row("events out of order", &|r| n(r.events_out_of_order), None);
        row("rule mismatches", &|r| n(r.rule_mismatches), None);
        row("legal moves wrong", &|r| n(r.legal_moves_wrong), None);
        row("server errors", &|r| n(r.server_errors), None);
        let mem =
            |f: fn(&Memory) -> String| move |r: &RunReport| r.memory.as_ref().map_or("-".into(), f);
        row(
            "server RSS base MiB",
            &mem(|m| format!("{:.1}", m.base_kib as f64 / 1024.0)),
            None,
        );
        row(
            "server RSS peak MiB",
            &mem(|m| format!("{:.1}", m.peak_kib as f64 / 1024.0)),
            None,
        );
        row(
            "RSS per connection KiB",
            &mem(|m| {
                m.per_connection_kib
                    .map_or("-".into(), |v| format!("{v:.1}"))
            }),
            Some("rss_per_connection"),
        );
        row(
            "RSS per game KiB",
            &mem(|m| m.per_game_kib.map_or("-".into(), |v| format!("{v:.1}"))),
            Some("rss_per_game"),
        );
        let mut extras: Vec<&String> = reports.iter().flat_map(|r| r.extra.keys()).collect();
        extras.sort();
        extras.dedup();
        for key in extras {
            row(
                key,
                &|r| r.extra.get(key).map_or("-".into(), |v| format!("{v:.2}")),
                None,
            );
        }
        let mut out = String::new();
        let _ = writeln!(out, "scenario: {}", self.scenario);
        let mut header = format!("{:<26}", "metric");
        for r in &reports {
            let _ = write!(header, " {:>12}", r.backend);
        }
        if let (Some(a), Some(b)) = (&self.damka, &self.relay) {
            let _ = write!(header, " {:>12}", format!("{}/{}", a.backend, b.backend));
        }
        let _ = writeln!(out, "{header}");
        for (name, values, ratio) in rows {
            let mut line = format!("{name:<26}");
            for v in values {
                let _ = write!(line, " {v:>12}");
            }
            if let Some(x) = ratio {
                let _ = write!(line, " {x:>12.2}");
            }
            let _ = writeln!(out, "{line}");
        }
        if reports
            .iter()
            .any(|r| r.memory.is_some_and(|m| m.reused_heap))
        {
            let _ = writeln!(
                out,
                "note: the server was not started by this run (--url): it reuses memory freed by \
                 earlier connections, so RSS per connection/game under-count; use --damka-bin"
            );
        }
        for r in &reports {
            if !r.slow_move_seconds.is_empty() {
                let seconds: Vec<String> = r
                    .slow_move_seconds
                    .iter()
                    .map(|s| format!("{}: {} (max {:.1} ms)", s.unix_second, s.count, s.max_ms))
                    .collect();
                let _ = writeln!(
                    out,
                    "{} seconds with most move rtt >= 10 ms: {}",
                    r.backend,
                    seconds.join(", ")
                );
            }
            if !r.reasons.is_empty() {
                let _ = writeln!(out, "{} reasons: {:?}", r.backend, r.reasons);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_per_unit_needs_growth_and_a_count() {
        assert_eq!(Memory::per_unit(1000, 3000, 100), Some(20.0));
        // A warm server that reused freed memory: no growth is no measurement, not 0.0.
        assert_eq!(Memory::per_unit(3000, 3000, 100), None);
        assert_eq!(Memory::per_unit(3000, 2900, 100), None);
        assert_eq!(Memory::per_unit(1000, 3000, 0), None);
    }
}
