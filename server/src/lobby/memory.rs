//! The in-memory [`Lobby`]: seeks, challenges and pools in one mutex-guarded state, for
//! a single node.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use futures_util::future::{BoxFuture, FutureExt, ready};
use shared::protocol::{
    ChallengeId, ChallengeInfo, SeekId, SeekInfo, TimeControl, UserId, UserInfo,
};
use shared::rules::Variant;

use super::{Lobby, LobbyError, Pairing, PoolCounts, PoolEntry, Proposal, Window};

#[derive(Debug, Default)]
struct State {
    next_id: u64,
    seeks: BTreeMap<SeekId, SeekInfo>,
    challenges: BTreeMap<ChallengeId, ChallengeInfo>,
    /// Waiting entries, oldest first.
    pool: Vec<PoolEntry>,
}

impl State {
    /// A new seek or challenge id.
    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

/// The lobby for one node.
#[derive(Debug)]
pub struct MemoryLobby {
    state: Mutex<State>,
    pools: HashSet<(Variant, TimeControl)>,
    window: Window,
    max_seeks_per_user: usize,
}

impl MemoryLobby {
    /// A lobby with these pools.
    pub fn new(
        pools: impl IntoIterator<Item = (Variant, TimeControl)>,
        window: Window,
        max_seeks_per_user: usize,
    ) -> MemoryLobby {
        MemoryLobby {
            state: Mutex::new(State::default()),
            pools: pools.into_iter().collect(),
            window,
            max_seeks_per_user,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // Every operation leaves the state consistent, so a poisoned lock is usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// May a user with `open` seeks (or challenges) open another?
    fn below_limit(&self, open: usize) -> Result<(), LobbyError> {
        if open >= self.max_seeks_per_user {
            Err(LobbyError::TooMany)
        } else {
            Ok(())
        }
    }

    /// Removes the seek `id` if `allowed` lets this user have it.
    fn remove_seek(
        &self,
        id: SeekId,
        allowed: impl FnOnce(&SeekInfo) -> Result<(), LobbyError>,
    ) -> Result<SeekInfo, LobbyError> {
        let mut state = self.state();
        allowed(state.seeks.get(&id).ok_or(LobbyError::SeekNotFound)?)?;
        state.seeks.remove(&id).ok_or(LobbyError::SeekNotFound)
    }

    /// Removes the challenge `id` if `allowed` (to this user); no such challenge if not.
    fn remove_challenge_if(
        &self,
        id: ChallengeId,
        allowed: impl FnOnce(&ChallengeInfo) -> bool,
    ) -> Result<ChallengeInfo, LobbyError> {
        let mut state = self.state();
        match state.challenges.get(&id) {
            Some(c) if allowed(c) => state
                .challenges
                .remove(&id)
                .ok_or(LobbyError::ChallengeNotFound),
            _ => Err(LobbyError::ChallengeNotFound),
        }
    }

    fn rating(&self, entry: &PoolEntry) -> u32 {
        entry.user.rating.unwrap_or(self.window.default_rating)
    }

    /// Finds the best partner for the entry at `i` among those after it: same pool,
    /// both windows admit the difference, closest rating wins.
    fn partner(&self, pool: &[PoolEntry], i: usize, now: u64) -> Option<usize> {
        let a = &pool[i];
        pool.iter()
            .enumerate()
            .skip(i + 1)
            .filter(|(_, b)| {
                b.variant == a.variant
                    && b.time_control == a.time_control
                    && b.rated == a.rated
                    && b.user.id != a.user.id
            })
            .filter_map(|(j, b)| {
                let diff = self.rating(a).abs_diff(self.rating(b));
                let window = self
                    .window
                    .at(a.since_ms, now)
                    .min(self.window.at(b.since_ms, now));
                (diff <= window).then_some((diff, j))
            })
            .min()
            .map(|(_, j)| j)
    }

    fn pair(&self, pool: &mut Vec<PoolEntry>, now: u64) -> Vec<Pairing> {
        let mut pairings = Vec::new();
        let mut i = 0;
        while i < pool.len() {
            match self.partner(pool, i, now) {
                Some(j) => {
                    let second = pool.remove(j);
                    let first = pool.remove(i);
                    pairings.push(Pairing { first, second });
                }
                None => i += 1,
            }
        }
        pairings
    }
}

impl Lobby for MemoryLobby {
    fn add_seek<'a>(
        &'a self,
        user: &'a UserInfo,
        proposal: Proposal,
    ) -> BoxFuture<'a, Result<SeekInfo, LobbyError>> {
        let mut state = self.state();
        let open = state
            .seeks
            .values()
            .filter(|s| s.user.id == user.id)
            .count();
        let result = self.below_limit(open).map(|()| {
            let seek = proposal.into_seek(SeekId(state.next_id()), user);
            state.seeks.insert(seek.seek_id, seek.clone());
            seek
        });
        ready(result).boxed()
    }

