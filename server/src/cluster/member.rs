//! This node as a member of the cluster: its name, Redis and bus, the channels it uses,
//! the calls it has in flight ([`super::rpc`]), the tracker its transport tasks run on,
//! and the broadcast of notices to users on other nodes ("your game started", "you were
//! challenged"). Transport only: what the node does with it
//! (heartbeats, takeover, recovery, handling the notices) is [`crate::node`]'s.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use shared::arena::{ArenaMe, ArenaStandings};
use shared::law::OfferRefusal;
use shared::protocol::{GameId, GameState, ServerMessage, UserId};
use shared::rules::Color;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::bus::Bus;
use super::redis::{Redis, RedisStoreError, first_url};
use crate::config::{ClusterConfig, RedisConfig};
use crate::metrics::Metrics;

/// Answers to this node's calls waiting to be matched to their call.
const REPLY_QUEUE: usize = 4_096;
/// Notices from other nodes waiting for [`crate::node`] (a wave of 10,000 players
/// starts 5,000 games at once, each a notice to every node).
pub const NOTICE_QUEUE: usize = 16_384;
/// Watchers per [`Broadcast::Standings`] notice.
pub const STANDINGS_CHUNK: usize = 500;

/// What a game's start notice carries for the players' nodes: enough to make the
/// game's proxy and to show its players `game_start` at once (`docs/cluster.md`,
/// "Game starts").
#[derive(Debug, Serialize, Deserialize)]
pub struct Started {
    /// The state its first write stored, as a spectator gets it (no legal moves, no
    /// draw offer permission): with the fields below, what a proxy needs of the game.
    pub state: GameState,
    /// The start position, if not the variant's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_fen: Option<String>,
    /// Berserk allowed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub berserk: bool,
    /// Mean rating, for TV.
    pub rating: u32,
    /// The legal moves of the side to move.
    pub legal: Vec<String>,
    /// White's and Black's draw offer permission (`None`: they may offer).
    pub refusals: [Option<OfferRefusal>; 2],
}

impl Started {
    /// The state as the player of `color` gets it.
    pub fn state_for(&self, color: Color) -> GameState {
        let mut state = self.state.clone();
        if state.turn == color {
            state.legal_moves = self.legal.clone();
        }
        state.draw_offer_refusal = Some(self.refusals[color.index()]);
        state
    }
}

/// A notice for users wherever they are connected.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Broadcast {
    /// A message for every session of `user`.
    Message {
        /// The sending node (which delivered it locally already).
        origin: String,
        /// To whom.
        user: UserId,
        /// What.
        msg: Box<ServerMessage>,
    },
    /// One arena's standings for many of its watchers (an organiser's push: a few
    /// notices of [`STANDINGS_CHUNK`] watchers, not one per watcher, so thousands of
    /// watchers do not flood every node's notice queue and crowd out game starts).
    Standings {
        /// The sending node (which delivered it locally already).
        origin: String,
        /// The part every watcher gets (`me` empty).
        standings: Box<ArenaStandings>,
        /// The watchers, each with their own line (if a player).
        me: Vec<(UserId, Option<ArenaMe>)>,
        /// When the organiser sent it (wall ms; 0 from older nodes), for the
        /// delivery histogram.
        #[serde(default)]
        at_ms: u64,
    },
    /// A game started: its players' sessions join it.
    GameStarted(GameStartedNotice),
    /// Tokens of `user` were ended: their WebSocket sessions close and their API
    /// streams end.
    SessionsEnded {
        /// The sending node (which closed its own sessions already).
        origin: String,
        /// Whose.
        user: UserId,
        /// Tokens issued before this instant (Unix ms); 0 for none.
        before_ms: i64,
        /// The SHA-256 of the one session token ended, if one was.
        token_hash: Option<String>,
        /// The id of the one personal token revoked, if one was (absent from older
        /// nodes).
        #[serde(default)]
        token_id: Option<String>,
    },
}

/// A game started, for the other nodes: its players' sessions there join it.
#[derive(Debug, Serialize, Deserialize)]
pub struct GameStartedNotice {
    /// The node that started it (which told its own sessions already).
    pub origin: String,
    /// The game.
    pub game_id: GameId,
    /// Its players.
    pub players: Vec<UserId>,
    /// When the game was created on its node (wall ms; 0 from older nodes), for
    /// the game-start histograms.
    #[serde(default)]
    pub at_ms: u64,
    /// The game as its first write stored it and the state its players start
    /// from (absent from older nodes, for tournament games and after a
    /// takeover): the players' nodes make its proxy from it without reading Redis,
    /// and show the players `game_start` without waiting for the owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Box<Started>>,
}

