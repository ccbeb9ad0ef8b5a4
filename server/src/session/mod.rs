//! A WebSocket session: one task per connection, and one writer task that owns the
//! socket's sending half ([`outbox`]). The session's loop owns all its state and is
//! its only editor: it reads frames ([`link`]: rate limited, size capped, decoded;
//! pings sent and timed, the client reaped when silent), handles each message by group
//! ([`dispatch`]), and holds what waits on Redis, the database or other nodes as typed
//! requests in a bounded queue that it polls itself, applying each one's result to its
//! own state ([`request`]), so that a slow Redis never delays a pong or a close. A
//! followed game's intents go to the game's actor from the loop, their answers polled
//! there too ([`play`]); the games' tasks write their events straight into the outbox.
//! TV is a followed game with a flag, which the loop moves on when it ends ([`tv`]).
//! The session ends when its token expires (a fresh token, sent with `auth`, is checked
//! as the upgrade checks one: [`reauth`]). Its sub-tasks (the writer, the lobby feed's
//! relay, chat rooms' relays) are aborted if the session's future is dropped.

mod arena;
mod chat;
mod dispatch;
mod link;
mod lobby;
pub mod outbox;
mod play;
mod presence;
pub mod rate;
mod reauth;
mod request;
pub(crate) mod socket;
mod subscriptions;
mod tournament;
pub mod tv;
mod watch;

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use shared::protocol::{ChatRoom, ClientMessage, ErrorCode, GameId, close};
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::{Instant, sleep_until};
use tokio_util::task::AbortOnDropHandle;

use crate::app::App;
use crate::auth::{Identity, unix_now};
use crate::db::tokens::AccountFlags;
use crate::game::{GameHandle, Role};
use crate::hub::{ConnId, Notice};
use crate::tokens::TokenError;
use link::{Heard, Link};
use outbox::Outbox;
use request::Requests;
use shared::rules::Variant;

/// A request (or one stage of it) under way.
type Pending = Pin<Box<dyn Future<Output = Done> + Send>>;

/// What a finished request (or stage) asks the session loop to change.
enum Done {
    /// Nothing: the answer, if any, is in the outbox.
    Nothing,
    /// `watch` or `resume` found the game live (`since`: `resume`'s last version).
    Found {
        handle: GameHandle,
        since: Option<u64>,
        follow: watch::Follow,
    },
    /// A game joined: the session follows it from now on.
    Joined(watch::Joined),
    /// `unwatch`: the loop lets go of the game (or the TV showing it).
    Unwatch(GameId),
    /// The best live game of `variant` (`None`: none is live). `asked`: the client
    /// sent `tv` (it was told `no_tv_game` already); else the TV `number` moves on.
    TvFound {
        variant: Variant,
        handle: Option<GameHandle>,
        asked: bool,
        number: u64,
    },
    /// A room the user may read: the loop checks the session's room limit.
    RoomGranted {
        room: ChatRoom,
        after: Option<u64>,
        write: bool,
    },
    /// A room's history is sent: the loop relays the room from then on.
    RoomJoined(chat::Relay),
    /// `chat_leave`.
    RoomLeft(ChatRoom),
    /// An arena watched (`true`) or unwatched.
    ArenaWatch(String, bool),
    /// A frame to send just ahead of the next thing the session sends or starts: a
    /// paired join's `pool_joined`, ahead of its game's start ([`Session::hold`]).
    Hold(axum::extract::ws::Utf8Bytes),
    /// The store's answer for the token of an `auth`.
    Token {
        identity: Identity,
        hash: String,
        standing: Result<Option<AccountFlags>, TokenError>,
    },
}

/// Notices queued for one session (game starts, challenges).
const NOTICE_QUEUE: usize = 64;

/// Games one session may play or watch at once (its TV's game aside).
pub const MAX_SUBSCRIPTIONS: usize = 32;

/// A game this session plays or watches.
struct Subscription {
    handle: GameHandle,
    role: Role,
    /// The game's events into the outbox, while held.
    following: crate::game::Following,
    /// When the session began to follow the game.
    since: tokio::time::Instant,
    /// The TV shows this game (the session did not ask for it by its id).
    tv: bool,
}

