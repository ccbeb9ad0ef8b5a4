//! The lobby: open seeks, challenges between users, and quick-pairing pools (variant +
//! time control) whose rating window widens with waiting time. Behind the [`Lobby`]
//! trait so a Redis implementation (atomic pairing with Lua) can replace the in-memory
//! one ([`memory::MemoryLobby`], [`redis::RedisLobby`]). The lobby only matches; the
//! caller starts the game.

pub mod feed;
pub mod memory;
pub mod redis;

use std::collections::HashMap;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use shared::law::RulesetId;
use shared::protocol::{
    ChallengeId, ChallengeInfo, ColorChoice, ErrorCode, RatingRange, SeekId, SeekInfo, TimeControl,
    UserId, UserInfo,
};
use shared::rules::{Color, Variant};

/// Players by pool (variant and time control): waiting in it, or playing its games.
pub type PoolCounts = HashMap<(Variant, TimeControl), u32>;

/// Why a lobby request was refused.
#[derive(Debug, thiserror::Error)]
pub enum LobbyError {
    /// No such seek.
    #[error("no such seek")]
    SeekNotFound,
    /// No such challenge (for this user).
    #[error("no such challenge")]
    ChallengeNotFound,
    /// Accepting one's own seek.
    #[error("you cannot accept your own seek")]
    OwnSeek,
    /// Challenging oneself.
    #[error("you cannot challenge yourself")]
    SelfChallenge,
    /// No pool for this variant and time control.
    #[error("no pool for this variant and time control")]
    UnknownPool,
    /// Too many open seeks.
    #[error("too many open seeks")]
    TooMany,
    /// Accepting a seek whose rating range leaves out the taker's rating.
    #[error("your rating {rating} is outside this seek's range {min}-{max}")]
    OutsideRatingRange {
        /// The taker's rating in the seek's perf.
        rating: u32,
        /// The range's lowest.
        min: u32,
        /// The range's highest.
        max: u32,
    },
    /// The backing store failed (Redis unreachable): no new pairings for now.
    #[error("matchmaking is unavailable for now: {0}")]
    Store(String),
}

impl LobbyError {
    /// The protocol error code.
    pub fn code(&self) -> ErrorCode {
        match self {
            LobbyError::SeekNotFound => ErrorCode::SeekNotFound,
            LobbyError::ChallengeNotFound => ErrorCode::ChallengeNotFound,
            LobbyError::OwnSeek => ErrorCode::OwnSeek,
            LobbyError::SelfChallenge => ErrorCode::SelfChallenge,
            LobbyError::UnknownPool => ErrorCode::UnknownPool,
            LobbyError::TooMany => ErrorCode::TooMany,
            LobbyError::OutsideRatingRange { .. } => ErrorCode::OutsideRatingRange,
            LobbyError::Store(_) => ErrorCode::Unavailable,
        }
    }
}

/// A game proposal: what a seek or challenge asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    /// The game.
    pub variant: Variant,
    /// The clock.
    pub time_control: TimeControl,
    /// Rated or casual.
    pub rated: bool,
    /// The side the proposer wants.
    pub color: ColorChoice,
    /// A start position other than the variant's usual one (casual games only).
    pub fen: Option<String>,
    /// A rule set other than the variant's default.
    pub ruleset: Option<RulesetId>,
    /// The opponents' ratings a seek admits (seeks only; none: anyone).
    pub rating_range: Option<RatingRange>,
}

impl Proposal {
    /// The seek `user` opens with this proposal (a seek starts from the usual position).
    pub fn into_seek(self, seek_id: SeekId, user: &UserInfo) -> SeekInfo {
        SeekInfo {
            seek_id,
            user: user.clone(),
            variant: self.variant,
            time_control: self.time_control,
            rated: self.rated,
            color: self.color,
            ruleset: self.ruleset,
            rating_range: self.rating_range,
        }
    }

    /// The challenge `from` sends `to` with this proposal; a random side is drawn now,
    /// so that both players see it before the game (as lichess shows `finalColor`).
    pub fn into_challenge(
        self,
        challenge_id: ChallengeId,
        from: &UserInfo,
        to: &UserId,
    ) -> ChallengeInfo {
        let final_color = match self.color {
            ColorChoice::White => Color::White,
            ColorChoice::Black => Color::Black,
            ColorChoice::Random if getrandom::u32().is_ok_and(|r| r & 1 == 1) => Color::Black,
            ColorChoice::Random => Color::White,
        };
        ChallengeInfo {
            challenge_id,
            from: from.clone(),
            to: to.clone(),
            variant: self.variant,
            time_control: self.time_control,
            rated: self.rated,
            color: self.color,
            final_color: Some(final_color),
            game_id: Some(crate::ids::new_game_id()),
            fen: self.fen,
            ruleset: self.ruleset,
        }
    }
}

impl From<&SeekInfo> for Proposal {
    /// The game a seek proposes (seeks always start from the usual position).
    fn from(seek: &SeekInfo) -> Proposal {
        Proposal {
            variant: seek.variant,
            time_control: seek.time_control,
            rated: seek.rated,
            color: seek.color,
            fen: None,
            ruleset: seek.ruleset,
            rating_range: seek.rating_range,
        }
    }
}

