//! The games a session follows, by id: a vector sized to what it holds. A session
//! follows one game or a few (at most [`super::MAX_SUBSCRIPTIONS`] and its TV's), and a
//! hash map's first insert allocates four buckets of a subscription each, ~400 bytes a
//! playing connection, four connections a game (`docs/performance.md`).

use shared::protocol::GameId;

/// The followed games and their subscriptions, in no particular order.
pub(super) struct Subscriptions<S>(Vec<(GameId, S)>);

impl<S> Default for Subscriptions<S> {
    fn default() -> Self {
        Subscriptions(Vec::new())
    }
}

impl<S> Subscriptions<S> {
    fn position(&self, id: &GameId) -> Option<usize> {
        self.0.iter().position(|(g, _)| g == id)
    }

    pub(super) fn get(&self, id: &GameId) -> Option<&S> {
        self.position(id).map(|i| &self.0[i].1)
    }

    pub(super) fn contains_key(&self, id: &GameId) -> bool {
        self.position(id).is_some()
    }

    /// Follows `id` with `sub`; returns the subscription it replaces.
    pub(super) fn insert(&mut self, id: GameId, sub: S) -> Option<S> {
        match self.position(&id) {
            Some(i) => Some(std::mem::replace(&mut self.0[i].1, sub)),
            None => {
                self.0.reserve_exact(1);
                self.0.push((id, sub));
                None
            }
        }
    }

    pub(super) fn remove(&mut self, id: &GameId) -> Option<S> {
        let i = self.position(id)?;
        let (_, sub) = self.0.swap_remove(i);
        self.release_if_empty();
        Some(sub)
    }

    pub(super) fn retain(&mut self, mut keep: impl FnMut(&GameId, &S) -> bool) {
        self.0.retain(|(g, s)| keep(g, s));
        self.release_if_empty();
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &S> {
        self.0.iter().map(|(_, s)| s)
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (&GameId, &S)> {
        self.0.iter().map(|(g, s)| (g, s))
    }

    pub(super) fn drain(&mut self) -> impl Iterator<Item = (GameId, S)> {
        std::mem::take(&mut self.0).into_iter()
    }

    /// A session that follows nothing any more holds no memory for it.
    fn release_if_empty(&mut self) {
        if self.0.is_empty() {
            self.0 = Vec::new();
        }
    }
}

/// The games a session is joining: ids, as few as [`Subscriptions`].
#[derive(Default)]
pub(super) struct Joining(Subscriptions<()>);

impl Joining {
    pub(super) fn contains(&self, id: &GameId) -> bool {
        self.0.contains_key(id)
    }

    pub(super) fn insert(&mut self, id: GameId) {
        self.0.insert(id, ());
    }

    pub(super) fn remove(&mut self, id: &GameId) {
        self.0.remove(id);
    }

    pub(super) fn len(&self) -> usize {
        self.0.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_a_map_by_game_id_and_lets_go_of_its_memory_when_empty() {
        let mut subs: Subscriptions<u32> = Subscriptions::default();
        assert_eq!(subs.insert("a".into(), 1), None);
        assert_eq!(subs.insert("b".into(), 2), None);
        assert_eq!(subs.insert("a".into(), 3), Some(1));
        assert_eq!(subs.get(&"a".into()), Some(&3));
        assert!(subs.contains_key(&"b".into()) && !subs.contains_key(&"c".into()));
        assert_eq!(subs.values().sum::<u32>(), 5);
        assert_eq!(subs.0.capacity(), 2, "grown one entry at a time");
        subs.retain(|id, _| id.0 != "b");
        assert_eq!(
            subs.iter().map(|(g, _)| g.0.as_str()).collect::<Vec<_>>(),
            ["a"]
        );
        assert_eq!(subs.remove(&"a".into()), Some(3));
        assert_eq!(subs.remove(&"a".into()), None);
        assert_eq!(subs.0.capacity(), 0);
        subs.insert("d".into(), 4);
        assert_eq!(subs.drain().collect::<Vec<_>>(), [(GameId::from("d"), 4)]);
        let mut joining = Joining::default();
        joining.insert("x".into());
        joining.insert("x".into());
        assert!(joining.contains(&"x".into()) && joining.len() == 1);
        joining.remove(&"x".into());
        assert_eq!(joining.len(), 0);
    }
}
