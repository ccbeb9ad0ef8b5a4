//! lichess's Bot API and Board API, in lichess's paths and NDJSON shapes, so that the
//! programs players already run (lichess-bot, lidraughts-bot, berserk, board apps) play
//! on damka with their server URL as their only setting (`docs/bots.md`).
//!
//! - [`account`]: the account, its live games, the bot upgrade, users' status.
//! - [`challenges`]: challenges sent, accepted, declined, cancelled.
//! - [`chat`]: a game's chat: lines said and read, `chatLine` on its stream.
//! - [`events`]: the event stream (challenges, games started and finished).
//! - [`game`]: a game's stream and what a player does in it (moves, draws, takebacks).
//! - [`seek`]: the Board API's seek, held open until it is accepted.
//! - [`shapes`]: lichess's JSON for variants, players, challenges and game states.
//!
//! lichess and lidraughts both call their main variant `standard`: chess for one,
//! International draughts for the other. A request's [`Dialect`] (lidraughts-bot and
//! other draughts programs say so in their `User-Agent`) decides which `standard` it
//! means; every variant also has an unambiguous key (`chess`, `international`).

pub mod account;
pub mod challenges;
pub mod chat;
pub mod events;
pub mod game;
pub mod seek;
pub mod shapes;

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use serde_json::{Map, Value};
use shared::protocol::{ChallengeId, ErrorCode, UserId};
use tokio::sync::mpsc;

use super::ApiError;
use super::bearer::Caller;
use crate::app::App;
use crate::hub::StreamWatch;
use crate::metrics::Metrics;
use crate::tokens::Scope;

/// How often an open stream sends a keep-alive newline (lichess: every few seconds).
pub const KEEP_ALIVE: Duration = Duration::from_secs(6);

/// Lines a stream holds for a slow reader before it is dropped.
pub const STREAM_QUEUE: usize = 64;

/// Streams one user may hold open at once (event and game streams together).
pub const MAX_STREAMS_PER_USER: usize = 16;

/// Which program's words a request speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// lichess's: `standard` is chess.
    Lichess,
    /// lidraughts's: `standard` is International draughts.
    Lidraughts,
}

impl Dialect {
    /// The dialect of a request: lidraughts's if its `User-Agent` names draughts.
    pub fn of(headers: &HeaderMap) -> Dialect {
        let agent = headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if agent.to_ascii_lowercase().contains("draughts") {
            Dialect::Lidraughts
        } else {
            Dialect::Lichess
        }
    }
}

/// What the API keeps between requests on this node: open streams per user, and
/// draughts captures sent hop by hop and not finished yet.
#[derive(Debug, Default)]
pub struct BotState {
    streams: Mutex<HashMap<UserId, usize>>,
    hops: Mutex<HashMap<(String, UserId), Vec<u8>>>,
}

/// A stream's place among its user's open streams (and in the `api_streams_open`
/// gauge); freed when dropped. A stream opened with a token holds its place in the hub
/// too, and ends when that token is ended ([`StreamSlot::until_ended`]).
pub struct StreamSlot {
    state: Arc<BotState>,
    user: UserId,
    metrics: Arc<Metrics>,
    watch: Option<StreamWatch>,
}

impl StreamSlot {
    /// The stream ends when the token `caller` sent is ended (revoked, logged out,
    /// every session ended), on whichever node that is done.
    pub fn until_ended(mut self, app: &App, caller: &Caller) -> StreamSlot {
        self.watch = Some(
            app.hub
                .watch_stream(&caller.user.id, caller.credential.clone()),
        );
        self
    }

    /// Resolves when the stream's token is ended; never for a stream without one.
    async fn ended(&self) {
        match &self.watch {
            Some(w) => w.ended.cancelled().await,
            None => std::future::pending().await,
        }
    }
}

impl BotState {
    fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
        m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A place for one more stream of `user`: 429 beyond [`MAX_STREAMS_PER_USER`].
    pub fn open_stream(
        self: &Arc<Self>,
        user: &UserId,
        metrics: &Arc<Metrics>,
    ) -> Result<StreamSlot, ApiError> {
        let mut streams = Self::lock(&self.streams);
        let n = streams.entry(user.clone()).or_default();
        if *n >= MAX_STREAMS_PER_USER {
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::TooMany,
                format!("at most {MAX_STREAMS_PER_USER} open streams per account"),
            ));
        }
        *n += 1;
        metrics.api_streams_open.inc();
        Ok(StreamSlot {
            state: self.clone(),
            user: user.clone(),
            metrics: metrics.clone(),
            watch: None,
        })
    }

    /// The hops of a capture sent so far in `game` by `user`.
    pub(crate) fn hops(&self, game: &str, user: &UserId) -> Vec<u8> {
        Self::lock(&self.hops)
            .get(&(game.to_string(), user.clone()))
            .cloned()
            .unwrap_or_default()
    }

    /// Keeps (or, with an empty route, forgets) a capture begun.
    pub(crate) fn set_hops(&self, game: &str, user: &UserId, route: Vec<u8>) {
        let key = (game.to_string(), user.clone());
        let mut hops = Self::lock(&self.hops);
        if route.is_empty() {
            hops.remove(&key);
        } else {
            hops.insert(key, route);
        }
    }
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.metrics.api_streams_open.dec();
        let mut streams = BotState::lock(&self.state.streams);
        if let Some(n) = streams.get_mut(&self.user) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                streams.remove(&self.user);
            }
        }
    }
}

