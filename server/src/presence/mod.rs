//! Presence: who is online, with how many connections, and which games they play.
//! Behind the [`Presence`] trait so a Redis implementation (TTL heartbeats, shared by
//! every node) can replace the in-memory one ([`memory::MemoryPresence`]).

pub mod memory;

use futures_util::future::BoxFuture;
use shared::protocol::{GameId, UserId, UserInfo};

/// Why presence could not answer (only remote stores fail).
#[derive(Debug, thiserror::Error)]
pub enum PresenceError {
    /// The backing store failed.
    #[error("presence store: {0}")]
    Store(String),
}

/// Who is online. Object safe: the server holds an `Arc<dyn Presence>`.
pub trait Presence: Send + Sync {
    /// A connection of `user` opened; returns the user's connection count.
    fn connect<'a>(&'a self, user: &'a UserInfo) -> BoxFuture<'a, Result<u32, PresenceError>>;

    /// A connection of `user` closed; returns the connections left.
    fn disconnect<'a>(&'a self, user: &'a UserId) -> BoxFuture<'a, Result<u32, PresenceError>>;

    /// Is `user` online anywhere?
    fn is_online<'a>(&'a self, user: &'a UserId) -> BoxFuture<'a, Result<bool, PresenceError>>;

    /// The user, if online.
    fn user<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Option<UserInfo>, PresenceError>>;

    /// Users online.
    fn online_count(&self) -> BoxFuture<'_, Result<usize, PresenceError>>;

    /// Records that `user` plays (or no longer plays) `game`.
    fn set_playing<'a>(
        &'a self,
        user: &'a UserId,
        game: &'a GameId,
        playing: bool,
    ) -> BoxFuture<'a, Result<(), PresenceError>>;

    /// The games `user` is playing.
    fn games_of<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Vec<GameId>, PresenceError>>;
}
