//! Chat as stored (migration 8): lines numbered per room, deletions, blocks between
//! users, reports for the moderators and timeouts. What may be said and who may say
//! it is `crate::chat`'s.

use shared::protocol::{ChatLine, UserId};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

/// Attempts at numbering a line when another node numbers one in the same room at the
/// same instant (the second insert finds the number taken and tries the next).
const NUMBERING_ATTEMPTS: usize = 8;

/// A report as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredReport {
    /// The room's name.
    pub room: String,
    /// The line.
    pub seq: u64,
    /// Who reported it.
    pub reporter: String,
    /// Why.
    pub reason: String,
    /// When (Unix ms).
    pub at_ms: i64,
}

fn line(row: &AnyRow) -> Result<ChatLine, DbError> {
    let seq: i64 = row.try_get(0)?;
    let at: i64 = row.try_get(4)?;
    Ok(ChatLine {
        seq: u64::try_from(seq).map_err(|_| DbError::Corrupt(format!("chat seq {seq}")))?,
        user: UserId(row.try_get(1)?),
        name: row.try_get(2)?,
        text: row.try_get(3)?,
        at_ms: u64::try_from(at).unwrap_or(0),
    })
}

fn seq_param(seq: u64) -> i64 {
    i64::try_from(seq).unwrap_or(i64::MAX)
}

