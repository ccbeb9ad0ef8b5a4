//! What one run measures, shared by all its bots: counters, and latency histograms
//! (hdrhistogram, microseconds) summarised as p50/p90/p99/p99.9/max.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::game::Seq;

/// The largest latency recorded: one minute, in microseconds. Longer ones saturate.
const MAX_MICROS: u64 = 60_000_000;

/// A value at least this long (microseconds) is also counted in its wall-clock second,
/// so that stalls can be lined up with what the server was doing then.
const SLOW_MICROS: u64 = 10_000;

/// A latency histogram behind a lock (bots record a few thousand values per second).
pub struct Latency {
    hist: Mutex<Histogram<u64>>,
    /// Values of at least `SLOW_MICROS`, by Unix second: how many, and the longest.
    slow: Mutex<BTreeMap<u64, (u64, u64)>>,
}

impl Default for Latency {
    fn default() -> Self {
        // 1 µs to 60 s at 3 significant digits: the bounds are valid constants.
        let hist = Histogram::new_with_bounds(1, MAX_MICROS, 3)
            .unwrap_or_else(|_| Histogram::new(3).unwrap_or_else(|_| unreachable!()));
        Latency {
            hist: Mutex::new(hist),
            slow: Mutex::default(),
        }
    }
}

impl Latency {
    /// Records one duration.
    pub fn record(&self, d: Duration) {
        let micros = u64::try_from(d.as_micros())
            .unwrap_or(MAX_MICROS)
            .clamp(1, MAX_MICROS);
        if let Ok(mut h) = self.hist.lock() {
            let _ = h.record(micros);
        }
        if micros >= SLOW_MICROS {
            let second = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            if let Ok(mut slow) = self.slow.lock() {
                let (n, max) = slow.entry(second).or_default();
                *n += 1;
                *max = (*max).max(micros);
            }
        }
    }

    /// The seconds with the most values of 10 ms or more (at most `top`), most first.
    pub fn slow_seconds(&self, top: usize) -> Vec<SlowSecond> {
        let Ok(slow) = self.slow.lock() else {
            return Vec::new();
        };
        let mut seconds: Vec<SlowSecond> = slow
            .iter()
            .map(|(&unix_second, &(count, max))| SlowSecond {
                unix_second,
                count,
                max_ms: max as f64 / 1000.0,
            })
            .collect();
        seconds.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then(a.unix_second.cmp(&b.unix_second))
        });
        seconds.truncate(top);
        seconds
    }

    /// The summary, in milliseconds.
    pub fn summary(&self) -> Summary {
        let Ok(h) = self.hist.lock() else {
            return Summary::default();
        };
        if h.is_empty() {
            return Summary::default();
        }
        let ms = |v: u64| v as f64 / 1000.0;
        Summary {
            count: h.len(),
            mean_ms: h.mean() / 1000.0,
            p50_ms: ms(h.value_at_quantile(0.50)),
            p90_ms: ms(h.value_at_quantile(0.90)),
            p99_ms: ms(h.value_at_quantile(0.99)),
            p999_ms: ms(h.value_at_quantile(0.999)),
            max_ms: ms(h.max()),
        }
    }
}

/// A latency distribution, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Values recorded.
    pub count: u64,
    /// Mean.
    pub mean_ms: f64,
    /// Median.
    pub p50_ms: f64,
    /// 90th percentile.
    pub p90_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// 99.9th percentile.
    pub p999_ms: f64,
    /// Largest.
    pub max_ms: f64,
}

/// One wall-clock second's slow values (10 ms or more).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct SlowSecond {
    /// The second, since the Unix epoch.
    pub unix_second: u64,
    /// How many values of 10 ms or more were recorded in it.
    pub count: u64,
    /// The longest of them.
    pub max_ms: f64,
}

/// A counter.
#[derive(Default)]
pub struct Counter(AtomicU64);

impl Counter {
    /// Adds one.
    pub fn inc(&self) {
        self.add(1);
    }

