//! The watch group of client messages: following a game as a spectator, stopping,
//! TV ([`super::tv`]), and resuming a game after a reconnection; and following a game
//! of one's own as it starts. Finding a game (maybe on another node), joining it,
//! reading the archive and looking for the TV game wait on Redis, the database or
//! another node, so they are requests ([`super::request`]), run in the order the client
//! sent them; which games the session follows is changed by the loop alone, between
//! their stages: once the game is found, the loop marks it as being joined and takes
//! out what the join replaces ([`Taken`]); once joined, it adopts the subscription. So
//! `watch` then `unwatch` of a game ends unwatched, a game is never followed twice, and
//! the TV never joins a game the session is joining itself.
//!
//! A game that is neither live here nor anywhere in the cluster is looked up in the
//! archive; if it is not there either, but Redis still holds it (its node just died
//! and another has not taken it over yet) or cannot be asked, the answer is
//! `unavailable`, which the client retries; only then `game_not_found`.

use std::sync::Arc;

use shared::protocol::{ClientMessage, ErrorCode, GameId, ServerMessage};

use super::request::{self, Requester};
use super::{Done, Pending};
use super::{MAX_SUBSCRIPTIONS, Session, Subscription};
use crate::game::{GameError, GameHandle, Role, StartFrame};
use crate::hub::StartedGame;

/// Why a game is being followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Follow {
    /// `watch`: refused if the session follows the game already.
    Watch,
    /// `resume`: replaces the session's subscription, takes the game over from TV.
    Resume,
    /// A game of one's own has started: it is announced with `game_start`.
    Start,
    /// The TV of this number shows the game.
    Tv(u64),
}

/// What following a game takes out of the session, for the join to let go of.
#[derive(Default)]
struct Taken {
    /// Why the game is not followed (it is not marked as being joined).
    refused: Option<(ErrorCode, String)>,
    /// Finished games let go of to make room: left before the join.
    evicted: Vec<Subscription>,
    /// The game's own former subscription (or the TV's, taken over): left after the
    /// join, so that a player's connection count never touches zero.
    replaced: Option<Subscription>,
}

/// How a game is to be followed.
struct Asked {
    role: Role,
    /// `resume`'s last version seen.
    since: Option<u64>,
    follow: Follow,
    /// A new game's `game_start` for the player, made by its actor: shown without a
    /// join.
    start: Option<StartFrame>,
}

/// A join's result, for the loop to adopt.
pub(super) struct Joined {
    id: GameId,
    /// The subscription (`None`: not joined; the client has been told why).
    pub(super) sub: Option<Subscription>,
    pub(super) follow: Follow,
    /// The join marked the game as being joined.
    marked: bool,
}

impl Session {
    /// Queues a message of the watch group.
    pub(super) fn on_watch(&mut self, msg: ClientMessage) {
        let r = self.requester();
        match msg {
            ClientMessage::Watch { game_id } => self.hand_off(r.find(game_id, None)),
            ClientMessage::Resume {
                game_id,
                last_version,
            } => self.hand_off(r.find(game_id, Some(last_version))),
            ClientMessage::Unwatch { game_id } => self.hand_off(async { Done::Unwatch(game_id) }),
            ClientMessage::Tv { variant } => self.on_tv(variant),
            _ => true,
        };
    }

    /// Follows a game: as its player if the user plays it, else as a spectator. The
    /// client gets its state (`game_start` for [`Follow::Start`]) or the events missed
    /// after `since`, then every event; or an error. Marks the game as being joined
    /// now; the join is the returned request.
    pub(super) fn follow(
        &mut self,
        handle: GameHandle,
        since: Option<u64>,
        follow: Follow,
    ) -> Pending {
        self.follow_with(handle, since, follow, None)
    }

    /// Follows a game of one's own that has started ([`Follow::Start`]): from the
    /// `game_start` its actor made, if the notice carries it, else by joining.
    pub(super) fn follow_start(&mut self, started: StartedGame) -> Pending {
        let StartedGame { handle, start } = started;
        self.follow_with(handle, None, Follow::Start, start)
    }

