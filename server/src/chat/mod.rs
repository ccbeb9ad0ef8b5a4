//! Chat: a game's players' room and its spectators' room (as lichess), an arena's room
//! and a tournament's room. A line is cleaned ([`text`]), checked against the sayer's
//! flood allowance and any moderator's timeout, stored (`db::chat`: numbered per room),
//! and only then shown: to this node's followers of the room through a broadcast per
//! room, and with Redis to every other node's over the bus channel `chat`, which each
//! node hands to its own followers. Deletions and timeouts travel the same way; both
//! are stored first, so a room joined later never shows a deleted line and a timed-out
//! user is refused on every node. Blocks are stored per user: sessions drop the lines
//! of users their user blocks ([`BlockList`]), and challenges from them are refused.
//! Who may read or write which room is [`access`]'s.

pub mod access;
pub mod text;

use std::collections::{HashMap, HashSet};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::{Deserialize, Serialize};
use shared::protocol::{ChatLine, ChatRoom, ErrorCode, ServerMessage, UserId, UserInfo};
use tokio::sync::{broadcast, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::cluster::Cluster;
use crate::cluster::redis::wall_ms;
use crate::config::ChatConfig;
use crate::db::chat::StoredReport;
use crate::db::{Db, DbError};

/// Events one room's broadcast holds for a follower that lags; one further behind
/// misses them (and is told to join again).
const ROOM_BUFFER: usize = 64;
/// Chat notes from other nodes waiting to be handed to this node's followers.
const BUS_QUEUE: usize = 1_024;
/// The longest timeout: a week.
pub const MAX_TIMEOUT_MINUTES: u32 = 7 * 24 * 60;
/// The longest report reason, in characters.
const MAX_REASON_CHARS: usize = 500;
/// Flood allowances kept before the full ones are forgotten.
const FLOOD_ENTRIES: usize = 10_000;

/// Why a chat request was refused. Nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    /// The room's game, arena or tournament does not exist.
    #[error("{1}")]
    NoSuchPlace(ErrorCode, String),
    /// Not for this user: the message says why.
    #[error("{0}")]
    Forbidden(&'static str),
    /// A blank or over-long line.
    #[error("{0}")]
    BadLine(String),
    /// Too many lines too fast.
    #[error("too many chat lines: wait a few seconds")]
    Flood,
    /// A moderator timed the user out.
    #[error("a moderator timed you out of chat for now")]
    TimedOut {
        /// Until when (Unix ms).
        until_ms: u64,
    },
    /// Moderators only.
    #[error("only the chat moderators may do this")]
    NotAModerator,
    /// No such line in the room (or it is deleted).
    #[error("no such line in this room")]
    LineNotFound,
    /// A field out of range.
    #[error("{0}")]
    Invalid(String),
    /// The database failed.
    #[error("chat is unavailable for now")]
    Store(#[from] DbError),
}

impl ChatError {
    /// The code answered to the client.
    pub fn code(&self) -> ErrorCode {
        match self {
            ChatError::NoSuchPlace(code, _) => *code,
            ChatError::Forbidden(_) => ErrorCode::ChatForbidden,
            ChatError::BadLine(_) => ErrorCode::BadChatLine,
            ChatError::Flood => ErrorCode::RateLimited,
            ChatError::TimedOut { .. } => ErrorCode::TimedOut,
            ChatError::NotAModerator => ErrorCode::NotAModerator,
            ChatError::LineNotFound => ErrorCode::ChatLineNotFound,
            ChatError::Invalid(_) => ErrorCode::InvalidMessage,
            ChatError::Store(_) => ErrorCode::Unavailable,
        }
    }
}

/// What happens in a room, as its followers get it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RoomEvent {
    /// A new line.
    Line {
        /// The line.
        line: ChatLine,
    },
    /// A moderator deleted a line.
    Deleted {
        /// Its number.
        seq: u64,
    },
    /// A moderator timed a user out.
    TimedOut {
        /// The user.
        user: UserId,
        /// Until when (Unix ms).
        until_ms: u64,
    },
}

impl RoomEvent {
    /// The event as sent to a follower of `room`.
    pub fn message(&self, room: &ChatRoom) -> ServerMessage {
        let room = room.clone();
        match self {
            RoomEvent::Line { line } => ServerMessage::ChatLine {
                room,
                line: line.clone(),
            },
            RoomEvent::Deleted { seq } => ServerMessage::ChatDeleted { room, seq: *seq },
            RoomEvent::TimedOut { user, until_ms } => ServerMessage::ChatTimedOut {
                room,
                user: user.clone(),
                until_ms: *until_ms,
            },
        }
    }

    /// The line's sayer, for a line.
    pub fn sayer(&self) -> Option<&UserId> {
        match self {
            RoomEvent::Line { line } => Some(&line.user),
            _ => None,
        }
    }
}

/// A room event on the bus between nodes.
#[derive(Serialize, Deserialize)]
struct BusNote {
    origin: String,
    room: ChatRoom,
    event: RoomEvent,
}

/// The users one user blocks, shared by that user's session and the tasks that relay
/// its rooms. Cheap to clone.
#[derive(Clone, Default)]
pub struct BlockList(Arc<RwLock<HashSet<UserId>>>);

impl BlockList {
    /// Replaces the list.
    pub fn set(&self, users: &[UserId]) {
        let mut set = self.0.write().unwrap_or_else(|p| p.into_inner());
        set.clear();
        set.extend(users.iter().cloned());
    }

    /// Is `user` blocked?
    pub fn contains(&self, user: &UserId) -> bool {
        self.0
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains(user)
    }
}

/// `burst` lines at once, then `per_minute` (the configuration's floor is 1 each).
fn flood_quota(config: &ChatConfig) -> Quota {
    let nz = |n: u32| NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
    Quota::per_minute(nz(config.per_minute)).allow_burst(nz(config.burst))
}

/// This node's chat.
pub struct Chat {
    config: ChatConfig,
    db: Db,
    cluster: Option<Arc<Cluster>>,
    rooms: Mutex<HashMap<ChatRoom, broadcast::Sender<Arc<RoomEvent>>>>,
    /// Each user's flood allowance (governor's GCRA: `burst` lines, then
    /// `per_minute`).
    flood: DefaultKeyedRateLimiter<UserId>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn now_ms() -> i64 {
    i64::try_from(wall_ms()).unwrap_or(i64::MAX)
}

impl Chat {
    /// This node's chat over `db` (and the bus of `cluster`, once [`Chat::listen`]s).
    pub fn new(config: ChatConfig, db: Db, cluster: Option<Arc<Cluster>>) -> Arc<Chat> {
        Arc::new(Chat {
            db,
            cluster,
            rooms: Mutex::new(HashMap::new()),
            flood: RateLimiter::keyed(flood_quota(&config)),
            config,
        })
    }

    /// With Redis: subscribes to the bus channel `chat` and hands other nodes' room
    /// events to this node's followers, on `tracker` until `stop`.
    pub async fn listen(self: &Arc<Self>, tracker: &TaskTracker, stop: CancellationToken) {
        let Some(cluster) = &self.cluster else {
            return;
        };
        let (tx, mut rx) = mpsc::channel::<String>(BUS_QUEUE);
        cluster
            .bus
            .subscribe(cluster.redis.channel("chat"), tx)
            .await;
        let chat = Arc::downgrade(self);
        let node = cluster.node.clone();
        tracker.spawn(async move {
            loop {
                let payload = tokio::select! {
                    () = stop.cancelled() => return,
                    p = rx.recv() => match p {
                        Some(p) => p,
                        None => return,
                    },
                };
                let Some(chat) = chat.upgrade() else { return };
                match serde_json::from_str::<BusNote>(&payload) {
                    Ok(note) if note.origin != node => chat.show(&note.room, note.event),
                    Ok(_) => {}
                    Err(e) => tracing::debug!(error = %e, "unreadable chat note"),
                }
            }
        });
    }

    /// Is `user` a moderator?
    pub fn is_moderator(&self, user: &UserId) -> bool {
        self.config.moderators.contains(&user.0)
    }

    /// Follows `room` on this node.
    pub fn subscribe(&self, room: &ChatRoom) -> broadcast::Receiver<Arc<RoomEvent>> {
        let mut rooms = lock(&self.rooms);
        if let Some(tx) = rooms.get(room) {
            return tx.subscribe();
        }
        rooms.retain(|_, tx| tx.receiver_count() > 0);
        let (tx, rx) = broadcast::channel(ROOM_BUFFER);
        rooms.insert(room.clone(), tx);
        rx
    }

    /// Shows an event (stored already) to this node's followers of `room`.
    fn show(&self, room: &ChatRoom, event: RoomEvent) {
        if let Some(tx) = lock(&self.rooms).get(room) {
            let _ = tx.send(Arc::new(event));
        }
    }

    /// Shows an event (stored already) to every node's followers of `room`.
    fn publish(&self, room: &ChatRoom, event: RoomEvent) {
        if let Some(cluster) = &self.cluster {
            let note = BusNote {
                origin: cluster.node.clone(),
                room: room.clone(),
                event: event.clone(),
            };
            if let Ok(json) = serde_json::to_string(&note) {
                cluster.bus.publish(cluster.redis.channel("chat"), json);
            }
        }
        self.show(room, event);
    }

    /// The room's lines after `after`, or its last ones; oldest first.
    pub async fn history(
        &self,
        room: &ChatRoom,
        after: Option<u64>,
    ) -> Result<Vec<ChatLine>, ChatError> {
        Ok(self
            .db
            .chat_lines(&room.to_string(), after, self.config.history)
            .await?)
    }

    /// Takes one line from `user`'s allowance; false if it is used up.
    fn allow(&self, user: &UserId) -> bool {
        if self.flood.len() >= FLOOD_ENTRIES {
            // Users whose allowance is full again are forgotten.
            self.flood.retain_recent();
        }
        self.flood.check_key(user).is_ok()
    }

    /// `user` says `text` in `room` (whose access the caller checked): cleaned,
    /// refused if flooding or timed out, stored, then shown everywhere.
    pub async fn say(
        &self,
        user: &UserInfo,
        room: &ChatRoom,
        text: &str,
    ) -> Result<ChatLine, ChatError> {
        let text = text::clean(text)?;
        if let Some(until) = self.db.chat_timeout(&user.id).await?
            && until > now_ms()
        {
            return Err(ChatError::TimedOut {
                until_ms: u64::try_from(until).unwrap_or(0),
            });
        }
        if !self.allow(&user.id) {
            return Err(ChatError::Flood);
        }
        let at = now_ms();
        let seq = self
            .db
            .insert_chat_line(&room.to_string(), &user.id, &user.name, &text, at)
            .await?;
        let line = ChatLine {
            seq,
            user: user.id.clone(),
            name: user.name.clone(),
            text,
            at_ms: u64::try_from(at).unwrap_or(0),
        };
        self.publish(room, RoomEvent::Line { line: line.clone() });
        Ok(line)
    }

    /// A moderator deletes a line: gone for everyone, now and on joining.
    pub async fn delete(&self, by: &UserId, room: &ChatRoom, seq: u64) -> Result<(), ChatError> {
        if !self.is_moderator(by) {
            return Err(ChatError::NotAModerator);
        }
        if !self
            .db
            .delete_chat_line(&room.to_string(), seq, by, now_ms())
            .await?
        {
            return Err(ChatError::LineNotFound);
        }
        self.publish(room, RoomEvent::Deleted { seq });
        Ok(())
    }

    /// A moderator times `user` out of every chat for `minutes`; until when.
    pub async fn time_out(
        &self,
        by: &UserId,
        room: &ChatRoom,
        user: &UserId,
        minutes: u32,
    ) -> Result<u64, ChatError> {
        if !self.is_moderator(by) {
            return Err(ChatError::NotAModerator);
        }
        if minutes == 0 || minutes > MAX_TIMEOUT_MINUTES {
            return Err(ChatError::Invalid(format!(
                "a timeout lasts 1 to {MAX_TIMEOUT_MINUTES} minutes"
            )));
        }
        let at = now_ms();
        let until = at.saturating_add(i64::from(minutes) * 60_000);
        self.db.set_chat_timeout(user, until, by, at).await?;
        let until_ms = u64::try_from(until).unwrap_or(0);
        self.publish(
            room,
            RoomEvent::TimedOut {
                user: user.clone(),
                until_ms,
            },
        );
        Ok(until_ms)
    }

    /// Stores `reporter`'s report of a line for the moderators.
    pub async fn report(
        &self,
        reporter: &UserId,
        room: &ChatRoom,
        seq: u64,
        reason: &str,
    ) -> Result<(), ChatError> {
        let room_name = room.to_string();
        if self.db.chat_line(&room_name, seq).await?.is_none() {
            return Err(ChatError::LineNotFound);
        }
        let reason: String = reason
            .chars()
            .filter(|c| !crate::auth::is_unsafe_char(*c))
            .take(MAX_REASON_CHARS)
            .collect();
        let report = StoredReport {
            room: room_name,
            seq,
            reporter: reporter.0.clone(),
            reason,
            at_ms: now_ms(),
        };
        let id = crate::game::new_game_id().0;
        self.db.insert_chat_report(&id, &report).await?;
        Ok(())
    }

    /// The latest reports, for the moderators.
    pub async fn reports(&self, by: &UserId, limit: u32) -> Result<Vec<StoredReport>, ChatError> {
        if !self.is_moderator(by) {
            return Err(ChatError::NotAModerator);
        }
        Ok(self.db.chat_reports(limit).await?)
    }

    /// `me` blocks `other` (or, with `block` false, unblocks them); the users `me`
    /// blocks now.
    pub async fn set_block(
        &self,
        me: &UserId,
        other: &UserId,
        block: bool,
    ) -> Result<Vec<UserId>, ChatError> {
        if block {
            if other == me {
                return Err(ChatError::Invalid("you cannot block yourself".into()));
            }
            if other.0.is_empty()
                || other.0.len() > 128
                || other.0.chars().any(crate::auth::is_unsafe_char)
            {
                return Err(ChatError::Invalid("not a user id".into()));
            }
            self.db.block_user(me, other, now_ms()).await?;
        } else {
            self.db.unblock_user(me, other).await?;
        }
        self.blocked_by(me).await
    }

    /// The users `me` blocks.
    pub async fn blocked_by(&self, me: &UserId) -> Result<Vec<UserId>, ChatError> {
        Ok(self.db.blocked_users(me).await?)
    }

    /// Does `blocker` block `blocked`?
    pub async fn blocks(&self, blocker: &UserId, blocked: &UserId) -> Result<bool, ChatError> {
        Ok(self.db.blocks(blocker, blocked).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_flood_is_refused_after_the_burst_and_refilled_later() {
        let dir = std::env::temp_dir().join(format!("damka-chat-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}", dir.join("flood.sqlite").display());
        let db = Db::connect(&url, 1, std::time::Duration::from_secs(5))
            .await
            .unwrap();
        let config = ChatConfig {
            moderators: vec![],
            history: 10,
            burst: 3,
            per_minute: 60,
        };
        let chat = Chat::new(config, db, None);
        let alice = UserId::from("alice");
        assert!((0..3).all(|_| chat.allow(&alice)));
        assert!(!chat.allow(&alice));
        assert!(chat.allow(&UserId::from("bob")), "allowances are per user");
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        assert!(chat.allow(&alice), "one line a second comes back");
        assert!(!chat.allow(&alice));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