    /// Adds `n`.
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    /// The value.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Everything one run (one scenario against one backend) counts.
#[derive(Default)]
pub struct Stats {
    /// WebSocket connections opened (and, for damka, welcomed).
    pub conn_opened: Counter,
    /// Connections that could not be opened or welcomed.
    pub conn_failed: Counter,
    /// Connections the server closed while the bot still wanted them.
    pub conn_lost: Counter,
    /// Moves sent by players.
    pub moves_sent: Counter,
    /// Move events received by the opponent of the mover.
    pub moves_received: Counter,
    /// Move events received by spectators.
    pub spectator_moves: Counter,
    /// Bytes of the move event frames spectators received.
    pub spectator_bytes: Counter,
    /// `legal_moves` sent to someone not to move (a spectator, the player who just
    /// moved), or naming other moves than our own copy of the rules.
    pub legal_moves_wrong: Counter,
    /// Games started (counted once, by the white player).
    pub games_started: Counter,
    /// Games that reached a result (counted once, by the white player).
    pub games_finished: Counter,
    /// Games still running when the duration ran out (resigned or left).
    pub games_cut: Counter,
    /// Events missing: a version jumped by more than one.
    pub events_dropped: Counter,
    /// Events that came with a version already seen.
    pub events_out_of_order: Counter,
    /// A move that our own copy of the rules refused, or a position that disagreed
    /// with the server's FEN.
    pub rule_mismatches: Counter,
    /// `error` messages from the server.
    pub server_errors: Counter,
    /// Error codes and close reasons seen, by name.
    pub reasons: Mutex<BTreeMap<String, u64>>,
    /// Move round trip: the mover's send until the opponent has the event.
    pub move_rtt: Latency,
    /// The mover's send until a spectator has the event.
    pub fanout: Latency,
    /// Connect until usable (damka: `welcome`; relay: handshake done).
    pub setup: Latency,
    /// Seek or pool join until `game_start` (relay: until the partner's first frame).
    pub pairing: Latency,
    /// Arena: the arena's start until a player of its first wave has `game_start`.
    pub wave: Latency,
    /// Arena: a player's `game_over` until a standings event showing that game.
    pub leaderboard: Latency,
    /// Chaos: the longest a player waited for a move to be acknowledged, reconnection
    /// and resume included.
    pub stall: Latency,
}

impl Stats {
    /// Counts where a received event's version fell (missing events, a stale one);
    /// whether the event is new to the bot.
    pub fn is_new(&self, seq: Seq) -> bool {
        match seq {
            Seq::Next => true,
            Seq::Gap(n) => {
                self.events_dropped.add(n);
                true
            }
            Seq::Stale => {
                self.events_out_of_order.inc();
                false
            }
        }
    }
}

impl Stats {
    /// Counts an error code or close reason.
    pub fn reason(&self, name: impl Into<String>) {
        if let Ok(mut m) = self.reasons.lock() {
            *m.entry(name.into()).or_default() += 1;
        }
    }

    /// The reasons seen so far.
    pub fn reasons(&self) -> BTreeMap<String, u64> {
        self.reasons.lock().map(|m| m.clone()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_in_milliseconds() {
        let l = Latency::default();
        assert_eq!(l.summary().count, 0);
        for ms in 1..=100 {
            l.record(Duration::from_millis(ms));
        }
        l.record(Duration::from_secs(3600));
        let s = l.summary();
        assert_eq!(s.count, 101);
        assert!((s.p50_ms - 51.0).abs() < 0.2, "{s:?}");
        assert!((s.max_ms - 60_000.0).abs() < 60.0, "{s:?}");
        // 10 ms and more are also counted by second: 91 values of 10..=100 ms, and the hour.
        let slow = l.slow_seconds(10);
        assert_eq!(slow.iter().map(|s| s.count).sum::<u64>(), 92, "{slow:?}");
        assert!((slow.iter().map(|s| s.max_ms).fold(0.0, f64::max) - 60_000.0).abs() < 1.0);
    }
}
