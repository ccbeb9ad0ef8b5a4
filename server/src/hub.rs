//! The hub: this node's sessions by user, so the lobby and the game registry can reach
//! a user's open connections ("you were challenged", "your game started"). Node-local by
//! nature; across nodes the Redis side of lobby and presence will route to the right one.
//! It also keeps the open API streams by the token they were opened with, so that
//! ending a token ([`Hub::end`]) ends them as it closes the WebSocket sessions.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use shared::arena::{ArenaMe, ArenaStandings};
use shared::protocol::{ServerMessage, UserId, UserInfo};
use tokio_util::sync::CancellationToken;

use crate::game::{GameHandle, StartFrame};

/// Something for a session to act on. Every variant is boxed: a session's notice
/// queue allocates its first block of 32 slots when the session opens, and notices
/// are rare.
#[derive(Debug)]
pub enum Notice {
    /// A game the user plays has started: show its `game_start` and follow it.
    GameStarted(Box<StartedGame>),
    /// A message to pass on as is.
    Message(Box<ServerMessage>),
    /// Session tokens of the user were ended: a session opened with one of them closes.
    SessionsEnded(Box<Ended>),
}

/// A game of the user's that started, and their `game_start` if its actor made it
/// (`None`: join the game to get it).
#[derive(Debug)]
pub struct StartedGame {
    /// Where to follow the game.
    pub handle: GameHandle,
    /// The user's `game_start`, made by the game's actor once the start was stored.
    pub start: Option<StartFrame>,
}

impl StartedGame {
    /// A game whose start the session joins to get.
    pub fn to_join(handle: GameHandle) -> Box<StartedGame> {
        Box::new(StartedGame {
            handle,
            start: None,
        })
    }
}

/// Which tokens of a user were ended: every session token issued before `before_ms`
/// (logged out everywhere, password changed), the one session token hashing to
/// `token_hash` (logged out), or the personal token `token_id` (revoked).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ended {
    /// Session tokens issued before this instant (Unix ms); 0 for none.
    pub before_ms: i64,
    /// The SHA-256 of the one session token ended (`crate::tokens::hash_secret`).
    pub token_hash: Option<String>,
    /// The id of the one personal token revoked.
    pub token_id: Option<String>,
}

/// The token a connection or stream was opened with, as [`Ended`] names tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credential {
    /// A session token (a JWT).
    Session {
        /// When it was issued (Unix seconds).
        issued_at: u64,
        /// Its SHA-256 (`crate::tokens::hash_secret`).
        hash: String,
    },
    /// A personal API token, by its id.
    Personal {
        /// Its id.
        id: String,
    },
}

impl Ended {
    /// Is `credential` one of the tokens ended?
    pub fn covers(&self, credential: &Credential) -> bool {
        match credential {
            Credential::Session { issued_at, hash } => {
                let issued_ms = i64::try_from(*issued_at)
                    .unwrap_or(i64::MAX)
                    .saturating_mul(1000);
                issued_ms < self.before_ms || self.token_hash.as_deref() == Some(hash.as_str())
            }
            Credential::Personal { id } => self.token_id.as_deref() == Some(id.as_str()),
        }
    }
}

/// A session's id on this node.
pub type ConnId = u64;

/// The sessions of each user on this node, with the user as they connected.
type Sessions = HashMap<UserId, (UserInfo, Vec<(ConnId, flume::Sender<Notice>)>)>;

/// The open API streams of each user on this node: the token each was opened with and
/// what ends it.
type Streams = HashMap<UserId, Vec<(u64, Credential, CancellationToken)>>;

/// Sessions and API streams by user.
#[derive(Debug, Default)]
pub struct Hub {
    sessions: Mutex<Sessions>,
    streams: Mutex<Streams>,
    next_stream: AtomicU64,
}

/// An open API stream's place in the [`Hub`]: `ended` is cancelled when the token the
/// stream was opened with is ended. Dropping it leaves the hub.
#[derive(Debug)]
pub struct StreamWatch {
    hub: Arc<Hub>,
    user: UserId,
    id: u64,
    /// Cancelled when the stream's token is ended.
    pub ended: CancellationToken,
}