/// What a notice's head says: its kind and, for a game start, where it comes from and
/// whose game it is.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    origin: std::borrow::Cow<'a, str>,
    #[serde(default)]
    players: Vec<UserId>,
}

impl Broadcast {
    /// Reads a notice; a game start only if `wanted(origin, players)` (a node skips its
    /// own games and those of players it does not hold). A game start, by far the most
    /// frequent notice (an arena's wave starts thousands in a second, and every node
    /// reads each, one after another), is judged on its head before its state is read,
    /// and then read straight into its struct: an internally tagged enum first copies
    /// the whole notice into serde's generic buffer.
    pub fn decode(
        json: &str,
        wanted: impl FnOnce(&str, &[UserId]) -> bool,
    ) -> Result<Option<Broadcast>, serde_json::Error> {
        let head = serde_json::from_str::<Head<'_>>(json)?;
        if head.kind != "game_started" {
            return serde_json::from_str(json).map(Some);
        }
        if !wanted(&head.origin, &head.players) {
            return Ok(None);
        }
        serde_json::from_str(json).map(|n| Some(Broadcast::GameStarted(n)))
    }
}

/// The node's cluster membership.
pub struct Cluster {
    /// This node's name.
    pub node: String,
    /// Redis.
    pub redis: Redis,
    /// Pub/sub.
    pub bus: Bus,
    /// Timings.
    pub config: ClusterConfig,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// The transport's tasks (bus, answers) and every task serving or proxying a game
    /// over it; they end with the stop token given to [`Cluster::start`].
    pub tasks: TaskTracker,
    pending: Mutex<HashMap<u64, oneshot::Sender<String>>>,
    pub(super) next_req: AtomicU64,
    /// The nodes alive as this node's last heartbeat read them (none before it).
    alive: watch::Sender<Arc<AliveNodes>>,
}

/// The nodes alive as one heartbeat of this node read them.
#[derive(Debug, Default)]
pub struct AliveNodes {
    /// When the heartbeat was sent (none before the first): a node that was alive
    /// before then and is not in `nodes` is dead. A node not seen yet may be younger.
    asked_at: Option<Instant>,
    nodes: Vec<String>,
}

impl AliveNodes {
    /// Whether `node`, known alive at `since`, is dead by this reading.
    pub fn lost(&self, node: &str, since: Instant) -> bool {
        self.asked_at.is_some_and(|asked| asked > since) && !self.nodes.iter().any(|n| n == node)
    }
}

impl Cluster {
    /// Connects to Redis and joins the bus as `node`.
    pub async fn start(
        node: &str,
        redis_config: &RedisConfig,
        config: &ClusterConfig,
        metrics: Arc<Metrics>,
        stop: CancellationToken,
    ) -> Result<Arc<Cluster>, RedisStoreError> {
        let redis = Redis::connect(redis_config, metrics.clone()).await?;
        let tasks = TaskTracker::new();
        let bus = Bus::start(
            first_url(&redis_config.url),
            redis_config.timeout(),
            config.publish_batch,
            metrics.clone(),
            stop.clone(),
            tasks.clone(),
        )
        .await?;
        let cluster = Arc::new(Cluster {
            node: node.to_string(),
            redis,
            bus,
            config: config.clone(),
            metrics,
            tasks,
            pending: Mutex::new(HashMap::new()),
            next_req: AtomicU64::new(1),
            alive: watch::Sender::new(Arc::new(AliveNodes::default())),
        });
        let (tx, mut rx) = mpsc::channel::<String>(REPLY_QUEUE);
        cluster.bus.subscribe(cluster.node_channel(node), tx).await;
        let weak = Arc::downgrade(&cluster);
        cluster.tasks.spawn(async move {
            loop {
                let payload = tokio::select! {
                    () = stop.cancelled() => return,
                    p = rx.recv() => match p {
                        Some(p) => p,
                        None => return,
                    },
                };
                match weak.upgrade() {
                    Some(c) => c.on_reply(payload),
                    None => return,
                }
            }
        });
        Ok(cluster)
    }

