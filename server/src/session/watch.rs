//! The watch group of client messages: following a game as a spectator, stopping,
//! TV, and resuming a game after a reconnection. These change which games the
//! session follows, so they run in the session loop.

use shared::protocol::{ClientMessage, ErrorCode, GameId, ServerMessage};

use super::Session;
use super::tv::Tv;
use crate::game::{GameHandle, Role};

impl Session {
    /// Handles a message of the watch group.
    pub(super) async fn on_watch(&mut self, msg: ClientMessage) {
        match msg {
            ClientMessage::Watch { game_id } => {
                let on_tv = self.tv.as_ref().and_then(|tv| tv.current()).as_ref() == Some(&game_id);
                if on_tv
                    || self
                        .games
                        .get(&game_id)
                        .is_some_and(|s| !s.forwarder.is_finished())
                {
                    self.game_error(
                        &game_id,
                        None,
                        ErrorCode::AlreadyWatching,
                        "you already follow this game".into(),
                    );
                    return;
                }
                match self.app.games.find(&game_id).await {
                    Some(handle) => self.watch(handle, None).await,
                    None => self.send_archived(&game_id).await,
                }
            }
            ClientMessage::Unwatch { game_id }
                if self.tv.as_ref().and_then(|tv| tv.current()).as_ref() == Some(&game_id) =>
            {
                if let Some(tv) = self.tv.take() {
                    tv.stop().await;
                }
                self.out.send(&ServerMessage::Unwatched { game_id });
            }
            ClientMessage::Unwatch { game_id } => match self.games.remove(&game_id) {
                Some(sub) if sub.role == Role::Spectator => {
                    self.sync_followed();
                    sub.forwarder.abort();
                    sub.handle
                        .leave(self.identity.user.id.clone(), Role::Spectator)
                        .await;
                    self.out.send(&ServerMessage::Unwatched { game_id });
                }
                Some(sub) => {
                    // Players do not unwatch their own game.
                    self.games.insert(game_id.clone(), sub);
                    self.game_error(
                        &game_id,
                        None,
                        ErrorCode::NotWatching,
                        "you play this game".into(),
                    );
                }
                None => self.game_error(
                    &game_id,
                    None,
                    ErrorCode::NotWatching,
                    "you do not watch this game".into(),
                ),
            },
            ClientMessage::Tv { variant } => {
                // A variant with no live game leaves the TV followed so far as it was.
                let user = self.identity.user.id.clone();
                let followed = self.followed.clone();
                if let Some(tv) =
                    Tv::start(&self.app, user, variant, self.out.clone(), followed).await
                    && let Some(old) = self.tv.replace(tv)
                {
                    old.stop().await;
                }
            }
            ClientMessage::Resume {
                game_id,
                last_version,
            } => match self.app.games.find(&game_id).await {
                Some(handle) => {
                    // A game shown on TV is taken over from the TV: the session
                    // follows it itself from now on, once.
                    if self.tv.as_ref().and_then(|tv| tv.current()).as_ref() == Some(&game_id)
                        && let Some(tv) = self.tv.take()
                    {
                        tv.stop().await;
                    }
                    self.watch(handle, Some(last_version)).await;
                }
                None => self.send_archived(&game_id).await,
            },
            _ => {}
        }
    }

    /// A game no longer live: its archived final state, else `game_not_found`.
    async fn send_archived(&mut self, game_id: &GameId) {
        let stored = match self.app.db.game(&game_id.0).await {
            Ok(stored) => stored,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the archive");
                None
            }
        };
        match stored
            .as_ref()
            .and_then(crate::game::archive::archived_state)
        {
            Some(game) => {
                self.out.send(&ServerMessage::GameState { game });
            }
            None => self.game_error(
                game_id,
                None,
                ErrorCode::GameNotFound,
                "no such game".into(),
            ),
        }
    }

    /// Follows a game: as its player if the user plays it, else as a spectator.
    async fn watch(&mut self, handle: GameHandle, since: Option<u64>) {
        let role = match handle.meta().color_of(&self.identity.user.id) {
            Some(_) => Role::Player,
            None => Role::Spectator,
        };
        let id = handle.id().clone();
        if let Err(e) = self.subscribe(handle, role, since, false).await {
            self.game_error(&id, None, e.code(), e.to_string());
        }
    }
}
