//! The wire protocol between damka clients and the server: every message typed, as
//! JSON objects tagged by `type`. `docs/protocol.md` shows each with an example.
//!
//! A session starts with the client's [`ClientMessage::Hello`] naming
//! [`PROTOCOL_VERSION`], answered by [`ServerMessage::Welcome`]. Every game event carries
//! the game's version (one more per event); a client that reconnects sends
//! [`ClientMessage::Resume`] with the last version it saw and gets what it missed.
#![warn(missing_docs)]

mod chat;
mod error;
mod messages;
mod time_control;
mod tournament;
mod types;

pub use chat::{BadRoom, ChatLine, ChatRoom, GameRoom, MAX_LINE_CHARS};
pub use error::{ErrorCode, close};
pub use messages::{ClientMessage, DecodeError, LobbyFeed, ServerMessage};
pub use time_control::{BadTimeControl, MAX_PERIODS, PeriodSpec, UnfitTimeControl};
pub use tournament::{
    TieBreakValue, TournamentGame, TournamentId, TournamentMatch, TournamentPlayer,
    TournamentRound, TournamentStanding, TournamentStatus, TournamentSummary, TournamentTeam,
    TournamentView,
};
pub use types::{
    AbandonClaim, Away, ChallengeId, ChallengeInfo, ClockState, ColorChoice, DeclineReason,
    GameEvent, GameId, GameState, LobbyGame, LobbyPool, Outcome, OutcomeReason, RatingChange,
    RatingRange, Ratings, SeekId, SeekInfo, Speed, TimeControl, UserId, UserInfo, UserStatus,
    present,
};

/// The protocol version this build speaks. Bumped on any incompatible change.
pub const PROTOCOL_VERSION: u32 = 1;

#[cfg(test)]
mod tests;
