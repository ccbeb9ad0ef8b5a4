//! Tournament records: one row per tournament holding its whole record as JSON text
//! (the server's `tournament::record` owns its shape), written with the organiser's fence
//! and a revision so that neither a late, older save nor a save by a node that lost the
//! organiser lease replaces a newer one.

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
    /// Inserts or replaces a tournament's record unless the stored one has a higher
    /// fence, or the same fence and a revision not older; returns whether this save
    /// was written.
    pub async fn save_tournament(
        &self,
        id: &str,
        name: &str,
        status: &str,
        (fence, revision): (i64, i64),
        record: &str,
    ) -> Result<bool, DbError> {
        let now = now_ms();
        let done = sqlx::query(
            "INSERT INTO tournaments \
             (id, name, status, revision, fence, record, created_ms, updated_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7) \
             ON CONFLICT (id) DO UPDATE SET status = excluded.status, \
             revision = excluded.revision, fence = excluded.fence, record = excluded.record, \
             updated_ms = excluded.updated_ms \
             WHERE tournaments.fence < excluded.fence \
             OR (tournaments.fence = excluded.fence AND tournaments.revision < excluded.revision)",
        )
        .bind(id)
        .bind(name)
        .bind(status)
        .bind(revision)
        .bind(fence)
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
