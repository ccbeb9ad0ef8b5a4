//! Pacing the computer's draughts searches while people play live games on the node:
//! a search gives its core away for part of each slice of its work, so the engine uses
//! at most `computer.live_share` of the time it runs while another live game exists.
//! `SCHED_IDLE` already lets a woken session take the core at once; pacing also cuts
//! what preemption cannot (the caches the search fills, the core it holds when the bots
//! and the node's workers both want one), at the cost of thinking slower under load.
//! Without live games beside it (or with a share of 1) a search runs flat out.

use std::cell::Cell;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Work between two pauses.
const SLICE: Duration = Duration::from_millis(2);
/// A longer time between two calls of the hook is not work: a new search began, or the
/// thread waited for the core.
const MAX_GAP: Duration = Duration::from_millis(20);

thread_local! {
    /// This search thread's last call of the hook and the work counted since its last pause.
    static SLICE_STATE: Cell<(Option<Instant>, Duration)> = const { Cell::new((None, Duration::ZERO)) };
}

/// How long to pause after `worked`, so that work is `share` of work plus pause.
pub(crate) fn pause_after(worked: Duration, share: f64) -> Duration {
    if !(share > 0.0 && share < 1.0) {
        return Duration::ZERO;
    }
    worked.mul_f64((1.0 - share) / share)
}

/// The hook for the engine's searches: `live()` says whether other live games are on
/// the node now. `None` when the share is 1 (never paced).
pub(crate) fn hook(
    share: f64,
    live: impl Fn() -> bool + Send + Sync + 'static,
) -> Option<engine::Pace> {
    if share >= 1.0 {
        return None;
    }
    let live = Arc::new(live);
    Some(engine::Pace::new(move || {
        let now = Instant::now();
        let (last, worked) = SLICE_STATE.get();
        let gap = last.map_or(Duration::ZERO, |l| now.saturating_duration_since(l));
        let worked = if gap < MAX_GAP { worked + gap } else { worked };
        if worked < SLICE {
            SLICE_STATE.set((Some(now), worked));
            return;
        }
        if live() {
            std::thread::sleep(pause_after(worked, share));
        }
        SLICE_STATE.set((Some(Instant::now()), Duration::ZERO));
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn the_pause_keeps_the_share() {
        let ms = Duration::from_millis;
        assert_eq!(pause_after(ms(2), 0.5), ms(2));
        assert_eq!(pause_after(ms(3), 0.75), ms(1));
        assert_eq!(pause_after(ms(2), 1.0), Duration::ZERO);
        assert_eq!(pause_after(ms(2), 0.0), Duration::ZERO);
        assert_eq!(pause_after(ms(2), f64::NAN), Duration::ZERO);
        assert!(hook(1.0, || true).is_none());
    }

    /// The hook asks whether live games exist once per slice of work, not at each call.
    #[test]
    fn live_games_are_asked_about_once_a_slice() {
        let asked = Arc::new(AtomicU32::new(0));
        let a = asked.clone();
        let pace = hook(0.5, move || {
            a.fetch_add(1, Ordering::Relaxed);
            false
        })
        .expect("paced");
        let calls = std::thread::spawn(move || {
            let begun = Instant::now();
            let mut calls = 0u64;
            while asked.load(Ordering::Relaxed) < 3 && begun.elapsed() < Duration::from_secs(10) {
                pace.call();
                calls += 1;
            }
            (calls, asked.load(Ordering::Relaxed))
        })
        .join()
        .expect("the search thread");
        assert_eq!(calls.1, 3, "{calls:?}");
        assert!(calls.0 > 30, "{calls:?}");
    }
}
