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
            let start = next_start(e, now);
            if start != created[i] && start.saturating_sub(now) <= e.lead_secs * 1000 {
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
