//! The messages themselves: what a client may send, what the server sends, and how a
//! text frame is read into a typed message with a typed error.

use serde::{Deserialize, Serialize};

use super::chat::{ChatLine, ChatRoom};
use super::error::ErrorCode;
use super::tournament::{TournamentSummary, TournamentView};
use super::types::{
    AbandonClaim, ChallengeId, ChallengeInfo, ColorChoice, DeclineReason, GameEvent, GameState,
    LobbyGame, LobbyPool, RatingRange, SeekId, SeekInfo, TournamentId, UserInfo, UserStatus,
};
use crate::arena::{ArenaInfo, ArenaStandings, Membership};
use crate::clock::spec::TimeControl;
use crate::ids::{GameId, UserId};
use crate::law::{OfferRefusal, RulesetId};
use crate::rules::Variant;

/// A message from a client. JSON objects with a `type` field naming the variant in
/// snake_case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    /// The first message of every session: the protocol version the client speaks.
    Hello {
        /// Must equal [`super::PROTOCOL_VERSION`].
        protocol: u32,
        /// Free text naming the client, for logs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
    },
    /// A fresh token for the same user, to extend the session past the old one's expiry.
    Auth {
        /// The new token.
        token: String,
    },
    /// Application-level ping; answered by `pong` with the same id and the measured lag.
    Ping {
        /// Echoed back.
        id: u64,
    },
    /// Ask for the open seeks.
    ListSeeks,
    /// Open a seek in the lobby.
    Seek {
        /// The game.
        variant: Variant,
        /// The clock.
        time_control: TimeControl,
        /// Rated or casual (default casual).
        #[serde(default)]
        rated: bool,
        /// The side wanted (default random).
        #[serde(default)]
        color: ColorChoice,
        /// The rule set, when the variant has several (`russian_idf`, default, or
        /// `russian_ua`, the Ukrainian federation's draw law).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ruleset: Option<RulesetId>,
        /// Only opponents rated within this range may accept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rating_range: Option<RatingRange>,
    },
    /// Withdraw one of your seeks.
    CancelSeek {
        /// Which.
        seek_id: SeekId,
    },
    /// Accept someone's seek: the game starts.
    AcceptSeek {
        /// Which.
        seek_id: SeekId,
    },
    /// Challenge an online user.
    Challenge {
        /// Whom.
        user: UserId,
        /// The game.
        variant: Variant,
        /// The clock.
        time_control: TimeControl,
        /// Rated or casual (default casual).
        #[serde(default)]
        rated: bool,
        /// The side wanted (default random).
        #[serde(default)]
        color: ColorChoice,
        /// Start from this position (the variant's FEN) instead of the start position.
        /// Games from a position are casual.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fen: Option<String>,
        /// The rule set, when the variant has several (`russian_idf`, default, or
        /// `russian_ua`, the Ukrainian federation's draw law).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ruleset: Option<RulesetId>,
    },
    /// Accept a challenge addressed to you: the game starts.
    AcceptChallenge {
        /// Which.
        challenge_id: ChallengeId,
    },
    /// Decline a challenge addressed to you.
    DeclineChallenge {
        /// Which.
        challenge_id: ChallengeId,
    },
    /// Withdraw a challenge you sent.
    CancelChallenge {
        /// Which.
        challenge_id: ChallengeId,
    },
    /// Ask for your open challenges, sent and received: answered by `challenges`.
    ListChallenges,
    /// Join the quick-pairing pool of a variant and time control.
    PoolJoin {
        /// The game.
        variant: Variant,
        /// The clock; must be one of the server's pools.
        time_control: TimeControl,
        /// The rated pool (registered players only) rather than the casual one.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
    },
    /// Leave every pool.
    PoolLeave,
    /// Follow the lobby feed (the home page): answered by `lobby` now and after every
    /// change.
    LobbySubscribe,
    /// Stop following the lobby feed.
    LobbyUnsubscribe,
    /// Play the computer: a casual game against damka's engine (draughts) or an UCI
    /// engine (chess) at a level from 1 (a beginner beats it) to 8 (full strength).
    ComputerPlay {
        /// The game.
        variant: Variant,
        /// 1 to 8.
        level: u8,
        /// The clock.
        time_control: TimeControl,
        /// The side the player wants (default random).
        #[serde(default)]
        color: ColorChoice,
        /// A start position in the variant's FEN (default the usual start).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fen: Option<String>,
    },
    /// Play a move.
    Move {
        /// The game.
        game_id: GameId,
        /// The move in the variant's notation (`c3-d4`, `c3:e5:g3`, `Nf3`...).
        #[serde(rename = "move")]
        text: String,
        /// The client's id for this move, echoed in `move_ack` or `error`.
        move_id: u64,
        /// The think time the client measured for this move, in milliseconds; the
        /// server believes it only as far as its own lag measurement allows.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        think_ms: Option<u64>,
        /// Offer a draw with this move (draughts: move, offer, press the clock).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        offer_draw: bool,
    },
    /// Offer a draw.
    DrawOffer {
        /// The game.
        game_id: GameId,
    },
    /// Accept the opponent's draw offer.
    DrawAccept {
        /// The game.
        game_id: GameId,
    },
    /// Decline the opponent's draw offer.
    DrawDecline {
        /// The game.
        game_id: GameId,
    },
    /// Claim a draw the rules allow (repetition, an N-move rule), on the position now
    /// or, with `move`, on the position the declared next move makes (IDF 8.2.3, FIDE
    /// 9.2-9.3). A refused claim with a move lets the move stand as played.
    DrawClaim {
        /// The game.
        game_id: GameId,
        /// The declared next move, in the variant's notation.
        #[serde(rename = "move", default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// Resign.
    Resign {
        /// The game.
        game_id: GameId,
    },
    /// Abort a game before both sides have moved.
    Abort {
        /// The game.
        game_id: GameId,
    },
    /// Ask to take back your last move (casual games only).
    TakebackOffer {
        /// The game.
        game_id: GameId,
    },
    /// Grant the opponent's takeback request.
    TakebackAccept {
        /// The game.
        game_id: GameId,
    },
    /// Refuse the opponent's takeback request.
    TakebackDecline {
        /// The game.
        game_id: GameId,
    },
    /// Offer a rematch after the game, or accept the opponent's offer.
    Rematch {
        /// The finished game.
        game_id: GameId,
    },
    /// Decline the opponent's rematch offer.
    RematchDecline {
        /// The finished game.
        game_id: GameId,
    },
    /// The opponent has been away longer than the timeout: claim the win or a draw.
    ClaimAbandoned {
        /// The game.
        game_id: GameId,
        /// What you claim.
        result: AbandonClaim,
    },
    /// Watch a game: the full state, then every event.
    Watch {
        /// The game.
        game_id: GameId,
    },
    /// Stop watching a game.
    Unwatch {
        /// The game.
        game_id: GameId,
    },
    /// Watch the highest-rated live game of a variant.
    Tv {
        /// The variant.
        variant: Variant,
    },
    /// Reconnect to a game you play or watch: every event after `last_version`.
    Resume {
        /// The game.
        game_id: GameId,
        /// The version of the last event you saw (0 for none).
        last_version: u64,
    },
    /// Ask whether these users (friends, followed players) are online and what they play.
    PresenceQuery {
        /// At most 200 users.
        users: Vec<UserId>,
    },
    /// Follow a tournament: its view now and after every change.
    TournamentWatch {
        /// The tournament.
        tournament_id: TournamentId,
    },
    /// Stop following a tournament.
    TournamentUnwatch {
        /// The tournament.
        tournament_id: TournamentId,
    },
    /// Leave a tournament you play in (IDF s.2 art. 18.2); takes effect between rounds.
    TournamentWithdraw {
        /// The tournament.
        tournament_id: TournamentId,
    },
    /// Go berserk in an arena game, before your first move: half your clock, no
    /// increment, one more point for a win with at least 7 moves.
    Berserk {
        /// The game.
        game_id: GameId,
    },
    /// Create an arena (registered players only). Answered by `arena_created`.
    ArenaCreate {
        /// Its name (1 to 60 characters).
        name: String,
        /// The game.
        variant: Variant,
        /// The clock of every game.
        time_control: TimeControl,
        /// Rated games (default casual).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
        /// The rule set, when the variant has several.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ruleset: Option<RulesetId>,
        /// Seconds from now to the start (default 0: at once).
        #[serde(default)]
        starts_in_secs: u64,
        /// Length in seconds.
        duration_secs: u64,
        /// Allow berserk.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        berserk: bool,
        /// Rated games needed in the arena's perf to join.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_games: Option<u32>,
        /// Lowest rating allowed to join.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_rating: Option<u32>,
        /// Highest rating allowed to join.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_rating: Option<u32>,
        /// A password needed to join.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        password: Option<String>,
    },
    /// Join an arena before or while it runs, or resume after a pause.
    ArenaJoin {
        /// The arena.
        arena_id: String,
        /// Its password, if it has one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        password: Option<String>,
    },
    /// Leave an arena: off the standings before your first game, paused after it.
    ArenaWithdraw {
        /// The arena.
        arena_id: String,
    },
    /// Stop being paired in an arena until you join again.
    ArenaPause {
        /// The arena.
        arena_id: String,
    },
    /// Receive an arena's standings as they change.
    ArenaWatch {
        /// The arena.
        arena_id: String,
    },
    /// Stop receiving an arena's standings.
    ArenaUnwatch {
        /// The arena.
        arena_id: String,
    },
    /// Follow a chat room: answered by `chat_history` (the lines after `after`, or the
    /// last ones), then each new line as `chat_line`.
    ChatJoin {
        /// The room.
        room: ChatRoom,
        /// The last `seq` already seen (after a reconnection).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<u64>,
    },
    /// Stop following a chat room.
    ChatLeave {
        /// The room.
        room: ChatRoom,
    },
    /// Say a line in a room.
    ChatSay {
        /// The room.
        room: ChatRoom,
        /// The line.
        text: String,
    },
    /// A moderator deletes a line: gone for everyone.
    ChatDelete {
        /// The room.
        room: ChatRoom,
        /// The line.
        seq: u64,
    },
    /// Report a line to the moderators.
    ChatReport {
        /// The room.
        room: ChatRoom,
        /// The line.
        seq: u64,
        /// Why (at most 500 characters).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        reason: String,
    },
    /// A moderator stops a user from chatting anywhere for a while.
    ChatTimeout {
        /// The room the user misbehaved in (told of the timeout).
        room: ChatRoom,
        /// The user.
        user: UserId,
        /// For how long, 1 to 10,080 minutes (a week).
        minutes: u32,
    },
    /// Block a user: their lines are not shown to you, their challenges refused.
    Block {
        /// The user.
        user: UserId,
    },
    /// Unblock a user.
    Unblock {
        /// The user.
        user: UserId,
    },
    /// Ask for the users you block: answered by `blocks`.
    ListBlocks,
}

