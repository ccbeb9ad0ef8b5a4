//! The damka server: HTTP and WebSocket sessions in front of one actor per live game.
//!
//! - [`config`]: embedded defaults, file and `DAMKA_*` environment overrides.
//! - [`auth`]: JWT validation and guest tokens.
//! - [`net`]: the router, the OpenAPI document, the server's lifetime and shutdown.
//! - [`session`]: one task per connection: limits, decoding, relaying.
//! - [`game`]: the game actor, its handle and the registry of live games.
//! - [`arena`]: blitz arenas: one organiser actor per arena, pairing in waves.
//! - [`lobby`], [`presence`]: seeks, challenges, pools; who is online. Traits with
//!   in-memory implementations.
//! - [`cluster`]: several nodes over Redis, the transport: bus, calls, leases, snapshots.
//! - [`node`]: this node's duties in the cluster: heartbeats, takeover, recovery.
//! - [`hub`]: this node's sessions by user.
//! - [`tournament`]: IDF competitions: organisers, their records and store, PDN export.
//! - [`chat`]: chat rooms (a game's players and spectators, arenas, tournaments):
//!   lines stored, then shown on every node; blocks, reports, moderators.
//! - [`computer`]: playing the computer: its seat in a game, the engines, their capacity.
//! - [`app`]: the shared state tying them together; [`setup`]: starting games (checks,
//!   challenges) for every door; [`feed`]: gathering the lobby feed the home page shows.
//! - [`tokens`]: personal API tokens and their scopes.
//! - [`metrics`]: Prometheus counters.
//! - [`web`]: the browser client, embedded in the binary.
//! - [`db`]: players, ratings and the game archive (PostgreSQL or SQLite via sqlx).
//! - [`rating`]: Glicko-2 per perf; [`accounts`]: names, passwords, login limits.
//! - [`api`]: the HTTP handlers (the API, guest tokens, tournaments, TV, `/ws`, health and
//!   metrics); [`export`]: PDN and PGN.
//! - [`ids`]: random game ids, for the lobby's challenges and the registry alike.
#![warn(missing_docs)]

pub mod accounts;
pub mod api;
pub mod app;
pub mod arena;
pub mod auth;
pub mod chat;
pub mod cluster;
pub mod computer;
pub mod config;
pub mod db;
pub mod export;
pub mod feed;
pub mod game;
pub mod hub;
pub mod ids;
pub mod lobby;
pub mod metrics;
pub mod net;
pub mod node;
pub mod presence;
pub mod rating;
pub mod session;
pub mod setup;
pub mod tokens;
pub mod tournament;
pub mod web;

pub use config::Config;
pub use net::{ServeError, Server};
