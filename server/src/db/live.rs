//! The live games of a node without Redis, as rows (`server/migrations/0005`): one row
//! per game with its last whole snapshot and latest tail, the law's actions appended
//! since that snapshot, and every event in version order. Many games' writes go in one
//! transaction ([`Db::live_write`]: one commit, one fsync for all of them); the node's
//! last sign of life is a setting written with each transaction, so that a restart
//! knows when the node died.

use sqlx::Row;

use super::{Db, DbError};

/// The setting holding the wall-clock ms of the node's last live-game transaction.
const ALIVE: &str = "live_alive_ms";

/// One game's write.
#[derive(Debug)]
pub struct LiveWrite {
    /// The game.
    pub id: String,
    /// A whole snapshot JSON: replaces the stored one and empties the actions list.
    pub snapshot: Option<String>,
    /// The latest tail JSON.
    pub tail: String,
    /// New events: version and JSON.
    pub events: Vec<(u64, String)>,
    /// New actions after the snapshot: their place in the list and JSON.
    pub acts: Vec<(u64, String)>,
}

/// A live game as stored.
#[derive(Debug)]
pub struct LiveRow {
    /// The game.
    pub id: String,
    /// The last whole snapshot JSON.
    pub snapshot: String,
    /// The latest tail JSON, if written since.
    pub tail: Option<String>,
    /// The actions appended after the snapshot (JSON), in order.
    pub acts: Vec<String>,
    /// Every event JSON, in version order.
    pub events: Vec<String>,
}

fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Db {
    /// Stores several games' writes and the node's sign of life `alive_ms` in one
    /// transaction.
    pub async fn live_write(&self, writes: &[LiveWrite], alive_ms: u64) -> Result<(), DbError> {
        let mut tx = self.pool().begin().await?;
        for w in writes {
            if let Some(snapshot) = &w.snapshot {
                sqlx::query(
                    "INSERT INTO live_games (id, snapshot, tail) VALUES ($1, $2, $3) \
                     ON CONFLICT (id) DO UPDATE SET snapshot = excluded.snapshot, tail = excluded.tail",
                )
                .bind(&w.id)
                .bind(snapshot)
                .bind(&w.tail)
                .execute(&mut *tx)
                .await?;
                sqlx::query("DELETE FROM live_acts WHERE game_id = $1")
                    .bind(&w.id)
                    .execute(&mut *tx)
                    .await?;
            } else {
                sqlx::query("UPDATE live_games SET tail = $2 WHERE id = $1")
                    .bind(&w.id)
                    .bind(&w.tail)
                    .execute(&mut *tx)
                    .await?;
            }
            for (seq, json) in &w.acts {
                sqlx::query("INSERT INTO live_acts (game_id, seq, json) VALUES ($1, $2, $3)")
                    .bind(&w.id)
                    .bind(int(*seq))
                    .bind(json)
                    .execute(&mut *tx)
                    .await?;
            }
            for (version, json) in &w.events {
                sqlx::query(
                    "INSERT INTO live_events (game_id, version, json) VALUES ($1, $2, $3) \
                     ON CONFLICT (game_id, version) DO NOTHING",
                )
                .bind(&w.id)
                .bind(int(*version))
                .bind(json)
                .execute(&mut *tx)
                .await?;
            }
        }
        sqlx::query(
            "INSERT INTO settings (name, value) VALUES ($1, $2) \
             ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        )
        .bind(ALIVE)
        .bind(alive_ms.to_string())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Every stored live game.
    pub async fn live_games(&self) -> Result<Vec<LiveRow>, DbError> {
        let rows = sqlx::query("SELECT id, snapshot, tail FROM live_games ORDER BY id")
            .fetch_all(self.pool())
            .await?;
        let mut games = Vec::with_capacity(rows.len());
        for row in rows {
            let id: String = row.try_get(0)?;
            let list = |sql: &'static str| {
                let id = id.clone();
                async move {
                    sqlx::query(sql)
                        .bind(id)
                        .fetch_all(self.pool())
                        .await?
                        .iter()
                        .map(|r| r.try_get::<String, _>(0))
                        .collect::<Result<Vec<_>, _>>()
                }
            };
            let acts = list("SELECT json FROM live_acts WHERE game_id = $1 ORDER BY seq").await?;
            let events =
                list("SELECT json FROM live_events WHERE game_id = $1 ORDER BY version").await?;
            games.push(LiveRow {
                snapshot: row.try_get(1)?,
                tail: row.try_get(2)?,
                id,
                acts,
                events,
            });
        }
        Ok(games)
    }

    /// Forgets a live game (archived, or unreadable).
    pub async fn live_forget(&self, id: &str) -> Result<(), DbError> {
        let mut tx = self.pool().begin().await?;
        for sql in [
            "DELETE FROM live_events WHERE game_id = $1",
            "DELETE FROM live_acts WHERE game_id = $1",
            "DELETE FROM live_games WHERE id = $1",
        ] {
            sqlx::query(sql).bind(id).execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The wall-clock ms of the node's last live-game transaction, if any.
    pub async fn live_alive_ms(&self) -> Result<Option<u64>, DbError> {
        let row = sqlx::query("SELECT value FROM settings WHERE name = $1")
            .bind(ALIVE)
            .fetch_optional(self.pool())
            .await?;
        Ok(row
            .map(|r| r.try_get::<String, _>(0))
            .transpose()?
            .and_then(|v| v.parse().ok()))
    }
}
