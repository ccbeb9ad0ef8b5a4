//! Presence: who is online, with how many connections, on which node, and which games
//! they play; counts per variant; the status of a list of users (friends, followed).
//! Behind the [`Presence`] trait so the Redis implementation ([`redis::RedisPresence`],
//! TTL heartbeats shared by every node) can replace the in-memory one
//! ([`memory::MemoryPresence`]).

pub mod memory;
pub mod redis;

use futures_util::future::{BoxFuture, FutureExt, ready};
use shared::protocol::{GameId, TimeControl, UserId, UserInfo, UserStatus};
use shared::rules::Variant;

use crate::lobby::PoolCounts;

/// Why presence could not answer (only remote stores fail).
#[derive(Debug, thiserror::Error)]
pub enum PresenceError {
    /// The backing store failed.
    #[error("presence store: {0}")]
    Store(String),
}

/// What a heartbeat found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Heartbeat {
    /// Users offline everywhere now, because their only node was found dead.
    pub offline: Vec<UserId>,
    /// Another node had found this one dead (it missed heartbeats for the node TTL,
    /// e.g. starved) and forgot its users: they must be registered again
    /// ([`Presence::restore`]) while their connections are still open here.
    pub forgotten: bool,
    /// The nodes alive now, this one among them (empty without Redis: one node).
    pub alive: Vec<String>,
}

/// Most users one status query may name.
pub const MAX_QUERY: usize = 200;

/// Who is online. Object safe: the server holds an `Arc<dyn Presence>`.
pub trait Presence: Send + Sync {
    /// A connection of `user` opened; returns the user's connection count (all nodes).
    fn connect<'a>(&'a self, user: &'a UserInfo) -> BoxFuture<'a, Result<u32, PresenceError>>;

    /// A connection of `user` closed; returns the connections left (all nodes).
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

    /// Players in live games, per variant and time control (a player in two games
    /// counts twice).
    fn playing_counts(&self) -> BoxFuture<'_, Result<PoolCounts, PresenceError>>;

    /// Records that `users` (a game's players, in one write) play (or no longer play)
    /// `game`, of `variant` on `time_control`.
    fn set_playing<'a>(
        &'a self,
        users: &'a [UserId],
        game: &'a GameId,
        pool: (Variant, TimeControl),
        playing: bool,
    ) -> BoxFuture<'a, Result<(), PresenceError>>;

    /// The games `user` is playing.
    fn games_of<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Vec<GameId>, PresenceError>>;

    /// The status of each of `users`, in order.
    fn statuses<'a>(
        &'a self,
        users: &'a [UserId],
    ) -> BoxFuture<'a, Result<Vec<UserStatus>, PresenceError>>;

    /// Says this node is alive and forgets the users of nodes that are not. Nothing to
    /// do on one node.
    fn heartbeat(&self) -> BoxFuture<'_, Result<Heartbeat, PresenceError>> {
        ready(Ok(Heartbeat::default())).boxed()
    }

    /// Re-registers this node's sessions after the store lost them (Redis restarted
    /// empty): `users` with their connection counts here. Nothing to do on one node.
    fn restore<'a>(
        &'a self,
        users: &'a [(UserInfo, u32)],
    ) -> BoxFuture<'a, Result<(), PresenceError>> {
        let _ = users;
        ready(Ok(())).boxed()
    }
}
