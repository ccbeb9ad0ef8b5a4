//! The live-game writer's connection on a SQLite node: one connection of its own
//! (rusqlite, on the same SQLite library sqlx links), running each group's transaction
//! with prepared statements. sqlx takes bound values one statement per call to its
//! connection's thread; the group commit had to send its transaction as one text with
//! the values written into it, which SQLite parsed anew each time (every event's JSON
//! scanned as a literal). Here each statement is parsed once per connection.
//!
//! A commit blocks its caller until it is on disk: the live-game store runs the writer
//! on a thread of its own (`game/store.rs`), so that an actor's write goes straight to
//! the thread that commits it. The connection is the writer's alone, so SQLite keeps
//! its page cache between groups unless another connection (the pool's: archives,
//! reads) wrote in between.
//!
//! The write-ahead log is copied back into the database file (checkpointed) by a
//! thread of the writer's own ([`Checkpointer`]), not by the commit that finds the log
//! long: SQLite's automatic checkpoint ran inside every thousandth page's commit, and
//! the moves grouped behind that commit waited for the copy (`docs/performance.md`,
//! "The checkpoint off the move's path"). The writer checkpoints by itself only past
//! [`BACKSTOP_FRAMES`], should the checkpointer fall behind.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};

use super::DbError;
use super::live_group::{FORGET, LiveGroup, int};

/// Pages in the write-ahead log past which the writer's own commit checkpoints (SQLite's
/// automatic checkpoint): only if the checkpointer falls behind; 10,000 pages are 40 MiB
/// of log.
const BACKSTOP_FRAMES: u32 = 10_000;
/// How often the checkpointer copies the log into the database file. The log starts
/// over only after a checkpoint that no commit overlapped (one that did leaves the
/// commit's pages uncopied): short, frequent copies let it start over often. Every 100
/// ms, the log of 2,000 games at 1,800 moves a second grew to the backstop, whose
/// copies then ran inside commits again; every 20 ms it stayed under 6 MiB.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(20);

/// The connection, the setting its transactions record the node's sign of life in, and
/// the thread that checkpoints its log.
#[derive(Debug)]
pub(crate) struct SqliteLive {
    conn: Connection,
    alive: String,
    _checkpointer: Checkpointer,
}

/// Opens a connection to `file` with the pool's settings: wait on a busy file,
/// write-ahead log, `synchronous = FULL`.
fn connect(file: &Path) -> Result<Connection, DbError> {
    let conn = Connection::open_with_flags(
        file,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;",
    )?;
    Ok(conn)
}

/// A thread with a connection of its own that runs a passive checkpoint (it copies
/// what no reader still needs, and waits for no one) every [`CHECKPOINT_EVERY`]; it
/// ends when dropped. A checkpoint changes no page's content, so the writer keeps its
/// page cache; the log starts over at the writer's next transaction once all of it is
/// copied.
#[derive(Debug)]
struct Checkpointer {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    fn start(file: &Path) -> Result<Checkpointer, DbError> {
        let conn = connect(file)?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("damka-checkpoint".into())
            .spawn(move || {
                loop {
                    std::thread::park_timeout(CHECKPOINT_EVERY);
                    if stopped.load(Ordering::Acquire) {
                        break;
                    }
                    let checkpoint =
                        conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                    if let Err(e) = checkpoint {
                        tracing::debug!(error = %e, "cannot checkpoint the live games' log");
                    }
                }
            })
            .map_err(DbError::Thread)?;
        Ok(Checkpointer {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

impl SqliteLive {
    /// Opens `file` with the pool's settings (a commit is on disk when it returns; one
    /// fsync a group) and starts its checkpointer. Each transaction records the node's
    /// sign of life in the setting `alive`.
    pub(crate) fn open(file: &Path, alive: String) -> Result<SqliteLive, DbError> {
        let conn = connect(file)?;
        conn.pragma_update(None, "wal_autocheckpoint", BACKSTOP_FRAMES)?;
        Ok(SqliteLive {
            conn,
            alive,
            _checkpointer: Checkpointer::start(file)?,
        })
    }

    /// The node's last recorded sign of life (wall ms), if any.
    pub(crate) fn alive_ms(&self) -> Result<Option<u64>, DbError> {
        let value: Option<String> = self
            .conn
            .prepare_cached("SELECT value FROM settings WHERE name = ?1")?
            .query_row([&self.alive], |row| row.get(0))
            .optional()?;
        Ok(value.and_then(|v| v.parse().ok()))
    }

    /// One transaction: each game's writes in order (a new snapshot replaces the row
    /// and drops the actions before it; else the tail is updated), the forgotten
    /// games' rows deleted, then the sign of life `alive_ms`. A failing statement rolls
    /// the whole transaction back (the transaction is dropped).
    pub(crate) fn write(&mut self, group: &LiveGroup, alive_ms: u64) -> Result<(), DbError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        for w in &group.writes {
            match &w.snapshot {
                Some(snapshot) => {
                    tx.prepare_cached(
                        "INSERT INTO live_games (id, snapshot, tail) VALUES (?1, ?2, ?3) \
                         ON CONFLICT (id) DO UPDATE SET snapshot = excluded.snapshot, \
                         tail = excluded.tail",
                    )?
                    .execute(params![w.id, snapshot, w.tail])?;
                    tx.prepare_cached("DELETE FROM live_acts WHERE game_id = ?1")?
                        .execute([&w.id])?;
                }
                None => {
                    tx.prepare_cached("UPDATE live_games SET tail = ?2 WHERE id = ?1")?
                        .execute(params![w.id, w.tail])?;
                }
            }
            let mut act = tx
                .prepare_cached("INSERT INTO live_acts (game_id, seq, json) VALUES (?1, ?2, ?3)")?;
            for (seq, json) in &w.acts {
                act.execute(params![w.id, int(*seq), json])?;
            }
            let mut event = tx.prepare_cached(
                "INSERT INTO live_events (game_id, version, json) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (game_id, version) DO NOTHING",
            )?;
            for (version, json) in &w.events {
                event.execute(params![w.id, int(*version), json])?;
            }
        }
        for id in &group.forget {
            for delete in FORGET {
                tx.prepare_cached(&format!("{delete} (?1)"))?
                    .execute([id])?;
            }
        }
        tx.prepare_cached(
            "INSERT INTO settings (name, value) VALUES (?1, ?2) \
             ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        )?
        .execute(params![self.alive, alive_ms.to_string()])?;
        tx.commit()?;
        Ok(())
    }
}
