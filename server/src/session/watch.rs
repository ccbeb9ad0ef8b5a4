//! The watch group of client messages: following a game as a spectator, stopping,
//! TV, and resuming a game after a reconnection; and following a game of one's own as
//! it starts. Finding a game (maybe on another node), joining it, reading the archive
//! and looking for the TV game wait on Redis, the database or another node, so they
//! run on the session's worker ([`super::request`]), in the order the client sent
//! them; the changes to which games the session follows are made by the session loop
//! ([`super::request::Edit`]): first the game is marked as being joined and what it
//! replaces is taken out ([`Taken`]), then, once joined, the subscription is adopted.
//! So `watch` then `unwatch` of a game ends unwatched, a game is never followed twice,
//! and the TV never joins a game the session is joining itself.
//!
//! A game that is neither live here nor anywhere in the cluster is looked up in the
//! archive; if it is not there either, but Redis still holds it (its node just died
//! and another has not taken it over yet) or cannot be asked, the answer is
//! `unavailable`, which the client retries; only then `game_not_found`.

use std::sync::Arc;

use shared::protocol::{ClientMessage, ErrorCode, GameId, ServerMessage};

use super::request::Requester;
use super::tv::Tv;
use super::{Session, Subscription};
use crate::game::{GameError, GameHandle, Role};

/// Why a game is being followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Follow {
    /// `watch`: refused if the session follows the game already.
    Watch,
    /// `resume`: replaces the session's subscription, takes the game over from TV.
    Resume,
    /// A game of one's own has started: it is announced with `game_start`.
    Start,
}

/// What following a game takes out of the session, for the request to let go of.
#[derive(Default)]
pub(super) struct Taken {
    /// Why the game is not followed (nothing was marked as being joined).
    pub(super) refused: Option<(ErrorCode, String)>,
    /// The TV, which showed this game: stopped before the join.
    pub(super) tv: Option<Tv>,
    /// Finished games let go of to make room: left before the join.
    pub(super) evicted: Vec<Subscription>,
    /// The game's own former subscription: left after the join.
    pub(super) replaced: Option<Subscription>,
}

/// What an `unwatch` takes out of the session.
enum Unwatched {
    /// The TV showed the game.
    Tv(Tv),
    /// The session watched it.
    Spectator(Subscription),
}

impl Session {
    /// Hands a message of the watch group to the worker.
    pub(super) fn on_watch(&mut self, msg: ClientMessage) {
        let r = self.requester();
        self.hand_off_whole(r.watch_group(msg));
    }

    /// Takes the subscription or TV an `unwatch` ends; answers the refusal if none.
    fn take_unwatched(&mut self, game_id: &GameId) -> Option<Unwatched> {
        if self.tv.as_ref().and_then(|tv| tv.current()).as_ref() == Some(game_id) {
            return self.tv.take().map(Unwatched::Tv);
        }
        let message = match self.games.remove(game_id) {
            Some(sub) if sub.role == Role::Spectator => {
                self.sync_followed();
                sub.following.stop();
                return Some(Unwatched::Spectator(sub));
            }
            Some(sub) => {
                // Players do not unwatch their own game.
                self.games.insert(game_id.clone(), sub);
                "you play this game"
            }
            None => "you do not watch this game",
        };
        self.game_error(game_id, None, ErrorCode::NotWatching, message.into());
        None
    }
}

impl Requester {
    async fn watch_group(self, msg: ClientMessage) {
        match msg {
            ClientMessage::Watch { game_id } => self.find_and_follow(game_id, None).await,
            ClientMessage::Resume {
                game_id,
                last_version,
            } => self.find_and_follow(game_id, Some(last_version)).await,
            ClientMessage::Unwatch { game_id } => {
                let id = game_id.clone();
                match self.edits.edit(move |s| s.take_unwatched(&id)).await {
                    Some(Some(Unwatched::Tv(tv))) => tv.stop().await,
                    Some(Some(Unwatched::Spectator(sub))) => {
                        sub.handle
                            .leave(self.identity.user.id.clone(), Role::Spectator)
                            .await;
                    }
                    Some(None) | None => return,
                }
                self.out.send(&ServerMessage::Unwatched { game_id });
            }
            ClientMessage::Tv { variant } => {
                // A variant with no live game leaves the TV followed so far as it was.
                let Some(first) = Tv::first(&self.app, variant, &self.out).await else {
                    return;
                };
                let (app, user, out) = (
                    self.app.clone(),
                    self.identity.user.id.clone(),
                    self.out.clone(),
                );
                let old = self.edits.edit(move |s| {
                    let tv = Tv::start(&app, user, variant, first, out, s.followed.clone());
                    s.tv.replace(tv)
                });
                if let Some(Some(old)) = old.await {
                    old.stop().await;
                }
            }
            _ => {}
        }
    }

    /// `watch` (no `since`) or `resume`: follows the game wherever it is live, else
    /// answers from the archive.
    async fn find_and_follow(&self, game_id: GameId, since: Option<u64>) {
        match self.app.games.find(&game_id).await {
            Some(handle) => {
                let follow = match since {
                    Some(_) => Follow::Resume,
                    None => Follow::Watch,
                };
                self.follow(handle, since, follow).await;
            }
            None => self.send_missing(&game_id).await,
        }
    }

