//! The chat group of client messages: joining and leaving rooms, saying, reporting,
//! blocking (reporting and blocking are an account's), and the moderators' deletions
//! and timeouts. Each runs on the session's worker ([`super::request`]): it waits on
//! the database and maybe another node. A joined room is relayed by a task of its own
//! into the outbox, after the room's history, without the lines of users this
//! session's user blocks; the task is the session's (kept in the loop's state, ended
//! with it).

use std::sync::Arc;

use shared::protocol::{ChatRoom, ClientMessage, ErrorCode, ServerMessage, UserId};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use super::Session;
use super::outbox::Outbox;
use super::request::Requester;
use crate::chat::access::{access, account, writable};
use crate::chat::{BlockList, Chat, ChatError, RoomEvent};

/// Rooms one session may follow at once.
pub const MAX_ROOMS: usize = 8;

impl Session {
    /// Hands a chat message to the worker.
    pub(super) fn on_chat(&mut self, msg: ClientMessage) {
        let r = self.requester();
        self.hand_off(r.chat(msg));
    }

    /// Follows `room` from now on with `relay` (replacing an earlier relay of it).
    fn adopt_room(&mut self, room: ChatRoom, relay: JoinHandle<()>) {
        if let Some(old) = self.rooms.insert(room, relay) {
            old.abort();
        }
    }

    /// Stops following `room`.
    fn leave_room(&mut self, room: &ChatRoom) -> bool {
        self.rooms.remove(room).map(|r| r.abort()).is_some()
    }

    /// Room for one more (or `room` followed already)?
    fn may_follow(&mut self, room: &ChatRoom) -> bool {
        self.rooms.retain(|_, r| !r.is_finished());
        self.rooms.len() < MAX_ROOMS || self.rooms.contains_key(room)
    }
}

impl Requester {
    fn chat_error(&self, e: &ChatError) {
        if let ChatError::Store(e) = e {
            tracing::warn!(error = %e, "chat store failed");
        }
        self.error(e.code(), e.to_string());
    }

    /// Handles one chat message.
    async fn chat(self, msg: ClientMessage) {
        if let Err(e) = self.chat_request(msg).await {
            self.chat_error(&e);
        }
    }

    async fn chat_request(&self, msg: ClientMessage) -> Result<(), ChatError> {
        let chat = &self.app.chat;
        let me = &self.identity.user;
        match msg {
            ClientMessage::ChatJoin { room, after } => return self.join_room(room, after).await,
            ClientMessage::ChatLeave { room } => {
                let r = room.clone();
                let left = self.edits.edit(move |s| s.leave_room(&r)).await;
                if left != Some(true) {
                    self.error(ErrorCode::NotWatching, format!("you do not follow {room}"));
                }
            }
            ClientMessage::ChatSay { room, text } => {
                writable(access(&self.app.places(), me, &room).await?)?;
                chat.say(me, &room, &text).await?;
            }
            ClientMessage::ChatDelete { room, seq } => chat.delete(&me.id, &room, seq).await?,
            ClientMessage::ChatTimeout {
                room,
                user,
                minutes,
            } => {
                let until_ms = chat.time_out(&me.id, &room, &user, minutes).await?;
                self.app.notify_user(
                    &user,
                    ServerMessage::ChatTimedOut {
                        room,
                        user: user.clone(),
                        until_ms,
                    },
                );
            }
            ClientMessage::ChatReport { room, seq, reason } => {
                account(me)?;
                access(&self.app.places(), me, &room).await?;
                chat.report(&me.id, &room, seq, &reason).await?;
                self.out.send(&ServerMessage::ChatReported { room, seq });
            }
            ClientMessage::Block { user } => {
                account(me)?;
                self.send_blocks(chat.set_block(&me.id, &user, true).await?)
            }
            ClientMessage::Unblock { user } => {
                account(me)?;
                self.send_blocks(chat.set_block(&me.id, &user, false).await?);
            }
            ClientMessage::ListBlocks => self.send_blocks(chat.blocked_by(&me.id).await?),
            _ => self.error(ErrorCode::Internal, "not a chat message"),
        }
        Ok(())
    }

    fn send_blocks(&self, users: Vec<UserId>) {
        self.blocks.set(&users);
        self.out.send(&ServerMessage::Blocks { users });
    }

    /// Sends the room's history and relays it from then on.
    async fn join_room(&self, room: ChatRoom, after: Option<u64>) -> Result<(), ChatError> {
        let chat = &self.app.chat;
        let granted = access(&self.app.places(), &self.identity.user, &room).await?;
        let r = room.clone();
        if self.edits.edit(move |s| s.may_follow(&r)).await != Some(true) {
            self.error(
                ErrorCode::TooMany,
                format!("at most {MAX_ROOMS} chat rooms at once"),
            );
            return Ok(());
        }
        self.blocks
            .set(&chat.blocked_by(&self.identity.user.id).await?);
        // Followed before the history is read: a line said meanwhile is in one or the
        // other (or both: the relay skips what the history showed).
        let events = chat.subscribe(&room);
        let mut lines = chat.history(&room, after).await?;
        let last = lines.last().map(|l| l.seq).or(after).unwrap_or(0);
        lines.retain(|l| !self.blocks.contains(&l.user));
        self.out.send(&ServerMessage::ChatHistory {
            room: room.clone(),
            lines,
            writable: granted.write,
            moderator: chat.is_moderator(&self.identity.user.id),
        });
        let relay = Relay {
            chat: chat.clone(),
            room: room.clone(),
            last,
            out: self.out.clone(),
            blocks: self.blocks.clone(),
        };
        let task = tokio::spawn(relay.run(events));
        let abort = task.abort_handle();
        if self
            .edits
            .edit(move |s| s.adopt_room(room, task))
            .await
            .is_none()
        {
            abort.abort();
        }
        Ok(())
    }
}

/// Relays one room to one session.
struct Relay {
    chat: Arc<Chat>,
    room: ChatRoom,
    /// The last line sent.
    last: u64,
    out: Outbox,
    blocks: BlockList,
}

impl Relay {
    async fn run(mut self, mut events: broadcast::Receiver<Arc<RoomEvent>>) {
        let closer = self.out.closer().clone();
        loop {
            let event = tokio::select! {
                () = closer.closed() => return,
                e = events.recv() => e,
            };
            match event {
                Ok(event) => self.relay(&event),
                // Fell behind the room: what it missed is read back from the store.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    match self.chat.history(&self.room, Some(self.last)).await {
                        Ok(lines) => {
                            for line in lines {
                                self.relay(&RoomEvent::Line { line });
                            }
                        }
                        Err(e) => tracing::debug!(error = %e, "chat catch-up failed"),
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    }

    fn relay(&mut self, event: &RoomEvent) {
        if let RoomEvent::Line { line } = event {
            if line.seq <= self.last {
                return;
            }
            self.last = line.seq;
        }
        if event.sayer().is_some_and(|u| self.blocks.contains(u)) {
            return;
        }
        self.out.send(&event.message(&self.room));
    }
}
