//! The values messages carry: identifiers, time controls, players, clocks, full game
//! state, game events and outcomes.

use serde::{Deserialize, Serialize};

use crate::clock::spec::{Speed, TimeControl};
use crate::ids::{GameId, UserId};
use crate::law::{OfferRefusal, RulesetId};
use crate::rules::{Color, MoveInfo, Variant};

/// What presence knows about one user: online anywhere, and the live games they play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserStatus {
    /// The user.
    pub id: UserId,
    /// Connected to any node now.
    pub online: bool,
    /// The live games they play.
    pub playing: Vec<GameId>,
}

/// A seek in the lobby, unique across the whole service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SeekId(pub u64);

/// A challenge from one user to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ChallengeId(pub u64);

/// Which side the creator of a seek or challenge wants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColorChoice {
    /// Decided at random when the game starts.
    #[default]
    Random,
    /// White.
    White,
    /// Black.
    Black,
}

/// A user as others see them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserInfo {
    /// Stable id.
    pub id: UserId,
    /// Display name.
    pub name: String,
    /// Is this a guest account?
    pub guest: bool,
    /// Rating for the game in question, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
    /// A bot account: a program playing through the Bot API (`docs/bots.md`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

/// A seek waiting in the lobby.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeekInfo {
    /// Id to accept or cancel it by.
    pub seek_id: SeekId,
    /// Who is seeking.
    pub user: UserInfo,
    /// The game.
    pub variant: Variant,
    /// The clock.
    pub time_control: TimeControl,
    /// Rated or casual.
    pub rated: bool,
    /// The side the seeker wants.
    pub color: ColorChoice,
    /// The rule set, when not the variant's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruleset: Option<RulesetId>,
    /// Only players rated within this range (in the seek's perf) may accept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_range: Option<RatingRange>,
}

/// The ratings a seek accepts opponents from, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingRange {
    /// The lowest rating accepted.
    pub min: u32,
    /// The highest rating accepted.
    pub max: u32,
}

impl RatingRange {
    /// The highest rating a range may name.
    pub const CEILING: u32 = 4000;

    /// Why the range cannot be used, if it cannot (`min` above `max`, or past
    /// [`RatingRange::CEILING`]).
    pub fn problem(&self) -> Option<String> {
        if self.min > self.max {
            Some(format!(
                "rating range {}-{}: the lowest is above the highest",
                self.min, self.max
            ))
        } else if self.max > Self::CEILING {
            Some(format!(
                "rating range {}-{}: ratings go up to {}",
                self.min,
                self.max,
                Self::CEILING
            ))
        } else {
            None
        }
    }

    /// Does `rating` fall within the range?
    pub fn admits(&self, rating: u32) -> bool {
        (self.min..=self.max).contains(&rating)
    }
}

/// One quick-pairing pool as the lobby feed shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyPool {
    /// The game.
    pub variant: Variant,
    /// The clock.
    pub time_control: TimeControl,
    /// Players waiting in the pool (its casual and rated sides together).
    pub waiting: u32,
    /// Players in live games of this variant and time control, on every node.
    pub playing: u32,
}

/// A live game as the lobby feed shows it: enough to draw a small board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyGame {
    /// The game, to watch.
    pub game_id: GameId,
    /// The game's variant.
    pub variant: Variant,
    /// The clock.
    pub time_control: TimeControl,
    /// White.
    pub white: UserInfo,
    /// Black.
    pub black: UserInfo,
    /// The current position.
    pub fen: String,
    /// The last move played, in the variant's notation (none before the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_move: Option<String>,
    /// Moves played so far (plies).
    pub plies: u32,
}

