//! Live games: one actor task per game ([`actor`]) that alone owns the game's state,
//! reached only through a [`GameHandle`] (commands over a bounded queue, `queue.rs`;
//! events written into the followers' queues, [`followers`]), and the [`registry`] that
//! makes actors and proxies of other nodes' games ([`remote`]), finds handles by id and
//! picks the TV game. Actors and proxies talk back to it through [`exits::GameExits`]
//! only, so the registry uses them and never the reverse. A game over and archived
//! leaves its actor for a small [`finished::FinishedGame`] the registry holds, with no
//! task, for rematches and late watchers; its handles answer through it.
//!
//! The game law and the clock come from `shared::law` and `shared::clock`; [`record`] and
//! [`clock`] adapt them to the actor (tokio instants, wire outcomes, typed errors).
//!
//! What a live game stores ([`snapshot`]) goes, with Redis, to the games' keys there
//! ([`redis_store`]: ownership by lease, fenced writes, the TV board), written by the
//! actor's [`replica`]; without Redis, to the database ([`store`]).

pub mod actor;
pub mod archive;
pub mod clock;
pub mod exits;
pub mod finished;
pub mod followers;
pub mod log;
pub mod lookups;
pub mod mirror;
pub(crate) mod queue;
pub mod record;
pub mod redis_store;
pub mod registry;
pub mod remote;
pub mod replica;
pub mod snapshot;
pub mod store;
pub mod time_claim;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use axum::extract::ws::Utf8Bytes;
use shared::law::OfferRefusal;
use shared::protocol::{
    AbandonClaim, ErrorCode, GameEvent, GameId, GameState, ServerMessage, Speed, TimeControl,
    UserId, UserInfo,
};
use shared::rules::{Color, Variant};
use tokio::sync::{broadcast, oneshot};

pub use finished::FinishedGame;
pub use followers::{FollowerId, Followers, Following, Sink};

pub use crate::ids::new_game_id;
pub use registry::GameRegistry;

/// The detail of a game aborted because a player made no first move in time.
pub const NO_START: &str = "first move not made in time";

/// How long a player told of a game's start counts as connected before their session
/// joins it (see `actor::Actor::joining_until`); within it, a player's node may show
/// them `game_start` from the start notice before the owner has their join
/// (`remote`).
pub const START_JOIN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// What a new game is.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// The game.
    pub variant: Variant,
    /// The clock.
    pub time_control: TimeControl,
    /// Rated or casual.
    pub rated: bool,
    /// White's player.
    pub white: UserInfo,
    /// Black's player.
    pub black: UserInfo,
    /// The start position in the variant's FEN; the usual start position if `None`.
    pub start_fen: Option<String>,
    /// The rule set; the variant's default if `None`.
    pub ruleset: Option<shared::law::RulesetId>,
    /// The tournament this game belongs to, if any (archived with the game).
    pub tournament: Option<String>,
    /// The arena the game belongs to, if any.
    pub arena: Option<String>,
    /// May the players go berserk (arena games that allow it)?
    pub berserk: bool,
}

impl GameSpec {
    /// The game's variant and time control: the pool it counts in.
    pub fn pool(&self) -> (Variant, TimeControl) {
        (self.variant, self.time_control)
    }

    /// White's and Black's ids.
    pub fn players(&self) -> [UserId; 2] {
        [self.white.id.clone(), self.black.id.clone()]
    }
}

/// What never changes about a live game: readable without asking its actor.
#[derive(Debug)]
pub struct GameMeta {
    /// The game.
    pub id: GameId,
    /// What it is.
    pub spec: GameSpec,
    /// Mean rating of the players, for TV.
    pub rating: u32,
    /// The speed its control puts it in, worked out once (every state a player or
    /// spectator is sent names it; [`clock::speed_of`] checks the control against each
    /// category's article).
    pub speed: Speed,
    live: AtomicBool,
}

impl GameMeta {
    /// Metadata of a game, live or not.
    pub fn new(id: GameId, spec: GameSpec, rating: u32, live: bool) -> GameMeta {
        GameMeta {
            id,
            speed: clock::speed_of(spec.variant, spec.time_control),
            spec,
            rating,
            live: AtomicBool::new(live),
        }
    }

    /// Marks the game over.
    pub fn set_over(&self) {
        self.live.store(false, Ordering::Relaxed);
    }