    /// The nodes alive, as each heartbeat of this node reads them: for whoever holds
    /// something on behalf of another node (a remote player's presence in a game).
    pub fn alive_nodes(&self) -> watch::Receiver<Arc<AliveNodes>> {
        self.alive.subscribe()
    }

    /// A heartbeat of this node sent at `asked_at` read the nodes alive: receivers hear
    /// of every heartbeat (a node may have come and gone between two of them).
    pub fn set_alive(&self, asked_at: Instant, mut nodes: Vec<String>) {
        nodes.sort_unstable();
        self.alive.send_replace(Arc::new(AliveNodes {
            asked_at: Some(asked_at),
            nodes,
        }));
    }

    pub(super) fn pending(&self) -> MutexGuard<'_, HashMap<u64, oneshot::Sender<String>>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where a game's owner listens for commands.
    pub fn cmd_channel(&self, game: &GameId) -> String {
        self.redis.channel(&format!("cmd:{game}"))
    }

    /// Where a game's owner publishes its events.
    pub fn ev_channel(&self, game: &GameId) -> String {
        self.redis.channel(&format!("ev:{game}"))
    }

    /// Where a node gets the answers to its calls.
    pub fn node_channel(&self, node: &str) -> String {
        self.redis.channel(&format!("node:{node}"))
    }

    /// Where nodes send each other [`Broadcast`]s.
    pub fn notify_channel(&self) -> String {
        self.redis.channel("notify")
    }

    /// Sends a notice to the other nodes.
    pub fn broadcast(&self, notice: &Broadcast) {
        if let Ok(json) = serde_json::to_string(notice) {
            self.bus.publish(self.notify_channel(), json);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_start_is_judged_on_its_head_then_read_straight_into_its_struct() {
        let notice = Broadcast::GameStarted(GameStartedNotice {
            origin: "n1".into(),
            game_id: GameId("g1".into()),
            players: vec![UserId("a".into()), UserId("b".into())],
            at_ms: 42,
            start: None,
        });
        let json = serde_json::to_string(&notice).unwrap();
        assert!(
            json.starts_with(r#"{"kind":"game_started","origin":"n1""#),
            "{json}"
        );
        let Ok(Some(Broadcast::GameStarted(read))) = Broadcast::decode(&json, |origin, players| {
            origin == "n1" && players.len() == 2
        }) else {
            panic!("not read back: {json}");
        };
        assert_eq!(
            (read.game_id.0.as_str(), read.at_ms, read.players.len()),
            ("g1", 42, 2)
        );
        // A game start nobody here wants is left unread past its head (its body
        // is never parsed: a broken one does not show).
        let unwanted = json.replace(r#""at_ms":42"#, r#""at_ms":"broken""#);
        assert!(matches!(
            Broadcast::decode(&unwanted, |_, _| false),
            Ok(None)
        ));
        assert!(Broadcast::decode(&unwanted, |_, _| true).is_err());
        // The other kinds go through the tagged enum as before, whatever `wanted`
        // says; junk is an error.
        let ended =
            r#"{"kind":"sessions_ended","origin":"n1","user":"a","before_ms":5,"token_hash":null}"#;
        assert!(matches!(
            Broadcast::decode(ended, |_, _| false),
            Ok(Some(Broadcast::SessionsEnded { before_ms: 5, .. }))
        ));
        assert!(
            Broadcast::decode(r#"{"kind":"game_started","origin":"n1"}"#, |_, _| true).is_err()
        );
        assert!(Broadcast::decode("not json", |_, _| true).is_err());
    }

    #[test]
    fn a_node_is_lost_only_to_a_heartbeat_sent_after_it_was_heard_from() {
        let t0 = Instant::now();
        let later = t0 + std::time::Duration::from_millis(300);
        let before_any = AliveNodes::default();
        assert!(!before_any.lost("b", t0));
        let read = |asked_at, nodes: &[&str]| AliveNodes {
            asked_at: Some(asked_at),
            nodes: nodes.iter().map(|n| n.to_string()).collect(),
        };
        // Asked before b's join reached us: b may have started since.
        assert!(!read(t0, &["a"]).lost("b", later));
        // Asked after: b is dead.
        assert!(read(later, &["a"]).lost("b", t0));
        assert!(!read(later, &["a", "b"]).lost("b", t0));
    }
}
