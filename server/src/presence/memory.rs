//! The in-memory [`Presence`]: one map behind a mutex, for a single node.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use futures_util::future::{BoxFuture, FutureExt, ready};
use shared::protocol::{GameId, TimeControl, UserId, UserInfo, UserStatus};
use shared::rules::Variant;

use super::{Presence, PresenceError};
use crate::lobby::PoolCounts;

#[derive(Debug, Default)]
struct Entry {
    info: Option<UserInfo>,
    connections: u32,
    games: Playing,
}

/// The games a user plays, by id: a sorted vector, sized to what it holds. A player
/// has one game or a few; a `BTreeMap` gave each player a node of eleven slots
/// (~1.5 KiB a player in steady play, `docs/performance.md`).
#[derive(Debug, Default)]
struct Playing(Vec<(GameId, (Variant, TimeControl))>);

impl Playing {
    fn insert(&mut self, game: &GameId, pool: (Variant, TimeControl)) {
        match self.0.binary_search_by(|(g, _)| g.cmp(game)) {
            Ok(i) => self.0[i].1 = pool,
            Err(i) => {
                self.0.reserve_exact(1);
                self.0.insert(i, (game.clone(), pool));
            }
        }
    }

    fn remove(&mut self, game: &GameId) {
        if let Ok(i) = self.0.binary_search_by(|(g, _)| g.cmp(game)) {
            self.0.remove(i);
            if self.0.is_empty() {
                self.0 = Vec::new();
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn ids(&self) -> impl Iterator<Item = &GameId> {
        self.0.iter().map(|(g, _)| g)
    }

    fn pools(&self) -> impl Iterator<Item = &(Variant, TimeControl)> {
        self.0.iter().map(|(_, p)| p)
    }
}

/// Presence for one node.
#[derive(Debug, Default)]
pub struct MemoryPresence {
    users: Mutex<HashMap<UserId, Entry>>,
}

impl MemoryPresence {
    fn users(&self) -> MutexGuard<'_, HashMap<UserId, Entry>> {
        // Every operation leaves the map consistent, so a poisoned lock is still usable.
        self.users.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn forget_if_idle(users: &mut HashMap<UserId, Entry>, user: &UserId) {
        if users
            .get(user)
            .is_some_and(|e| e.connections == 0 && e.games.is_empty())
        {
            users.remove(user);
        }
    }
}

impl Presence for MemoryPresence {
    fn connect<'a>(&'a self, user: &'a UserInfo) -> BoxFuture<'a, Result<u32, PresenceError>> {
        let mut users = self.users();
        let entry = users.entry(user.id.clone()).or_default();
        entry.info = Some(user.clone());
        entry.connections += 1;
        ready(Ok(entry.connections)).boxed()
    }

    fn disconnect<'a>(&'a self, user: &'a UserId) -> BoxFuture<'a, Result<u32, PresenceError>> {
        let mut users = self.users();
        let left = users.get_mut(user).map_or(0, |e| {
            e.connections = e.connections.saturating_sub(1);
            e.connections
        });
        Self::forget_if_idle(&mut users, user);
        ready(Ok(left)).boxed()
    }

    fn is_online<'a>(&'a self, user: &'a UserId) -> BoxFuture<'a, Result<bool, PresenceError>> {
        let online = self.users().get(user).is_some_and(|e| e.connections > 0);
        ready(Ok(online)).boxed()
    }

    fn user<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Option<UserInfo>, PresenceError>> {
        let info = self
            .users()
            .get(user)
            .filter(|e| e.connections > 0)
            .and_then(|e| e.info.clone());
        ready(Ok(info)).boxed()
    }

    fn online_count(&self) -> BoxFuture<'_, Result<usize, PresenceError>> {
        let n = self.users().values().filter(|e| e.connections > 0).count();
        ready(Ok(n)).boxed()
    }

    fn playing_counts(&self) -> BoxFuture<'_, Result<PoolCounts, PresenceError>> {
        let mut counts = PoolCounts::new();
        for pool in self.users().values().flat_map(|e| e.games.pools()) {
            *counts.entry(*pool).or_default() += 1;
        }
        ready(Ok(counts)).boxed()
    }

    fn statuses<'a>(
        &'a self,
        users: &'a [UserId],
    ) -> BoxFuture<'a, Result<Vec<UserStatus>, PresenceError>> {
        let map = self.users();
        let statuses = users
            .iter()
            .map(|id| {
                let entry = map.get(id);
                UserStatus {
                    id: id.clone(),
                    online: entry.is_some_and(|e| e.connections > 0),
                    playing: entry
                        .map(|e| e.games.ids().cloned().collect())
                        .unwrap_or_default(),
                }
            })
            .collect();
        ready(Ok(statuses)).boxed()
    }

    fn set_playing<'a>(
        &'a self,
        players: &'a [UserId],
        game: &'a GameId,
        pool: (Variant, TimeControl),
        playing: bool,
    ) -> BoxFuture<'a, Result<(), PresenceError>> {
        let mut users = self.users();
        for user in players {
            if playing {
                users
                    .entry(user.clone())
                    .or_default()
                    .games
                    .insert(game, pool);
            } else if let Some(e) = users.get_mut(user) {
                e.games.remove(game);
                Self::forget_if_idle(&mut users, user);
            }
        }
        ready(Ok(())).boxed()
    }

    fn games_of<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Vec<GameId>, PresenceError>> {
        let games = self
            .users()
            .get(user)
            .map(|e| e.games.ids().cloned().collect())
            .unwrap_or_default();
        ready(Ok(games)).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::rules::draughts::DraughtsVariant;

    #[test]
    fn a_players_games_stay_sorted_by_id_and_once_each() {
        let russian = (
            Variant::Draughts(DraughtsVariant::Russian),
            TimeControl::new(180, 2),
        );
        let blitz = (
            Variant::Draughts(DraughtsVariant::Russian),
            TimeControl::new(300, 3),
        );
        let mut p = Playing::default();
        for g in ["c", "a", "b"] {
            p.insert(&g.into(), russian);
        }
        p.insert(&"a".into(), blitz);
        let ids: Vec<&GameId> = p.ids().collect();
        assert_eq!(ids, [&GameId::from("a"), &"b".into(), &"c".into()]);
        assert_eq!(p.pools().filter(|&&x| x == blitz).count(), 1);
        p.remove(&"b".into());
        p.remove(&"x".into());
        assert_eq!(p.ids().count(), 2);
        p.remove(&"a".into());
        p.remove(&"c".into());
        assert!(p.is_empty());
        assert_eq!(p.0.capacity(), 0, "an empty list holds no memory");
    }

    #[tokio::test]
    async fn counts_connections_and_games() {
        let p = MemoryPresence::default();
        let u = UserInfo {
            id: "u".into(),
            name: "U".into(),
            guest: true,
            rating: None,
            bot: false,
        };
        assert_eq!(p.connect(&u).await.unwrap(), 1);
        assert_eq!(p.connect(&u).await.unwrap(), 2);
        p.set_playing(
            std::slice::from_ref(&u.id),
            &"g".into(),
            (
                Variant::Draughts(DraughtsVariant::Russian),
                TimeControl::new(180, 2),
            ),
            true,
        )
        .await
        .unwrap();
        assert_eq!(p.games_of(&u.id).await.unwrap(), vec![GameId::from("g")]);
        assert_eq!(
            p.playing_counts().await.unwrap()[&(
                Variant::Draughts(DraughtsVariant::Russian),
                TimeControl::new(180, 2)
            )],
            1
        );
        let s = p.statuses(&[u.id.clone(), "x".into()]).await.unwrap();
        assert!(s[0].online && s[0].playing == vec![GameId::from("g")]);
        assert!(!s[1].online && s[1].playing.is_empty());
        assert_eq!(p.disconnect(&u.id).await.unwrap(), 1);
        assert!(p.is_online(&u.id).await.unwrap());
        assert_eq!(p.disconnect(&u.id).await.unwrap(), 0);
        assert!(!p.is_online(&u.id).await.unwrap());
        assert_eq!(p.online_count().await.unwrap(), 0);
        p.set_playing(
            std::slice::from_ref(&u.id),
            &"g".into(),
            (
                Variant::Draughts(DraughtsVariant::Russian),
                TimeControl::new(180, 2),
            ),
            false,
        )
        .await
        .unwrap();
        assert!(p.games_of(&u.id).await.unwrap().is_empty());
    }
}