    /// Is the game still being played?
    pub fn is_live(&self) -> bool {
        self.live.load(Ordering::Relaxed)
    }

    /// The bytes the meta keeps: itself (in its `Arc`) and its strings, by capacity.
    pub fn heap_bytes(&self) -> usize {
        let spec = &self.spec;
        let user = |u: &UserInfo| u.id.0.capacity() + u.name.capacity();
        let text = |s: &Option<String>| s.as_ref().map_or(0, String::capacity);
        2 * size_of::<usize>()
            + size_of::<GameMeta>()
            + self.id.0.capacity()
            + user(&spec.white)
            + user(&spec.black)
            + text(&spec.start_fen)
            + text(&spec.tournament)
            + text(&spec.arena)
    }

    /// The colour `user` plays, if any.
    pub fn color_of(&self, user: &UserId) -> Option<Color> {
        if self.spec.white.id == *user {
            Some(Color::White)
        } else if self.spec.black.id == *user {
            Some(Color::Black)
        } else {
            None
        }
    }
}

/// An event with its version, serialised once for everyone who follows the game and,
/// if it puts a player on the move (`move`, `taken_back`), once more for that player,
/// with their legal moves: nobody else gets them (`docs/protocol.md`, "Legal moves").
#[derive(Debug)]
pub struct Versioned {
    /// The game's version after this event.
    pub version: u64,
    /// The event as everyone sees it: without legal moves.
    pub event: GameEvent,
    /// The `game_event` server message as JSON, without legal moves: the frame of every
    /// follower but the player put on the move, shared by all of them; what is stored.
    pub json: Utf8Bytes,
    /// The frame of the player the event puts on the move, with their legal moves; none
    /// if it puts nobody on the move or the game is over.
    pub mover: Option<MoverCopy>,
}

/// The copy of an event for the player it puts on the move.
#[derive(Debug)]
pub struct MoverCopy {
    /// The colour now to move.
    pub color: Color,
    /// The `game_event` JSON with `legal_moves`.
    pub json: Utf8Bytes,
}

/// The side an event puts on the move and what only that side's player gets with it:
/// its legal moves and whether it may offer a draw in this turn (`None`: not known, as
/// for an event rebuilt from the store; `Some(None)`: allowed).
#[derive(Clone, Debug)]
pub struct ToMove {
    /// The side now to move.
    pub color: Color,
    /// Its legal moves.
    pub legal: Vec<String>,
    /// Its draw offer permission.
    pub draw_offer: Option<Option<OfferRefusal>>,
}

impl Versioned {
    /// Parses a stored or published `game_event` frame (without legal moves).
    pub fn parse(json: &str) -> Option<Arc<Versioned>> {
        match serde_json::from_str::<ServerMessage>(json).ok()? {
            ServerMessage::GameEvent { version, event, .. } => Some(Arc::new(Versioned {
                version,
                event,
                json: json.into(),
                mover: None,
            })),
            _ => None,
        }
    }

    /// Serialises `event` (given without legal moves) for everyone and, with `to_move`
    /// (the side now to move, its legal moves and its draw offer permission), for that
    /// side's player.
    pub fn new(
        game_id: GameId,
        version: u64,
        event: GameEvent,
        to_move: Option<ToMove>,
    ) -> Versioned {
        let json = ServerMessage::game_event_json(&game_id, version, &event);
        let mover = to_move
            .filter(|to_move| event.puts_on_move() && !to_move.legal.is_empty())
            .and_then(|to_move| {
                let copy =
                    ServerMessage::with_mover_fields(&json, &to_move.legal, to_move.draw_offer)?;
                Some(MoverCopy {
                    color: to_move.color,
                    json: copy.into(),
                })
            });
        Versioned {
            version,
            event,
            json: json.into(),
            mover,
        }
    }

    /// The frame for a follower who plays `plays` (`None`: a spectator): the copy with
    /// the legal moves if the event put them on the move, else the shared one.
    pub fn json_for(&self, plays: Option<Color>) -> &Utf8Bytes {
        match &self.mover {
            Some(m) if plays == Some(m.color) => &m.json,
            _ => &self.json,
        }
    }
}

