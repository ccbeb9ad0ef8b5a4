//! The threads engine searches run on: `computer.max_searches` OS threads of their own,
//! outside tokio's runtime and its blocking pool, scheduled by Linux as `SCHED_IDLE`
//! (they run only when no ordinary thread wants the CPU). So live games never wait
//! for the computer: a session or a game actor that wakes takes the core from a search
//! at once, and an engine process a search starts (Stockfish, a Hub engine) inherits
//! the policy. Jobs wait in a queue, counted by `damka_computer_queue`.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use crate::metrics::Metrics;

type Job = Box<dyn FnOnce() + Send>;

/// Searches waiting for a thread, at most (each game and the analysis task wait for
/// one search at a time, so this is never reached by a node within its limits).
const QUEUE: usize = 4_096;

/// The search threads.
pub(crate) struct SearchThreads {
    jobs: SyncSender<Job>,
    metrics: Arc<Metrics>,
}

impl SearchThreads {
    /// Starts `count` search threads; 0: one fewer than the machine's cores, at least
    /// one (a core is left to the live games: on a box whose every core is busy, even
    /// with idle-class work, a woken session waits to preempt it, measured in
    /// `docs/performance.md`).
    pub(crate) fn start(count: usize, metrics: Arc<Metrics>) -> SearchThreads {
        let count = match count {
            0 => {
                std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1))
            }
            n => n,
        };
        let (jobs, queue) = sync_channel::<Job>(QUEUE);
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..count {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("damka-search-{i}"))
                .spawn(move || work(&queue));
            if let Err(e) = spawned {
                tracing::error!(error = %e, "cannot start a search thread");
            }
        }
        SearchThreads { jobs, metrics }
    }

    /// Runs `search` on a search thread; `None` if it panicked or the threads are gone.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        search: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = oneshot::channel();
        let metrics = self.metrics.clone();
        metrics.computer_queue.inc();
        let job: Job = Box::new(move || {
            metrics.computer_queue.dec();
            metrics.computer_searches.inc();
            let _ = tx.send(search());
        });
        if self.jobs.try_send(job).is_err() {
            self.metrics.computer_queue.dec();
            return None;
        }
        rx.await.ok()
    }
}

/// A search thread: lowers itself to `SCHED_IDLE`, then runs jobs until the pool is
/// dropped. A job that panics is lost (its caller sees `None`), not the thread.
fn work(queue: &Mutex<Receiver<Job>>) {
    use thread_priority::{
        NormalThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
        set_thread_priority_and_policy, thread_native_id,
    };
    let idle = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
    if let Err(e) = set_thread_priority_and_policy(thread_native_id(), ThreadPriority::Min, idle) {
        tracing::warn!(error = ?e, "search thread keeps the normal scheduling policy");
    }
    loop {
        let job = match queue.lock() {
            Ok(q) => q.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else { return };
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scheduling policy of the calling thread (field 41 of its `stat`).
    fn policy() -> Option<u32> {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
        let after_name = &stat[stat.rfind(')')? + 2..];
        after_name.split(' ').nth(38)?.parse().ok()
    }

    #[tokio::test]
    async fn searches_run_idle_off_the_runtime_and_survive_a_panic() {
        let threads = SearchThreads::start(2, Arc::new(Metrics::default()));
        const SCHED_OTHER: u32 = 0;
        const SCHED_IDLE: u32 = 5;
        assert_eq!(policy(), Some(SCHED_OTHER), "the test's own thread");
        let seen = threads
            .run(|| (policy(), std::thread::current().name().map(String::from)))
            .await;
        let (policy_there, name) = seen.expect("the search ran");
        assert_eq!(policy_there, Some(SCHED_IDLE));
        assert!(name.is_some_and(|n| n.starts_with("damka-search-")));
        assert_eq!(threads.run(|| panic!("a broken search")).await, None::<()>);
        assert_eq!(threads.run(|| 6 * 7).await, Some(42));
        assert_eq!(threads.run(|| 1).await, Some(1), "both threads still work");
    }
}