    fn cancel_seek<'a>(
        &'a self,
        user: &'a UserId,
        id: SeekId,
    ) -> BoxFuture<'a, Result<SeekInfo, LobbyError>> {
        let result = self.remove_seek(id, |s| {
            if s.user.id == *user {
                Ok(())
            } else {
                Err(LobbyError::SeekNotFound)
            }
        });
        ready(result).boxed()
    }

    fn take_seek<'a>(
        &'a self,
        taker: &'a UserId,
        id: SeekId,
    ) -> BoxFuture<'a, Result<SeekInfo, LobbyError>> {
        let result = self.remove_seek(id, |s| {
            if s.user.id == *taker {
                Err(LobbyError::OwnSeek)
            } else {
                Ok(())
            }
        });
        ready(result).boxed()
    }

    fn seeks(&self) -> BoxFuture<'_, Result<Vec<SeekInfo>, LobbyError>> {
        let seeks = self.state().seeks.values().cloned().collect();
        ready(Ok(seeks)).boxed()
    }

    fn add_challenge<'a>(
        &'a self,
        from: &'a UserInfo,
        to: &'a UserId,
        proposal: Proposal,
    ) -> BoxFuture<'a, Result<ChallengeInfo, LobbyError>> {
        if from.id == *to {
            return ready(Err(LobbyError::SelfChallenge)).boxed();
        }
        let mut state = self.state();
        let open = state
            .challenges
            .values()
            .filter(|c| c.from.id == from.id)
            .count();
        let result = self.below_limit(open).map(|()| {
            let id = ChallengeId(state.next_id());
            let challenge = proposal.into_challenge(id, from, to);
            state.challenges.insert(id, challenge.clone());
            challenge
        });
        ready(result).boxed()
    }

    fn take_challenge<'a>(
        &'a self,
        user: &'a UserId,
        id: ChallengeId,
    ) -> BoxFuture<'a, Result<ChallengeInfo, LobbyError>> {
        let result = self.remove_challenge_if(id, |c| c.to == *user);
        ready(result).boxed()
    }

    fn remove_challenge<'a>(
        &'a self,
        user: &'a UserId,
        id: ChallengeId,
    ) -> BoxFuture<'a, Result<ChallengeInfo, LobbyError>> {
        let result = self.remove_challenge_if(id, |c| c.to == *user || c.from.id == *user);
        ready(result).boxed()
    }

    fn pool_waiting(&self) -> BoxFuture<'_, Result<PoolCounts, LobbyError>> {
        let mut counts = PoolCounts::new();
        for e in &self.state().pool {
            *counts.entry((e.variant, e.time_control)).or_insert(0) += 1;
        }
        ready(Ok(counts)).boxed()
    }

    fn challenges_of<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Vec<ChallengeInfo>, LobbyError>> {
        let mut mine: Vec<ChallengeInfo> = self
            .state()
            .challenges
            .values()
            .filter(|c| c.to == *user || c.from.id == *user)
            .cloned()
            .collect();
        mine.sort_by_key(|c| c.challenge_id);
        ready(Ok(mine)).boxed()
    }

    fn join_pool(&self, entry: PoolEntry) -> BoxFuture<'_, Result<Option<Pairing>, LobbyError>> {
        if !self.pools.contains(&(entry.variant, entry.time_control)) {
            return ready(Err(LobbyError::UnknownPool)).boxed();
        }
        let mut state = self.state();
        state.pool.retain(|e| e.user.id != entry.user.id);
        let now = entry.since_ms;
        state.pool.push(entry);
        let last = state.pool.len() - 1;
        // Only the newcomer can have created a new match; look for its best partner
        // among those waiting (who are all older).
        let partner = (0..last).find(|&i| {
            self.partner(&state.pool[..=last], i, now)
                .is_some_and(|j| j == last)
        });
        let pairing = partner.map(|i| {
            let second = state.pool.remove(last);
            let first = state.pool.remove(i);
            Pairing { first, second }
        });
        ready(Ok(pairing)).boxed()
    }

    fn leave_pools<'a>(&'a self, user: &'a UserId) -> BoxFuture<'a, Result<bool, LobbyError>> {
        let mut state = self.state();
        let before = state.pool.len();
        state.pool.retain(|e| e.user.id != *user);
        ready(Ok(state.pool.len() != before)).boxed()
    }

    fn pair_pools(&self, now: u64) -> BoxFuture<'_, Result<Vec<Pairing>, LobbyError>> {
        let mut state = self.state();
        let pairings = self.pair(&mut state.pool, now);
        ready(Ok(pairings)).boxed()
    }

    fn remove_user<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Vec<ChallengeInfo>, LobbyError>> {
        let mut state = self.state();
        state.seeks.retain(|_, s| s.user.id != *user);
        state.pool.retain(|e| e.user.id != *user);
        let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut state.challenges)
            .into_iter()
            .partition(|(_, c)| c.from.id == *user || c.to == *user);
        state.challenges = kept.into_iter().collect();
        ready(Ok(gone.into_iter().map(|(_, c)| c).collect())).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::protocol::ColorChoice;
    use shared::rules::draughts::DraughtsVariant;

    fn user(id: &str, rating: u32) -> UserInfo {
        UserInfo {
            id: id.into(),
            name: id.into(),
            guest: false,
            rating: Some(rating),
            bot: false,
        }
    }

    fn lobby() -> MemoryLobby {
        let window = Window {
            base: 100,
            growth_per_sec: 50,
            max: 500,
            default_rating: 1500,
        };
        MemoryLobby::new(
            [(
                Variant::Draughts(DraughtsVariant::Russian),
                TimeControl::new(180, 2),
            )],
            window,
            2,
        )
    }

    fn entry(id: &str, rating: u32, since_ms: u64) -> PoolEntry {
        PoolEntry {
            rated: false,
            user: user(id, rating),
            variant: Variant::Draughts(DraughtsVariant::Russian),
            time_control: TimeControl::new(180, 2),
            since_ms,
        }
    }

    #[tokio::test]
    async fn seeks_are_taken_once() {
        let l = lobby();
        let p = Proposal {
            variant: Variant::Draughts(DraughtsVariant::Russian),
            time_control: TimeControl::new(180, 2),
            rated: false,
            color: ColorChoice::Random,
            fen: None,
            ruleset: None,
            rating_range: None,
        };
        let a = user("a", 1500);
        let s = l.add_seek(&a, p.clone()).await.unwrap();
        l.add_seek(&a, p.clone()).await.unwrap();
        assert!(matches!(l.add_seek(&a, p).await, Err(LobbyError::TooMany)));
        assert!(matches!(
            l.take_seek(&a.id, s.seek_id).await,
            Err(LobbyError::OwnSeek)
        ));
        assert_eq!(l.take_seek(&"b".into(), s.seek_id).await.unwrap(), s);
        assert!(matches!(
            l.take_seek(&"c".into(), s.seek_id).await,
            Err(LobbyError::SeekNotFound)
        ));
        assert_eq!(l.seeks().await.unwrap().len(), 1);
        l.remove_user(&a.id).await.unwrap();
        assert!(l.seeks().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn pool_window_widens_with_waiting() {
        let l = lobby();
        let t0 = 1_000_000u64;
        assert_eq!(l.join_pool(entry("a", 1500, t0)).await.unwrap(), None);
        assert_eq!(l.join_pool(entry("b", 1800, t0)).await.unwrap(), None);
        // 1600 is within 100 of a: paired at once with the closer one.
        let p = l.join_pool(entry("c", 1560, t0)).await.unwrap().unwrap();
        assert_eq!(
            (p.first.user.id.0.as_str(), p.second.user.id.0.as_str()),
            ("a", "c")
        );
        // b waits alone; d at 1500 is 300 away: needs both windows at 300, i.e. 4 s.
        assert_eq!(
            l.join_pool(entry("d", 1500, t0 + 2000)).await.unwrap(),
            None
        );
        assert!(l.pair_pools(t0 + 5000).await.unwrap().is_empty());
        let p = l.pair_pools(t0 + 6000).await.unwrap();
        assert_eq!(p.len(), 1);
        assert!(matches!(
            l.join_pool(PoolEntry {
                rated: false,
                time_control: TimeControl::new(60, 0),
                ..entry("e", 1500, t0)
            })
            .await,
            Err(LobbyError::UnknownPool)
        ));
    }
}
