//! A session's arena requests: create, join, withdraw, pause, watch and unwatch, each
//! passed to the arena's actor; refusals are answered with a typed `error`. They are
//! requests in the session's queue ([`super::request`]): an arena's state may be in
//! Redis and its organiser on another node. Of the session's own state they change
//! only which arenas it watches (an arena's watchers are kept by the arena and reached
//! through the hub; the session unwatches them when the user's last connection ends).

use shared::arena::{ArenaInfo, ArenaStatus};
use shared::protocol::{ClientMessage, ErrorCode, ServerMessage};

use super::Done;
use super::Session;
use super::request::Requester;
use crate::arena::{ArenaError, ArenaSpec, JoinRequest};
use crate::cluster::redis::wall_ms;
use crate::game::clock::speed_of;
use crate::rating::Perf;

impl Session {
    /// Queues an arena message.
    pub(super) fn on_arena(&mut self, msg: ClientMessage) {
        let r = self.requester();
        self.hand_off(r.arena(msg));
    }
}

impl Requester {
    fn arena_error(&self, e: &ArenaError) {
        self.out.error(e.code(), e.to_string(), None);
    }

    /// Handles one arena message; a watch or unwatch is noted by the loop.
    async fn arena(self, msg: ClientMessage) -> Done {
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
                Some(h) => match h.watch(me).await {
                    Ok(standings) => {
                        self.out.send(&ServerMessage::ArenaStandings { standings });
                        return Done::ArenaWatch(arena_id, true);
                    }
                    Err(e) => Err(e),
                },
            },
            ClientMessage::ArenaUnwatch { arena_id } => match self.app.arenas.get(&arena_id) {
                None => Err(ArenaError::NotFound),
                Some(h) => {
                    h.unwatch(me).await;
                    return Done::ArenaWatch(arena_id, false);
                }
            },
            _ => {
                self.out
                    .error(ErrorCode::Internal, "not an arena message", None);
                return Done::Nothing;
            }
        };
        match result {
            Ok(reply) => {
                self.out.send(&reply);
            }
            Err(e) => self.arena_error(&e),
        }
        Done::Nothing
    }
}
