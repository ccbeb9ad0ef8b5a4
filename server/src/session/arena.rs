//! A session's arena requests: create, join, withdraw, pause, watch and unwatch, each
//! passed to the arena's actor; refusals are answered with a typed `error`. They run on
//! the session's worker ([`super::request`]): an arena's state may be in Redis and its
//! organiser on another node. They change nothing of the session's own state (an
//! arena's watchers are kept by the arena and reached through the hub).

use shared::arena::{ArenaInfo, ArenaStatus};
use shared::protocol::{ClientMessage, ErrorCode, ServerMessage};

use super::Session;
use super::request::Requester;
use crate::arena::{ArenaError, ArenaSpec, JoinRequest};
use crate::cluster::redis::wall_ms;
use crate::game::clock::speed_of;
use crate::rating::Perf;

impl Session {
    /// Hands an arena message to the worker.
    pub(super) fn on_arena(&mut self, msg: ClientMessage) {
        let r = self.requester();
        self.hand_off(r.arena(msg));
    }
}

impl Requester {
    fn arena_error(&self, e: &ArenaError) {
        self.error(e.code(), e.to_string());
    }

    /// Handles one arena message.
    async fn arena(self, msg: ClientMessage) {
        let me = self.identity.user.id.clone();
        let result = match msg {
            ClientMessage::ArenaCreate {
                name,
                variant,
                time_control,
                rated,
                ruleset,
                starts_in_secs,
                duration_secs,
                berserk,
                min_games,
                min_rating,
                max_rating,
                password,
            } => {
                if self.identity.user.guest {
                    Err(ArenaError::NeedsAccount(
                        "creating an arena needs an account",
                    ))
                } else {
                    let spec = ArenaSpec {
                        info: ArenaInfo {
                            id: String::new(),
                            name,
                            variant,
                            ruleset,
                            time_control,
                            rated,
                            starts_at_ms: wall_ms() + starts_in_secs.min(30 * 86_400) * 1000,
                            duration_ms: duration_secs.saturating_mul(1000),
                            berserk,
                            min_games: min_games.unwrap_or(0),
                            min_rating,
                            max_rating,
                            private: false,
                            created_by: me.0.clone(),
                            status: ArenaStatus::Upcoming,
                            players: 0,
                        },
                        password,
                    };
                    self.app
                        .arenas
                        .create(spec)
                        .await
                        .map(|arena| ServerMessage::ArenaCreated { arena })
                }
            }
            ClientMessage::ArenaJoin { arena_id, password } => {
                match self.app.arenas.get(&arena_id) {
                    None => Err(ArenaError::NotFound),
                    Some(h) => match h.info().await {
                        Err(e) => Err(e),
                        Ok(info) => {
                            let user = self.me_for(info.variant, info.time_control).await;
                            let perf = Perf {
                                variant: info.variant,
                                speed: speed_of(info.variant, info.time_control),
                            };
                            let rated_games = if user.guest {
                                0
                            } else {
                                self.app
                                    .db
                                    .rated_games(&user.id.0, &perf.key())
                                    .await
                                    .unwrap_or(0)
                            };
                            let req = JoinRequest {
                                user,
                                rated_games,
                                password,
                            };
                            h.join(req)
                                .await
                                .map(|membership| ServerMessage::ArenaMember {
                                    arena_id,
                                    membership,
                                })
                        }
                    },
                }
            }
            ClientMessage::ArenaWithdraw { arena_id } => match self.app.arenas.get(&arena_id) {
                None => Err(ArenaError::NotFound),
                Some(h) => h
                    .withdraw(me)
                    .await
                    .map(|membership| ServerMessage::ArenaMember {
                        arena_id,
                        membership,
                    }),
            },
            ClientMessage::ArenaPause { arena_id } => match self.app.arenas.get(&arena_id) {
                None => Err(ArenaError::NotFound),
                Some(h) => h
                    .pause(me)
                    .await
                    .map(|membership| ServerMessage::ArenaMember {
                        arena_id,
                        membership,
                    }),
            },
            ClientMessage::ArenaWatch { arena_id } => match self.app.arenas.get(&arena_id) {
                None => Err(ArenaError::NotFound),
                Some(h) => h.watch(me).await.map(|standings| {
                    self.watched_arenas.set(&arena_id, true);
                    ServerMessage::ArenaStandings { standings }
                }),
            },
            ClientMessage::ArenaUnwatch { arena_id } => match self.app.arenas.get(&arena_id) {
                None => Err(ArenaError::NotFound),
                Some(h) => {
                    h.unwatch(me).await;
                    self.watched_arenas.set(&arena_id, false);
                    return;
                }
            },
            _ => {
                self.error(ErrorCode::Internal, "not an arena message");
                return;
            }
        };
        match result {
            Ok(reply) => {
                self.out.send(&reply);
            }
            Err(e) => self.arena_error(&e),
        }
    }
}
