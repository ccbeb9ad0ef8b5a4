//! The write-behind mirror of a clustered node's live games in the database (the rows
//! of a node without Redis, `server/migrations/0005` and `0011`): Redis keeps nothing on
//! disk, so a whole-cluster restart that empties it would otherwise lose every live
//! game. After each save Redis took, the game's replica hands the same content (new
//! events, the law's new actions, the tail, a whole snapshot when one was written) to
//! [`Mirror::queue`] without waiting: a short lock and a merge into the game's one
//! pending entry (events and actions appended, tail replaced, a new snapshot resets the
//! actions), so the move path gains no database round trip. One writer task takes every
//! pending entry each `cluster.mirror_ms` and writes them in one transaction (group
//! commit), with the node's sign of life; a failed transaction puts its entries back
//! under the newer ones, whole. What is pending is one entry per game: an entry that
//! grows past [`MAX_PENDING_EVENTS`] (the database down for long) drops its content and
//! is written whole from Redis, which holds it, once the database answers. An archived
//! game is forgotten ([`Mirror::forget`]: its rows deleted). At a graceful stop the writer
//! writes what is pending, and the server writes once more what the game actors queued
//! on their way out ([`Mirror::finish`]). At start [`Mirror::load`] reads back a game
//! Redis lost, with its owner's last sign of life, for the registry to put back into
//! Redis (`GameRegistry::restore_mirrored`).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use shared::protocol::GameId;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::log::PLACEHOLDER;
use super::redis_store::GameStore;
use crate::cluster::redis::wall_ms;
use crate::db::live::{LiveRow, LiveWrite, MirrorWrite};
use crate::db::{Db, DbError};
use crate::metrics::Metrics;

/// Events one game may have pending before its entry is written whole from Redis
/// instead (the database down for long): keeps the mirror's memory bounded by the
/// number of games.
pub const MAX_PENDING_EVENTS: usize = 1024;
/// How often the writer records the node alive when no game writes.
const ALIVE_EVERY: Duration = Duration::from_secs(1);
/// How long [`Mirror::finish`] keeps trying a database that refuses the last writes.
const FINISH_TRIES: u32 = 10;

/// One save Redis took, as the mirror gets it.
#[derive(Debug)]
pub struct Saved {
    /// A whole snapshot JSON (compaction, takeover, takeback, first write).
    pub snapshot: Option<String>,
    /// The tail JSON.
    pub tail: String,
    /// The events written: version and JSON.
    pub events: Vec<(u64, Utf8Bytes)>,
    /// The law's actions appended after the snapshot: place in the list and JSON.
    pub acts: Vec<(u64, String)>,
    /// The fencing number of the lease Redis took it under.
    pub fence: u64,
}

/// What one game has waiting for the writer.
#[derive(Debug)]
struct Entry {
    saved: Saved,
    /// Too much was pending: write the game whole from Redis.
    reload: bool,
}

impl Entry {
    /// `later`, saved after what this entry holds, merged into it.
    fn absorb(&mut self, later: Saved) {
        let s = &mut self.saved;
        if later.snapshot.is_some() {
            s.snapshot = later.snapshot;
            s.acts = later.acts;
        } else {
            s.acts.extend(later.acts);
        }
        s.tail = later.tail;
        s.events.extend(later.events);
        s.fence = s.fence.max(later.fence);
        if s.events.len() > MAX_PENDING_EVENTS {
            s.events = Vec::new();
            s.acts = Vec::new();
            s.snapshot = None;
            self.reload = true;
        }
    }
}

/// Everything waiting for the writer.
#[derive(Debug, Default)]
struct Pending {
    games: HashMap<GameId, Entry>,
    forget: HashSet<GameId>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.games.is_empty() && self.forget.is_empty()
    }

    /// `failed` (taken before this was queued, not written) put back under this.
    fn put_back(&mut self, failed: Pending) {
        for (id, mut entry) in failed.games {
            if self.forget.contains(&id) {
                continue;
            }
            if let Some(later) = self.games.remove(&id) {
                entry.reload |= later.reload;
                entry.absorb(later.saved);
            }
            self.games.insert(id, entry);
        }
        self.forget.extend(failed.forget);
    }
}

