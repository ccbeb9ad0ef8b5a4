//! Where tournaments are kept: a small trait so that a database can replace the
//! in-memory map, and the in-memory implementation used by a single node and the tests.

use std::collections::HashMap;
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use shared::protocol::TournamentSummary;

use super::record::TournamentRecord;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The backing service failed.
    #[error("tournament store: {0}")]
    Backend(String),
}

/// Persistence of tournament records (the record holds every result and archived game).
pub trait TournamentStore: Send + Sync {
    /// Saves (inserts or replaces) a record.
    fn save<'a>(&'a self, record: &'a TournamentRecord) -> BoxFuture<'a, Result<(), StoreError>>;
    /// Loads a record.
    fn load<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TournamentRecord>, StoreError>>;
    /// Summaries of every record.
    fn list(&self) -> BoxFuture<'_, Result<Vec<TournamentSummary>, StoreError>>;
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
    fn save<'a>(&'a self, record: &'a TournamentRecord) -> BoxFuture<'a, Result<(), StoreError>> {
        self.map().insert(record.id.clone(), record.clone());
        Box::pin(async { Ok(()) })
    }

    fn load<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TournamentRecord>, StoreError>> {
        let r = self.map().get(id).cloned();
        Box::pin(async move { Ok(r) })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<TournamentSummary>, StoreError>> {
        let v = self.map().values().map(TournamentRecord::summary).collect();
        Box::pin(async move { Ok(v) })
    }
}