/// What an action by a player did: the version of the event it caused (or the current
/// one if none) and, while the game is on, whether that player may now offer a draw
/// (`Some(None)`: allowed; see [`shared::law::Game::offer_refusal`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Acted {
    /// The version.
    pub version: u64,
    /// The actor's draw offer permission; `None` once the game is over (or from a node
    /// that does not tell it).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "shared::protocol::present"
    )]
    pub draw_offer: Option<Option<OfferRefusal>>,
    /// The move's `move_ack` went out already, in the same write as the mover's own
    /// copy of its event ([`AckTo`]): the session sends none. Never crosses nodes.
    #[serde(skip)]
    pub acked: bool,
}

/// Where a move's `move_ack` goes, so that it leaves with the mover's own copy of the
/// move's event, in one write: the mover's session among the game's followers, and the
/// client's move id.
#[derive(Clone, Copy, Debug)]
pub struct AckTo {
    /// The mover's session.
    pub follower: FollowerId,
    /// The client's id of the move.
    pub move_id: u64,
}

/// How a session takes part in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Role {
    /// One of the two players.
    Player,
    /// A watcher.
    Spectator,
}

/// What a player can do in a game.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Intent {
    /// Play a move; `lag_ms` is the session's measured round trip and `think_ms` the
    /// client's reported think time, for lag compensation.
    Move {
        /// The move text.
        text: String,
        /// The mover's measured network round trip.
        lag_ms: u64,
        /// The think time the client reported, if any.
        think_ms: Option<u64>,
        /// Offer a draw with the move.
        offer: bool,
    },
    /// Offer a draw.
    DrawOffer,
    /// Accept the opponent's offer.
    DrawAccept,
    /// Decline the opponent's offer.
    DrawDecline,
    /// Claim a draw by rule.
    DrawClaim,
    /// Claim a draw by rule with the declared next move (IDF 8.2.3, FIDE 9.2-9.3); if
    /// the claim is refused the move stands, timed like any move.
    DrawClaimWithMove {
        /// The declared move.
        text: String,
        /// The mover's measured network round trip.
        lag_ms: u64,
    },
    /// Resign.
    Resign,
    /// Abort (before both sides have moved).
    Abort,
    /// Ask for a takeback.
    TakebackOffer,
    /// Grant the opponent's takeback.
    TakebackAccept,
    /// Refuse the opponent's takeback.
    TakebackDecline,
    /// Offer or accept a rematch.
    Rematch,
    /// Decline a rematch.
    RematchDecline,
    /// Claim against an opponent who left.
    ClaimAbandoned(AbandonClaim),
    /// Go berserk (arena games): half the time, no increment; before one's first move.
    Berserk,
}

/// What a joining session gets: the state now, and the events it missed, both as this
/// joiner is to see them (legal moves only for the player to move).
#[derive(Debug)]
pub struct JoinReply {
    /// The full state; its version is the last event included.
    pub state: GameState,
    /// The frames of the events after the `since` version asked for, up to
    /// `state.version`; `None` if the game no longer holds all of them (the joiner
    /// gets the state instead).
    pub missed: Option<Vec<Utf8Bytes>>,
}

/// A command to a game actor. The large ones are boxed: every game's bounded command
/// channel allocates its slots (32 a block) at the size of the largest variant.
#[derive(Debug)]
pub enum GameCmd {
    /// A session joins as player or spectator (and, with `since`, resumes).
    Join(Box<JoinCmd>),
    /// A session leaves: who, as what.
    Leave(Box<(UserId, Role)>),
    /// A player acts.
    Act(Box<ActCmd>),
    /// The full state.
    State {
        /// The answer.
        reply: oneshot::Sender<GameState>,
    },
    /// Redis is back: write whatever could not be written. To a proxy: this node was
    /// found dead, tell the owner again which sessions (players', spectators') are here.
    Resync,
}

/// A session joins as player or spectator (and, with `since`, resumes).
#[derive(Debug)]
pub struct JoinCmd {
    /// Who.
    pub user: UserId,
    /// As what.
    pub role: Role,
    /// The last version the session saw, to replay what it missed.
    pub since: Option<u64>,
    /// The answer.
    pub reply: oneshot::Sender<Result<JoinReply, GameError>>,
}