/// A live game read back from the mirror.
#[derive(Debug)]
pub struct Mirrored {
    /// Its rows.
    pub row: LiveRow,
    /// When the node that wrote it last was last known alive (wall ms; 0: unknown).
    pub last_alive_ms: u64,
}

struct Inner {
    db: Db,
    /// The node's games in Redis: its name, and what is read back whole from there.
    store: Arc<GameStore>,
    metrics: Arc<Metrics>,
    every: Duration,
    pending: Mutex<Pending>,
    /// One flush at a time (the writer's, the last one).
    flushing: tokio::sync::Mutex<()>,
    /// When the server began to stop (wall ms; 0: running): the clocks stopped then.
    stopped_at: AtomicU64,
    /// When the node's sign of life was last written (wall ms).
    alive_at: AtomicU64,
    /// Every node's last sign of life before this start, once read (before the
    /// writer's first write).
    previous_alive: watch::Receiver<Option<HashMap<String, u64>>>,
}

/// The node's mirror; cheap to clone.
#[derive(Clone)]
pub struct Mirror {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Mirror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mirror").finish_non_exhaustive()
    }
}

impl Mirror {
    /// The mirror of `store`'s node on `db`, flushed every `every`; its writer runs
    /// on `tracker` until `stopping` (and writes what is pending then).
    pub fn start(
        db: Db,
        store: Arc<GameStore>,
        metrics: Arc<Metrics>,
        every: Duration,
        tracker: &TaskTracker,
        stopping: CancellationToken,
    ) -> Mirror {
        let (alive_tx, previous_alive) = watch::channel(None);
        let mirror = Mirror {
            inner: Arc::new(Inner {
                db,
                store,
                metrics,
                every,
                pending: Mutex::default(),
                flushing: tokio::sync::Mutex::new(()),
                stopped_at: AtomicU64::new(0),
                alive_at: AtomicU64::new(0),
                previous_alive,
            }),
        };
        tracker.spawn(mirror.clone().writer(alive_tx, stopping));
        mirror
    }

    fn pending(&self) -> MutexGuard<'_, Pending> {
        // Single inserts and merges: a panic cannot leave the map half changed.
        self.inner.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands one save Redis took to the writer; never waits on the database.
    pub fn queue(&self, id: &GameId, saved: Saved) {
        let mut pending = self.pending();
        pending.forget.remove(id);
        match pending.games.get_mut(id) {
            Some(entry) => entry.absorb(saved),
            None => {
                pending.games.insert(
                    id.clone(),
                    Entry {
                        saved,
                        reload: false,
                    },
                );
            }
        }
    }

    /// The game is archived: its rows go at the next write.
    pub fn forget(&self, id: &GameId) {
        let mut pending = self.pending();
        pending.games.remove(id);
        pending.forget.insert(id.clone());
    }

    /// Is the game in the archive already?
    pub async fn is_archived(&self, id: &GameId) -> Result<bool, DbError> {
        self.inner.db.is_archived(&id.0).await
    }

    /// The ids of every mirrored live game.
    pub async fn ids(&self) -> Result<Vec<GameId>, DbError> {
        Ok(self
            .inner
            .db
            .live_ids()
            .await?
            .into_iter()
            .map(GameId)
            .collect())
    }

    /// One mirrored live game, with its last writer's last sign of life before this
    /// node started.
    pub async fn load(&self, id: &GameId) -> Result<Option<Mirrored>, DbError> {
        let alive = self
            .inner
            .previous_alive
            .clone()
            .wait_for(Option::is_some)
            .await
            .ok()
            .and_then(|a| a.clone())
            .unwrap_or_default();
        Ok(self.inner.db.live_game(&id.0).await?.map(|row| Mirrored {
            last_alive_ms: alive.get(&row.node).copied().unwrap_or(0),
            row,
        }))
    }

