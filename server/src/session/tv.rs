//! TV: following the highest-rated live game of a variant. One task per following
//! session watches the current TV game as a spectator and, when it ends, moves on to the
//! next one (waiting for one to start if none is live), so a client that asked for TV
//! once keeps getting a live game without asking again.

use std::sync::Arc;
use std::time::Duration;

use shared::protocol::{ErrorCode, GameEvent, GameId, ServerMessage, UserId};
use shared::rules::Variant;
use tokio::sync::{broadcast, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::outbox::Outbox;
use crate::app::App;
use crate::game::{GameHandle, Role};

/// How often to look for a new game once the followed one has ended and none is live.
const IDLE_POLL: Duration = Duration::from_millis(500);

/// A session's TV: the task, the game it shows now, and the token that stops it. The
/// task is stopped by the token rather than aborted, so it always leaves the game it
/// joined exactly once.
pub struct Tv {
    task: JoinHandle<()>,
    stop: CancellationToken,
    current: watch::Receiver<Option<GameId>>,
}

impl Tv {
    /// Starts following the TV of `variant` for `user`. If no game of the variant is
    /// live now, the client gets `no_tv_game` and `None` is returned.
    pub async fn start(app: &Arc<App>, user: UserId, variant: Variant, out: Outbox) -> Option<Tv> {
        let Some(first) = app.games.tv_anywhere(variant).await else {
            out.send(&ServerMessage::error(
                ErrorCode::NoTvGame,
                format!("no live {variant} game to show"),
            ));
            return None;
        };
        let (current_tx, current) = watch::channel(None);
        let stop = CancellationToken::new();
        let task = tokio::spawn(follow(
            app.clone(),
            user,
            variant,
            first,
            out,
            current_tx,
            stop.clone(),
        ));
        Some(Tv {
            task,
            stop,
            current,
        })
    }

    /// The game shown now.
    pub fn current(&self) -> Option<GameId> {
        self.current.borrow().clone()
    }

    /// Stops following; the task leaves the game shown now before it ends.
    pub async fn stop(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }
}

async fn follow(
    app: Arc<App>,
    user: UserId,
    variant: Variant,
    first: GameHandle,
    out: Outbox,
    current: watch::Sender<Option<GameId>>,
    stop: CancellationToken,
) {
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
        let Ok(reply) = handle.join(user.clone(), Role::Spectator, None).await else {
            continue;
        };
        let version = reply.state.version;
        let _ = current.send(Some(handle.id().clone()));
        if !out.send(&ServerMessage::GameState { game: reply.state }) {
            return;
        }
        let relayed = tokio::select! {
            () = stop.cancelled() => Relayed::OutboxClosed,
            r = relay(rx, version, &out) => r,
        };
        handle.leave(user.clone(), Role::Spectator).await;
        let _ = current.send(None);
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
/// outbox closes.
async fn relay(
    mut rx: broadcast::Receiver<Arc<crate::game::Versioned>>,
    after: u64,
    out: &Outbox,
) -> Relayed {
    loop {
        match rx.recv().await {
            Ok(event) => {
                if event.version <= after {
                    continue;
                }
                if !out.send_json(&event.json) {
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