impl ClientMessage {
    /// Every `type` a client may send.
    pub const TYPES: &'static [&'static str] = &[
        "hello",
        "auth",
        "ping",
        "list_seeks",
        "seek",
        "cancel_seek",
        "accept_seek",
        "challenge",
        "accept_challenge",
        "decline_challenge",
        "cancel_challenge",
        "list_challenges",
        "pool_join",
        "pool_leave",
        "lobby_subscribe",
        "lobby_unsubscribe",
        "move",
        "draw_offer",
        "draw_accept",
        "draw_decline",
        "draw_claim",
        "resign",
        "abort",
        "takeback_offer",
        "takeback_accept",
        "takeback_decline",
        "rematch",
        "rematch_decline",
        "claim_abandoned",
        "watch",
        "unwatch",
        "tv",
        "resume",
        "presence_query",
        "tournament_watch",
        "tournament_unwatch",
        "tournament_withdraw",
        "berserk",
        "arena_create",
        "arena_join",
        "arena_withdraw",
        "arena_pause",
        "arena_watch",
        "arena_unwatch",
        "computer_play",
        "chat_join",
        "chat_leave",
        "chat_say",
        "chat_delete",
        "chat_report",
        "chat_timeout",
        "block",
        "unblock",
        "list_blocks",
    ];

    /// Reads one text frame. Never panics; every failure is typed.
    ///
    /// A well-formed frame is read straight from its text; only one that fails is read
    /// again as a JSON value, to say which of the errors it is.
    pub fn decode(text: &str) -> Result<ClientMessage, DecodeError> {
        if let Ok(msg) = serde_json::from_str(text) {
            return Ok(msg);
        }
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| DecodeError::BadJson(e.to_string()))?;
        let Some(kind) = value.get("type").and_then(serde_json::Value::as_str) else {
            return Err(DecodeError::MissingType);
        };
        if !Self::TYPES.contains(&kind) {
            return Err(DecodeError::UnknownType(truncate(kind, 64)));
        }
        serde_json::from_value(value).map_err(|e| DecodeError::Invalid(e.to_string()))
    }
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// Why a frame could not be read as a [`ClientMessage`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON.
    #[error("not JSON: {0}")]
    BadJson(String),
    /// JSON without a string `type`.
    #[error("the message has no string `type` field")]
    MissingType,
    /// A `type` this protocol does not have.
    #[error("unknown message type `{0}`")]
    UnknownType(String),
    /// A known type with bad fields.
    #[error("invalid message: {0}")]
    Invalid(String),
}

