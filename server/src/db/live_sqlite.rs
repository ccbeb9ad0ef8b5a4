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
//! The live games' rows are appended to an ordered log (`live_log.rs`, two tables used
//! in turn): a commit writes the last pages of the table it appends to, not a page per
//! game.
//!
//! The write-ahead log is copied back into the database file (checkpointed) by a
//! thread of the writer's own ([`Checkpointer`]), not by the commit that finds the log
//! long: SQLite's automatic checkpoint ran inside every thousandth page's commit, and
//! the moves grouped behind that commit waited for the copy (`docs/performance.md`,
//! "The checkpoint off the move's path"). The writer checkpoints by itself only past
//! [`BACKSTOP_FRAMES`], should the checkpointer fall behind.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};

use super::DbError;
use super::live_group::{FORGET, LiveGroup};
use super::live_log::{self, CompactAsk, Compacted, LogWriter};

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

/// The connection, the setting its transactions record the node's sign of life in, the
/// log's bookkeeping, and the thread that checkpoints the file and compacts the log.
pub(crate) struct SqliteLive {
    conn: Connection,
    alive: String,
    log: LogWriter,
    checkpointer: Checkpointer,
}

impl std::fmt::Debug for SqliteLive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteLive")
            .field("alive", &self.alive)
            .finish_non_exhaustive()
    }
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
/// what no reader still needs, and waits for no one) every [`CHECKPOINT_EVERY`], and
/// reads and folds the log's rows of the games a compaction asks for
/// ([`live_log::compact`]), so that the writer only appends the result; it ends when
/// dropped. A checkpoint changes no page's content, so the writer keeps its page
/// cache; the log starts over at the writer's next transaction once all of it is
/// copied.
#[derive(Debug)]
struct Checkpointer {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    asks: mpsc::SyncSender<CompactAsk>,
    compacted: mpsc::Receiver<Compacted>,
}

impl Checkpointer {
    fn start(file: &Path) -> Result<Checkpointer, DbError> {
        let conn = connect(file)?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        // One compaction at a time: the writer asks for the next once this one's
        // answer is back.
        let (asks, asked) = mpsc::sync_channel::<CompactAsk>(1);
        let (done, compacted) = mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("damka-checkpoint".into())
            .spawn(move || {
                loop {
                    std::thread::park_timeout(CHECKPOINT_EVERY);
                    if stopped.load(Ordering::Acquire) {
                        break;
                    }
                    if let Ok(ask) = asked.try_recv() {
                        let _ = done.send(live_log::compact(&conn, &ask));
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
            asks,
            compacted,
        })
    }

    /// Hands a compaction to the thread.
    fn ask(&self, ask: CompactAsk) {
        if self.asks.try_send(ask).is_ok()
            && let Some(thread) = &self.thread
        {
            thread.thread().unpark();
        }
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
    /// sign of life in the setting `alive`. Its log is compacted past `slack` rows
    /// beyond twice what its live games need.
    pub(crate) fn open(file: &Path, alive: String, slack: u64) -> Result<SqliteLive, DbError> {
        let conn = connect(file)?;
        conn.pragma_update(None, "wal_autocheckpoint", BACKSTOP_FRAMES)?;
        let log = LogWriter::read(&conn, slack)?;
        Ok(SqliteLive {
            conn,
            alive,
            log,
            checkpointer: Checkpointer::start(file)?,
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

    /// One transaction: each game's rows appended to the log in order, a mark for
    /// each forgotten game (whose rows in the tables of a node that wrote them before
    /// the log are deleted), the next copies of a compaction that came back, the older
    /// table emptied if no game needs it, then the sign of life `alive_ms` if given. A
    /// failing statement rolls the whole transaction back (the transaction is dropped)
    /// and the log's bookkeeping is read again.
    pub(crate) fn write(
        &mut self,
        group: &LiveGroup,
        alive_ms: Option<u64>,
    ) -> Result<(), DbError> {
        let compacted = self.checkpointer.compacted.try_recv().ok();
        let result = self.transaction(group, alive_ms, compacted);
        if result.is_err() {
            self.log.reread(&self.conn)?;
        } else if let Some(ask) = self.log.ask() {
            self.checkpointer.ask(ask);
        }
        result
    }

    fn transaction(
        &mut self,
        group: &LiveGroup,
        alive_ms: Option<u64>,
        compacted: Option<Compacted>,
    ) -> Result<(), DbError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        self.log.append(&tx, group, compacted)?;
        for id in &group.forget {
            for delete in FORGET {
                tx.prepare_cached(&format!("{delete} (?1)"))?
                    .execute([id])?;
            }
        }
        if let Some(ms) = alive_ms {
            tx.prepare_cached(
                "INSERT INTO settings (name, value) VALUES (?1, ?2) \
                 ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            )?
            .execute(params![self.alive, ms.to_string()])?;
        }
        tx.commit()?;
        Ok(())
    }
}
