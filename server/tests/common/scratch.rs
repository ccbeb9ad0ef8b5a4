//! Scratch directories for one test: SQLite databases, persisted games, ballot tables and
//! configuration files a test writes. Each is removed when the thread that made it ends
//! (the test harness runs every test on a thread of its own, and joins it), so nothing a
//! test writes stays behind in the temp folder, whether the test passed or panicked.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

/// The directories this thread made; removed when it ends.
struct Made(Vec<PathBuf>);

impl Drop for Made {
    fn drop(&mut self) {
        for dir in &self.0 {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

thread_local! {
    static MADE: RefCell<Made> = const { RefCell::new(Made(Vec::new())) };
}

/// A new, empty directory named after `label`, removed when this test ends.
pub fn scratch_dir(label: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!(
        "damka-test-{label}-{}-{}-{nanos}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
    ));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    MADE.with(|made| made.borrow_mut().0.push(dir.clone()));
    dir
}
