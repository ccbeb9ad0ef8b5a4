//! Several nodes acting as one server, through Redis: the transport only. The
//! connection ([`redis`]), the pub/sub bus ([`bus`]), calls between nodes over it
//! ([`rpc`]), the lease token `<fence>:<node>` ([`lease`]), this node's membership:
//! name, channels, notices to other nodes ([`member`]); the organiser lease that lets
//! one node at a time run a tournament or an arena ([`organiser`]). Nothing here knows
//! games, sessions or the application: what runs over the transport lives above it
//! (games' ownership and stored state in Redis: `game::redis_store` and
//! `game::snapshot`; games served to and proxied from other nodes: `game::remote`; the
//! node's duties: `node`).
//! `docs/cluster.md` explains the design.

pub mod bus;
pub mod lease;
pub mod member;
pub mod organiser;
pub mod redis;
pub mod rpc;

pub use member::{Broadcast, Cluster};