impl From<&ChallengeInfo> for Proposal {
    /// The game a challenge proposes, with the side drawn when it was made.
    fn from(ch: &ChallengeInfo) -> Proposal {
        Proposal {
            variant: ch.variant,
            time_control: ch.time_control,
            rated: ch.rated,
            color: match ch.final_color {
                Some(Color::White) => ColorChoice::White,
                Some(Color::Black) => ColorChoice::Black,
                None => ch.color,
            },
            fen: ch.fen.clone(),
            ruleset: ch.ruleset,
            rating_range: None,
        }
    }
}

/// Someone waiting in a pool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolEntry {
    /// Who, with the rating pairing uses.
    pub user: UserInfo,
    /// The pool's variant.
    pub variant: Variant,
    /// The pool's time control.
    pub time_control: TimeControl,
    /// The rated pool of that variant and time control (each pool has a casual and a
    /// rated side, paired apart).
    #[serde(default)]
    pub rated: bool,
    /// When they joined: wall-clock milliseconds since the Unix epoch, so that every
    /// node reads waiting times the same way.
    pub since_ms: u64,
}

/// Two pool entries matched: the caller starts their game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The one who waited longer.
    pub first: PoolEntry,
    /// The other.
    pub second: PoolEntry,
}

/// How a pool's rating window grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Accepted at once.
    pub base: u32,
    /// Added per second of waiting.
    pub growth_per_sec: u32,
    /// The widest.
    pub max: u32,
    /// Rating assumed for users without one.
    pub default_rating: u32,
}

impl Window {
    /// The window of an entry that has waited since `since_ms` (wall-clock ms).
    pub fn at(&self, since_ms: u64, now_ms: u64) -> u32 {
        let waited = u32::try_from(now_ms.saturating_sub(since_ms) / 1000).unwrap_or(u32::MAX);
        self.base
            .saturating_add(waited.saturating_mul(self.growth_per_sec))
            .min(self.max)
    }
}

/// The lobby. Object safe: the server holds an `Arc<dyn Lobby>`.
pub trait Lobby: Send + Sync {
    /// Opens a seek.
    fn add_seek<'a>(
        &'a self,
        user: &'a UserInfo,
        proposal: Proposal,
    ) -> BoxFuture<'a, Result<SeekInfo, LobbyError>>;

    /// Withdraws a seek of `user`.
    fn cancel_seek<'a>(
        &'a self,
        user: &'a UserId,
        id: SeekId,
    ) -> BoxFuture<'a, Result<SeekInfo, LobbyError>>;

    /// Takes a seek for `taker`, atomically: it is gone for everyone else.
    fn take_seek<'a>(
        &'a self,
        taker: &'a UserId,
        id: SeekId,
    ) -> BoxFuture<'a, Result<SeekInfo, LobbyError>>;

    /// Every open seek.
    fn seeks(&self) -> BoxFuture<'_, Result<Vec<SeekInfo>, LobbyError>>;

    /// Players waiting in each pool (casual and rated sides together); pools nobody
    /// waits in are absent.
    fn pool_waiting(&self) -> BoxFuture<'_, Result<PoolCounts, LobbyError>>;

    /// Records a challenge.
    fn add_challenge<'a>(
        &'a self,
        from: &'a UserInfo,
        to: &'a UserId,
        proposal: Proposal,
    ) -> BoxFuture<'a, Result<ChallengeInfo, LobbyError>>;

    /// Takes a challenge addressed to `user` (accepting it), atomically.
    fn take_challenge<'a>(
        &'a self,
        user: &'a UserId,
        id: ChallengeId,
    ) -> BoxFuture<'a, Result<ChallengeInfo, LobbyError>>;

    /// Removes a challenge `user` sent (cancel) or received (decline).
    fn remove_challenge<'a>(
        &'a self,
        user: &'a UserId,
        id: ChallengeId,
    ) -> BoxFuture<'a, Result<ChallengeInfo, LobbyError>>;

    /// Puts `entry` in its pool (leaving any other pool), pairing at once if it can.
    fn join_pool(&self, entry: PoolEntry) -> BoxFuture<'_, Result<Option<Pairing>, LobbyError>>;

    /// Takes `user` out of every pool; was the user in one?
    fn leave_pools<'a>(&'a self, user: &'a UserId) -> BoxFuture<'a, Result<bool, LobbyError>>;

    /// Pairs whoever the widened windows now allow (`now_ms`: wall-clock ms).
    fn pair_pools(&self, now_ms: u64) -> BoxFuture<'_, Result<Vec<Pairing>, LobbyError>>;

    /// The challenges `user` sent or received that are still open, oldest first.
    fn challenges_of<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Vec<ChallengeInfo>, LobbyError>>;

    /// The user went offline: drops their seeks, pool entries and challenges (sent or
    /// received); returns the challenges dropped, so the other sides can be told.
    fn remove_user<'a>(
        &'a self,
        user: &'a UserId,
    ) -> BoxFuture<'a, Result<Vec<ChallengeInfo>, LobbyError>>;
}