    fn follow_with(
        &mut self,
        handle: GameHandle,
        since: Option<u64>,
        follow: Follow,
        start: Option<StartFrame>,
    ) -> Pending {
        let role = match handle.meta().color_of(&self.identity.user.id) {
            Some(_) => Role::Player,
            None => Role::Spectator,
        };
        let taken = self.take_for(handle.id(), follow);
        let asked = Asked {
            role,
            since,
            follow,
            start,
        };
        Box::pin(self.requester().join_stage(handle, asked, taken))
    }

    /// The first half of following a game, made in the loop before the join: marks
    /// it as being joined (the TV leaves it alone from now on) and takes out of the
    /// session what the join replaces (see [`Taken`]). `watch` is refused a game
    /// followed already, on TV too; `resume` and a game of one's own starting take the
    /// game over from the TV, which stops. Finished games linger for rematches; a new
    /// game of one's own makes all but the latest of those whose end was shown go, so
    /// that they can leave memory, and the subscription limit makes them all go.
    fn take_for(&mut self, id: &GameId, follow: Follow) -> Taken {
        let mut taken = Taken::default();
        self.games.retain(|_, s| s.tv || s.following.is_active());
        let watching = follow == Follow::Watch;
        let on_tv = self.tv.as_ref().is_some_and(|tv| tv.shows(id));
        let message = if on_tv {
            "you already follow this game (on TV)"
        } else {
            "you already follow this game"
        };
        if watching && (on_tv || self.joining.contains(id) || self.games.contains_key(id)) {
            taken.refused = Some((ErrorCode::AlreadyWatching, message.into()));
            return taken;
        }
        if on_tv {
            // Taken over from the TV, which stops: its subscription (if it has joined)
            // is replaced below; a join of it under way is left once done.
            self.tv = None;
        }
        self.joining.insert(id.clone());
        // Following the game already (a resume, a watch after play): the old
        // subscription is left only after the new one has joined, so a player's
        // connection count never touches zero and nobody sees them leave and return.
        taken.replaced = self.games.remove(id);
        if let Some(old) = &taken.replaced {
            old.following.stop();
        }
        let at_limit = self.followed() > MAX_SUBSCRIPTIONS;
        if follow == Follow::Start || at_limit {
            let mut ended: Vec<(tokio::time::Instant, GameId)> = self
                .games
                .iter()
                // A game over for its players whose end is not shown yet (it waits
                // for the archive) is not over for its followers: it stays, but
                // where the limit needs its room.
                .filter(|(_, s)| {
                    !s.tv && !s.handle.meta().is_live() && (at_limit || s.following.end_shown())
                })
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
        if self.followed() > MAX_SUBSCRIPTIONS {
            self.joining.remove(id);
            let e = GameError::TooMany;
            taken.refused = Some((e.code(), e.to_string()));
        }
        taken
    }

    /// How many games the session follows or is joining, its TV's aside.
    fn followed(&self) -> usize {
        self.games.values().filter(|s| !s.tv).count() + self.joining.len()
    }

    /// The second half of following a game, made in the loop once the join is done:
    /// the subscription is the session's from now on (a subscription of the same game
    /// made meanwhile is left).
    pub(super) fn joined(&mut self, joined: Joined) {
        let Joined {
            id,
            sub,
            follow,
            marked,
        } = joined;
        if let Follow::Tv(number) = follow {
            return self.tv_joined(id, sub, number);
        }
        if marked {
            self.joining.remove(&id);
        }
        if let Some(sub) = sub
            && let Some(old) = self.games.insert(id, sub)
        {
            let user = self.identity.user.id.clone();
            self.side.push(request::leave(user, old));
        }
    }

    /// `unwatch`: lets go of the game (or of the TV, which showed it); answers
    /// `unwatched` once left, or the refusal.
    pub(super) fn unwatch(&mut self, game_id: GameId) -> Option<Pending> {
        let leaving = if self.tv.as_ref().is_some_and(|tv| tv.shows(&game_id)) {
            self.stop_tv()
        } else {
            match self.games.remove(&game_id) {
                Some(sub) if sub.role == Role::Spectator => {
                    Some(request::leave(self.identity.user.id.clone(), sub))
                }
                other => {
                    let message = match other {
                        Some(sub) => {
                            // Players do not unwatch their own game.
                            self.games.insert(game_id.clone(), sub);
                            "you play this game"
                        }
                        None => "you do not watch this game",
                    };
                    let about = Some((&game_id, None));
                    self.out.error(ErrorCode::NotWatching, message, about);
                    return None;
                }
            }
        };
        let out = self.out.clone();
        Some(Box::pin(async move {
            if let Some(leave) = leaving {
                leave.await;
            }
            out.send(&ServerMessage::Unwatched { game_id });
            Done::Nothing
        }))
    }
}

impl Requester {
    /// `watch` (no `since`) or `resume`: finds the game wherever it is live, for the
    /// loop to follow it; else answers from the archive.
    async fn find(self, game_id: GameId, since: Option<u64>) -> Done {
        match self.app.games.find(&game_id).await {
            Some(handle) => Done::Found {
                handle,
                since,
                follow: match since {
                    Some(_) => Follow::Resume,
                    None => Follow::Watch,
                },
            },
            None => {
                self.send_missing(&game_id).await;
                Done::Nothing
            }
        }
    }