impl DecodeError {
    /// The error code answered to the client.
    pub fn code(&self) -> ErrorCode {
        match self {
            DecodeError::BadJson(_) => ErrorCode::BadJson,
            DecodeError::MissingType => ErrorCode::MissingType,
            DecodeError::UnknownType(_) => ErrorCode::UnknownType,
            DecodeError::Invalid(_) => ErrorCode::InvalidMessage,
        }
    }
}

/// A message from the server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    /// The answer to `hello`: who you are and the session's limits.
    Welcome {
        /// The protocol version spoken.
        protocol: u32,
        /// You.
        user: UserInfo,
        /// The server pings this often (WebSocket ping frames).
        ping_interval_ms: u64,
        /// The largest message the server accepts, in bytes.
        max_message_bytes: usize,
        /// When your token expires (seconds since the Unix epoch).
        token_expires_at: u64,
    },
    /// The answer to `auth`: the session now runs on the new token.
    AuthOk {
        /// When the new token expires (seconds since the Unix epoch).
        token_expires_at: u64,
    },
    /// The answer to `ping`.
    Pong {
        /// The id of the ping.
        id: u64,
        /// Round trip of the last WebSocket ping the server measured, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        lag_ms: Option<u64>,
    },
    /// A request failed; nothing changed.
    Error {
        /// Stable machine code.
        code: ErrorCode,
        /// For humans.
        message: String,
        /// The game the failed request was about, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        game_id: Option<GameId>,
        /// The move id of the failed move, if it was one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        move_id: Option<u64>,
    },
    /// The open seeks.
    Seeks {
        /// Every open seek.
        seeks: Vec<SeekInfo>,
    },
    /// Your seek is open.
    SeekCreated {
        /// The seek.
        seek: SeekInfo,
    },
    /// Your seek is gone (cancelled or taken).
    SeekRemoved {
        /// Which.
        seek_id: SeekId,
    },
    /// Your challenge was delivered.
    ChallengeSent {
        /// The challenge.
        challenge: ChallengeInfo,
    },
    /// Someone challenges you.
    ChallengeReceived {
        /// The challenge.
        challenge: ChallengeInfo,
    },
    /// A challenge was declined, cancelled or expired.
    ChallengeRemoved {
        /// Which.
        challenge_id: ChallengeId,
        /// Why it was declined, when the one declining said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<DeclineReason>,
    },
    /// Your open challenges, sent and received, oldest first (the answer to
    /// `list_challenges`): the whole list, in place of what you knew.
    Challenges {
        /// Every open challenge you sent or received.
        challenges: Vec<ChallengeInfo>,
    },
    /// You are in a pool, waiting for an opponent.
    PoolJoined {
        /// The game.
        variant: Variant,
        /// The clock.
        time_control: TimeControl,
        /// The rated pool.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        rated: bool,
    },
    /// You left every pool.
    PoolLeft,
    /// A game you play has started: its full state. Events with higher versions follow.
    GameStart {
        /// The game.
        game: GameState,
    },
    /// The full state of a game you watch or resumed.
    GameState {
        /// The game.
        game: GameState,
    },
    /// Something happened in a game you play or watch.
    GameEvent {
        /// The game.
        game_id: GameId,
        /// The game's version after this event (the previous one plus one).
        version: u64,
        /// What happened.
        event: GameEvent,
    },
    /// Your move was played.
    MoveAck {
        /// The game.
        game_id: GameId,
        /// Your move id.
        move_id: u64,
        /// The version of the move's event.
        version: u64,
        /// Whether you may offer a draw now, after this move: `null` if so, else the
        /// typed refusal (as in `game_state`); absent once the game is over.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "super::present"
        )]
        draw_offer_refusal: Option<Option<OfferRefusal>>,
    },
    /// You no longer watch this game.
    Unwatched {
        /// The game.
        game_id: GameId,
    },
    /// The answer to `presence_query`: one status per user asked about, in order.
    Presence {
        /// The statuses.
        users: Vec<UserStatus>,
    },
    /// A tournament you follow or play in, as it stands now.
    Tournament {
        /// The view.
        tournament: Box<TournamentView>,
    },
    /// Your arena was created.
    ArenaCreated {
        /// The arena.
        arena: ArenaInfo,
    },
    /// Your membership of an arena changed (join, pause, withdraw, or a pause for not
    /// making a first move).
    ArenaMember {
        /// The arena.
        arena_id: String,
        /// Where you stand now.
        membership: Membership,
    },
    /// An arena's standings, sent to its watchers as games end (coalesced).
    ArenaStandings {
        /// The standings.
        standings: ArenaStandings,
    },
    /// The lobby feed, whole, to its subscribers: now and after every change.
    Lobby {
        /// The feed.
        lobby: Box<LobbyFeed>,
    },
    /// The answer to `chat_join`: the room's lines after the `after` asked for (or its
    /// last ones), oldest first, without deleted lines and lines of users you block.
    ChatHistory {
        /// The room.
        room: ChatRoom,
        /// The lines.
        lines: Vec<ChatLine>,
        /// May you say lines here?
        writable: bool,
        /// Are you a moderator (who may delete lines and time users out)?
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        moderator: bool,
    },
    /// A new line in a room you follow (your own included: it is stored).
    ChatLine {
        /// The room.
        room: ChatRoom,
        /// The line.
        line: ChatLine,
    },
    /// A moderator deleted a line.
    ChatDeleted {
        /// The room.
        room: ChatRoom,
        /// The line.
        seq: u64,
    },
    /// A moderator timed a user out of every chat until `until_ms` (sent to the room and
    /// to the user).
    ChatTimedOut {
        /// The room it happened in.
        room: ChatRoom,
        /// The user.
        user: UserId,
        /// Until when (Unix ms).
        until_ms: u64,
    },
    /// Your report is stored for the moderators.
    ChatReported {
        /// The room.
        room: ChatRoom,
        /// The line.
        seq: u64,
    },
    /// The users you block (the answer to `block`, `unblock` and `list_blocks`).
    Blocks {
        /// Their ids.
        users: Vec<UserId>,
    },
}

