//! Finished arenas: the description and the final standings with every player's
//! sheet, written once (idempotently by id) when an arena ends and read back by the
//! HTTP API.

use serde::{Deserialize, Serialize};
use shared::arena::{ArenaInfo, Entry, Standing};
use sqlx::Row;

use super::{Db, DbError};

/// A final standings line with the player's whole sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalLine {
    /// The line.
    #[serde(flatten)]
    pub standing: Standing,
    /// Every game with its points and why.
    pub sheet: Vec<Entry>,
}

/// A finished arena as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishedArena {
    /// What it was.
    pub arena: ArenaInfo,
    /// When it ended (the last game finished), Unix ms.
    pub ended_at_ms: u64,
    /// Every player, best first; the first three are the podium.
    pub standings: Vec<FinalLine>,
}

fn corrupt(e: serde_json::Error) -> DbError {
    DbError::Corrupt(e.to_string())
}

impl Db {
    /// Stores a finished arena; storing it again changes nothing.
    pub async fn save_arena(&self, a: &FinishedArena) -> Result<(), DbError> {
        let info = serde_json::to_string(&a.arena).map_err(corrupt)?;
        let standings = serde_json::to_string(&a.standings).map_err(corrupt)?;
        let ms = |t: u64| i64::try_from(t).unwrap_or(i64::MAX);
        sqlx::query(
            "INSERT INTO arenas (id, name, starts_at, ended_at, info, standings) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
        )
        .bind(&a.arena.id)
        .bind(&a.arena.name)
        .bind(ms(a.arena.starts_at_ms))
        .bind(ms(a.ended_at_ms))
        .bind(info)
        .bind(standings)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// A finished arena by id.
    pub async fn arena(&self, id: &str) -> Result<Option<FinishedArena>, DbError> {
        let row = sqlx::query("SELECT ended_at, info, standings FROM arenas WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let ended: i64 = row.try_get("ended_at")?;
        let info: String = row.try_get("info")?;
        let standings: String = row.try_get("standings")?;
        Ok(Some(FinishedArena {
            arena: serde_json::from_str(&info).map_err(corrupt)?,
            ended_at_ms: u64::try_from(ended).unwrap_or(0),
            standings: serde_json::from_str(&standings).map_err(corrupt)?,
        }))
    }

    /// The most recently finished arenas, newest first.
    pub async fn finished_arenas(&self, max: u32) -> Result<Vec<ArenaInfo>, DbError> {
        let rows = sqlx::query("SELECT info FROM arenas ORDER BY ended_at DESC LIMIT $1")
            .bind(i64::from(max))
            .fetch_all(self.pool())
            .await?;
        rows.iter()
            .map(|r| {
                let info: String = r.try_get("info")?;
                serde_json::from_str(&info).map_err(corrupt)
            })
            .collect()
    }

    /// Rated games a player has finished in a perf.
    pub async fn rated_games(&self, player_id: &str, perf: &str) -> Result<u32, DbError> {
        let row = sqlx::query("SELECT games FROM ratings WHERE player_id = $1 AND perf = $2")
            .bind(player_id)
            .bind(perf)
            .fetch_optional(self.pool())
            .await?;
        let games: i64 = match row {
            Some(r) => r.try_get("games")?,
            None => 0,
        };
        Ok(u32::try_from(games).unwrap_or(u32::MAX))
    }
}
