//! The live-game writer of a SQLite node: one connection of its own (rusqlite, on the
//! same SQLite library sqlx links), on a thread of its own, running each group's
//! transaction with prepared statements. sqlx runs every SQLite connection on a thread
//! too, but takes bound values one statement per call; the group commit had to send
//! its transaction as one text with the values written into it, which SQLite parsed
//! anew each time (every event's JSON scanned as a literal). Here each statement is
//! parsed once per connection and a group is one hand-over to the thread and one back.
//!
//! The connection is the writer's alone, so SQLite keeps its page cache between groups
//! unless another connection (the pool's: archives, reads) wrote in between.

use std::path::PathBuf;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior, params};
use tokio::sync::{mpsc, oneshot};

use super::DbError;
use super::live_group::{LiveGroup, int};

/// A group handed to the thread: it comes back (emptied) with the result, so the
/// caller keeps its buffers.
struct Job {
    group: LiveGroup,
    alive_ms: u64,
    reply: oneshot::Sender<(LiveGroup, Result<(), DbError>)>,
}

/// The handle to the writer's thread; the thread ends when this is dropped (after the
/// group it is running, if any).
#[derive(Debug)]
pub(crate) struct SqliteLive {
    jobs: mpsc::Sender<Job>,
}

impl SqliteLive {
    /// Opens a connection to `file` (WAL, a commit on disk when it returns) and starts
    /// its thread; each transaction records the node's sign of life in the setting
    /// `alive`.
    pub(crate) fn start(file: PathBuf, alive: String) -> Result<SqliteLive, DbError> {
        let conn = open(&file)?;
        let (jobs, rx) = mpsc::channel(1);
        std::thread::Builder::new()
            .name("damka-live-sqlite".into())
            .spawn(move || run(conn, &alive, rx))
            .map_err(|e| DbError::Config(format!("live writer thread: {e}")))?;
        Ok(SqliteLive { jobs })
    }

    /// Stores `group` and the node's sign of life `alive_ms` in one transaction and
    /// returns it (emptied) for its buffers' reuse.
    pub(crate) async fn write(
        &self,
        group: LiveGroup,
        alive_ms: u64,
    ) -> (LiveGroup, Result<(), DbError>) {
        let (reply, answer) = oneshot::channel();
        let job = Job {
            group,
            alive_ms,
            reply,
        };
        if let Err(mpsc::error::SendError(job)) = self.jobs.send(job).await {
            return (job.group, Err(DbError::WriterStopped));
        }
        match answer.await {
            Ok((group, result)) => (group, result),
            Err(_) => (LiveGroup::default(), Err(DbError::WriterStopped)),
        }
    }
}

/// The connection with the pool's settings: wait on a busy file, write-ahead log,
/// `synchronous = FULL` (a commit is on disk when it returns; one fsync a group).
fn open(file: &std::path::Path) -> rusqlite::Result<Connection> {
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

/// The thread: one group at a time until the handle is dropped.
fn run(mut conn: Connection, alive: &str, mut jobs: mpsc::Receiver<Job>) {
    while let Some(mut job) = jobs.blocking_recv() {
        let result = commit(&mut conn, &job.group, alive, job.alive_ms).map_err(DbError::from);
        job.group.clear();
        let _ = job.reply.send((job.group, result));
    }
}

/// One transaction: each game's writes in order (a new snapshot replaces the row and
/// drops the actions before it; else the tail is updated), the forgotten games' rows
/// deleted, then the sign of life. A failing statement rolls the whole transaction
/// back (the transaction is dropped).
fn commit(
    conn: &mut Connection,
    group: &LiveGroup,
    alive: &str,
    alive_ms: u64,
) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
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
        let mut act =
            tx.prepare_cached("INSERT INTO live_acts (game_id, seq, json) VALUES (?1, ?2, ?3)")?;
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
        for sql in [
            "DELETE FROM live_events WHERE game_id = ?1",
            "DELETE FROM live_acts WHERE game_id = ?1",
            "DELETE FROM live_games WHERE id = ?1",
        ] {
            tx.prepare_cached(sql)?.execute([id])?;
        }
    }
    tx.prepare_cached(
        "INSERT INTO settings (name, value) VALUES (?1, ?2) \
         ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    )?
    .execute(params![alive, alive_ms.to_string()])?;
    tx.commit()
}