impl Db {
    /// Stores a line said in `room`; its number there. Numbers are taken in order:
    /// one more than the room's last.
    pub async fn insert_chat_line(
        &self,
        room: &str,
        user: &UserId,
        name: &str,
        text: &str,
        at_ms: i64,
    ) -> Result<u64, DbError> {
        let mut last = None;
        for _ in 0..NUMBERING_ATTEMPTS {
            let inserted = sqlx::query(
                "INSERT INTO chat_lines (room, seq, user_id, user_name, text, at_ms) \
                 SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $5 FROM chat_lines \
                 WHERE room = $1 RETURNING seq",
            )
            .bind(room)
            .bind(&user.0)
            .bind(name)
            .bind(text)
            .bind(at_ms)
            .fetch_one(self.pool())
            .await;
            match inserted {
                Ok(row) => {
                    let seq: i64 = row.try_get(0)?;
                    return u64::try_from(seq)
                        .map_err(|_| DbError::Corrupt(format!("chat seq {seq}")));
                }
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                    last = Some(sqlx::Error::Database(e));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(last.map_or_else(|| DbError::Config("chat numbering".into()), DbError::from))
    }

    /// The room's lines not deleted: those after `after`, or with none the last
    /// `limit`; oldest first, at most `limit`.
    pub async fn chat_lines(
        &self,
        room: &str,
        after: Option<u64>,
        limit: u32,
    ) -> Result<Vec<ChatLine>, DbError> {
        const COLUMNS: &str = "seq, user_id, user_name, text, at_ms FROM chat_lines";
        let rows = match after {
            Some(after) => {
                let sql = format!(
                    "SELECT {COLUMNS} WHERE room = $1 AND seq > $2 AND deleted_ms IS NULL \
                     ORDER BY seq LIMIT $3"
                );
                sqlx::query(&sql)
                    .bind(room)
                    .bind(seq_param(after))
                    .bind(i64::from(limit))
                    .fetch_all(self.pool())
                    .await?
            }
            None => {
                let sql = format!(
                    "SELECT {COLUMNS} WHERE room = $1 AND deleted_ms IS NULL \
                     ORDER BY seq DESC LIMIT $2"
                );
                let mut rows = sqlx::query(&sql)
                    .bind(room)
                    .bind(i64::from(limit))
                    .fetch_all(self.pool())
                    .await?;
                rows.reverse();
                rows
            }
        };
        rows.iter().map(line).collect()
    }

    /// One line of a room, deleted or not, and whether it is deleted.
    pub async fn chat_line(
        &self,
        room: &str,
        seq: u64,
    ) -> Result<Option<(ChatLine, bool)>, DbError> {
        let row = sqlx::query(
            "SELECT seq, user_id, user_name, text, at_ms, deleted_ms FROM chat_lines \
             WHERE room = $1 AND seq = $2",
        )
        .bind(room)
        .bind(seq_param(seq))
        .fetch_optional(self.pool())
        .await?;
        row.map(|r| Ok((line(&r)?, r.try_get::<Option<i64>, _>(5)?.is_some())))
            .transpose()
    }

    /// Marks a line deleted; false if there is no such line or it was deleted already.
    pub async fn delete_chat_line(
        &self,
        room: &str,
        seq: u64,
        by: &UserId,
        at_ms: i64,
    ) -> Result<bool, DbError> {
        let done = sqlx::query(
            "UPDATE chat_lines SET deleted_ms = $1, deleted_by = $2 \
             WHERE room = $3 AND seq = $4 AND deleted_ms IS NULL",
        )
        .bind(at_ms)
        .bind(&by.0)
        .bind(room)
        .bind(seq_param(seq))
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// `blocker` blocks `blocked` (again: nothing changes).
    pub async fn block_user(
        &self,
        blocker: &UserId,
        blocked: &UserId,
        at_ms: i64,
    ) -> Result<(), DbError> {
        sqlx::query(
            "INSERT INTO chat_blocks (blocker, blocked, at_ms) VALUES ($1, $2, $3) \
             ON CONFLICT (blocker, blocked) DO NOTHING",
        )
        .bind(&blocker.0)
        .bind(&blocked.0)
        .bind(at_ms)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// `blocker` no longer blocks `blocked`.
    pub async fn unblock_user(&self, blocker: &UserId, blocked: &UserId) -> Result<(), DbError> {
        sqlx::query("DELETE FROM chat_blocks WHERE blocker = $1 AND blocked = $2")
            .bind(&blocker.0)
            .bind(&blocked.0)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// The users `blocker` blocks, in the order blocked.
    pub async fn blocked_users(&self, blocker: &UserId) -> Result<Vec<UserId>, DbError> {
        let rows = sqlx::query(
            "SELECT blocked FROM chat_blocks WHERE blocker = $1 ORDER BY at_ms, blocked",
        )
        .bind(&blocker.0)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(|r| Ok(UserId(r.try_get(0)?))).collect()
    }

    /// Does `blocker` block `blocked`?
    pub async fn blocks(&self, blocker: &UserId, blocked: &UserId) -> Result<bool, DbError> {
        let row = sqlx::query("SELECT 1 FROM chat_blocks WHERE blocker = $1 AND blocked = $2")
            .bind(&blocker.0)
            .bind(&blocked.0)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.is_some())
    }

    /// Stores a report of a line.
    pub async fn insert_chat_report(&self, id: &str, r: &StoredReport) -> Result<(), DbError> {
        sqlx::query(
            "INSERT INTO chat_reports (id, room, seq, reporter, reason, at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(id)
        .bind(&r.room)
        .bind(seq_param(r.seq))
        .bind(&r.reporter)
        .bind(&r.reason)
        .bind(r.at_ms)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// The latest reports, newest first.
    pub async fn chat_reports(&self, limit: u32) -> Result<Vec<StoredReport>, DbError> {
        let rows = sqlx::query(
            "SELECT room, seq, reporter, reason, at_ms FROM chat_reports \
             ORDER BY at_ms DESC, id LIMIT $1",
        )
        .bind(i64::from(limit))
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|r| {
                Ok(StoredReport {
                    room: r.try_get(0)?,
                    seq: u64::try_from(r.try_get::<i64, _>(1)?).unwrap_or(0),
                    reporter: r.try_get(2)?,
                    reason: r.try_get(3)?,
                    at_ms: r.try_get(4)?,
                })
            })
            .collect()
    }

    /// Times `user` out of chat until `until_ms` (replacing an earlier timeout).
    pub async fn set_chat_timeout(
        &self,
        user: &UserId,
        until_ms: i64,
        by: &UserId,
        at_ms: i64,
    ) -> Result<(), DbError> {
        sqlx::query(
            "INSERT INTO chat_timeouts (user_id, until_ms, by_user, at_ms) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (user_id) DO UPDATE SET until_ms = excluded.until_ms, \
             by_user = excluded.by_user, at_ms = excluded.at_ms",
        )
        .bind(&user.0)
        .bind(until_ms)
        .bind(&by.0)
        .bind(at_ms)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Until when `user` is timed out of chat, if ever.
    pub async fn chat_timeout(&self, user: &UserId) -> Result<Option<i64>, DbError> {
        let row = sqlx::query("SELECT until_ms FROM chat_timeouts WHERE user_id = $1")
            .bind(&user.0)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(|r| r.try_get(0)).transpose()?)
    }
}
