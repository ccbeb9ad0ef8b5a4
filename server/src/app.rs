//! The application state every handler and session shares, and the few operations that
//! span several parts (starting a game from a seek, challenge or pool pairing; pairing
//! pools on a timer).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use shared::protocol::{ColorChoice, GameId, ServerMessage, UserInfo};
use shared::rules::{Position, Variant};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::accounts::Limits;
use crate::arena::{ArenaDeps, Arenas, Notify, NotifyStandings};
use crate::auth::{AuthError, Authenticator};
use crate::chat::Chat;
use crate::chat::access::Places;
use crate::cluster::member::STANDINGS_CHUNK;
use crate::cluster::{Broadcast, Cluster};
use crate::config::{Config, ConfigError};
use crate::db::Db;
use crate::game::mirror::Mirror;
use crate::game::redis_store::GameStore;
use crate::game::registry::RegistryParts;
use crate::game::store::LiveStore;
use crate::game::{GameError, GameHandle, GameRegistry, GameSpec};
use crate::hub::{ConnId, Hub, Notice, StartedGame};
use crate::lobby::memory::MemoryLobby;
use crate::lobby::redis::RedisLobby;
use crate::lobby::{Lobby, Pairing, Proposal, Window};
use crate::metrics::Metrics;
use crate::presence::Presence;
use crate::presence::memory::MemoryPresence;
use crate::presence::redis::RedisPresence;
use crate::tournament::Tournaments;
use crate::tournament::store::DbStore;

/// Why the application could not be built.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Bad configuration.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Unusable auth keys.
    #[error(transparent)]
    Auth(#[from] AuthError),
}

/// Shared state.
pub struct App {
    /// The configuration.
    pub config: Arc<Config>,
    /// Token checking.
    pub auth: Authenticator,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// Local sessions by user.
    pub hub: Arc<Hub>,
    /// Seeks, challenges and pools.
    pub lobby: Arc<dyn Lobby>,
    /// Who is online.
    pub presence: Arc<dyn Presence>,
    /// Live games.
    pub games: Arc<GameRegistry>,
    /// One permit per WebSocket session.
    pub connections: Arc<Semaphore>,
    /// Cancelled when shutdown begins: stop accepting, let games finish.
    pub draining: CancellationToken,
    /// Cancelled when the grace period is over: close every session, persist games.
    pub stopping: CancellationToken,
    /// Every session, game actor and background task, for shutdown to wait on.
    pub tracker: TaskTracker,
    /// Several nodes: Redis (none: this node serves alone).
    pub cluster: Option<Arc<Cluster>>,
    /// Players, ratings and the game archive.
    pub db: Db,
    /// Rate limits on logins and registrations.
    pub limits: Arc<Limits>,
    /// IDF competitions.
    pub tournaments: Tournaments,
    /// Blitz arenas on this node.
    pub arenas: Arc<Arenas>,
    /// The computer players.
    pub computer: Arc<crate::computer::Computer>,
    /// The lobby feed's subscribers on this node (gathered by [`crate::feed`]).
    pub feed: Arc<crate::lobby::feed::Feed>,
    /// Chat rooms.
    pub chat: Arc<Chat>,
    next_conn: AtomicU64,
}

