//! Error codes: the stable, machine-readable half of every `error` message, and the
//! WebSocket close codes the server uses.

use serde::{Deserialize, Serialize};

/// Declares [`ErrorCode`] with its wire names in one place.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// A stable machine code for an error answered to a client. New codes may be
        /// added; existing ones never change meaning.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum ErrorCode {
            $($(#[$doc])* #[serde(rename = $name)] $variant,)*
        }

        impl ErrorCode {
            /// Every code.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as it appears on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $name,)*
                }
            }
        }
    };
}

error_codes! {
    /// The frame was not JSON (or was binary).
    BadJson = "bad_json",
    /// The JSON had no `type` field.
    MissingType = "missing_type",
    /// The `type` is not a known message.
    UnknownType = "unknown_type",
    /// A known message with missing or malformed fields.
    InvalidMessage = "invalid_message",
    /// The first message must be `hello`.
    HelloRequired = "hello_required",
    /// `hello` asked for a protocol version this server does not speak.
    UnsupportedProtocol = "unsupported_protocol",
    /// A token was refused.
    Unauthorized = "unauthorized",
    /// The token has expired.
    TokenExpired = "token_expired",
    /// A refreshed token names another user.
    UserMismatch = "user_mismatch",
    /// The server is shutting down and takes no new games.
    ShuttingDown = "shutting_down",
    /// No such game (or it is over and gone).
    GameNotFound = "game_not_found",
    /// You do not play in this game.
    NotAPlayer = "not_a_player",
    /// It is the other side's turn.
    NotYourTurn = "not_your_turn",
    /// IDF art. 7.3.10: the break before this game of a micro-match still runs.
    BreakNotOver = "break_not_over",
    /// The move is not legal (or not readable) here.
    IllegalMove = "illegal_move",
    /// The game is already over.
    GameOver = "game_over",
    /// No such seek.
    SeekNotFound = "seek_not_found",
    /// You cannot accept your own seek or challenge.
    OwnSeek = "own_seek",
    /// No such challenge.
    ChallengeNotFound = "challenge_not_found",
    /// The user is not online.
    UserOffline = "user_offline",
    /// You cannot challenge yourself.
    SelfChallenge = "self_challenge",
    /// No pool with this variant and time control.
    UnknownPool = "unknown_pool",
    /// Too many open seeks, challenges or games for one user.
    TooMany = "too_many",
    /// A draw offer is not allowed now (too early, or the law of the variant forbids it).
    DrawOfferNotAllowed = "draw_offer_not_allowed",
    /// No draw offer (or takeback or rematch offer) to answer.
    NoOffer = "no_offer",
    /// A draw claim that the rules do not support.
    ClaimRefused = "claim_refused",
    /// A game can only be aborted before both sides have moved.
    AbortNotAllowed = "abort_not_allowed",
    /// Takebacks exist only in casual games.
    TakebackNotAllowed = "takeback_not_allowed",
    /// A rematch is possible only after the game is over.
    RematchNotAllowed = "rematch_not_allowed",
    /// You already watch this game.
    AlreadyWatching = "already_watching",
    /// You do not watch this game.
    NotWatching = "not_watching",
    /// No live game of this variant to show.
    NoTvGame = "no_tv_game",
    /// A start position that is not a legal FEN of the variant, or a rated game asked
    /// from a position.
    InvalidPosition = "invalid_position",
    /// A shared service the request needs (matchmaking, a game's owning node) is
    /// unreachable for now; the request had no effect: try again shortly.
    Unavailable = "unavailable",
    /// No tournament with this id.
    TournamentNotFound = "tournament_not_found",
    /// You do not play in this tournament, or have already left it, or it is over.
    NotInTournament = "not_in_tournament",
    /// No round to start now: one is being played, the tournament is over, or its
    /// rounds start on a schedule.
    NoRoundToStart = "no_round_to_start",
    /// Something went wrong on the server; the request had no effect.
    Internal = "internal",
    /// Rated games need an account: guests play casual games only.
    RatedNeedsAccount = "rated_needs_account",
    /// HTTP: a username that breaks the rules for usernames.
    BadUsername = "bad_username",
    /// HTTP: a password that breaks the rules for passwords.
    BadPassword = "bad_password",
    /// HTTP: the username is taken (usernames are unique regardless of case).
    UsernameTaken = "username_taken",
    /// HTTP: no account has this name.
    UnknownUser = "unknown_user",
    /// Berserk is not allowed here: not an arena game that allows it, already berserk,
    /// or after one's first move.
    BerserkNotAllowed = "berserk_not_allowed",
    /// No such arena.
    ArenaNotFound = "arena_not_found",
    /// The arena is over (or the request does not fit where it is in its life).
    ArenaClosed = "arena_closed",
    /// The arena's entry conditions (password, rated games, rating range) are not met.
    ArenaConditions = "arena_conditions",
    /// HTTP: the password does not match.
    WrongPassword = "wrong_password",
    /// HTTP: too many attempts; try again later.
    RateLimited = "rate_limited",
    /// HTTP: this server does not register new accounts.
    RegistrationClosed = "registration_closed",
    /// HTTP: no such game, user or page.
    NotFound = "not_found",
    /// HTTP: not a perf name (`<variant>-<speed>`).
    UnknownPerf = "unknown_perf",
    /// HTTP: a query parameter out of range or unreadable.
    BadQuery = "bad_query",
    /// HTTP: a preference outside its list of values (`PUT /api/account/preferences`).
    InvalidPreferences = "invalid_preferences",
    /// A computer level outside 1 to 8.
    InvalidLevel = "invalid_level",
    /// No engine can play this game here now (an external engine failed and no
    /// built-in one plays the variant).
    EngineUnavailable = "engine_unavailable",
    /// The node's computer players are all busy: try again shortly.
    Busy = "busy",
    /// Accepting a seek whose rating range does not include your rating.
    OutsideRatingRange = "outside_rating_range",
    /// HTTP: the game is still being played; analysis is for finished games.
    GameNotFinished = "game_not_finished",
    /// HTTP: nobody asked for an analysis of this game.
    AnalysisNotFound = "analysis_not_found",
    /// HTTP 403: the token lacks the scope the request needs (named in the message).
    MissingScope = "missing_scope",
    /// HTTP: the Bot API is for bot accounts (`POST /api/bot/account/upgrade`), and bots
    /// play through it only.
    NotABot = "not_a_bot",
    /// HTTP: only an account that has played no game can become a bot.
    HasGames = "has_games",
    /// A bot account asked to be paired by a pool or a seek (bots play the games they
    /// are challenged to, and challenge others themselves).
    BotNotPaired = "bot_not_paired",
    /// HTTP 413: the request body is over the API's limit.
    BodyTooLarge = "body_too_large",
    /// Chat: you may not read or write in this room (a guest writing, a spectator in the
    /// players' room).
    ChatForbidden = "chat_forbidden",
    /// Chat: a blank line, or one over 140 characters.
    BadChatLine = "bad_chat_line",
    /// Chat: a moderator timed you out of chat for now.
    TimedOut = "timed_out",
    /// Chat: only the moderators named in the configuration may do this.
    NotAModerator = "not_a_moderator",
    /// Chat: no such line in the room.
    ChatLineNotFound = "chat_line_not_found",
    /// The user blocks you: they take no challenge from you.
    Blocked = "blocked",
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// WebSocket close codes the server sends, with the reason text it puts beside them.
pub mod close {
    /// Normal closure.
    pub const NORMAL: u16 = 1000;
    /// The server is shutting down (reason `server shutting down`).
    pub const GOING_AWAY: u16 = 1001;
    /// Policy violation: the client flooded the server (reason `rate limit exceeded`).
    pub const POLICY: u16 = 1008;
    /// A message over the size cap (reason `message too big`).
    pub const TOO_BIG: u16 = 1009;
    /// The token expired during the session (reason `token expired`).
    pub const TOKEN_EXPIRED: u16 = 4001;
    /// `hello` asked for an unsupported protocol version (reason `unsupported protocol`).
    pub const UNSUPPORTED_PROTOCOL: u16 = 4002;
    /// The client did not read its messages fast enough (reason `too slow`).
    pub const TOO_SLOW: u16 = 4003;
    /// No pong within the ping timeout (reason `ping timeout`).
    pub const PING_TIMEOUT: u16 = 4004;
    /// The client did not send `hello` in time (reason `hello timeout`).
    pub const HELLO_TIMEOUT: u16 = 4005;
    /// The session's token was ended: logged out, logged out everywhere, or the
    /// account's password changed (reason `session ended`).
    pub const SESSION_ENDED: u16 = 4006;
}
