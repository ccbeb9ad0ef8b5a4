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
mod tournament;
mod types;

pub use crate::clock::spec::{
    BadTimeControl, MAX_PERIODS, PeriodSpec, Speed, TimeControl, UnfitTimeControl,
};
pub use crate::ids::{GameId, UserId};
pub use chat::{BadRoom, ChatLine, ChatRoom, GameRoom, MAX_LINE_CHARS};
pub use error::{ErrorCode, close};
pub use messages::{ClientMessage, DecodeError, LobbyFeed, ServerMessage};
pub use tournament::{
    TieBreakValue, TournamentGame, TournamentMatch, TournamentPlayer, TournamentRound,
    TournamentStanding, TournamentStatus, TournamentSummary, TournamentTeam, TournamentView,
};
pub use types::{
    AbandonClaim, Away, ChallengeId, ChallengeInfo, ClockState, ColorChoice, DeclineReason,
    GameEvent, GameState, LobbyGame, LobbyPool, Outcome, OutcomeReason, RatingChange, RatingRange,
    Ratings, SeekId, SeekInfo, TournamentId, UserInfo, UserStatus, present,
};

/// The protocol version this build speaks. Bumped on any incompatible change.
pub const PROTOCOL_VERSION: u32 = 1;

#[cfg(test)]
mod tests;