    /// Follows a game: as its player if the user plays it, else as a spectator. The
    /// client gets its state (`game_start` for [`Follow::Start`]) or the events missed
    /// after `since`, then every event; or an error.
    pub(super) async fn follow(&self, handle: GameHandle, since: Option<u64>, follow: Follow) {
        let asked = std::time::Instant::now();
        let user = self.identity.user.id.clone();
        let role = match handle.meta().color_of(&user) {
            Some(_) => Role::Player,
            None => Role::Spectator,
        };
        let id = handle.id().clone();
        let marked = id.clone();
        let Some(taken) = self.edits.edit(move |s| s.take_for(&marked, follow)).await else {
            return;
        };
        if let Some(tv) = taken.tv {
            tv.stop().await;
        }
        for old in taken.evicted {
            old.handle.leave(user.clone(), old.role).await;
        }
        match taken.refused {
            Some((code, message)) => self.game_error(&id, None, code, message),
            None => match self.join(&handle, role, since, follow).await {
                Ok(sub) => {
                    if follow == Follow::Start {
                        let took = asked.elapsed().as_millis() as u64;
                        self.app.metrics.game_join_ms.observe(took);
                    }
                    self.adopt(id, sub).await;
                }
                Err(e) => {
                    let marked = id.clone();
                    let _ = self.edits.edit(move |s| s.not_joined(&marked)).await;
                    // The game left this node or its proxy just now, or it is over
                    // and its node no longer answers for it: the archive may have it.
                    let archived = follow != Follow::Start
                        && match &e {
                            GameError::Gone => true,
                            GameError::Unavailable(_) => !handle.meta().is_live(),
                            _ => false,
                        };
                    if archived {
                        self.send_missing(&id).await;
                    } else {
                        self.game_error(&id, None, e.code(), e.to_string());
                    }
                }
            },
        }
        if let Some(old) = taken.replaced {
            old.handle.leave(user, old.role).await;
        }
    }

    /// Joins a game, sends the client its state or the events it missed, and relays
    /// the rest from then on: the subscription, for the session to adopt.
    async fn join(
        &self,
        handle: &GameHandle,
        role: Role,
        since: Option<u64>,
        follow: Follow,
    ) -> Result<Subscription, GameError> {
        let user = self.identity.user.id.clone();
        let plays = match role {
            Role::Player => handle.meta().color_of(&user),
            Role::Spectator => None,
        };
        let following = handle.follow(Arc::new(self.out.clone()), plays)?;
        let reply = handle.join(user, role, since).await?;
        following.start(reply.state.version, || match (since, reply.missed) {
            // Events no longer held (`missed: None`): the state instead.
            (Some(v), Some(missed)) if v > 0 && v <= reply.state.version => {
                for frame in missed {
                    self.out.send_json(frame);
                }
            }
            _ if follow == Follow::Start => {
                self.out
                    .send(&ServerMessage::GameStart { game: reply.state });
            }
            _ => {
                self.out
                    .send(&ServerMessage::GameState { game: reply.state });
            }
        });
        Ok(Subscription {
            handle: handle.clone(),
            role,
            following,
            since: tokio::time::Instant::now(),
        })
    }

    /// Hands a joined game's subscription to the session; leaves the game again if the
    /// session has ended meanwhile, or the subscription it replaced.
    async fn adopt(&self, id: GameId, sub: Subscription) {
        let (handle, role) = (sub.handle.clone(), sub.role);
        let user = self.identity.user.id.clone();
        match self.edits.edit(move |s| s.adopt(id, sub)).await {
            Some(None) => {}
            Some(Some(old)) => old.handle.leave(user, old.role).await,
            // The session ended: the subscription went with the edit, and its frames.
            None => handle.leave(user, role).await,
        }
    }

    /// A game not live anywhere: its archived final state; else `unavailable` if Redis
    /// still holds the game (its owner died and the takeover is under way) or cannot
    /// be asked; else `game_not_found`.
    async fn send_missing(&self, game_id: &GameId) {
        let stored = match self.app.db.game(&game_id.0).await {
            Ok(stored) => stored,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the archive");
                None
            }
        };
        if let Some(game) = stored
            .as_ref()
            .and_then(crate::game::archive::archived_state)
        {
            self.out.send(&ServerMessage::GameState { game });
            return;
        }
        let in_redis = match &self.app.cluster {
            Some(cluster) => cluster.store.snapshot(game_id).await.map(|s| s.is_some()),
            None => Ok(false),
        };
        let (code, message) = match in_redis {
            Ok(false) => (ErrorCode::GameNotFound, "no such game".to_string()),
            Ok(true) => (
                ErrorCode::Unavailable,
                "the game is moving to another node: try again".to_string(),
            ),
            Err(e) => (
                ErrorCode::Unavailable,
                format!("cannot look for the game now: {e}"),
            ),
        };
        self.game_error(game_id, None, code, message);
    }
}