    /// Writes every pending entry every `every` until `stopping`, then once more.
    async fn writer(
        self,
        alive_tx: watch::Sender<Option<HashMap<String, u64>>>,
        stopping: CancellationToken,
    ) {
        let previous = match self.inner.db.live_alive_all().await {
            Ok(alive) => alive,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the nodes' last signs of life");
                HashMap::new()
            }
        };
        alive_tx.send_replace(Some(previous));
        let mut tick = tokio::time::interval(self.inner.every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                () = stopping.cancelled() => break,
                _ = tick.tick() => {}
            }
            let _ = self.flush().await;
        }
        // The clocks stop with the server, not with the last write.
        let _ = self.inner.stopped_at.compare_exchange(
            0,
            wall_ms(),
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
        let _ = self.flush().await;
    }

    /// Writes what the game actors queued on their way out, once they have all ended;
    /// tries a refusing database for a while before giving up (logged).
    pub async fn finish(&self) {
        let _ = self.inner.stopped_at.compare_exchange(
            0,
            wall_ms(),
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
        for _ in 0..FINISH_TRIES {
            match self.flush().await {
                // Done unless a game to write whole was not read from Redis.
                Ok(()) if self.pending().is_empty() => return,
                Ok(()) => {}
                Err(e) => tracing::warn!(error = %e, "cannot write the mirror's last writes"),
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let left = self.pending().games.len();
        tracing::error!(
            games = left,
            "the mirror's last writes failed: these games' latest moves are not in the database"
        );
    }

    /// One group commit of everything pending; put back if it fails.
    async fn flush(&self) -> Result<(), DbError> {
        let _one = self.inner.flushing.lock().await;
        let taken = std::mem::take(&mut *self.pending());
        let stopped = self.inner.stopped_at.load(Ordering::Relaxed);
        let now = wall_ms();
        if taken.is_empty()
            && stopped == 0
            && now.saturating_sub(self.inner.alive_at.load(Ordering::Relaxed))
                < ALIVE_EVERY.as_millis() as u64
        {
            return Ok(());
        }
        let (writes, unreached) = self.writes(&taken).await;
        let forget: Vec<String> = taken.forget.iter().map(|id| id.0.clone()).collect();
        let alive = if stopped > 0 { stopped } else { now };
        let node = self.inner.store.node();
        let result = self
            .inner
            .db
            .mirror_write(&writes, &forget, node, alive)
            .await;
        let mut taken = taken;
        match result {
            Ok(()) => {
                self.inner.alive_at.store(now, Ordering::Relaxed);
                // Only the games Redis did not give back are still to write.
                taken.games.retain(|id, _| unreached.contains(id));
                taken.forget.clear();
                self.pending().put_back(taken);
                Ok(())
            }
            Err(e) => {
                self.inner.metrics.mirror_failures.inc();
                tracing::warn!(error = %e, games = writes.len(), "cannot mirror live games; kept");
                self.pending().put_back(taken);
                Err(e)
            }
        }
    }

    /// The rows of the entries taken, and the games to write whole from Redis that it
    /// did not give (they stay pending).
    async fn writes(&self, taken: &Pending) -> (Vec<MirrorWrite>, HashSet<GameId>) {
        let mut writes = Vec::with_capacity(taken.games.len());
        let mut unreached = HashSet::new();
        for (id, entry) in &taken.games {
            if entry.reload {
                match self.read_whole(id, entry.saved.fence).await {
                    Some(write) => writes.push(write),
                    None => {
                        unreached.insert(id.clone());
                    }
                }
                continue;
            }
            let s = &entry.saved;
            writes.push(MirrorWrite {
                write: LiveWrite {
                    id: id.0.clone(),
                    snapshot: s.snapshot.clone(),
                    tail: s.tail.clone(),
                    events: s
                        .events
                        .iter()
                        .map(|(v, json)| (*v, json.as_str().to_owned()))
                        .collect(),
                    acts: s.acts.clone(),
                },
                fence: s.fence,
            });
        }
        (writes, unreached)
    }

    /// A game written whole as Redis holds it (its events there, but the placeholders
    /// of events its owner had let go, which the database has or never will).
    async fn read_whole(&self, id: &GameId, fence: u64) -> Option<MirrorWrite> {
        let store = &self.inner.store;
        let stored = store.load(id).await.ok().flatten()?;
        let tail = stored.tail?;
        let len = store.log_len(id).await.ok()?;
        let events = store.events(id, 1, len).await.ok()?;
        Some(MirrorWrite {
            write: LiveWrite {
                id: id.0.clone(),
                snapshot: Some(stored.snapshot),
                tail,
                events: (1..)
                    .zip(events)
                    .filter(|(_, json)| json != PLACEHOLDER)
                    .collect(),
                acts: (0..).zip(stored.acts).collect(),
            },
            fence,
        })
    }
}

/// A mirrored game's events as its Redis log is written back: every version from 1,
/// the ones before the last gap (events the database never got: a node died before
/// mirroring them, its successor mirrored on) as placeholders, and none past the
/// state's own `version`.
pub fn events_for_redis(events: &[(u64, String)], version: u64) -> Vec<String> {
    let kept: Vec<&(u64, String)> = events.iter().filter(|(v, _)| *v <= version).collect();
    let start = kept
        .iter()
        .enumerate()
        .rev()
        .find(|(i, (v, _))| match i.checked_sub(1) {
            Some(prev) => kept[prev].0 + 1 != *v,
            None => *v != 1,
        })
        .map_or(0, |(i, _)| i);
    let first = kept.get(start).map_or(1, |(v, _)| *v);
    let gone = usize::try_from(first.saturating_sub(1)).unwrap_or(0);
    std::iter::repeat_n(PLACEHOLDER.to_string(), gone)
        .chain(kept[start..].iter().map(|(_, json)| json.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(versions: &[u64]) -> Vec<(u64, String)> {
        versions.iter().map(|v| (*v, format!("e{v}"))).collect()
    }

    #[test]
    fn events_go_back_whole_or_after_their_last_gap() {
        assert_eq!(events_for_redis(&ev(&[1, 2, 3]), 3), ["e1", "e2", "e3"]);
        assert_eq!(events_for_redis(&ev(&[1, 2, 3]), 2), ["e1", "e2"]);
        assert_eq!(
            events_for_redis(&ev(&[1, 2, 5, 6]), 6),
            [
                PLACEHOLDER,
                PLACEHOLDER,
                PLACEHOLDER,
                PLACEHOLDER,
                "e5",
                "e6"
            ]
        );
        assert_eq!(
            events_for_redis(&ev(&[3, 4]), 4),
            [PLACEHOLDER, PLACEHOLDER, "e3", "e4"]
        );
        assert!(events_for_redis(&[], 0).is_empty());
    }

    fn saved(snapshot: bool, events: &[u64], acts: &[u64]) -> Saved {
        Saved {
            snapshot: snapshot.then(|| "s".to_string()),
            tail: format!("t{}", events.last().copied().unwrap_or(0)),
            events: events.iter().map(|v| (*v, Utf8Bytes::from("e"))).collect(),
            acts: acts.iter().map(|a| (*a, "a".to_string())).collect(),
            fence: 1,
        }
    }

    #[test]
    fn a_game_pending_is_one_entry_and_a_snapshot_resets_its_actions() {
        let mut entry = Entry {
            saved: saved(false, &[1], &[0]),
            reload: false,
        };
        entry.absorb(saved(false, &[2], &[1]));
        assert_eq!(entry.saved.acts.len(), 2);
        assert_eq!(entry.saved.tail, "t2");
        entry.absorb(saved(true, &[3], &[]));
        assert!(entry.saved.snapshot.is_some());
        assert!(entry.saved.acts.is_empty());
        assert_eq!(entry.saved.events.len(), 3);
        let many: Vec<u64> = (4..4 + MAX_PENDING_EVENTS as u64).collect();
        entry.absorb(saved(false, &many, &[]));
        assert!(entry.reload, "too much pending: written whole from Redis");
        assert!(entry.saved.events.is_empty());
    }
}
