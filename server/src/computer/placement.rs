//! Computer games across nodes: each node advertises in Redis how many more computer
//! games it can hold (at every heartbeat, in the hash `{computer}:free`), and a node
//! whose own computer players are all busy asks the node with the most room to start
//! the game there instead, over a call on that node's `computer:<node>` channel. The
//! game then reaches the player like any game started elsewhere: its owner announces
//! it to the cluster and the player's sessions join it through the ordinary proxy.

use serde::{Deserialize, Serialize};
use shared::protocol::{ErrorCode, GameId, UserInfo};

use super::{Computer, ComputerError, ComputerRequest};
use crate::cluster::Cluster;
use crate::cluster::redis::wall_ms;

/// The question one node asks another: start this game against your computer.
#[derive(Debug, Serialize, Deserialize)]
pub struct PlaceRequest {
    /// The human player.
    pub human: UserInfo,
    /// The game asked for.
    pub request: ComputerRequest,
}

/// The answer: the game started there, or why not.
pub type PlaceAnswer = Result<GameId, (ErrorCode, String)>;

/// The channel on which `node` takes [`PlaceRequest`]s.
pub fn channel(cluster: &Cluster, node: &str) -> String {
    cluster.redis.channel(&format!("computer:{node}"))
}

fn free_key(cluster: &Cluster) -> String {
    cluster.redis.key("computer", "free")
}

/// Says in Redis how many more computer games this node can hold, as of now.
pub async fn advertise(cluster: &Cluster, computer: &Computer) {
    let value = format!("{} {}", computer.free_games(), wall_ms());
    let set = redis::cmd("HSET")
        .arg(free_key(cluster))
        .arg(&cluster.node)
        .arg(value)
        .clone();
    if let Err(e) = cluster.redis.query::<i64>(&set).await {
        tracing::debug!(error = %e, "cannot advertise the computer's room");
    }
}

/// The other nodes with room for a computer game, the roomiest first: those that
/// advertised within `fresh_ms`.
async fn nodes_with_room(cluster: &Cluster, fresh_ms: u64) -> Vec<String> {
    let all: Vec<(String, String)> = match cluster
        .redis
        .query(redis::cmd("HGETALL").arg(free_key(cluster)))
        .await
    {
        Ok(all) => all,
        Err(e) => {
            tracing::debug!(error = %e, "cannot read the computer's room");
            return Vec::new();
        }
    };
    let now = wall_ms();
    let mut room: Vec<(u64, String)> = all
        .into_iter()
        .filter(|(node, _)| *node != cluster.node)
        .filter_map(|(node, value)| {
            let (free, at) = value.split_once(' ')?;
            let (free, at) = (free.parse::<u64>().ok()?, at.parse::<u64>().ok()?);
            (free > 0 && now.saturating_sub(at) <= fresh_ms).then_some((free, node))
        })
        .collect();
    room.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    room.into_iter().map(|(_, node)| node).collect()
}

/// Starts the game on another node with room, trying them roomiest first; `Busy`
/// when none can.
pub async fn place_elsewhere(
    cluster: &Cluster,
    human: UserInfo,
    request: ComputerRequest,
) -> Result<GameId, ComputerError> {
    let ask = PlaceRequest { human, request };
    for node in nodes_with_room(cluster, cluster.config.node_ttl_ms).await {
        let answer = cluster
            .call::<_, PlaceAnswer>(&channel(cluster, &node), &ask)
            .await;
        match answer {
            Ok(Ok(game)) => {
                tracing::info!(game = %game, node = %node, "computer game placed on another node");
                cluster.metrics.computer_placed_elsewhere.inc();
                return Ok(game);
            }
            Ok(Err((ErrorCode::Busy, _))) => continue,
            Ok(Err((code, message))) => return Err(ComputerError::Elsewhere(code, message)),
            Err(e) => tracing::debug!(node = %node, error = %e, "computer placement call failed"),
        }
    }
    Err(ComputerError::Busy)
}
