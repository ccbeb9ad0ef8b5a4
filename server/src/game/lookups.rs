//! One lookup in flight per key: the registry's search for a game owned by another
//! node (three Redis calls) runs once per game id at a time. Later askers of the same
//! id wait for the one in flight and then find its result; askers of other ids never
//! wait for it. A key's entry lives as long as someone holds or waits for it, and goes
//! however they stop, a caller's future dropped mid-wait included.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};

/// The keys being looked up, each with the lock its askers queue on.
pub struct Lookups<K> {
    keys: Mutex<HashMap<K, Arc<tokio::sync::Mutex<()>>>>,
}

impl<K> Default for Lookups<K> {
    fn default() -> Self {
        Lookups {
            keys: Mutex::new(HashMap::new()),
        }
    }
}

/// The right to look `key` up, held until dropped (the lock first, then the entry's
/// share: fields drop in order).
pub struct Turn<'a, K: Hash + Eq> {
    _held: tokio::sync::OwnedMutexGuard<()>,
    _entry: Entry<'a, K>,
}

/// One asker's share of a key's entry; the last share to go removes the entry.
struct Entry<'a, K: Hash + Eq> {
    lookups: &'a Lookups<K>,
    key: Option<K>,
    lock: Arc<tokio::sync::Mutex<()>>,
}

impl<K: Hash + Eq> Drop for Entry<'_, K> {
    fn drop(&mut self) {
        let mut keys = self.lookups.keys();
        // Shares are taken under this map lock: the map's and ours alone are left
        // when nobody else holds or waits for the key.
        if Arc::strong_count(&self.lock) == 2
            && let Some(key) = self.key.take()
        {
            keys.remove(&key);
        }
    }
}

impl<K: Hash + Eq> Lookups<K> {
    fn keys(&self) -> MutexGuard<'_, HashMap<K, Arc<tokio::sync::Mutex<()>>>> {
        // Single inserts and removes: a panic elsewhere leaves the map consistent.
        self.keys.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl<K: Hash + Eq + Clone> Lookups<K> {
    /// Waits until no other asker looks `key` up, then holds it.
    pub async fn turn(&self, key: &K) -> Turn<'_, K> {
        let entry = Entry {
            lookups: self,
            key: Some(key.clone()),
            lock: self.keys().entry(key.clone()).or_default().clone(),
        };
        // Dropped mid-wait, this future lets go of the lock's share it waits with
        // before `entry`'s (a temporary goes before the locals made ahead of it).
        let held = entry.lock.clone().lock_owned().await;
        Turn {
            _held: held,
            _entry: entry,
        }
    }

    /// Keys held or waited for.
    pub fn len(&self) -> usize {
        self.keys().len()
    }

    /// Is no key held or waited for?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt;

    use super::*;

    #[test]
    fn a_key_held_makes_its_askers_wait_and_no_one_else() {
        let lookups = Lookups::<&str>::default();
        let a = lookups.turn(&"a").now_or_never().expect("a is free");
        let b = lookups.turn(&"b").now_or_never();
        assert!(b.is_some(), "another key does not wait for a");
        drop(b);
        let mut again = Box::pin(lookups.turn(&"a"));
        assert!(
            (&mut again).now_or_never().is_none(),
            "a second asker of a waits"
        );
        drop(a);
        assert!(again.now_or_never().is_some(), "and goes once a is let go");
        assert!(lookups.is_empty(), "nothing is left behind");
    }

    #[test]
    fn an_asker_that_stops_waiting_leaves_no_entry() {
        let lookups = Lookups::<&str>::default();
        let a = lookups.turn(&"a").now_or_never().expect("a is free");
        let mut waiting = Box::pin(lookups.turn(&"a"));
        assert!((&mut waiting).now_or_never().is_none());
        // The waiter's caller gives up (its future is dropped), then the holder ends.
        drop(waiting);
        assert_eq!(lookups.len(), 1, "the holder still has it");
        drop(a);
        assert!(lookups.is_empty(), "{} entries left", lookups.len());
        // A holder whose own caller gives up mid-lookup lets the next asker in.
        let held = lookups.turn(&"a").now_or_never().expect("a is free");
        let mut next = Box::pin(lookups.turn(&"a"));
        assert!((&mut next).now_or_never().is_none());
        drop(held);
        let turn = next.now_or_never().expect("the next asker's turn");
        drop(turn);
        assert!(lookups.is_empty());
    }
}
