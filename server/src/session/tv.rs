//! TV: following the highest-rated live game of a variant. One task per following
//! session watches the current TV game as a spectator and, when it ends, moves on to the
//! next one (waiting for one to start if none is live), so a client that asked for TV
//! once keeps getting a live game without asking again. A game the session already
//! follows itself (through `watch`, `resume` or as a player) is not joined a second
//! time: the TV waits for it to end, silently, and then moves on. The session and its
//! TV task claim the games they join under one lock ([`Followed`]), so that with
//! requests in flight the two never join the same game.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use shared::protocol::{ErrorCode, GameEvent, GameId, ServerMessage, UserId};
use shared::rules::Variant;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::outbox::Outbox;
use crate::app::App;
use crate::game::{GameHandle, Role};

/// The games a session follows itself and the game its TV shows (or is joining),
/// shared by the session and its TV task and changed under one lock.
#[derive(Clone, Default)]
pub struct Followed(Arc<Mutex<Following>>);

#[derive(Default)]
struct Following {
    /// What the session follows itself (or is joining).
    session: HashSet<GameId>,
    /// The game a TV claimed, with that TV's number.
    tv: Option<(u64, GameId)>,
    /// TVs started so far: numbers them.
    tvs: u64,
}

impl Followed {
    fn lock(&self) -> MutexGuard<'_, Following> {
        // Single inserts and replacements: a poisoned lock is still consistent.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sets what the session follows itself (or is joining).
    pub fn set_session(&self, ids: impl Iterator<Item = GameId>) {
        let mut f = self.lock();
        f.session.clear();
        f.session.extend(ids);
    }

    /// Marks `id` as followed by the session, unless a TV has claimed it: false then.
    pub fn claim_for_session(&self, id: &GameId) -> bool {
        let mut f = self.lock();
        if f.tv.as_ref().is_some_and(|(_, shown)| shown == id) {
            return false;
        }
        f.session.insert(id.clone());
        true
    }

    /// A number for a new TV.
    fn next_tv(&self) -> u64 {
        let mut f = self.lock();
        f.tvs += 1;
        f.tvs
    }

    /// Claims `id` for TV `tv`, unless the session follows it: false then.
    fn claim_for_tv(&self, tv: u64, id: &GameId) -> bool {
        let mut f = self.lock();
        if f.session.contains(id) {
            return false;
        }
        f.tv = Some((tv, id.clone()));
        true
    }

    /// TV `tv` no longer shows its game.
    fn release_tv(&self, tv: u64) {
        let mut f = self.lock();
        if f.tv.as_ref().is_some_and(|(n, _)| *n == tv) {
            f.tv = None;
        }
    }

    /// The game TV `tv` claimed.
    fn on_tv(&self, tv: u64) -> Option<GameId> {
        match &self.lock().tv {
            Some((n, id)) if *n == tv => Some(id.clone()),
            _ => None,
        }
    }
}

/// How often to look for a new game once the followed one has ended and none is live.
const IDLE_POLL: Duration = Duration::from_millis(500);

/// A session's TV: the task, its number, where it claims the game it shows, and the
/// token that stops it. The task is stopped by the token rather than aborted, so it
/// always leaves the game it joined exactly once.
pub struct Tv {
    task: JoinHandle<()>,
    number: u64,
    followed: Followed,
    stop: CancellationToken,
}

impl Tv {
    /// The game the TV of `variant` shows first: the best live game anywhere (this may
    /// ask Redis and another node, so it runs on the session's worker). If none is live
    /// now, the client gets `no_tv_game` and `None` is returned.
    pub async fn first(app: &Arc<App>, variant: Variant, out: &Outbox) -> Option<GameHandle> {
        let first = app.games.tv_anywhere(variant).await;
        if first.is_none() {
            out.send(&ServerMessage::error(
                ErrorCode::NoTvGame,
                format!("no live {variant} game to show"),
            ));
        }
        first
    }