/// One connection's state. Owned by its task; nothing else touches it.
pub struct Session {
    app: Arc<App>,
    identity: Identity,
    /// The SHA-256 of the session's token, to know it among tokens ended.
    token_hash: String,
    /// When the session's token expires, on tokio's clock.
    token_deadline: Instant,
    /// The `auth` messages whose tokens are being checked against the store, and the
    /// ends of sessions heard meanwhile ([`reauth`]).
    reauths: reauth::Pending,
    conn: ConnId,
    out: Outbox,
    /// Sends the outbox's frames; aborted with the session.
    writer: AbortOnDropHandle<()>,
    notices: flume::Receiver<Notice>,
    /// The games followed, the TV's game among them.
    games: subscriptions::Subscriptions<Subscription>,
    /// The TV this session follows, if any.
    tv: Option<tv::Tv>,
    /// Games a request is joining now (not yet in `games`; the TV's aside).
    joining: subscriptions::Joining,
    /// The client's requests that wait on Redis, the database or another node.
    requests: Requests,
    /// Joins and leaves the client did not ask for (its own game starting, the TV
    /// moving on) and the TV's lookups, polled beside the requests; they run to their
    /// end even when the session ends (a join is always matched by a leave).
    side: FuturesUnordered<Pending>,
    /// Intents sent from the loop to their games, until answered ([`play`]).
    acts: FuturesUnordered<Pin<Box<dyn Future<Output = ()> + Send>>>,
    hello_done: bool,
    hello_deadline: Instant,
    lag_ms: Option<u64>,
    /// The arenas this session watches: left when the user's last connection closes.
    watched_arenas: HashSet<String>,
    /// Relays the lobby feed to this session while it follows it.
    lobby_feed: Option<AbortOnDropHandle<()>>,
    /// The chat rooms this session follows, each relayed by its task.
    rooms: HashMap<ChatRoom, AbortOnDropHandle<()>>,
    /// The users this session's user blocks (their lines are not relayed).
    blocks: crate::chat::BlockList,
    /// A frame held to go out with the next ([`Session::hold`]). Boxed: most sessions
    /// never hold one.
    held: Option<Box<lobby::Held>>,
}

/// Where an instant `secs` of Unix time falls on tokio's clock.
fn deadline_for(unix_secs: u64) -> Instant {
    Instant::now() + Duration::from_secs(unix_secs.saturating_sub(unix_now()))
}

/// What a session starts from: the upgraded socket, who it is, its token's SHA-256,
/// and the connection-limit slot it occupies.
pub(crate) struct Opening {
    /// The upgraded connection.
    pub socket: socket::Socket,
    /// The node.
    pub app: Arc<App>,
    /// Who connected, as their token says.
    pub identity: Identity,
    /// The SHA-256 of the token, to know it among tokens ended.
    pub token_hash: String,
    /// The connection-limit slot, given back when the session ends.
    pub permit: OwnedSemaphorePermit,
}

/// Runs a session to its end. Every connection holds this future for its whole life,
/// so it is kept small: its start comes boxed (an `async fn`'s arguments stay in its
/// future after they are moved out), and opening and ending, which wait on presence
/// once each, are boxed futures of their own.
pub(crate) async fn run(opening: Box<Opening>) {
    let Opening {
        socket,
        app,
        identity,
        token_hash,
        permit: _permit,
    } = *opening;
    let (mut session, mut link) = Box::pin(Session::open(socket, app, identity, token_hash)).await;
    let closer = session.out.closer().clone();
    // The server's tokens are shared by every session, and waiting on one locks it on
    // every turn of the loop; children are this session's alone.
    let stopping = session.app.stopping.child_token();
    let draining = session.app.draining.child_token();
    let mut draining_seen = false;
    // Made once, not on every turn: each new wait registers under the token's lock.
    let mut closed = std::pin::pin!(closer.closed());
    let mut stopped = std::pin::pin!(stopping.cancelled());
    let mut drained = std::pin::pin!(draining.cancelled());
    let mut tv_check = tokio::time::interval(tv::CHECK);
    tv_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            biased;
            () = &mut closed => break,
            () = &mut stopped => {
                session.out.close(close::GOING_AWAY, "server shutting down");
            }
            () = &mut drained, if !draining_seen => {
                draining_seen = true;
                session.on_draining();
            }
            () = sleep_until(session.next_deadline()) => session.on_deadline(),
            notice = session.notices.recv_async() => match notice {
                Ok(notice) => session.on_notice(notice),
                Err(flume::RecvError::Disconnected) => break,
            },
            done = session.requests.next(), if !session.requests.is_idle() => {
                let next = session.apply(done);
                session.requests.advance(next);
            }
            Some(done) = session.side.next(), if !session.side.is_empty() => {
                if let Some(next) = session.apply(done) {
                    session.side.push(next.request);
                }
            }
            Some(()) = session.acts.next(), if !session.acts.is_empty() => {}
            now = tv_check.tick(), if session.tv.is_some() => session.tv_check(now),
            heard = link.next() => session.on_heard(heard),
        }
    }
    drop(link);
    Box::pin(session.end()).await;
}

