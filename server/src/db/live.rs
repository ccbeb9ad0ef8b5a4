//! The live games of a node without Redis, as rows (`server/migrations/0005`): one row
//! per game with its last whole snapshot and latest tail, the law's actions appended
//! since that snapshot, and every event in version order. Many games' writes go in one
//! transaction ([`Db::live_write`]: one commit, one fsync for all of them); the node's
//! last sign of life is a setting written with each transaction, so that a restart
//! knows when the node died.
//!
//! The same rows hold the write-behind mirror of a clustered node's games
//! ([`Db::mirror_write`], `server/migrations/0011`): each row also says which node
//! wrote it last and under which lease fence, a write under a lower fence leaves the
//! row's state alone, and each node's last sign of life is a setting of its own
//! (`live_alive_ms:<node>`), since several nodes write the same tables.

use sqlx::Row;

use super::{Db, DbError};

/// The setting holding the wall-clock ms of the node's last live-game transaction
/// (a node without Redis); a clustered node's is `live_alive_ms:<node>`.
const ALIVE: &str = "live_alive_ms";

/// The setting of `node`'s last sign of life ([`ALIVE`] for a node without Redis, whose
/// rows name no node).
fn alive_setting(node: &str) -> String {
    if node.is_empty() {
        ALIVE.to_string()
    } else {
        format!("{ALIVE}:{node}")
    }
}

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
    /// Every event stored: version and JSON, in version order.
    pub events: Vec<(u64, String)>,
    /// The lease fence the row was last written under (0: a node without Redis).
    pub fence: u64,
    /// The node that wrote the row last (empty: a node without Redis).
    pub node: String,
}

fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn uint(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// One game's write to the mirror: a [`LiveWrite`] under the game's lease fence.
#[derive(Debug)]
pub struct MirrorWrite {
    /// What is written.
    pub write: LiveWrite,
    /// The fencing number of the lease it was stored in Redis under.
    pub fence: u64,
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

    /// Writes several games' mirrored writes, deletes the rows of the games in `forget`
    /// (archived) and records `node`'s sign of life `alive_ms`, in one transaction. A
    /// write under a lower fence than its row's (its node lost the game's lease since)
    /// leaves the row's snapshot, tail and actions alone; its events, the same in Redis
    /// whoever wrote them, are added if missing. Events of a game with no row are not.
    pub async fn mirror_write(
        &self,
        writes: &[MirrorWrite],
        forget: &[String],
        node: &str,
        alive_ms: u64,
    ) -> Result<(), DbError> {
        let mut tx = self.pool().begin().await?;
        for MirrorWrite { write: w, fence } in writes {
            let current = match &w.snapshot {
                Some(snapshot) => sqlx::query(
                    "INSERT INTO live_games (id, snapshot, tail, fence, node) \
                     VALUES ($1, $2, $3, $4, $5) \
                     ON CONFLICT (id) DO UPDATE SET snapshot = excluded.snapshot, \
                     tail = excluded.tail, fence = excluded.fence, node = excluded.node \
                     WHERE live_games.fence <= excluded.fence",
                )
                .bind(&w.id)
                .bind(snapshot)
                .bind(&w.tail)
                .bind(int(*fence))
                .bind(node)
                .execute(&mut *tx)
                .await?
                .rows_affected(),
                None => sqlx::query(
                    "UPDATE live_games SET tail = $2, fence = $3, node = $4 \
                     WHERE id = $1 AND fence <= $3",
                )
                .bind(&w.id)
                .bind(&w.tail)
                .bind(int(*fence))
                .bind(node)
                .execute(&mut *tx)
                .await?
                .rows_affected(),
            } > 0;
            if current && w.snapshot.is_some() {
                sqlx::query("DELETE FROM live_acts WHERE game_id = $1")
                    .bind(&w.id)
                    .execute(&mut *tx)
                    .await?;
            }
            for (seq, json) in w.acts.iter().filter(|_| current) {
                sqlx::query(
                    "INSERT INTO live_acts (game_id, seq, json) VALUES ($1, $2, $3) \
                     ON CONFLICT (game_id, seq) DO UPDATE SET json = excluded.json",
                )
                .bind(&w.id)
                .bind(int(*seq))
                .bind(json)
                .execute(&mut *tx)
                .await?;
            }
            for (version, json) in &w.events {
                sqlx::query(
                    "INSERT INTO live_events (game_id, version, json) \
                     SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM live_games WHERE id = $1) \
                     ON CONFLICT (game_id, version) DO NOTHING",
                )
                .bind(&w.id)
                .bind(int(*version))
                .bind(json)
                .execute(&mut *tx)
                .await?;
            }
        }
        for id in forget {
            for sql in [
                "DELETE FROM live_events WHERE game_id = $1",
                "DELETE FROM live_acts WHERE game_id = $1",
                "DELETE FROM live_games WHERE id = $1",
            ] {
                sqlx::query(sql).bind(id).execute(&mut *tx).await?;
            }
        }
        sqlx::query(
            "INSERT INTO settings (name, value) VALUES ($1, $2) \
             ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        )
        .bind(alive_setting(node))
        .bind(alive_ms.to_string())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Every node's last sign of life (wall ms) by node name (empty: a node without
    /// Redis).
    pub async fn live_alive_all(&self) -> Result<std::collections::HashMap<String, u64>, DbError> {
        let rows = sqlx::query("SELECT name, value FROM settings WHERE name LIKE 'live_alive_ms%'")
            .fetch_all(self.pool())
            .await?;
        let mut alive = std::collections::HashMap::new();
        for row in rows {
            let name: String = row.try_get(0)?;
            let value: String = row.try_get(1)?;
            let node = match name.strip_prefix(ALIVE) {
                Some("") => "",
                Some(rest) => match rest.strip_prefix(':') {
                    Some(node) => node,
                    None => continue,
                },
                None => continue,
            };
            if let Ok(ms) = value.parse() {
                alive.insert(node.to_string(), ms);
            }
        }
        Ok(alive)
    }

    /// Every stored live game.
    pub async fn live_games(&self) -> Result<Vec<LiveRow>, DbError> {
        let mut games = Vec::new();
        for id in self.live_ids().await? {
            if let Some(game) = self.live_game(&id).await? {
                games.push(game);
            }
        }
        Ok(games)
    }

    /// The ids of every stored live game.
    pub async fn live_ids(&self) -> Result<Vec<String>, DbError> {
        Ok(sqlx::query("SELECT id FROM live_games ORDER BY id")
            .fetch_all(self.pool())
            .await?
            .iter()
            .map(|r| r.try_get::<String, _>(0))
            .collect::<Result<Vec<_>, _>>()?)
    }

    /// One stored live game, if it is there.
    pub async fn live_game(&self, id: &str) -> Result<Option<LiveRow>, DbError> {
        let Some(row) =
            sqlx::query("SELECT snapshot, tail, fence, node FROM live_games WHERE id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?
        else {
            return Ok(None);
        };
        let acts = sqlx::query("SELECT json FROM live_acts WHERE game_id = $1 ORDER BY seq")
            .bind(id)
            .fetch_all(self.pool())
            .await?
            .iter()
            .map(|r| r.try_get::<String, _>(0))
            .collect::<Result<Vec<_>, _>>()?;
        let events = sqlx::query(
            "SELECT version, json FROM live_events WHERE game_id = $1 ORDER BY version",
        )
        .bind(id)
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(|r| Ok((uint(r.try_get::<i64, _>(0)?), r.try_get::<String, _>(1)?)))
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
        Ok(Some(LiveRow {
            id: id.to_string(),
            snapshot: row.try_get(0)?,
            tail: row.try_get(1)?,
            fence: uint(row.try_get::<i64, _>(2)?),
            node: row.try_get(3)?,
            acts,
            events,
        }))
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
