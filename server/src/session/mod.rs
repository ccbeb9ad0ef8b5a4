//! A WebSocket session: one task per connection. It reads frames (rate limited, size
//! capped), decodes them into typed messages, hands what waits on Redis, the database
//! or other nodes to its worker ([`request`]) so that its loop never waits on them
//! (the worker's requests that change the session's own state, such as which games it
//! follows, send that change back to the loop as an [`request::Edit`]), queues a
//! followed game's commands for its actor from the loop itself and polls their answers
//! there ([`play`]; the games' tasks write their events straight into the bounded
//! [`outbox`]), pings the client and measures lag, reaps
//! it when pings go unanswered, and ends it when its token expires (a fresh token, sent
//! with `auth`, is checked as the upgrade checks one: [`reauth`]). It holds no game
//! state.

mod arena;
mod chat;
mod dispatch;
mod lobby;
pub mod outbox;
mod play;
mod presence;
pub mod rate;
mod reauth;
mod request;
mod tournament;
pub mod tv;
mod watch;

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use shared::protocol::{ClientMessage, ErrorCode, GameId, ServerMessage, close};
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep_until};

use crate::app::App;
use crate::auth::{Identity, unix_now};
use crate::game::{GameHandle, Role};
use crate::hub::{ConnId, Notice};
use outbox::Outbox;
use rate::TokenBucket;

/// Notices queued for one session (game starts, challenges).
const NOTICE_QUEUE: usize = 64;

/// Games one session may play or watch at once.
pub const MAX_SUBSCRIPTIONS: usize = 32;

/// A game this session plays or watches.
struct Subscription {
    handle: GameHandle,
    role: Role,
    /// The game's events into the outbox, while held.
    following: crate::game::Following,
    /// When the session began to follow the game.
    since: tokio::time::Instant,
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
    games: HashMap<GameId, Subscription>,
    /// The TV this session follows, if any.
    tv: Option<tv::Tv>,
    /// The ids of `games` and `joining`, and the TV's game, claimed under one lock
    /// shared with the TV task, so that the two never join the same game.
    followed: tv::Followed,
    /// Games a request is joining now (in `followed` too, not yet in `games`).
    joining: HashSet<GameId>,
    /// Intents sent from the loop to their games, until answered ([`play`]).
    acts: FuturesUnordered<Pin<Box<dyn Future<Output = ()> + Send>>>,
    hello_done: bool,
    lag_ms: Option<u64>,
    /// Runs the requests that wait on Redis, the database or other nodes.
    worker: request::Worker,
    /// Where those requests send their changes to this state, for the loop to make.
    edits: request::Editor,
    /// The arenas this session watches: left when the user's last connection closes.
    watched_arenas: request::WatchedArenas,
    /// Relays the lobby feed to this session while it follows it.
    lobby_feed: Option<JoinHandle<()>>,
    /// The chat rooms this session follows, each relayed by its task.
    rooms: HashMap<shared::protocol::ChatRoom, JoinHandle<()>>,
    /// The users this session's user blocks (their lines are not relayed).
    blocks: crate::chat::BlockList,
}

/// Where an instant `secs` of Unix time falls on tokio's clock.
fn deadline_for(unix_secs: u64) -> Instant {
    Instant::now() + Duration::from_secs(unix_secs.saturating_sub(unix_now()))
}

