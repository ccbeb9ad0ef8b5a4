//! Several nodes acting as one server, through Redis: the connection ([`redis`]), the
//! pub/sub bus ([`bus`]), game ownership by lease with fenced writes ([`lease`]), the
//! stored state of a live game ([`snapshot`]), games owned by other nodes reached
//! through proxies ([`remote`]), and the node's background duties: heartbeats,
//! renewals, takeover of dead nodes' games, recovery when Redis returns ([`node`]); the
//! organiser lease that lets one node at a time run a tournament or an arena
//! ([`organiser`]).
//! `docs/cluster.md` explains the design.

pub mod bus;
pub mod lease;
pub mod node;
pub mod organiser;
pub mod redis;
pub mod remote;
pub mod snapshot;
