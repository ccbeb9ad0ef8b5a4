//! What a session does with each decoded client message: the message's group decides
//! where it is handled, as lila-ws splits its clients by kind: the lobby
//! ([`super::lobby`]), a player's intents ([`super::play`]), watching and TV
//! ([`super::watch`]), the lobby feed (in [`super::lobby`]), presence ([`super::presence`]),
//! arenas ([`super::arena`]), tournaments ([`super::tournament`]) and chat
//! ([`super::chat`]). What waits on Redis, the database or another node becomes a
//! request in the session's queue ([`super::request`]), polled by the session loop
//! beside its socket; every refusal is answered with a typed `error`.

use shared::protocol::{ClientMessage, ErrorCode, PROTOCOL_VERSION, ServerMessage, close};

use super::Done;
use super::Session;
use super::request::{JOB_QUEUE, Requester};

impl Session {
    /// Handles one message (`auth` is handled by the session loop).
    pub(super) fn on_message(&mut self, msg: ClientMessage) {
        if !self.hello_done {
            match msg {
                ClientMessage::Hello { protocol, .. } => self.hello(protocol),
                _ => {
                    self.out
                        .error(ErrorCode::HelloRequired, "send `hello` first", None);
                }
            }
            return;
        }
        match msg {
            ClientMessage::Hello { protocol, .. } => self.hello(protocol),
            ClientMessage::Auth { .. } => {}
            ClientMessage::Ping { id } => {
                self.out.send(&ServerMessage::Pong {
                    id,
                    lag_ms: self.lag_ms,
                });
            }
            msg @ (ClientMessage::ListSeeks
            | ClientMessage::Seek { .. }
            | ClientMessage::CancelSeek { .. }
            | ClientMessage::AcceptSeek { .. }
            | ClientMessage::Challenge { .. }
            | ClientMessage::AcceptChallenge { .. }
            | ClientMessage::DeclineChallenge { .. }
            | ClientMessage::CancelChallenge { .. }
            | ClientMessage::ListChallenges
            | ClientMessage::PoolJoin { .. }
            | ClientMessage::PoolLeave
            | ClientMessage::ComputerPlay { .. }) => self.on_lobby(msg),
            ClientMessage::LobbySubscribe => self.follow_lobby(),
            ClientMessage::LobbyUnsubscribe => self.unfollow_lobby(),
            msg @ (ClientMessage::Move { .. }
            | ClientMessage::DrawOffer { .. }
            | ClientMessage::DrawAccept { .. }
            | ClientMessage::DrawDecline { .. }
            | ClientMessage::DrawClaim { .. }
            | ClientMessage::Resign { .. }
            | ClientMessage::Berserk { .. }
            | ClientMessage::Abort { .. }
            | ClientMessage::TakebackOffer { .. }
            | ClientMessage::TakebackAccept { .. }
            | ClientMessage::TakebackDecline { .. }
            | ClientMessage::Rematch { .. }
            | ClientMessage::RematchDecline { .. }
            | ClientMessage::ClaimAbandoned { .. }) => self.on_play(msg),
            msg @ (ClientMessage::Watch { .. }
            | ClientMessage::Unwatch { .. }
            | ClientMessage::Tv { .. }
            | ClientMessage::Resume { .. }) => self.on_watch(msg),
            msg @ (ClientMessage::TournamentWatch { .. }
            | ClientMessage::TournamentUnwatch { .. }
            | ClientMessage::TournamentWithdraw { .. }) => self.on_tournament(msg),
            msg @ (ClientMessage::ArenaCreate { .. }
            | ClientMessage::ArenaJoin { .. }
            | ClientMessage::ArenaWithdraw { .. }
            | ClientMessage::ArenaPause { .. }
            | ClientMessage::ArenaWatch { .. }
            | ClientMessage::ArenaUnwatch { .. }) => self.on_arena(msg),
            ClientMessage::PresenceQuery { users } => self.on_presence(users),
            msg @ (ClientMessage::ChatJoin { .. }
            | ClientMessage::ChatLeave { .. }
            | ClientMessage::ChatSay { .. }
            | ClientMessage::ChatDelete { .. }
            | ClientMessage::ChatReport { .. }
            | ClientMessage::ChatTimeout { .. }
            | ClientMessage::Block { .. }
            | ClientMessage::Unblock { .. }
            | ClientMessage::ListBlocks) => self.on_chat(msg),
        }
    }

    /// What a request may use, as the session stands now.
    pub(super) fn requester(&self) -> Requester {
        Requester {
            app: self.app.clone(),
            identity: self.identity.clone(),
            out: self.out.clone(),
            blocks: self.blocks.clone(),
        }
    }

    /// Queues a request; a full queue is answered `too_many` (false: not queued).
    pub(super) fn hand_off(
        &mut self,
        request: impl std::future::Future<Output = Done> + Send + 'static,
    ) -> bool {
        let queued = self.requests.push(request);
        if !queued {
            let message = format!("more than {JOB_QUEUE} requests waiting: wait for their answers");
            self.out.error(ErrorCode::TooMany, message, None);
        }
        queued
    }

    fn hello(&mut self, protocol: u32) {
        if protocol != PROTOCOL_VERSION {
            let message = format!("this server speaks protocol {PROTOCOL_VERSION}");
            self.out
                .error(ErrorCode::UnsupportedProtocol, message, None);
            self.out
                .close(close::UNSUPPORTED_PROTOCOL, "unsupported protocol");
            return;
        }
        self.hello_done = true;
        let ws = &self.app.config.ws;
        self.out.send(&ServerMessage::Welcome {
            protocol: PROTOCOL_VERSION,
            user: self.requester().me(),
            ping_interval_ms: ws.ping_interval_ms,
            max_message_bytes: ws.max_message_bytes,
            token_expires_at: self.identity.expires_at,
        });
    }
}
