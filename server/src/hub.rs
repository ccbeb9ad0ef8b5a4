//! The hub: this node's sessions by user, so the lobby and the game registry can reach
//! a user's open connections ("you were challenged", "your game started"). Node-local by
//! nature; across nodes the Redis side of lobby and presence will route to the right one.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use shared::protocol::{ServerMessage, UserId, UserInfo};
use tokio::sync::mpsc;

use crate::game::GameHandle;

/// Something for a session to act on.
#[derive(Debug)]
pub enum Notice {
    /// A game the user plays has started: join it and send its state.
    GameStarted(GameHandle),
    /// A message to pass on as is.
    Message(Box<ServerMessage>),
}

/// A session's id on this node.
pub type ConnId = u64;

/// The sessions of each user on this node, with the user as they connected.
type Sessions = HashMap<UserId, (UserInfo, Vec<(ConnId, mpsc::Sender<Notice>)>)>;

/// Sessions by user.
#[derive(Debug, Default)]
pub struct Hub {
    sessions: Mutex<Sessions>,
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

    /// Registers a session of `user`.
    pub fn register(&self, user: &UserInfo, conn: ConnId, tx: mpsc::Sender<Notice>) {
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
