//! The presence group of client messages: who of a list of users is online. A request
//! in the session's queue ([`super::request`]): presence may be Redis.

use shared::protocol::{ErrorCode, ServerMessage, UserId};

use super::Done;
use super::Session;
use super::request::Requester;

impl Session {
    /// Queues a presence query.
    pub(super) fn on_presence(&mut self, users: Vec<UserId>) {
        let r = self.requester();
        self.hand_off(async move {
            r.presence(users).await;
            Done::Nothing
        });
    }
}

impl Requester {
    async fn presence(self, users: Vec<UserId>) {
        if users.len() > crate::presence::MAX_QUERY {
            self.out.error(
                ErrorCode::TooMany,
                format!("at most {} users per query", crate::presence::MAX_QUERY),
                None,
            );
            return;
        }
        match self.app.presence.statuses(&users).await {
            Ok(users) => {
                self.out.send(&ServerMessage::Presence { users });
            }
            Err(e) => self.out.error(ErrorCode::Unavailable, e.to_string(), None),
        }
    }
}
