//! damka-loadtest: bots that open many WebSocket connections to a damka server, pair
//! through its lobby and play legal games of every variant, and the same bots against
//! a bare relay, so that every scenario reports damka / relay ratios from one run.
//!
//! - [`target`], [`net`], [`http`]: loopback-only addresses, client sockets, guest tokens.
//! - [`game`]: a bot's copy of a game (rules, versions, send times).
//! - [`bot`], [`damka`], [`relaybot`]: the bots.
//! - [`relay`]: the bare relay baseline server.
//! - [`plan`], [`run`]: what a scenario asks for, and running it.
//! - [`arena`]: the arena scenario (one arena, every bot in it).
//! - [`chaos`]: the chaos scenario (three nodes, a node killed and Redis restarted
//!   during play; games and moves lost).
//! - [`stats`], [`procmem`], [`report`]: what is measured and how it is reported.
//! - [`spawn`]: starting damka nodes and the relay as child processes.
#![warn(missing_docs)]

pub mod arena;
pub mod bot;
pub mod chaos;
pub mod damka;
pub mod game;
pub mod http;
pub mod net;
pub mod plan;
pub mod procmem;
pub mod relay;
pub mod relaybot;
pub mod report;
pub mod run;
pub mod spawn;
pub mod stats;
pub mod target;
