//! Computer analyses of archived games: one row a game, with its status (`queued`,
//! `running`, `done`, `failed`) and, once done, its plies as JSON.

use sqlx::Row;

use super::{Db, DbError};

/// An analysis as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAnalysis {
    /// `queued`, `running`, `done` or `failed`.
    pub status: String,
    /// The plies as JSON, once done.
    pub plies: Option<String>,
}

impl Db {
    /// Queues the analysis of `game` asked by `user`; `false` if the game has one
    /// already (queued, running or done).
    pub async fn queue_analysis(
        &self,
        game: &str,
        user: &str,
        now_ms: i64,
    ) -> Result<bool, DbError> {
        let done = sqlx::query(
            "INSERT INTO analyses (game_id, status, requested_by, requested_at) \
             VALUES ($1, 'queued', $2, $3) ON CONFLICT (game_id) DO NOTHING",
        )
        .bind(game)
        .bind(user)
        .bind(now_ms)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Records the progress of an analysis.
    pub async fn set_analysis(
        &self,
        game: &str,
        status: &str,
        plies: Option<&str>,
    ) -> Result<(), DbError> {
        sqlx::query("UPDATE analyses SET status = $1, plies = $2 WHERE game_id = $3")
            .bind(status)
            .bind(plies)
            .bind(game)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Forgets a failed analysis so that it can be asked again.
    pub async fn drop_analysis(&self, game: &str) -> Result<(), DbError> {
        sqlx::query("DELETE FROM analyses WHERE game_id = $1")
            .bind(game)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// The analysis of `game`, if one was asked.
    pub async fn analysis(&self, game: &str) -> Result<Option<StoredAnalysis>, DbError> {
        let row = sqlx::query("SELECT status, plies FROM analyses WHERE game_id = $1")
            .bind(game)
            .fetch_optional(self.pool())
            .await?;
        row.map(|r| {
            Ok(StoredAnalysis {
                status: r.try_get("status")?,
                plies: r.try_get("plies")?,
            })
        })
        .transpose()
    }
}
