//! The presence group of client messages: who of a list of users is online. Runs on
//! the session's worker ([`super::request`]): presence may be Redis.

use shared::protocol::{ErrorCode, ServerMessage, UserId};

use super::Session;
use super::request::Requester;

impl Session {
    /// Hands a presence query to the worker.
    pub(super) fn on_presence(&mut self, users: Vec<UserId>) {
        let r = self.requester();
        self.hand_off(r.presence(users));
    }
}

impl Requester {
    async fn presence(self, users: Vec<UserId>) {
        if users.len() > crate::presence::MAX_QUERY {
            self.error(
                ErrorCode::TooMany,
                format!("at most {} users per query", crate::presence::MAX_QUERY),
            );
            return;
        }
        match self.app.presence.statuses(&users).await {
            Ok(users) => {
                self.out.send(&ServerMessage::Presence { users });
            }
            Err(e) => self.error(ErrorCode::Unavailable, e.to_string()),
        }
    }
}