/// Runs a session to its end. `token_hash` is its token's SHA-256; `_permit` is the
/// connection-limit slot it occupies.
pub async fn run(
    socket: WebSocket,
    app: Arc<App>,
    identity: Identity,
    token_hash: String,
    _permit: OwnedSemaphorePermit,
) {
    let conn = app.next_conn_id();
    let ws = app.config.ws.clone();
    let (sink, mut stream) = socket.split();
    let (out, out_rx) = Outbox::new(ws.outgoing_queue, app.metrics.clone());
    let writer = tokio::spawn(outbox::writer(
        sink,
        out_rx,
        out.closer().clone(),
        app.metrics.clone(),
    ));
    let (notice_tx, mut notices) = mpsc::channel(NOTICE_QUEUE);
    let (editor, mut edits) = request::Editor::channel();
    app.hub.register(&identity.user, conn, notice_tx);
    if let Err(e) = app.presence.connect(&identity.user).await {
        tracing::warn!(error = %e, "presence connect failed");
    }
    app.metrics.connections_total.inc();
    app.metrics.connections_open.inc();
    tracing::debug!(conn, user = %identity.user.id, "session open");

    let mut session = Session {
        app: app.clone(),
        token_deadline: deadline_for(identity.expires_at),
        identity,
        token_hash,
        reauths: reauth::Pending::default(),
        conn,
        out: out.clone(),
        games: HashMap::new(),
        tv: None,
        followed: tv::Followed::default(),
        joining: HashSet::new(),
        acts: FuturesUnordered::new(),
        hello_done: false,
        lag_ms: None,
        worker: request::Worker::start(),
        edits: editor,
        watched_arenas: request::WatchedArenas::default(),
        lobby_feed: None,
        rooms: HashMap::new(),
        blocks: crate::chat::BlockList::default(),
    };
    let closer = out.closer().clone();
    let now = Instant::now();
    let mut bucket = TokenBucket::new(ws.rate_per_sec, ws.rate_burst, now);
    let mut light = TokenBucket::new(ws.rate_per_sec, rate::light_burst(ws.rate_burst), now);
    let hello_deadline = now + ws.hello_timeout();
    let mut last_heard = now;
    let mut ping = tokio::time::interval_at(
        now + first_ping(ws.ping_interval(), conn),
        ws.ping_interval(),
    );
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut ping_seq: u64 = 0;
    let mut ping_sent: Option<(u64, Instant)> = None;
    let mut draining_seen = false;
    // The server's tokens are shared by every session, and waiting on one locks it on
    // every turn of the loop; children are this session's alone.
    let (stopping, draining) = (app.stopping.child_token(), app.draining.child_token());

    loop {
        tokio::select! {
            biased;
            () = closer.closed() => break,
            () = stopping.cancelled() => {
                out.close(close::GOING_AWAY, "server shutting down");
            }
            () = draining.cancelled(), if !draining_seen => {
                draining_seen = true;
                if !session.plays_any() {
                    out.close(close::GOING_AWAY, "server shutting down");
                }
            }
            () = sleep_until(session.token_deadline) => {
                out.close(close::TOKEN_EXPIRED, "token expired");
            }
            () = sleep_until(hello_deadline), if !session.hello_done => {
                out.close(close::HELLO_TIMEOUT, "hello timeout");
            }
            _ = ping.tick() => {
                let now = Instant::now();
                if now.saturating_duration_since(last_heard) >= ws.ping_timeout() {
                    app.metrics.ping_timeouts.inc();
                    out.close(close::PING_TIMEOUT, "ping timeout");
                } else {
                    ping_seq += 1;
                    ping_sent = Some((ping_seq, now));
                    out.ping(ping_seq);
                }
            }
            notice = notices.recv() => match notice {
                Some(notice) => session.on_notice(notice),
                None => break,
            },
            Some(edit) = edits.recv() => edit(&mut session),
            Some(()) = session.acts.next(), if !session.acts.is_empty() => {}
            frame = stream.next() => {
                let now = Instant::now();
                let frame = match frame {
                    None => {
                        out.close(close::NORMAL, "");
                        continue;
                    }
                    Some(Err(e)) => {
                        if is_too_big(e) {
                            app.metrics.oversized.inc();
                            out.close(close::TOO_BIG, "message too big");
                        } else {
                            out.close(close::NORMAL, "");
                        }
                        continue;
                    }
                    Some(Ok(frame)) => frame,
                };
                last_heard = now;
                let decoded = match &frame {
                    Message::Text(text) => Some(ClientMessage::decode(text.as_str())),
                    _ => None,
                };
                let allowed = match rate_class(&frame, decoded.as_ref()) {
                    RateClass::Free => true,
                    RateClass::Light => light.take(now),
                    RateClass::Full => bucket.take(now),
                };
                if !allowed {
                    app.metrics.rate_limited.inc();
                    out.close(close::POLICY, "rate limit exceeded");
                    continue;
                }
                if let Some(decoded) = decoded {
                    app.metrics.messages_in.inc();
                    match decoded {
                        // Before `hello`, `auth` too is answered `hello_required`.
                        Ok(ClientMessage::Auth { token }) if session.hello_done => {
                            session.reauth(token);
                        }
                        Ok(msg) => session.on_message(msg),
                        Err(e) => session.error(e.code(), e.to_string()),
                    }
                    continue;
                }
                match frame {
                    Message::Text(_) => {}
                    Message::Binary(_) => {
                        app.metrics.messages_in.inc();
                        session.error(ErrorCode::BadJson, "binary frames are not accepted");
                    }
                    Message::Pong(payload) => {
                        if let Some((seq, sent)) = ping_sent
                            && payload.as_ref() == seq.to_be_bytes()
                        {
                            let lag = u64::try_from(now.saturating_duration_since(sent).as_millis())
                                .unwrap_or(u64::MAX);
                            app.metrics.lag_ms.observe(lag);
                            session.lag_ms = Some(lag);
                            ping_sent = None;
                        }
                    }
                    Message::Ping(_) => {}
                    // The client closes: answer its close (RFC 6455 5.5.1) and end.
                    Message::Close(_) => out.close(close::NORMAL, ""),
                }
            }
        }
    }

    // Whatever ended the loop, the writer must end too: it sends the close frame (the
    // answer to a client's close) and lets the socket go. Without this a session whose
    // client closed first would wait on its writer for ever.
    out.close(close::NORMAL, "");
    // Changes already sent are made, so that `end` leaves every game joined; requests
    // still running find the loop gone and leave what they join themselves.
    edits.close();
    while let Ok(edit) = edits.try_recv() {
        edit(&mut session);
    }
    session.end().await;
    drop(out);
    let _ = writer.await;
    app.metrics.connections_open.dec();
}