/// A player acts.
#[derive(Debug)]
pub struct ActCmd {
    /// Who.
    pub user: UserId,
    /// What.
    pub intent: Intent,
    /// A move's acknowledgement, to send with the event (local games).
    pub ack: Option<AckTo>,
    /// The version of the resulting event (or the current one if none).
    pub reply: oneshot::Sender<Result<Acted, GameError>>,
}

/// Why a game command was refused. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// The actor is gone.
    #[error("no such game")]
    Gone,
    /// The server takes no new games.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The user does not play this game.
    #[error("you do not play in this game")]
    NotAPlayer,
    /// Not the user's turn.
    #[error("it is not your turn")]
    NotYourTurn,
    /// IDF art. 7.3.10: the break before this game of a micro-match is still running.
    #[error(
        "the break between the games of the micro-match runs until {0} (wall-clock ms, IDF art. 7.3.10)"
    )]
    BreakNotOver(u64),
    /// The move is illegal or unreadable.
    #[error("{0}")]
    IllegalMove(String),
    /// The game is over.
    #[error("the game is over")]
    Over,
    /// No offer to answer.
    #[error("there is no offer to answer")]
    NoOffer,
    /// Too late to abort.
    #[error("a game can only be aborted before both sides have moved")]
    AbortNotAllowed,
    /// Takeback refused.
    #[error("{0}")]
    TakebackNotAllowed(&'static str),
    /// Draw offer refused by the law of the variant.
    #[error("{0}")]
    DrawOfferNotAllowed(String),
    /// Claim refused.
    #[error("{0}")]
    ClaimRefused(String),
    /// The time control cannot be played.
    #[error("unplayable time control: {0}")]
    BadTimeControl(String),
    /// The law refused in a way no client request should cause.
    #[error("{0}")]
    Law(String),
    /// Too many games open in one session.
    #[error("too many games open in this session")]
    TooMany,
    /// No rematch possible.
    #[error("{0}")]
    RematchNotAllowed(&'static str),
    /// Berserk refused.
    #[error("{0}")]
    BerserkNotAllowed(&'static str),
    /// The game's owning node cannot be reached now.
    #[error("the game is unavailable for now: {0}")]
    Unavailable(String),
    /// Refused by the game's owning node, on another node.
    #[error("{1}")]
    Remote(ErrorCode, String),
}

impl GameError {
    /// The protocol error code.
    pub fn code(&self) -> ErrorCode {
        match self {
            GameError::Gone => ErrorCode::GameNotFound,
            GameError::ShuttingDown => ErrorCode::ShuttingDown,
            GameError::NotAPlayer => ErrorCode::NotAPlayer,
            GameError::NotYourTurn => ErrorCode::NotYourTurn,
            GameError::BreakNotOver(_) => ErrorCode::BreakNotOver,
            GameError::IllegalMove(_) => ErrorCode::IllegalMove,
            GameError::Over => ErrorCode::GameOver,
            GameError::NoOffer => ErrorCode::NoOffer,
            GameError::AbortNotAllowed => ErrorCode::AbortNotAllowed,
            GameError::TakebackNotAllowed(_) => ErrorCode::TakebackNotAllowed,
            GameError::DrawOfferNotAllowed(_) => ErrorCode::DrawOfferNotAllowed,
            GameError::ClaimRefused(_) => ErrorCode::ClaimRefused,
            GameError::RematchNotAllowed(_) => ErrorCode::RematchNotAllowed,
            GameError::BerserkNotAllowed(_) => ErrorCode::BerserkNotAllowed,
            GameError::TooMany => ErrorCode::TooMany,
            GameError::Law(_) => ErrorCode::Internal,
            GameError::BadTimeControl(_) => ErrorCode::InvalidMessage,
            GameError::Unavailable(_) => ErrorCode::Unavailable,
            GameError::Remote(code, _) => *code,
        }
    }
}

/// A new game's `game_start` for one of its players, made by the game's actor once the
/// start is stored and announced with it: the player's session shows it and follows
/// the game from its version ([`GameHandle::follow_from`]) without a join's round trip
/// to the actor.
#[derive(Clone, Debug)]
pub struct StartFrame {
    /// The version of the state it shows.
    pub version: u64,
    /// The `game_start` message, serialised.
    pub json: Utf8Bytes,
}

/// A session's way to a game: send commands, follow its events. Cheap to clone.
///
/// Commands go to the game's task (its actor, or the proxy of a game owned by another
/// node) until the actor hands a finished game over to a [`FinishedGame`]; from then
/// on they are answered by that value, in the caller's turn, for every clone of the
/// handle (see [`finished`]). Once the registry lets the finished game go, the game
/// is gone.
#[derive(Clone, Debug)]
pub struct GameHandle {
    meta: Arc<GameMeta>,
    /// The task's commands; `None` for a handle made from a finished game.
    commands: Option<queue::Sender<GameCmd>>,
    followers: Arc<Followers>,
    /// Where the game went once its actor handed it over.
    finished: Arc<OnceLock<Weak<FinishedGame>>>,
}

impl GameHandle {
    /// A handle on the commands and followers of a game's task (a local actor, or the
    /// proxy of a game owned by another node).
    pub(crate) fn new(
        meta: Arc<GameMeta>,
        commands: queue::Sender<GameCmd>,
        followers: Arc<Followers>,
    ) -> GameHandle {
        GameHandle {
            meta,
            commands: Some(commands),
            followers,
            finished: Arc::default(),
        }
    }

    /// A handle on a finished game whose actor has gone.
    pub fn of_finished(game: &Arc<FinishedGame>) -> GameHandle {
        GameHandle {
            meta: game.meta().clone(),
            commands: None,
            followers: game.followers().clone(),
            finished: Arc::new(OnceLock::from(Arc::downgrade(game))),
        }
    }

    /// From now on, this handle and its clones send their commands to `game`.
    pub fn hand_over(&self, game: &Arc<FinishedGame>) {
        let _ = self.finished.set(Arc::downgrade(game));
    }

    /// The finished game the actor handed over, while the registry holds it.
    fn finished(&self) -> Option<Arc<FinishedGame>> {
        self.finished.get().and_then(Weak::upgrade)
    }

    /// Sends a command to the game's task, or to the finished game it became.
    async fn send(&self, cmd: GameCmd) -> Result<(), GameError> {
        if let Some(game) = self.finished() {
            game.handle(cmd);
            return Ok(());
        }
        let commands = self.commands.as_ref().ok_or(GameError::Gone)?;
        match commands.send(cmd).await {
            Ok(()) => Ok(()),
            // The actor closed its queue as it handed the game over just now.
            Err(cmd) => {
                let game = self.finished().ok_or(GameError::Gone)?;
                game.handle(cmd);
                Ok(())
            }
        }
    }

    /// Asks the actor to write what Redis missed (a proxy: to tell the owner again
    /// which of its players' sessions are here).
    pub fn resync(&self) {
        if let Some(commands) = &self.commands {
            let _ = commands.try_send(GameCmd::Resync);
        }
    }

    /// The game's id.
    pub fn id(&self) -> &GameId {
        &self.meta.id
    }

    /// What never changes about the game.
    pub fn meta(&self) -> &Arc<GameMeta> {
        &self.meta
    }

    /// A receiver of every event from now on, for the server's own readers. Subscribe
    /// before joining or reading the state, then skip events at or below its version.
    pub fn subscribe(&self) -> Result<broadcast::Receiver<Arc<Versioned>>, GameError> {
        self.followers.subscribe()
    }

    /// A receiver of the events the game's end depends on (`berserk`, `game_over`),
    /// for organisers that follow each game they start to its end: a few slots where
    /// [`GameHandle::subscribe`] holds `game.event_buffer`.
    pub fn subscribe_end(&self) -> Result<broadcast::Receiver<Arc<Versioned>>, GameError> {
        self.followers.subscribe_end()
    }

    /// A session's frames of every event from now on, into `sink`, for a player of
    /// `plays` or a spectator (`None`); call before [`GameHandle::join`], then
    /// [`Following::start`] with the joined version.
    pub fn follow(
        &self,
        sink: Arc<dyn Sink>,
        plays: Option<Color>,
    ) -> Result<Following, GameError> {
        self.followers.follow(sink, plays)
    }

    /// Follows the game, joined already, from a [`StartFrame`] of its: `first` queues
    /// it, then every later event follows. `None` if an event after the frame was
    /// shown before: follow and join instead.
    pub fn follow_from(
        &self,
        sink: Arc<dyn Sink>,
        plays: Option<Color>,
        version: u64,
        first: impl FnOnce(),
    ) -> Result<Option<Following>, GameError> {
        self.followers.follow_from(sink, plays, version, first)
    }

    /// The player of `color` attends the game without frames until the returned entry
    /// is dropped (a Bot API stream, a computer's seat): call before
    /// [`GameHandle::join`]. A player is away while nothing of theirs attends.
    pub fn attend(&self, color: Color) -> Result<Following, GameError> {
        self.followers.attend(color)
    }

    async fn ask<T>(
        &self,
        make: impl FnOnce(oneshot::Sender<T>) -> GameCmd,
    ) -> Result<T, GameError> {
        let (tx, rx) = oneshot::channel();
        self.send(make(tx)).await?;
        rx.await.map_err(|_| GameError::Gone)
    }

    /// Joins as player or spectator; with `since`, also gets the events missed after it.
    pub async fn join(
        &self,
        user: UserId,
        role: Role,
        since: Option<u64>,
    ) -> Result<JoinReply, GameError> {
        self.ask(|reply| {
            GameCmd::Join(Box::new(JoinCmd {
                user,
                role,
                since,
                reply,
            }))
        })
        .await?
    }

    /// Leaves (a session closed, or unwatched).
    pub async fn leave(&self, user: UserId, role: Role) {
        let _ = self.send(GameCmd::Leave(Box::new((user, role)))).await;
    }

    /// A player's action; the version of the event it caused.
    pub async fn act(&self, user: UserId, intent: Intent) -> Result<u64, GameError> {
        self.acted(user, intent).await.map(|a| a.version)
    }

    /// A player's action; its version and the player's draw offer permission after it.
    pub async fn acted(&self, user: UserId, intent: Intent) -> Result<Acted, GameError> {
        self.acted_with(user, intent, None).await
    }

    /// [`GameHandle::acted`] for a session that follows the game: with `ack`, a local
    /// game's actor sends the move's `move_ack` with the mover's event (then
    /// [`Acted::acked`]).
    pub async fn acted_with(
        &self,
        user: UserId,
        intent: Intent,
        ack: Option<AckTo>,
    ) -> Result<Acted, GameError> {
        self.ask(|reply| {
            GameCmd::Act(Box::new(ActCmd {
                user,
                intent,
                ack,
                reply,
            }))
        })
        .await?
    }

    /// [`GameHandle::acted_with`] without waiting for room in the game's queue: the
    /// answer to wait for, or the intent back if the queue is full or the game gone.
    pub fn try_acted(
        &self,
        user: UserId,
        intent: Intent,
        ack: Option<AckTo>,
    ) -> Result<oneshot::Receiver<Result<Acted, GameError>>, Intent> {
        let (reply, rx) = oneshot::channel();
        let cmd = |intent, reply| {
            GameCmd::Act(Box::new(ActCmd {
                user,
                intent,
                ack,
                reply,
            }))
        };
        if let Some(game) = self.finished() {
            game.handle(cmd(intent, reply));
            return Ok(rx);
        }
        let permit = match self.commands.as_ref().map(queue::Sender::try_reserve) {
            Some(Ok(permit)) => permit,
            Some(Err(queue::TrySendError::Closed(()))) => {
                let Some(game) = self.finished() else {
                    return Err(intent);
                };
                game.handle(cmd(intent, reply));
                return Ok(rx);
            }
            _ => return Err(intent),
        };
        // Closed since the place was taken: the game was handed over (a reply dropped
        // with its command answers `Gone`).
        if let Err(cmd) = permit.send(cmd(intent, reply))
            && let Some(game) = self.finished()
        {
            game.handle(cmd);
        }
        Ok(rx)
    }

    /// The full state now, with the legal moves of the side to move: for the server's
    /// own use (a client's state comes from [`GameHandle::join`], as that client is to
    /// see it).
    pub async fn state(&self) -> Result<GameState, GameError> {
        self.ask(|reply| GameCmd::State { reply }).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game's command queue holds its waiting commands in a `VecDeque`, each as
    /// large as a [`GameCmd`]: every variant's payload is boxed.
    #[test]
    fn a_game_command_takes_at_most_16_bytes() {
        let size = std::mem::size_of::<GameCmd>();
        println!("GameCmd: {size} bytes, a block of 32: {} bytes", 32 * size);
        assert!(size <= 16, "{size}");
    }
}