/// The routes, with their state.
pub fn routes() -> Router<Arc<App>> {
    let state = Arc::new(BotState::default());
    Router::new()
        .route("/api/account", get(account::account))
        .route("/api/account/playing", get(account::playing))
        .route("/api/bot/account/upgrade", post(account::upgrade))
        .route("/api/users/status", get(account::statuses))
        .route("/api/user/{name}", get(account::user))
        .route("/api/bot/online", get(account::online_bots))
        .route("/api/stream/event", get(events::stream))
        .route("/api/challenge/{user}", post(challenges::create))
        .route("/api/challenge/{id}/accept", post(challenges::accept))
        .route("/api/challenge/{id}/decline", post(challenges::decline))
        .route("/api/challenge/{id}/cancel", post(challenges::cancel))
        .route("/api/board/seek", post(seek::seek))
        .route("/api/{api}/game/stream/{id}", get(game::stream))
        .route("/api/{api}/game/{id}/move/{mv}", post(game::play))
        .route("/api/{api}/game/{id}/chat", get(chat::read).post(chat::say))
        .route("/api/{api}/game/{id}/{action}", post(game::act))
        .route("/api/{api}/game/{id}/{action}/{answer}", post(game::answer))
        .layer(Extension(state))
}

/// The account called `name` (any case): `404 unknown_user` if there is none.
pub async fn account_named(app: &App, name: &str) -> Result<crate::db::Player, Response> {
    match app.db.player_by_name(name).await {
        Ok(Some(p)) => Ok(p),
        Ok(None) => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::UnknownUser,
            format!("no account is called {name}"),
        )
        .into_response()),
        Err(e) => Err(super::db_error(&e)),
    }
}

/// The challenge a path names, among `user`'s open ones: by the id lichess's clients
/// know (the game id it will start, [`shapes::challenge_key`]), else by damka's number
/// (a game id may be all digits, so it is looked up first).
pub async fn challenge_named(app: &App, user: &UserId, id: &str) -> Option<ChallengeId> {
    let open = app.lobby.challenges_of(user).await.unwrap_or_default();
    open.into_iter()
        .find(|c| c.game_id.as_ref().is_some_and(|g| g.0 == id))
        .map(|c| c.challenge_id)
        .or_else(|| id.parse().ok().map(ChallengeId))
}

/// A request body as lichess's clients send it: a form (`a=1&b=2`) or a JSON object;
/// values as text (JSON `null`s dropped).
pub fn fields(headers: &HeaderMap, body: &Bytes) -> Result<HashMap<String, String>, ApiError> {
    let bad = |m: String| ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::InvalidMessage, m);
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if json {
        let map: Map<String, Value> =
            serde_json::from_slice(body).map_err(|e| bad(format!("bad JSON body: {e}")))?;
        return Ok(map
            .into_iter()
            .filter_map(|(k, v)| match v {
                Value::Null => None,
                Value::String(s) => Some((k, s)),
                other => Some((k, other.to_string())),
            })
            .collect());
    }
    let text = std::str::from_utf8(body).map_err(|_| bad("the body is not UTF-8".into()))?;
    Ok(form_pairs(text))
}

/// `a=1&b=x%20y` as pairs (`+` is a space).
fn form_pairs(text: &str) -> HashMap<String, String> {
    text.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let hex = |b: Option<&u8>| b.and_then(|b| char::from(*b).to_digit(16));
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match (hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
                (Some(h), Some(l)) => {
                    out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An NDJSON response fed by `rx`: one line a message; ends when the sender is dropped.
pub fn ndjson(rx: mpsc::Receiver<String>, slot: StreamSlot) -> Response {
    let stream = futures_util::stream::unfold((rx, slot), |(mut rx, slot)| async move {
        // The answer ends when its token does; the producer then sees its reader gone.
        let line = tokio::select! {
            biased;
            () = slot.ended() => None,
            line = rx.recv() => line,
        }?;
        Some((Ok::<_, Infallible>(Bytes::from(line)), (rx, slot)))
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(stream),
    )
        .into_response()
}

/// Queues a line for a stream's reader; `false` if the reader is gone or so slow that
/// its queue is full (the stream is then ended rather than buffered without end).
pub fn push(tx: &mpsc::Sender<String>, value: &Value) -> bool {
    tx.try_send(format!("{value}\n")).is_ok()
}

/// `{"ok": true}`.
pub fn ok() -> Response {
    axum::Json(serde_json::json!({ "ok": true })).into_response()
}

/// Which API a request came through: `bot` or `board`.
pub(super) fn check_api(caller: &Caller, api: &str) -> Result<(), ApiError> {
    let forbidden = |code, m: &str| Err(ApiError::new(StatusCode::FORBIDDEN, code, m));
    match api {
        "bot" => {
            caller.require(Scope::BotPlay)?;
            if !caller.user.bot {
                return forbidden(
                    ErrorCode::NotABot,
                    "the Bot API is for bot accounts: POST /api/bot/account/upgrade",
                );
            }
            Ok(())
        }
        "board" => {
            caller.require(Scope::BoardPlay)?;
            if caller.user.bot {
                return forbidden(ErrorCode::NotABot, "bot accounts play through /api/bot");
            }
            Ok(())
        }
        _ => Err(not_found()),
    }
}

pub(super) fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::GameNotFound,
        "no game of yours has this id",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_are_read_as_clients_write_them() {
        let f = form_pairs("clock.limit=300&clock.increment=3&color=white&fen=W%3AW31+32");
        assert_eq!(f["clock.limit"], "300");
        assert_eq!(f["fen"], "W:W31 32");
        assert_eq!(form_pairs("a=%zz&b=%4")["a"], "%zz");
        assert_eq!(form_pairs("a=%zz&b=%4")["b"], "%4");
    }
}
