//! The chat group of client messages: joining and leaving rooms, saying, reporting,
//! blocking (reporting and blocking are an account's), and the moderators' deletions
//! and timeouts. Each is a request in the session's queue ([`super::request`]): it
//! waits on the database and maybe another node. A joined room is relayed by a task
//! of its own into the outbox, after the room's history, without the lines of users
//! this session's user blocks; the task is the session's (kept in the loop's state,
//! aborted when the room is left or the session ends, or its future dropped).

use std::sync::Arc;

use shared::protocol::{ChatRoom, ClientMessage, ErrorCode, ServerMessage, UserId};
use tokio::sync::broadcast;
use tokio_util::task::AbortOnDropHandle;

use super::Session;
use super::outbox::Outbox;
use super::request::Requester;
use super::{Done, Pending};
use crate::chat::access::{access, account, writable};
use crate::chat::{BlockList, Chat, ChatError, RoomEvent};

/// Rooms one session may follow at once.
pub const MAX_ROOMS: usize = 8;

impl Session {
    /// Queues a chat message.
    pub(super) fn on_chat(&mut self, msg: ClientMessage) {
        let r = self.requester();
        self.hand_off(r.chat(msg));
    }

    /// A room the user may read: unless the session follows [`MAX_ROOMS`] already,
    /// reading its history (then relaying it) is the returned stage.
    pub(super) fn room_granted(
        &mut self,
        room: ChatRoom,
        after: Option<u64>,
        write: bool,
    ) -> Option<Pending> {
        self.rooms.retain(|_, r| !r.is_finished());
        if self.rooms.len() >= MAX_ROOMS && !self.rooms.contains_key(&room) {
            let message = format!("at most {MAX_ROOMS} chat rooms at once");
            self.out.error(ErrorCode::TooMany, message, None);
            return None;
        }
        let r = self.requester();
        Some(Box::pin(async move {
            match r.room_history(room, after, write).await {
                Ok(relay) => Done::RoomJoined(relay),
                Err(e) => {
                    r.chat_error(&e);
                    Done::Nothing
                }
            }
        }))
    }

    /// Follows a room from now on with `relay`'s task (replacing an earlier one).
    pub(super) fn adopt_room(&mut self, relay: Relay) {
        let room = relay.room.clone();
        let task = AbortOnDropHandle::new(tokio::spawn(relay.run()));
        self.rooms.insert(room, task);
    }

    /// `chat_leave`: stops following `room`.
    pub(super) fn leave_room(&mut self, room: ChatRoom) {
        if self.rooms.remove(&room).is_none() {
            let message = format!("you do not follow {room}");
            self.out.error(ErrorCode::NotWatching, message, None);
        }
    }
}

impl Requester {
    fn chat_error(&self, e: &ChatError) {
        if let ChatError::Store(e) = e {
            tracing::warn!(error = %e, "chat store failed");
        }
        self.out.error(e.code(), e.to_string(), None);
    }

    /// Handles one chat message; joining and leaving a room are finished by the loop.
    async fn chat(self, msg: ClientMessage) -> Done {
        match msg {
            ClientMessage::ChatJoin { room, after } => {
                let me = &self.identity.user;
                match access(&self.app.places(), me, &room).await {
                    Ok(granted) => Done::RoomGranted {
                        room,
                        after,
                        write: granted.write,
                    },
                    Err(e) => {
                        self.chat_error(&e);
                        Done::Nothing
                    }
                }
            }
            ClientMessage::ChatLeave { room } => Done::RoomLeft(room),
            msg => {
                if let Err(e) = self.chat_request(msg).await {
                    self.chat_error(&e);
                }
                Done::Nothing
            }
        }
    }

    async fn chat_request(&self, msg: ClientMessage) -> Result<(), ChatError> {
        let chat = &self.app.chat;
        let me = &self.identity.user;
        match msg {
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
            _ => self
                .out
                .error(ErrorCode::Internal, "not a chat message", None),
        }
        Ok(())
    }

    fn send_blocks(&self, users: Vec<UserId>) {
        self.blocks.set(&users);
        self.out.send(&ServerMessage::Blocks { users });
    }

    /// Sends the room's history: the relay of the room from then on.
    async fn room_history(
        &self,
        room: ChatRoom,
        after: Option<u64>,
        write: bool,
    ) -> Result<Relay, ChatError> {
        let chat = &self.app.chat;
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
            writable: write,
            moderator: chat.is_moderator(&self.identity.user.id),
        });
        Ok(Relay {
            chat: chat.clone(),
            room,
            last,
            out: self.out.clone(),
            blocks: self.blocks.clone(),
            events,
        })
    }
}

/// Relays one room to one session.
pub(super) struct Relay {
    chat: Arc<Chat>,
    room: ChatRoom,
    /// The last line sent.
    last: u64,
    out: Outbox,
    blocks: BlockList,
    /// The room's events, from before its history was read.
    events: broadcast::Receiver<Arc<RoomEvent>>,
}

impl Relay {
    async fn run(mut self) {
        let closer = self.out.closer().clone();
        loop {
            let event = tokio::select! {
                () = closer.closed() => return,
                e = self.events.recv() => e,
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
