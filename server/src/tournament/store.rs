//! Where tournaments are kept: a small trait, the database implementation the server
//! uses ([`DbStore`], shared by every node of a cluster) and an in-memory one for unit
//! tests. Both keep, per tournament, the record with the highest (`fence`, `revision`).

use std::collections::HashMap;
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use shared::protocol::{TournamentStatus, TournamentSummary};

use super::record::TournamentRecord;
use crate::db::Db;
use crate::db::tournaments::StoredTournament;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum TournamentStoreError {
    /// The backing service failed.
    #[error("tournament store: {0}")]
    Backend(String),
}

/// Persistence of tournament records (the record holds every result and archived game).
pub trait TournamentStore: Send + Sync {
    /// Saves (inserts or replaces) a record.
    fn save<'a>(
        &'a self,
        record: &'a TournamentRecord,
    ) -> BoxFuture<'a, Result<(), TournamentStoreError>>;
    /// Loads a record.
    fn load<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TournamentRecord>, TournamentStoreError>>;
    /// Summaries of every record.
    fn list(&self) -> BoxFuture<'_, Result<Vec<TournamentSummary>, TournamentStoreError>>;
    /// Every record not finished (to resume them).
    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<TournamentRecord>, TournamentStoreError>>;
}

/// Records in the database (`tournaments` table), as JSON.
#[derive(Clone, Debug)]
pub struct DbStore {
    db: Db,
}

impl DbStore {
    /// A store over `db`.
    pub fn new(db: Db) -> DbStore {
        DbStore { db }
    }
}

fn status_text(s: TournamentStatus) -> &'static str {
    match s {
        TournamentStatus::Upcoming => "upcoming",
        TournamentStatus::Running => "running",
        TournamentStatus::Finished => "finished",
    }
}

fn backend(e: impl std::fmt::Display) -> TournamentStoreError {
    TournamentStoreError::Backend(e.to_string())
}

fn decode(row: &StoredTournament) -> Result<TournamentRecord, TournamentStoreError> {
    serde_json::from_str(&row.record).map_err(|e| {
        TournamentStoreError::Backend(format!("tournament {}: unreadable record: {e}", row.id))
    })
}

impl TournamentStore for DbStore {
    fn save<'a>(
        &'a self,
        record: &'a TournamentRecord,
    ) -> BoxFuture<'a, Result<(), TournamentStoreError>> {
        Box::pin(async move {
            let json = serde_json::to_string(record).map_err(backend)?;
            let revision = i64::try_from(record.revision).unwrap_or(i64::MAX);
            let fence = i64::try_from(record.fence).unwrap_or(i64::MAX);
            self.db
                .save_tournament(
                    &record.id,
                    &record.spec.name,
                    status_text(record.status),
                    (fence, revision),
                    &json,
                )
                .await
                .map_err(backend)?;
            Ok(())
        })
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TournamentRecord>, TournamentStoreError>> {
        Box::pin(async move {
            match self.db.tournament(id).await.map_err(backend)? {
                Some(row) => Ok(Some(decode(&row)?)),
                None => Ok(None),
            }
        })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<TournamentSummary>, TournamentStoreError>> {
        Box::pin(async move {
            let rows = self.db.tournaments(None).await.map_err(backend)?;
            let mut out = Vec::with_capacity(rows.len());
            for row in &rows {
                match decode(row) {
                    Ok(r) => out.push(r.summary()),
                    Err(e) => tracing::warn!(error = %e, "skipping a tournament"),
                }
            }
            Ok(out)
        })
    }

    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<TournamentRecord>, TournamentStoreError>> {
        Box::pin(async move {
            let rows = self
                .db
                .tournaments(Some(status_text(TournamentStatus::Finished)))
                .await
                .map_err(backend)?;
            rows.iter().map(decode).collect()
        })
    }
}

/// Records in memory: lost on restart.
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<HashMap<String, TournamentRecord>>,
}

impl MemoryStore {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, TournamentRecord>> {
        self.records.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl TournamentStore for MemoryStore {
    fn save<'a>(
        &'a self,
        record: &'a TournamentRecord,
    ) -> BoxFuture<'a, Result<(), TournamentStoreError>> {
        let mut map = self.map();
        let newer = map
            .get(&record.id)
            .is_none_or(|old| (old.fence, old.revision) < (record.fence, record.revision));
        if newer {
            map.insert(record.id.clone(), record.clone());
        }
        Box::pin(async { Ok(()) })
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TournamentRecord>, TournamentStoreError>> {
        let r = self.map().get(id).cloned();
        Box::pin(async move { Ok(r) })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<TournamentSummary>, TournamentStoreError>> {
        let v = self.map().values().map(TournamentRecord::summary).collect();
        Box::pin(async move { Ok(v) })
    }

    fn unfinished(&self) -> BoxFuture<'_, Result<Vec<TournamentRecord>, TournamentStoreError>> {
        let v = self
            .map()
            .values()
            .filter(|r| r.status != TournamentStatus::Finished)
            .cloned()
            .collect();
        Box::pin(async move { Ok(v) })
    }
}
