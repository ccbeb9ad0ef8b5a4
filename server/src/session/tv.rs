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

use super::outbox::Outbox;
use crate::app::App;
use crate::game::{GameHandle, Role};

/// How often to look for a new game once the followed one has ended and none is live.
const IDLE_POLL: Duration = Duration::from_millis(500);

/// A session's TV: the task and the game it shows now.
pub struct Tv {
    task: JoinHandle<()>,
    current: watch::Receiver<Option<GameId>>,
}

impl Tv {
    /// Starts following the TV of `variant` for `user`. If no game of the variant is
    /// live now, the client gets `no_tv_game` and `None` is returned.
    pub fn start(app: &Arc<App>, user: UserId, variant: Variant, out: Outbox) -> Option<Tv> {
        let Some(first) = app.games.tv(variant) else {
            out.send(&ServerMessage::error(
                ErrorCode::NoTvGame,
                format!("no live {variant} game to show"),
            ));
            return None;
        };
        let (current_tx, current) = watch::channel(None);
        let task = tokio::spawn(follow(app.clone(), user, variant, first, out, current_tx));
        Some(Tv { task, current })
    }

    /// The game shown now.
    pub fn current(&self) -> Option<GameId> {
        self.current.borrow().clone()
    }

    /// Stops following and leaves the game shown now.
    pub async fn stop(self, app: &App, user: &UserId) {
        self.task.abort();
        if let Some(handle) = self.current().and_then(|id| app.games.get(&id)) {
            handle.leave(user.clone(), Role::Spectator).await;
        }
    }
}

async fn follow(
    app: Arc<App>,
    user: UserId,
    variant: Variant,
    first: GameHandle,
    out: Outbox,
    current: watch::Sender<Option<GameId>>,
) {
    let mut next = Some(first);
    let mut last: Option<GameId> = None;
    loop {
        let handle = match next.take() {
            Some(h) => h,
            None => {
                tokio::time::sleep(IDLE_POLL).await;
                match app.games.tv(variant) {
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
        let relayed = relay(rx, version, &out).await;
        handle.leave(user.clone(), Role::Spectator).await;
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
    /// The client's outbox is closed: the session is ending.
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