/// A challenge from one user to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeInfo {
    /// Id to accept, decline or cancel it by.
    pub challenge_id: ChallengeId,
    /// Who challenges.
    pub from: UserInfo,
    /// Who is challenged.
    pub to: UserId,
    /// The game.
    pub variant: Variant,
    /// The clock.
    pub time_control: TimeControl,
    /// Rated or casual.
    pub rated: bool,
    /// The side the challenger wants.
    pub color: ColorChoice,
    /// The challenger's side, drawn when the challenge is made: `color` itself unless
    /// that is random (lichess's `finalColor`). Absent in challenges from older servers,
    /// whose random side is drawn when the game starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_color: Option<Color>,
    /// The id the game takes when the challenge is accepted, drawn when it is made (as
    /// on lichess, where a challenge and its game share one id). Absent in challenges
    /// from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_id: Option<GameId>,
    /// The start position, when not the variant's usual one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    /// The rule set, when not the variant's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruleset: Option<RulesetId>,
}

/// Why a challenge was declined, in lichess's keys (`tooFast`, `noBot`...), as the
/// Bot API's `decline` takes them and `challengeDeclined` reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DeclineReason {
    /// No reason given.
    Generic,
    /// Not now.
    Later,
    /// The clock is too fast.
    TooFast,
    /// The clock is too slow.
    TooSlow,
    /// Not this clock.
    TimeControl,
    /// Rated games only.
    Rated,
    /// Casual games only.
    Casual,
    /// The main variant only.
    Standard,
    /// Not this variant.
    Variant,
    /// No games with bots.
    NoBot,
    /// Games with bots only.
    OnlyBot,
}

/// Both clocks, as of the moment the message was produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockState {
    /// White's remaining time in milliseconds.
    pub white_ms: u64,
    /// Black's remaining time in milliseconds.
    pub black_ms: u64,
    /// Whose clock is running, if any (none before the first move and after the end).
    pub running: Option<Color>,
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeReason {
    /// Chess: the king is mated.
    Checkmate,
    /// Chess: no legal move and not in check.
    Stalemate,
    /// Draughts: the loser has no pieces left.
    NoPieces,
    /// Draughts: the loser has no legal move.
    NoMoves,
    /// A player resigned.
    Resignation,
    /// A flag fell.
    Timeout,
    /// The players agreed a draw.
    Agreement,
    /// A position repeated as often as the rules allow.
    Repetition,
    /// An N-move rule of the variant (named in `detail`).
    MoveRule,
    /// Chess: neither side can mate.
    InsufficientMaterial,
    /// A drawn ending the rules declare drawn (named in `detail`).
    RuleDraw,
    /// A player left and the opponent claimed.
    Abandoned,
    /// Aborted before both sides had moved.
    Aborted,
}

/// One player's rating before and after a rated game (rounded to whole points).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingChange {
    /// Before the game.
    pub before: i32,
    /// After it.
    pub after: i32,
}

/// Both players' rating changes in a game; a side is absent when it is not rated (a
/// guest, or a casual game).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ratings {
    /// White's change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub white: Option<RatingChange>,
    /// Black's change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black: Option<RatingChange>,
}

/// The result of a finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winner, or none for a draw (or an aborted game).
    pub winner: Option<Color>,
    /// Why it ended.
    pub reason: OutcomeReason,
    /// The rule's name where one applies, e.g. `"15-move rule"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What the remaining player claims when the opponent has been away too long.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AbandonClaim {
    /// The win.
    Win,
    /// A draw.
    Draw,
}

/// A player of a live game with no connection to it, in a [`GameState`]: what a
/// `player_left` event said, for a page that joins after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Away {
    /// Which.
    pub color: Color,
    /// The opponent may claim after this many more milliseconds (0: now).
    pub claim_after_ms: u64,
}

