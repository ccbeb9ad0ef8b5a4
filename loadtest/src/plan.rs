//! What a run is asked to do: the system under test (damka nodes or the relay, the
//! report's "backend"), the scenario's sizes and durations, the variant and time-control
//! mix, think times, and how the bots are paired and spread over nodes.

use std::time::Duration;

use shared::protocol::TimeControl;
use shared::rules::Variant;

use crate::target::Target;

/// Where the bots connect.
#[derive(Clone, Debug)]
pub enum SystemUnderTest {
    /// One or more damka nodes, with the server processes to measure (if known).
    Damka {
        /// The nodes' addresses.
        nodes: Vec<Target>,
        /// Their processes, for RSS.
        pids: Vec<u32>,
        /// Started by this run (`--damka-bin`): their heaps start clean. A node found by
        /// its port may have served earlier runs, whose freed memory it reuses.
        fresh: bool,
    },
    /// The bare relay baseline: one relay, or several processes linked through Redis
    /// (bots spread over them as over damka's nodes).
    Relay {
        /// Their addresses.
        targets: Vec<Target>,
        /// Their processes when they run alone (not in-process), for RSS.
        pids: Vec<u32>,
    },
}

impl SystemUnderTest {
    /// `damka` or `relay`.
    pub fn name(&self) -> &'static str {
        match self {
            SystemUnderTest::Damka { .. } => "damka",
            SystemUnderTest::Relay { .. } => "relay",
        }
    }

    /// Were the measured processes started by this run (so RSS deltas mean something)?
    pub fn fresh(&self) -> bool {
        match self {
            SystemUnderTest::Damka { fresh, .. } => *fresh,
            // The relay's process is measured only when this run started it.
            SystemUnderTest::Relay { .. } => true,
        }
    }

    /// The processes whose memory is measured.
    pub fn pids(&self) -> Vec<u32> {
        match self {
            SystemUnderTest::Damka { pids, .. } => pids.clone(),
            SystemUnderTest::Relay { pids, .. } => pids.clone(),
        }
    }
}

/// How players find opponents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PairingMode {
    /// One player seeks, its partner accepts the seek.
    Seek,
    /// Both join the quick-pairing pool of their variant and time control.
    Pool,
    /// Even pairs seek, odd pairs use the pool.
    Mix,
}

/// How bots are spread over several nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Spread {
    /// Bot `i` on node `i mod n`: the two players of a game are usually on different
    /// nodes (needs a shared lobby between nodes).
    Bot,
    /// Game `i` (both players and its spectators) on node `i mod n`.
    Game,
}

/// Think time: `base` plus a uniform random `0..=jitter`.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Think {
    /// Milliseconds always waited.
    pub base_ms: u64,
    /// Milliseconds of random extra.
    pub jitter_ms: u64,
}

impl Think {
    /// One think time.
    pub fn sample(&self, rng: &mut fastrand::Rng) -> Duration {
        Duration::from_millis(self.base_ms + rng.u64(0..=self.jitter_ms))
    }
}

/// A scenario where bots play games (steady, saturation, burst, fan-out, multi-node).
#[derive(Clone, Debug, serde::Serialize)]
pub struct PlayPlan {
    /// Games played at once (pairs of players).
    pub games: usize,
    /// Spectators per game.
    pub spectators: usize,
    /// Think time per move.
    pub think: Think,
    /// The variant and time-control mix; pair `i` plays entry `i mod len`.
    pub mix: Vec<(Variant, TimeControl)>,
    /// How players are paired.
    pub pairing: PairingMode,
    /// Pair starts are spread evenly over this long (zero: all at the same instant).
    pub ramp: Duration,
    /// How long the play phase lasts.
    pub duration: Duration,
    /// A player resigns instead of moving at this ply.
    pub max_plies: u32,
    /// Games each pair plays at most (none: until the duration ends).
    pub games_per_pair: Option<u32>,
    /// Node assignment.
    pub spread: Spread,
    /// Players of the computer beside the games (damka only), and what they ask for.
    pub computer_games: usize,
    /// The computer players' game, clock and level.
    #[serde(skip)]
    pub computer: Option<crate::computer::ComputerPlan>,
}

/// A scenario of connections only (idle, storm).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ConnPlan {
    /// Connections to open.
    pub connections: usize,
    /// How long to hold them once all are open.
    pub hold: Duration,
}

/// Settings common to every scenario.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Common {
    /// Connections being opened at once.
    pub connect_parallel: usize,
    /// 127.0.0.x source addresses available.
    pub sources: usize,
    /// Random seed (moves, think times).
    pub seed: u64,
    /// Bind each client socket's port at `bind` (a search of the source address's bound
    /// ports per socket) instead of at `connect`: how the load test connected before
    /// `IP_BIND_ADDRESS_NO_PORT`, kept to measure the difference.
    pub reserve_ports: bool,
}

/// The default mix: damka's default pools, so both seek and pool pairing work.
pub fn default_mix() -> Vec<(Variant, TimeControl)> {
    [
        "russian 3+2",
        "brazilian 3+2",
        "pool 3+2",
        "czech 3+2",
        "portuguese 3+2",
        "italian 3+2",
        "international 3+2",
        "frisian 5+5",
        "chess 3+2",
        "chess960 3+2",
        "russian 1+0",
        "chess 5+3",
        "international 5+5",
        "chess 10+5",
    ]
    .iter()
    .filter_map(|s| parse_mix_entry(s).ok())
    .collect()
}

/// Reads `"<variant> <minutes>+<increment>"`.
pub fn parse_mix_entry(s: &str) -> Result<(Variant, TimeControl), String> {
    let (v, tc) = s
        .trim()
        .split_once(' ')
        .ok_or_else(|| format!("`{s}`: expected `<variant> <minutes>+<increment>`"))?;
    let v: Variant = v.parse().map_err(|e| format!("{e}"))?;
    let tc: TimeControl = tc.trim().parse().map_err(|e| format!("{e}"))?;
    Ok((v, tc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_covers_every_variant() {
        let mix = default_mix();
        for v in Variant::ALL {
            assert!(mix.iter().any(|(m, _)| *m == v), "{v}");
        }
        assert!(parse_mix_entry("go 3+2").is_err());
    }
}