impl Drop for StreamWatch {
    fn drop(&mut self) {
        let mut streams = self.hub.streams();
        if let Some(list) = streams.get_mut(&self.user) {
            list.retain(|(id, _, _)| *id != self.id);
            if list.is_empty() {
                streams.remove(&self.user);
            }
        }
    }
}

impl Notice {
    /// A message to pass on.
    pub fn message(msg: ServerMessage) -> Notice {
        Notice::Message(Box::new(msg))
    }
}

impl Hub {
    fn sessions(&self) -> MutexGuard<'_, Sessions> {
        // Each operation leaves the map consistent, so a poisoned lock is still usable.
        self.sessions.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn streams(&self) -> MutexGuard<'_, Streams> {
        self.streams.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Watches an API stream of `user` opened with `credential`, until the watch drops.
    pub fn watch_stream(self: &Arc<Self>, user: &UserId, credential: Credential) -> StreamWatch {
        let id = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let ended = CancellationToken::new();
        self.streams()
            .entry(user.clone())
            .or_default()
            .push((id, credential, ended.clone()));
        StreamWatch {
            hub: self.clone(),
            user: user.clone(),
            id,
            ended,
        }
    }

    /// Tokens of `user` were `ended`: the API streams opened with one of them end, and
    /// the sessions are told (those opened with one close).
    pub fn end(&self, user: &UserId, ended: &Ended) {
        if let Some(list) = self.streams().get(user) {
            for (_, credential, token) in list {
                if ended.covers(credential) {
                    token.cancel();
                }
            }
        }
        self.notify(user, || Notice::SessionsEnded(Box::new(ended.clone())));
    }

    /// Registers a session of `user`.
    pub fn register(&self, user: &UserInfo, conn: ConnId, tx: flume::Sender<Notice>) {
        self.sessions()
            .entry(user.id.clone())
            .or_insert_with(|| (user.clone(), Vec::new()))
            .1
            .push((conn, tx));
    }

    /// Every user connected here, with their session count.
    pub fn users(&self) -> Vec<(UserInfo, u32)> {
        self.sessions()
            .values()
            .map(|(info, list)| (info.clone(), u32::try_from(list.len()).unwrap_or(u32::MAX)))
            .collect()
    }

    /// Removes a session; returns how many sessions the user still has here.
    pub fn unregister(&self, user: &UserId, conn: ConnId) -> usize {
        let mut sessions = self.sessions();
        let Some((_, list)) = sessions.get_mut(user) else {
            return 0;
        };
        list.retain(|(c, _)| *c != conn);
        let left = list.len();
        if left == 0 {
            sessions.remove(user);
        }
        left
    }

    /// Is the user connected to this node?
    pub fn is_connected(&self, user: &UserId) -> bool {
        self.sessions().contains_key(user)
    }

    /// Sends one arena's standings to those of `lines`' users connected here: the
    /// shared part `base` with each user's own line.
    pub fn notify_standings(&self, base: &ArenaStandings, lines: &[(UserId, Option<ArenaMe>)]) {
        for (user, me) in lines {
            self.notify(user, || {
                let mut standings = base.clone();
                standings.me = me.clone();
                Notice::message(ServerMessage::ArenaStandings { standings })
            });
        }
    }

    /// Sends a notice to every session of `user`; returns how many took it. A session
    /// whose notice queue is full misses it (it is about to be dropped as too slow).
    pub fn notify(&self, user: &UserId, notice: impl Fn() -> Notice) -> usize {
        self.sessions().get(user).map_or(0, |(_, list)| {
            list.iter()
                .filter(|(_, tx)| tx.try_send(notice()).is_ok())
                .count()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_takes_at_most_16_bytes() {
        // A session's notice queue grows by notices of this size while they wait.
        assert!(std::mem::size_of::<Notice>() <= 16);
    }
}