    /// Starts following the TV of `variant` for `user` from `first` (see
    /// [`Tv::first`]); never waits.
    pub fn start(
        app: &Arc<App>,
        user: UserId,
        variant: Variant,
        first: GameHandle,
        out: Outbox,
        followed: Followed,
    ) -> Tv {
        let stop = CancellationToken::new();
        let number = followed.next_tv();
        let task = tokio::spawn(follow(
            app.clone(),
            user,
            variant,
            first,
            Shown {
                out,
                number,
                followed: followed.clone(),
            },
            stop.clone(),
        ));
        Tv {
            task,
            number,
            followed,
            stop,
        }
    }

    /// The game shown now (or being joined to be shown).
    pub fn current(&self) -> Option<GameId> {
        self.followed.on_tv(self.number)
    }

    /// Stops following; the task leaves the game shown now before it ends.
    pub async fn stop(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }
}

/// Where the TV task shows its games: the client's outbox, and its number in the
/// claims of the session's games.
struct Shown {
    out: Outbox,
    number: u64,
    followed: Followed,
}

async fn follow(
    app: Arc<App>,
    user: UserId,
    variant: Variant,
    first: GameHandle,
    shown: Shown,
    stop: CancellationToken,
) {
    let Shown {
        out,
        number,
        followed,
    } = shown;
    let mut next = Some(first);
    let mut last: Option<GameId> = None;
    loop {
        let handle = match next.take() {
            Some(h) => h,
            None => {
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(IDLE_POLL) => {}
                }
                match app.games.tv_anywhere(variant).await {
                    Some(h) if Some(h.id()) != last.as_ref() => h,
                    _ => continue,
                }
            }
        };
        let Ok(rx) = handle.subscribe() else { continue };
        if !followed.claim_for_tv(number, handle.id()) {
            // The session gets this game's events already: wait for its end unseen.
            let relayed = tokio::select! {
                () = stop.cancelled() => return,
                r = relay(rx, u64::MAX, None) => r,
            };
            match relayed {
                Relayed::Lagged => next = Some(handle),
                _ => last = Some(handle.id().clone()),
            }
            continue;
        }
        let Ok(reply) = handle.join(user.clone(), Role::Spectator, None).await else {
            followed.release_tv(number);
            continue;
        };
        if stop.is_cancelled() {
            // Stopped while joining (the session took this game over, or asked for
            // another TV): show nothing more.
            handle.leave(user.clone(), Role::Spectator).await;
            followed.release_tv(number);
            return;
        }
        let version = reply.state.version;
        if !out.send(&ServerMessage::GameState { game: reply.state }) {
            handle.leave(user.clone(), Role::Spectator).await;
            followed.release_tv(number);
            return;
        }
        let relayed = tokio::select! {
            () = stop.cancelled() => Relayed::OutboxClosed,
            r = relay(rx, version, Some(&out)) => r,
        };
        handle.leave(user.clone(), Role::Spectator).await;
        followed.release_tv(number);
        match relayed {
            Relayed::Over => last = Some(handle.id().clone()),
            // Fell behind: join the same game again for a fresh full state.
            Relayed::Lagged => next = Some(handle),
            Relayed::OutboxClosed => return,
        }
    }
}

/// How relaying one game ended.
enum Relayed {
    /// The game is over or gone.
    Over,
    /// The client fell behind the game's events.
    Lagged,
    /// The client's outbox is closed, or the TV was stopped.
    OutboxClosed,
}

/// Relays events after `after` until the game is over, the client falls behind, or its
/// outbox closes. Without an outbox, only waits for the end.
async fn relay(
    mut rx: broadcast::Receiver<Arc<crate::game::Versioned>>,
    after: u64,
    out: Option<&Outbox>,
) -> Relayed {
    loop {
        match rx.recv().await {
            Ok(event) => {
                if let Some(out) = out
                    && event.version > after
                    && !out.send_json(event.json.clone())
                {
                    return Relayed::OutboxClosed;
                }
                if matches!(event.event, GameEvent::GameOver { .. }) {
                    return Relayed::Over;
                }
            }
            Err(broadcast::error::RecvError::Lagged(_)) => return Relayed::Lagged,
            Err(broadcast::error::RecvError::Closed) => return Relayed::Over,
        }
    }
}
