//! Tournament records: one row per tournament holding its whole record as JSON text
//! (the server's `tournament::record` owns its shape), written with a revision so that a
//! late, older save never replaces a newer one.

use sqlx::Row;

use super::players::now_ms;
use super::{Db, DbError};

/// One stored tournament row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredTournament {
    /// The id.
    pub id: String,
    /// Its status (`upcoming`, `running`, `finished`).
    pub status: String,
    /// The save counter.
    pub revision: i64,
    /// The record as JSON.
    pub record: String,
}

impl Db {
    /// Inserts or replaces a tournament's record unless the stored revision is already
    /// `revision` or newer; returns whether this save was written.
    pub async fn save_tournament(
        &self,
        id: &str,
        name: &str,
        status: &str,
        revision: i64,
        record: &str,
    ) -> Result<bool, DbError> {
        let now = now_ms();
        let done = sqlx::query(
            "INSERT INTO tournaments (id, name, status, revision, record, created_ms, updated_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $6) \
             ON CONFLICT (id) DO UPDATE SET status = excluded.status, \
             revision = excluded.revision, record = excluded.record, \
             updated_ms = excluded.updated_ms \
             WHERE tournaments.revision < excluded.revision",
        )
        .bind(id)
        .bind(name)
        .bind(status)
        .bind(revision)
        .bind(record)
        .bind(now)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() > 0)
    }

    /// One tournament.
    pub async fn tournament(&self, id: &str) -> Result<Option<StoredTournament>, DbError> {
        let row = sqlx::query("SELECT id, status, revision, record FROM tournaments WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(stored).transpose()
    }

    /// Every tournament, or only those whose status is not `except_status`.
    pub async fn tournaments(
        &self,
        except_status: Option<&str>,
    ) -> Result<Vec<StoredTournament>, DbError> {
        let rows = sqlx::query(
            "SELECT id, status, revision, record FROM tournaments \
             WHERE status <> $1 ORDER BY created_ms, id",
        )
        .bind(except_status.unwrap_or(""))
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(stored).collect()
    }
}

fn stored(row: &sqlx::any::AnyRow) -> Result<StoredTournament, DbError> {
    Ok(StoredTournament {
        id: row.try_get("id")?,
        status: row.try_get("status")?,
        revision: row.try_get("revision")?,
        record: row.try_get("record")?,
    })
}