/// Everything a client needs to show a game: sent on game start, on watch and on
/// reconnection when events cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameState {
    /// The game.
    pub game_id: GameId,
    /// The rule set the game is played under (absent in messages from older servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruleset: Option<RulesetId>,
    /// The version of the last event applied; events after this one follow.
    pub version: u64,
    /// The game.
    pub variant: Variant,
    /// The clock.
    pub time_control: TimeControl,
    /// The game's speed, from its time control (`docs/law.md`, "Speed of a server
    /// game"): which draw rules apply (bullet follows blitz law) and how long a
    /// disconnected player may stay away.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// Rated or casual.
    pub rated: bool,
    /// White's player.
    pub white: UserInfo,
    /// Black's player.
    pub black: UserInfo,
    /// The start position.
    pub initial_fen: String,
    /// The current position.
    pub fen: String,
    /// Every move so far, in the variant's notation.
    pub moves: Vec<String>,
    /// The last move described as a `move` event's `played` (absent before the first
    /// move and in messages from older servers): a page that joins late marks it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_move: Option<MoveInfo>,
    /// Side to move.
    pub turn: Color,
    /// Clocks now.
    pub clock: ClockState,
    /// A pending draw offer, by whom.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw_offer: Option<Color>,
    /// A pending takeback request, by whom.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub takeback_offer: Option<Color>,
    /// Are the players connected? `[white, black]`.
    pub connected: [bool; 2],
    /// The players of a live game who have left it, and when the opponent may claim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub away: Vec<Away>,
    /// How many spectators watch.
    pub spectators: u32,
    /// The result, once over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The game is no longer live: this state was read from the archive (its version is
    /// 0 and no events follow).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub archived: bool,
    /// The players who went berserk (arena games).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub berserk: Vec<Color>,
    /// The arena this game was paired in (arena games only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena: Option<String>,
    /// The tournament this game belongs to (tournament games only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<TournamentId>,
    /// When the game was created, in ms since the epoch (absent in messages from older
    /// servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_ms: Option<u64>,
    /// IDF art. 7.3.10, a later game of a micro-match: the break runs on the first
    /// mover's clock until this wall-clock time (ms since the epoch); he may not move
    /// before. Shown until the first move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_until_ms: Option<u64>,
    /// The legal moves of the side to move ([`crate::rules::Position::legal_move_texts`]:
    /// full routes for draughts, UCI for chess), in the state sent to that side's player
    /// only: absent for the other player, for spectators and once the game is over.
    /// This field and the next come last:
    /// [`ServerMessage::with_mover_fields`](crate::protocol::ServerMessage::with_mover_fields)
    /// appends them to the state made for no one in particular.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub legal_moves: Vec<String>,
    /// In the state sent to a player of a live game: whether they may offer a draw in
    /// their present turn (see [`GameEvent::Move`]'s field), `null` if so, else the
    /// typed refusal; absent for spectators and once the game is over.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub draw_offer_refusal: Option<Option<OfferRefusal>>,
}