impl Session {
    /// Registers a new connection with the hub and presence, and starts its writer.
    async fn open(
        socket: socket::Socket,
        app: Arc<App>,
        identity: Identity,
        token_hash: String,
    ) -> (Session, Link) {
        let conn = app.next_conn_id();
        let ws = &app.config.ws;
        let socket::Socket { reader, writer } = socket;
        let (out, out_rx) = Outbox::new(ws.outgoing_queue, app.metrics.clone());
        let writer = outbox::writer(writer, out_rx, out.closer().clone(), app.metrics.clone());
        let (notice_tx, notices) = flume::bounded(NOTICE_QUEUE);
        app.hub.register(&identity.user, conn, notice_tx);
        if let Err(e) = app.presence.connect(&identity.user).await {
            tracing::warn!(error = %e, "presence connect failed");
        }
        app.metrics.connections_total.inc();
        app.metrics.connections_open.inc();
        tracing::debug!(conn, user = %identity.user.id, "session open");
        let link = Link::new(reader, ws, conn, out.clone(), app.metrics.clone());
        let session = Session {
            token_deadline: deadline_for(identity.expires_at),
            hello_deadline: Instant::now() + ws.hello_timeout(),
            identity,
            token_hash,
            reauths: reauth::Pending::default(),
            conn,
            out,
            writer: AbortOnDropHandle::new(tokio::spawn(writer)),
            notices,
            games: subscriptions::Subscriptions::default(),
            tv: None,
            joining: subscriptions::Joining::default(),
            requests: Requests::default(),
            side: FuturesUnordered::new(),
            acts: FuturesUnordered::new(),
            hello_done: false,
            lag_ms: None,
            watched_arenas: HashSet::new(),
            lobby_feed: None,
            rooms: HashMap::new(),
            blocks: crate::chat::BlockList::default(),
            held: None,
            app,
        };
        (session, link)
    }

    /// When the token expires or, before `hello`, the hello timeout: one timer in the
    /// session's loop (every connection holds that future while it waits).
    fn next_deadline(&self) -> Instant {
        let mut next = self.token_deadline;
        if !self.hello_done {
            next = next.min(self.hello_deadline);
        }
        match self.held_deadline() {
            Some(held) => next.min(held),
            None => next,
        }
    }

    /// Closes the session whose token expired, or that sent no `hello` in time.
    fn on_deadline(&mut self) {
        let now = Instant::now();
        if self.held_deadline().is_some_and(|held| now >= held) {
            self.flush_held();
        }
        if now >= self.token_deadline {
            self.out.close(close::TOKEN_EXPIRED, "token expired");
        } else if !self.hello_done && now >= self.hello_deadline {
            self.out.close(close::HELLO_TIMEOUT, "hello timeout");
        }
    }

    /// The server drains: a session that plays no live game closes now (one that
    /// plays closes when the server stops).
    fn on_draining(&mut self) {
        if !self.plays_any() {
            self.out.close(close::GOING_AWAY, "server shutting down");
        }
    }

    /// Handles what the socket brought.
    fn on_heard(&mut self, heard: Heard) {
        self.flush_held();
        match heard {
            // Before `hello`, `auth` too is answered `hello_required`.
            Heard::Message(Ok(ClientMessage::Auth { token })) if self.hello_done => {
                self.reauth(token);
            }
            Heard::Message(Ok(msg)) => self.on_message(msg),
            Heard::Message(Err(e)) => {
                self.out.error(e.code(), e.to_string(), None);
            }
            Heard::Binary => {
                self.out
                    .error(ErrorCode::BadJson, "binary frames are not accepted", None);
            }
            Heard::Lag(lag) => self.lag_ms = Some(lag),
            Heard::Nothing => {}
        }
    }