impl App {
    /// Builds the state: with a cluster, the Redis lobby and presence; else the
    /// in-memory ones. `stopping` is the token the cluster's tasks already watch;
    /// `auth` is made from `config.auth` ([`Authenticator::load`]).
    pub fn build(
        config: Config,
        auth: Authenticator,
        cluster: Option<Arc<Cluster>>,
        metrics: Arc<Metrics>,
        stopping: CancellationToken,
        db: Db,
    ) -> Result<Arc<App>, AppError> {
        let hub = Arc::new(Hub::default());
        let presence: Arc<dyn Presence> = match &cluster {
            Some(c) => Arc::new(RedisPresence::new(
                c.redis.clone(),
                &c.node,
                config.cluster.node_ttl_ms,
            )),
            None => Arc::new(MemoryPresence::default()),
        };
        let window = Window {
            base: config.lobby.pool_window,
            growth_per_sec: config.lobby.pool_window_growth_per_sec,
            max: config.lobby.pool_window_max,
            default_rating: config.lobby.default_rating,
        };
        let pools = config.lobby.parsed_pools()?;
        let max_seeks = config.lobby.max_seeks_per_user;
        let lobby: Arc<dyn Lobby> = match &cluster {
            Some(c) => Arc::new(RedisLobby::new(c.redis.clone(), pools, window, max_seeks)),
            None => Arc::new(MemoryLobby::new(pools, window, max_seeks)),
        };
        let tracker = TaskTracker::new();
        let game_store = cluster.as_deref().map(|c| Arc::new(GameStore::of(c)));
        let games = GameRegistry::new(RegistryParts {
            config: config.game.clone(),
            metrics: metrics.clone(),
            announce: {
                let hub = hub.clone();
                Arc::new(move |user, handle, start| {
                    hub.notify(user, || {
                        Notice::GameStarted(Box::new(StartedGame {
                            handle: handle.clone(),
                            start: start.cloned(),
                        }))
                    });
                })
            },
            presence: presence.clone(),
            tracker: tracker.clone(),
            shutdown: stopping.clone(),
            live: cluster
                .is_none()
                .then(|| LiveStore::start(db.clone(), metrics.clone(), &tracker, stopping.clone())),
            mirror: game_store
                .clone()
                .filter(|_| config.cluster.mirror_ms > 0)
                .map(|store| {
                    Mirror::start(
                        db.clone(),
                        store,
                        metrics.clone(),
                        Duration::from_millis(config.cluster.mirror_ms),
                        &tracker,
                        stopping.clone(),
                    )
                }),
            default_rating: config.lobby.default_rating,
            cluster: cluster.clone(),
            store: game_store,
            archive: crate::game::archive::ArchiveSink {
                db: db.clone(),
                wait: Duration::from_millis(config.database.archive_wait_ms),
                retry_max: Duration::from_millis(config.database.retry_max_ms),
            },
        });
        let tournaments = Tournaments::new(
            Arc::new(DbStore::new(db.clone())),
            PathBuf::from(&config.tournaments.ballot_dir),
            cluster.as_ref().map(|c| {
                crate::cluster::organiser::OrganiserLeases::new(
                    c.redis.clone(),
                    "tournament",
                    &c.node,
                    config.cluster.lease_ms,
                )
            }),
        );
        let notify: Notify = {
            let (hub, cluster) = (hub.clone(), cluster.clone());
            Arc::new(move |user, msg| notify(&hub, cluster.as_deref(), user, msg))
        };
        let notify_standings: NotifyStandings = {
            let (hub, cluster) = (hub.clone(), cluster.clone());
            Arc::new(move |base, lines| notify_standings(&hub, cluster.as_deref(), base, lines))
        };
        let arenas = Arenas::new(ArenaDeps {
            config: config.arena.clone(),
            games: games.clone(),
            db: db.clone(),
            notify,
            notify_standings,
            tracker: tracker.clone(),
            shutdown: stopping.clone(),
            metrics: metrics.clone(),
            cluster: crate::arena::ArenaCluster::of(cluster.as_deref(), &config),
        });
        let computer = crate::computer::Computer::new(
            config.computer.clone(),
            metrics.clone(),
            tracker.clone(),
            stopping.clone(),
            db.clone(),
        );
        let chat = Chat::new(config.chat.clone(), db.clone(), cluster.clone());
        Ok(Arc::new(App {
            feed: Arc::default(),
            chat,
            arenas,
            computer,
            tournaments,
            auth,
            connections: Arc::new(Semaphore::new(config.max_connections)),
            metrics,
            hub,
            lobby,
            presence,
            games,
            draining: CancellationToken::new(),
            stopping,
            tracker,
            cluster,
            limits: Limits::new(&config.accounts),
            db,
            next_conn: AtomicU64::new(1),
            config: Arc::new(config),
        }))
    }

    /// Sends `msg` to every session of `user`, on this node and (with Redis) others.
    pub fn notify_user(&self, user: &shared::protocol::UserId, msg: ServerMessage) {
        notify(&self.hub, self.cluster.as_deref(), user, msg);
    }