    /// Lets go of what `taken` took, joins the game unless refused, and answers.
    async fn join_stage(self, handle: GameHandle, asked: Asked, taken: Taken) -> Done {
        let follow = asked.follow;
        let began = std::time::Instant::now();
        let user = self.identity.user.id.clone();
        let id = handle.id().clone();
        for old in taken.evicted {
            old.handle.leave(user.clone(), old.role).await;
        }
        let marked = taken.refused.is_none();
        let sub = match taken.refused {
            Some((code, message)) => {
                self.out.error(code, message, Some((&id, None)));
                None
            }
            None => match self.join(&handle, asked).await {
                Ok(sub) => {
                    if follow == Follow::Start {
                        let took = began.elapsed().as_millis() as u64;
                        self.app.metrics.game_join_ms.observe(took);
                    }
                    Some(sub)
                }
                Err(e) => {
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
                        self.out.error(e.code(), e.to_string(), Some((&id, None)));
                    }
                    None
                }
            },
        };
        if let Some(old) = taken.replaced {
            old.handle.leave(user, old.role).await;
        }
        Done::Joined(Joined {
            id,
            sub,
            follow,
            marked,
        })
    }

    /// Joins a game, sends the client its state or the events it missed, and relays
    /// the rest from then on: the subscription, for the session to adopt.
    async fn join(&self, handle: &GameHandle, asked: Asked) -> Result<Subscription, GameError> {
        let Asked {
            role,
            since,
            follow,
            start,
        } = asked;
        let user = self.identity.user.id.clone();
        let plays = match role {
            Role::Player => handle.meta().color_of(&user),
            Role::Spectator => None,
        };
        let subscription = |following| Subscription {
            handle: handle.clone(),
            role,
            following,
            since: tokio::time::Instant::now(),
            tv: matches!(follow, Follow::Tv(_)),
        };
        if let Some(start) = start.filter(|_| plays.is_some()) {
            let shown =
                handle.follow_from(Arc::new(self.out.clone()), plays, start.version, || {
                    self.out.send_json(start.json);
                })?;
            if let Some(following) = shown {
                self.app.metrics.game_start_direct.inc();
                return Ok(subscription(following));
            }
        }
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
        Ok(subscription(following))
    }

    /// Joins a game for the TV of `number` and makes it the TV's (the loop checks
    /// that the TV still wants it).
    pub(super) async fn join_for_tv(self, handle: GameHandle, number: u64) -> Done {
        let follow = Follow::Tv(number);
        let asked = Asked {
            role: Role::Spectator,
            since: None,
            follow,
            start: None,
        };
        let sub = self.join(&handle, asked).await.ok();
        Done::Joined(Joined {
            id: handle.id().clone(),
            sub,
            follow,
            marked: false,
        })
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
        let in_redis = match self.app.games.game_store() {
            Some(store) => store.snapshot(game_id).await.map(|s| s.is_some()),
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
        self.out.error(code, message, Some((game_id, None)));
    }
}
