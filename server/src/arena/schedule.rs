//! Recurring arenas from the operator's configuration (`[[arena.schedule]]`): each entry
//! is created `lead_secs` before each start, starts falling on multiples of its period
//! since the Unix epoch (an hourly arena at every full hour).

use std::sync::Arc;
use std::time::Duration;

use shared::arena::{ArenaInfo, ArenaStatus};

use super::{ArenaSpec, Arenas};
use crate::cluster::redis::wall_ms;
use crate::config::ScheduledArena;

/// The next start of `entry` strictly after `now_ms`.
pub fn next_start(entry: &ScheduledArena, now_ms: u64) -> u64 {
    let period = entry.every_mins.max(1) * 60_000;
    (now_ms / period + 1) * period
}

/// The id of the `index`th entry's arena starting at `starts_at_ms`: the same on every
/// node, so that in a cluster it is created once.
pub fn scheduled_id(index: usize, starts_at_ms: u64) -> String {
    format!("s{index}x{}", starts_at_ms / 1000)
}

fn spec(entry: &ScheduledArena, index: usize, starts_at_ms: u64) -> Option<ArenaSpec> {
    Some(ArenaSpec {
        info: ArenaInfo {
            id: scheduled_id(index, starts_at_ms),
            name: entry.name.clone(),
            variant: entry.variant.parse().ok()?,
            ruleset: None,
            time_control: entry.time_control.parse().ok()?,
            rated: entry.rated,
            starts_at_ms,
            duration_ms: entry.duration_mins * 60_000,
            berserk: entry.berserk,
            min_games: 0,
            min_rating: None,
            max_rating: None,
            private: false,
            created_by: "schedule".into(),
            status: ArenaStatus::Upcoming,
            players: 0,
        },
        password: None,
    })
}

/// The start of the arena of `entry` to create now, if any: the next start, once it is
/// `lead_secs` away, unless the arena of that start (`created`) already exists.
pub fn due(entry: &ScheduledArena, created: u64, now_ms: u64) -> Option<u64> {
    let start = next_start(entry, now_ms);
    (start != created && start.saturating_sub(now_ms) <= entry.lead_secs * 1000).then_some(start)
}

/// Creates each scheduled arena ahead of its start, until the server stops.
pub async fn run(arenas: Arc<Arenas>, shutdown: tokio_util::sync::CancellationToken) {
    let entries = arenas.config().schedule.clone();
    if entries.is_empty() {
        return;
    }
    let mut created: Vec<u64> = vec![0; entries.len()];
    loop {
        let now = wall_ms();
        for (i, e) in entries.iter().enumerate() {
            if let Some(start) = due(e, created[i], now) {
                let created_now = match spec(e, i, start) {
                    Some(s) => Some(arenas.create(s).await),
                    None => None,
                };
                match created_now {
                    Some(Ok(info)) => {
                        created[i] = start;
                        tracing::info!(arena = %info.id, name = %info.name, "scheduled arena created");
                    }
                    Some(Err(err)) => {
                        tracing::warn!(name = %e.name, error = %err, "cannot create a scheduled arena")
                    }
                    None => {
                        tracing::warn!(name = %e.name, "scheduled arena has a bad variant or clock")
                    }
                }
            }
        }
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An hourly arena is created `lead_secs` before each full hour, once per hour.
    #[test]
    fn recurring_arenas_are_recreated_each_period() {
        let entry = ScheduledArena {
            name: "Hourly".into(),
            variant: "russian".into(),
            time_control: "3+2".into(),
            rated: true,
            berserk: true,
            every_mins: 60,
            duration_mins: 57,
            lead_secs: 600,
        };
        let hour = 3_600_000;
        let base = 500 * hour;
        let mut created = 0;
        let mut starts = Vec::new();
        // Every 5 s over three hours, as `run` checks.
        for t in (base..base + 3 * hour).step_by(5_000) {
            if let Some(start) = due(&entry, created, t) {
                assert!(start - t <= 600_000, "created at most lead_secs ahead");
                created = start;
                starts.push((t, start));
            }
        }
        let expected: Vec<u64> = (1..=3).map(|h| base + h * hour).collect();
        assert_eq!(starts.iter().map(|s| s.1).collect::<Vec<_>>(), expected);
        // Each created exactly lead_secs ahead (to the check).
        for (t, start) in &starts {
            assert_eq!(start - t, 600_000);
        }
        let a = spec(&entry, 0, expected[0]).unwrap();
        let b = spec(&entry, 0, expected[1]).unwrap();
        assert_ne!(a.info.id, b.info.id, "each period is its own arena");
        assert_eq!(
            a.info.id,
            scheduled_id(0, expected[0]),
            "the same on every node"
        );
        assert_eq!(a.info.duration_ms, 57 * 60_000);
    }
}