    /// Where chat rooms live, for [`crate::chat::access`].
    pub fn places(&self) -> Places<'_> {
        Places {
            games: &self.games,
            arenas: &self.arenas,
            tournaments: &self.tournaments,
            db: &self.db,
        }
    }

    /// Closes the WebSocket sessions and ends the API streams of `user` whose tokens
    /// were `ended`: this node's at once, and with Redis every other node's.
    pub fn end_sessions(&self, user: &shared::protocol::UserId, ended: crate::hub::Ended) {
        if let Some(cluster) = &self.cluster {
            cluster.broadcast(&Broadcast::SessionsEnded {
                origin: cluster.node.clone(),
                user: user.clone(),
                before_ms: ended.before_ms,
                token_hash: ended.token_hash.clone(),
                token_id: ended.token_id.clone(),
            });
        }
        self.hub.end(user, &ended);
    }

    /// A new session id.
    pub fn next_conn_id(&self) -> ConnId {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// Starts a game between the proposer (who chose `proposal.color`) and `other`.
    pub fn start_game(
        &self,
        proposer: UserInfo,
        other: UserInfo,
        proposal: &Proposal,
    ) -> Result<GameHandle, GameError> {
        self.start_game_as(proposer, other, proposal, None)
    }

    /// [`App::start_game`] under the id chosen beforehand, if any (a challenge's).
    pub fn start_game_as(
        &self,
        proposer: UserInfo,
        other: UserInfo,
        proposal: &Proposal,
        id: Option<GameId>,
    ) -> Result<GameHandle, GameError> {
        let proposer_white = match proposal.color {
            ColorChoice::White => true,
            ColorChoice::Black => false,
            ColorChoice::Random => coin(),
        };
        let (white, black) = if proposer_white {
            (proposer, other)
        } else {
            (other, proposer)
        };
        // Chess960 games start from one of the 960 arrays at random (FIDE App. F.1).
        let start_fen = match (&proposal.fen, proposal.variant) {
            (Some(fen), _) => Some(fen.clone()),
            (None, Variant::Chess960) => Position::start960(getrandom::u32().unwrap_or(518) % 960)
                .ok()
                .map(|p| p.fen()),
            (None, _) => None,
        };
        let spec = GameSpec {
            variant: proposal.variant,
            time_control: proposal.time_control,
            rated: proposal.rated,
            white,
            black,
            start_fen,
            ruleset: proposal.ruleset,
            tournament: None,
            arena: None,
            berserk: false,
        };
        match id {
            Some(id) => self.games.start_with_id(id, spec),
            None => self.games.start(spec),
        }
    }

    /// Starts the game of a pool pairing.
    pub fn start_pairing(&self, pairing: Pairing) {
        let proposal = Proposal {
            variant: pairing.first.variant,
            time_control: pairing.first.time_control,
            rated: pairing.first.rated,
            color: ColorChoice::Random,
            fen: None,
            ruleset: None,
            rating_range: None,
        };
        let (a, b) = (pairing.first.user, pairing.second.user);
        if let Err(e) = self.start_game(a.clone(), b.clone(), &proposal) {
            for user in [&a, &b] {
                self.notify_user(&user.id, ServerMessage::error(e.code(), e.to_string()));
            }
        }
    }

    /// Pairs pool entries whose windows have widened, every `lobby.pool_tick_ms`,
    /// until shutdown begins.
    pub async fn run_pool_pairing(self: Arc<Self>) {
        let mut tick = tokio::time::interval(Duration::from_millis(self.config.lobby.pool_tick_ms));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = self.draining.cancelled() => return,
                _ = tick.tick() => {}
            }
            match self
                .lobby
                .pair_pools(crate::cluster::redis::wall_ms())
                .await
            {
                Ok(pairings) => pairings.into_iter().for_each(|p| self.start_pairing(p)),
                Err(e) => tracing::warn!(error = %e, "pool pairing failed"),
            }
        }
    }
}

/// Sends `msg` to every session of `user`: this node's, and with Redis every other
/// node's.
fn notify(
    hub: &Hub,
    cluster: Option<&Cluster>,
    user: &shared::protocol::UserId,
    msg: ServerMessage,
) {
    if let Some(cluster) = cluster {
        cluster.broadcast(&Broadcast::Message {
            origin: cluster.node.clone(),
            user: user.clone(),
            msg: Box::new(msg.clone()),
        });
    }
    hub.notify(user, || Notice::message(msg.clone()));
}

/// Sends one arena's standings to `lines`' users: this node's sessions, and with Redis
/// every other node's, [`STANDINGS_CHUNK`] users per notice.
fn notify_standings(
    hub: &Hub,
    cluster: Option<&Cluster>,
    base: shared::arena::ArenaStandings,
    lines: Vec<(shared::protocol::UserId, Option<shared::arena::ArenaMe>)>,
) {
    if let Some(cluster) = cluster {
        for chunk in lines.chunks(STANDINGS_CHUNK) {
            cluster.broadcast(&Broadcast::Standings {
                origin: cluster.node.clone(),
                standings: Box::new(base.clone()),
                me: chunk.to_vec(),
                at_ms: crate::cluster::redis::wall_ms(),
            });
        }
    }
    hub.notify_standings(&base, &lines);
}

/// A fair coin from the OS (heads if randomness is unavailable).
fn coin() -> bool {
    getrandom::u32().map_or(true, |r| r & 1 == 0)
}

impl crate::tournament::Host for App {
    fn draining(&self) -> &CancellationToken {
        &self.draining
    }
    fn tracker(&self) -> &TaskTracker {
        &self.tracker
    }
    fn db(&self) -> &Db {
        &self.db
    }
    fn hub(&self) -> &Hub {
        &self.hub
    }
    fn games(&self) -> &Arc<GameRegistry> {
        &self.games
    }
    fn cluster(&self) -> Option<&Arc<Cluster>> {
        self.cluster.as_ref()
    }
    fn tournaments(&self) -> &Tournaments {
        &self.tournaments
    }
    fn notify_user(&self, user: &shared::protocol::UserId, msg: ServerMessage) {
        App::notify_user(self, user, msg);
    }
}