/// When a session's first ping is due: somewhere in its first interval, spread by its
/// connection number. Connections come in waves (a node's start, everyone reconnecting
/// after a restart); pinging each exactly one interval after it came would send the
/// whole wave's pings, and take their pongs, in the same second of every interval.
fn first_ping(interval: Duration, conn: ConnId) -> Duration {
    // Consecutive numbers times the golden ratio land evenly over [0, 1).
    let spread = (conn.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
    interval.mul_f64(0.0625 + 0.9375 * spread)
}

/// Which rate limit a frame counts against.
enum RateClass {
    /// Pongs (answers to our pings) and the client's close.
    Free,
    /// Keep-alives and resumes: protocol `ping` messages, WebSocket pings, `resume`.
    /// A reconnecting client sends a burst of these; they have their own, larger
    /// bucket so that they never use up the allowance of the other messages.
    Light,
    /// Every other frame.
    Full,
}

fn rate_class(
    frame: &Message,
    decoded: Option<&Result<ClientMessage, shared::protocol::DecodeError>>,
) -> RateClass {
    match (frame, decoded) {
        (Message::Pong(_) | Message::Close(_), _) => RateClass::Free,
        (Message::Ping(_), _)
        | (_, Some(Ok(ClientMessage::Ping { .. } | ClientMessage::Resume { .. }))) => {
            RateClass::Light
        }
        _ => RateClass::Full,
    }
}

/// Is this read error a message over the size cap?
fn is_too_big(e: axum::Error) -> bool {
    e.into_inner()
        .downcast_ref::<tungstenite::Error>()
        .is_some_and(|e| matches!(e, tungstenite::Error::Capacity(_)))
}

impl Session {
    /// Sends an error without game context.
    fn error(&self, code: ErrorCode, message: impl Into<String>) {
        self.app.metrics.client_errors.inc();
        self.out.send(&ServerMessage::error(code, message));
    }

    /// Does this session play a live game?
    fn plays_any(&self) -> bool {
        self.games
            .values()
            .any(|s| s.role == Role::Player && s.handle.meta().is_live())
    }

    fn on_notice(&mut self, notice: Notice) {
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
            // Joining waits on the game's actor (maybe on another node): a task of its
            // own does it, at once rather than behind the worker's queue.
            Notice::GameStarted(handle) => {
                let r = self.requester();
                self.app
                    .tracker
                    .spawn(async move { r.follow(handle, None, watch::Follow::Start).await });
            }
        }
    }

    /// Sends an error about a game.
    fn game_error(&self, game_id: &GameId, move_id: Option<u64>, code: ErrorCode, message: String) {
        self.app.metrics.client_errors.inc();
        self.out.send(&ServerMessage::Error {
            code,
            message,
            game_id: Some(game_id.clone()),
            move_id,
        });
    }

    /// Publishes the ids of `games`, and of the games being joined, to the TV task.
    fn sync_followed(&self) {
        self.followed
            .set_session(self.games.keys().chain(self.joining.iter()).cloned());
    }

    /// The first half of following a game, made in the loop before the join: marks
    /// it as being joined (the TV task leaves it alone from now on) and takes out of
    /// the session what the join replaces (see [`watch::Taken`]). `watch` is refused a
    /// game followed already, on TV too; `resume` and a game of one's own starting take
    /// the game over from the TV. Finished games linger for rematches; a new game of
    /// one's own makes all but the latest of them go, so that they can leave memory,
    /// and the subscription limit makes them all go.
    fn take_for(&mut self, id: &GameId, follow: watch::Follow) -> watch::Taken {
        let mut taken = watch::Taken::default();
        self.games.retain(|_, s| s.following.is_active());
        let watching = follow == watch::Follow::Watch;
        if watching && (self.joining.contains(id) || self.games.contains_key(id)) {
            taken.refused = Some((
                ErrorCode::AlreadyWatching,
                "you already follow this game".into(),
            ));
            return taken;
        }
        // Claimed under the TV's lock: from now on the TV does not join the game.
        // (A TV being stopped may still hold its claim: it leaves the game anyway.)
        if !self.followed.claim_for_session(id)
            && self.tv.as_ref().and_then(|tv| tv.current()).as_ref() == Some(id)
        {
            if watching {
                taken.refused = Some((
                    ErrorCode::AlreadyWatching,
                    "you already follow this game (on TV)".into(),
                ));
                return taken;
            }
            // Taken over from the TV: the session follows it itself from now on, once.
            taken.tv = self.tv.take();
        }
        self.joining.insert(id.clone());
        self.sync_followed();
        // Following the game already (a resume, a watch after play): the old
        // subscription is left only after the new one has joined, so a player's
        // connection count never touches zero and nobody sees them leave and return.
        taken.replaced = self.games.remove(id);
        if let Some(old) = &taken.replaced {
            old.following.stop();
        }
        let at_limit = self.games.len() + self.joining.len() > MAX_SUBSCRIPTIONS;
        if follow == watch::Follow::Start || at_limit {
            let mut ended: Vec<(tokio::time::Instant, GameId)> = self
                .games
                .iter()
                .filter(|(_, s)| !s.handle.meta().is_live())
                .map(|(id, s)| (s.since, id.clone()))
                .collect();
            ended.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
            let keep = usize::from(!at_limit);
            for (_, id) in ended.into_iter().skip(keep) {
                if let Some(old) = self.games.remove(&id) {
                    old.following.stop();
                    taken.evicted.push(old);
                }
            }
        }
        if self.games.len() + self.joining.len() > MAX_SUBSCRIPTIONS {
            self.not_joined(id);
            let e = crate::game::GameError::TooMany;
            taken.refused = Some((e.code(), e.to_string()));
        } else {
            self.sync_followed();
        }
        taken
    }

    /// The second half of following a game, made in the loop once it is joined: the
    /// subscription is the session's from now on. Returns a subscription of the same
    /// game made meanwhile (no longer receiving), for the caller to leave.
    fn adopt(&mut self, id: GameId, sub: Subscription) -> Option<Subscription> {
        self.joining.remove(&id);
        let old = self.games.insert(id, sub);
        if let Some(old) = &old {
            old.following.stop();
        }
        self.sync_followed();
        old
    }

    /// A join that did not happen: the game is no longer being joined.
    fn not_joined(&mut self, id: &GameId) {
        self.joining.remove(id);
        self.sync_followed();
    }

    /// Leaves every game, unregisters, and drops the user's lobby entries if this was
    /// their last connection.
    async fn end(&mut self) {
        self.worker.stop();
        self.unfollow_lobby();
        for (_, relay) in self.rooms.drain() {
            relay.abort();
        }
        let user = self.identity.user.id.clone();
        for (_, sub) in self.games.drain() {
            sub.following.stop();
            sub.handle.leave(user.clone(), sub.role).await;
        }
        self.sync_followed();
        if let Some(tv) = self.tv.take() {
            tv.stop().await;
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
            for arena in self.watched_arenas.take() {
                if let Some(h) = self.app.arenas.get(&arena) {
                    h.unwatch(user.clone()).await;
                }
            }
            crate::setup::last_connection_closed(&self.app, &user).await;
        }
        tracing::debug!(conn = self.conn, user = %user, "session closed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_pings_of_consecutive_connections_spread_over_the_interval() {
        let interval = Duration::from_secs(15);
        let mut buckets = [0u32; 10];
        for conn in 1000..2000 {
            let at = first_ping(interval, conn);
            assert!(at >= interval / 16 && at <= interval, "{at:?}");
            let tenth = (at.as_secs_f64() / interval.as_secs_f64() * 10.0) as usize;
            buckets[tenth.min(9)] += 1;
        }
        // The first tenth starts at 1/16 of the interval, so it holds fewer.
        assert!(
            buckets[1..].iter().all(|&n| (90..=120).contains(&n)),
            "{buckets:?}"
        );
    }
}