    /// Does this session play a live game?
    fn plays_any(&self) -> bool {
        self.games
            .values()
            .any(|s| s.role == Role::Player && s.handle.meta().is_live())
    }

    fn on_notice(&mut self, notice: Notice) {
        self.flush_held();
        match notice {
            Notice::Message(msg) => {
                self.out.send(&msg);
            }
            Notice::SessionsEnded(ended) => {
                self.reauths.heard(&ended);
                let credential = crate::hub::Credential::Session {
                    issued_at: self.identity.issued_at,
                    hash: self.token_hash.clone(),
                };
                if ended.covers(&credential) {
                    self.out.close(close::SESSION_ENDED, "session ended");
                }
            }
            // Joining waits on the game's actor (maybe on another node): beside the
            // client's requests, at once rather than behind them.
            Notice::GameStarted(started) => {
                let join = self.follow_start(*started);
                self.side.push(join);
            }
        }
    }

    /// Applies a finished request's result to the session; the request's next stage,
    /// if it has one.
    fn apply(&mut self, done: Done) -> Option<request::Stage> {
        match done {
            Done::Nothing => None,
            Done::Found {
                handle,
                since,
                follow,
            } => Some(request::Stage::whole(self.follow(handle, since, follow))),
            Done::Joined(joined) => {
                self.joined(joined);
                None
            }
            Done::Unwatch(id) => self.unwatch(id).map(request::Stage::whole),
            Done::TvFound {
                variant,
                handle,
                asked,
                number,
            } => self.tv_found(variant, handle, asked, number),
            Done::RoomGranted { room, after, write } => self
                .room_granted(room, after, write)
                .map(request::Stage::read),
            Done::RoomJoined(relay) => {
                self.adopt_room(relay);
                None
            }
            Done::RoomLeft(room) => {
                self.leave_room(room);
                None
            }
            Done::ArenaWatch(arena, watching) => {
                if watching {
                    self.watched_arenas.insert(arena);
                } else {
                    self.watched_arenas.remove(&arena);
                }
                None
            }
            Done::Hold(frame) => {
                self.hold(frame);
                None
            }
            Done::Token {
                identity,
                hash,
                standing,
            } => {
                self.adopt_token(identity, hash, standing);
                None
            }
        }
    }

    /// Leaves every game, unregisters, and drops the user's lobby entries if this was
    /// their last connection. Requests under way that join or leave games run to their
    /// end first, and what they joined is left too.
    async fn end(mut self) {
        // Whatever ended the loop, the writer must end too: it sends the close frame
        // (the answer to a client's close) and lets the socket go.
        self.flush_held();
        self.out.close(close::NORMAL, "");
        let user = self.identity.user.id.clone();
        let mut finished = self.requests.finish().await;
        while let Some(done) = self.side.next().await {
            finished.push(done);
        }
        for done in finished {
            if let Done::Joined(watch::Joined { sub: Some(sub), .. }) = done {
                request::leave(user.clone(), sub).await;
            }
        }
        self.lobby_feed = None;
        self.rooms.clear();
        for (_, sub) in self.games.drain() {
            request::leave(user.clone(), sub).await;
        }
        self.app.hub.unregister(&user, self.conn);
        let left = match self.app.presence.disconnect(&user).await {
            Ok(n) => n,
            Err(e) => {
                tracing::warn!(error = %e, "presence disconnect failed");
                0
            }
        };
        if left == 0 {
            // Arena watches are the user's: free their places (`arena.max_watchers`).
            for arena in self.watched_arenas.drain() {
                if let Some(h) = self.app.arenas.get(&arena) {
                    h.unwatch(user.clone()).await;
                }
            }
            crate::setup::last_connection_closed(&self.app, &user).await;
        }
        tracing::debug!(conn = self.conn, user = %user, "session closed");
        let _ = self.writer.await;
        self.app.metrics.connections_open.dec();
    }
}