/// Something that happened in a game. Each is sent once with its game version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GameEvent {
    /// A move was played.
    Move {
        /// Who moved.
        by: Color,
        /// The move, described.
        played: MoveInfo,
        /// The position after it.
        fen: String,
        /// Clocks after it (increment added, lag compensated).
        clock: ClockState,
        /// The legal moves of the side now to move, in the copy sent to that side's
        /// player only; absent in everyone else's copy and if the move ended the game.
        /// This field and the next come last:
        /// [`ServerMessage::with_mover_fields`](crate::protocol::ServerMessage::with_mover_fields)
        /// appends them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        legal_moves: Vec<String>,
        /// Whether that player may offer a draw in this turn (with the move, where a
        /// draw goes with one's own move): `null` if so, else the typed refusal; in the
        /// same copy only, absent in everyone else's.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "present"
        )]
        draw_offer_refusal: Option<Option<OfferRefusal>>,
    },
    /// A draw was offered.
    DrawOffered {
        /// By whom.
        by: Color,
    },
    /// A draw offer was declined (or withdrawn by a move).
    DrawDeclined {
        /// By whom.
        by: Color,
    },
    /// A takeback was requested.
    TakebackOffered {
        /// By whom.
        by: Color,
    },
    /// A takeback request was declined.
    TakebackDeclined {
        /// By whom.
        by: Color,
    },
    /// Moves were taken back.
    TakenBack {
        /// How many plies.
        plies: u32,
        /// The position after the takeback.
        fen: String,
        /// Clocks after it.
        clock: ClockState,
        /// The legal moves of the side now to move, in the copy sent to that side's
        /// player only (last, as in `Move`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        legal_moves: Vec<String>,
        /// Whether that player may offer a draw in this turn (with the move, where a
        /// draw goes with one's own move): `null` if so, else the typed refusal; in the
        /// same copy only, absent in everyone else's.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "present"
        )]
        draw_offer_refusal: Option<Option<OfferRefusal>>,
    },
    /// A player lost every connection to the game.
    PlayerLeft {
        /// Which.
        color: Color,
        /// After this many milliseconds the opponent may claim.
        claim_after_ms: u64,
    },
    /// A player that had left is back.
    PlayerReturned {
        /// Which.
        color: Color,
    },
    /// The number of spectators changed.
    Spectators {
        /// How many now.
        count: u32,
    },
    /// A player went berserk (arenas): half their time, no increment.
    Berserk {
        /// Who.
        by: Color,
        /// Clocks after halving.
        clock: ClockState,
    },
    /// The game ended. Sent once the game is archived, so it carries the rating
    /// changes; if the archive is slow, it comes without them and `archived` follows.
    GameOver {
        /// The result.
        outcome: Outcome,
        /// Final clocks.
        clock: ClockState,
        /// Rating changes of a rated game (absent: casual, a guest, or not yet stored).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratings: Option<Ratings>,
    },
    /// A game whose `game_over` went out before the database could store it is now
    /// archived, with its rating changes.
    Archived {
        /// Rating changes of a rated game.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ratings: Option<Ratings>,
    },
    /// A player offers (or asks for) a rematch.
    RematchOffered {
        /// By whom.
        by: Color,
    },
    /// A rematch offer was declined.
    RematchDeclined {
        /// By whom.
        by: Color,
    },
    /// The rematch has started as a new game.
    RematchStarted {
        /// The new game.
        game_id: GameId,
    },
}

impl GameEvent {
    /// Does the event put a side on the move (`move`, `taken_back`): is it the one whose
    /// copy for that side's player carries the legal moves?
    pub fn puts_on_move(&self) -> bool {
        matches!(self, GameEvent::Move { .. } | GameEvent::TakenBack { .. })
    }

    /// The legal moves an event that puts a side on the move carries for that side's
    /// player (`move`, `taken_back`); `None` for every other kind.
    pub fn legal_moves_mut(&mut self) -> Option<&mut Vec<String>> {
        self.mover_fields().map(|(legal, _)| legal)
    }

    /// The fields an event that puts a side on the move carries for that side's player
    /// only: the legal moves and the draw offer permission; `None` for every other kind.
    #[allow(clippy::type_complexity)]
    pub fn mover_fields(
        &mut self,
    ) -> Option<(&mut Vec<String>, &mut Option<Option<OfferRefusal>>)> {
        match self {
            GameEvent::Move {
                legal_moves,
                draw_offer_refusal,
                ..
            }
            | GameEvent::TakenBack {
                legal_moves,
                draw_offer_refusal,
                ..
            } => Some((legal_moves, draw_offer_refusal)),
            _ => None,
        }
    }

    /// Removes what only the player put on the move gets (see [`GameEvent::mover_fields`]).
    pub fn strip_mover_fields(&mut self) -> Option<()> {
        let (legal, offer) = self.mover_fields()?;
        legal.clear();
        *offer = None;
        Some(())
    }
}

/// Deserialises a field that may be absent (`None`, by `default`), `null` (`Some(None)`)
/// or a value (`Some(Some(_))`): `#[serde(default, deserialize_with = "present")]`.
pub fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A tournament's id.
pub type TournamentId = String;