/// What the home page shows, as one `lobby` message carries it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyFeed {
    /// Grows with every push of this node's feed; a client keeps the highest seen.
    pub version: u64,
    /// Users online on every node.
    pub online: u32,
    /// The quick-pairing pools, in the server's order.
    pub pools: Vec<LobbyPool>,
    /// The open seeks, oldest first.
    pub seeks: Vec<SeekInfo>,
    /// A few live games, the highest-rated first.
    pub games: Vec<LobbyGame>,
    /// The arenas starting next or running, soonest first.
    pub arenas: Vec<ArenaInfo>,
    /// The tournaments upcoming or running.
    pub tournaments: Vec<TournamentSummary>,
}

impl ServerMessage {
    /// An error message without game context.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMessage {
        ServerMessage::Error {
            code,
            message: message.into(),
            game_id: None,
            move_id: None,
        }
    }

    /// The message as a JSON text frame.
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    /// A `game_event` message's text, the same as [`ServerMessage::to_json`] gives for
    /// [`ServerMessage::GameEvent`], written from borrowed parts (the event is not
    /// copied into a message).
    pub fn game_event_json(game_id: &GameId, version: u64, event: &GameEvent) -> String {
        to_json(&GameEventRef {
            game_id,
            version,
            event,
        })
    }

    /// The copy of a `game_event` for the player the event puts on the move, or of a
    /// `game_start` for one of its players: `json`, the message's text without the
    /// player's fields (from [`ServerMessage::game_event_json`], or a start's state made
    /// for no one), with `legal` and `offer` added. They are the event's (the state's)
    /// last fields and the event (the state) the message's last, so they go just before
    /// the text's two closing braces: the result is the text the message would
    /// serialise to with them set. `None` if `json` does not end as such a message does.
    pub fn with_mover_fields(
        json: &str,
        legal: &[String],
        offer: Option<Option<OfferRefusal>>,
    ) -> Option<String> {
        let head = json.strip_suffix("}}")?;
        let mut out = String::with_capacity(json.len() + 16 + legal.len() * 8);
        out.push_str(head);
        if !legal.is_empty() {
            out.push_str(",\"legal_moves\":");
            out.push_str(&to_json(&legal));
        }
        if let Some(offer) = offer {
            out.push_str(",\"draw_offer_refusal\":");
            out.push_str(&to_json(&offer));
        }
        out.push_str("}}");
        Some(out)
    }
}

/// [`ServerMessage::GameEvent`] with its parts borrowed: serialises to the same text.
#[derive(Serialize)]
#[serde(tag = "type", rename = "game_event")]
struct GameEventRef<'a> {
    game_id: &'a GameId,
    version: u64,
    event: &'a GameEvent,
}

fn to_json<T: Serialize + ?Sized>(value: &T) -> String {
    // Serialising these types cannot fail: no maps with non-string keys, no fallible
    // Serialize impls.
    serde_json::to_string(value).unwrap_or_else(|_| {
        r#"{"type":"error","code":"internal","message":"serialisation failed"}"#.to_string()
    })
}
