//! damka-loadtest: bots that open many WebSocket connections to a damka server, pair
//! through its lobby and play legal games of every variant, and the same bots against
//! a bare relay, so that every scenario reports damka / relay ratios from one run.
//!
//! - [`target`], [`net`], [`http`]: loopback-only addresses, client sockets, guest tokens.
//! - [`game`]: a bot's copy of a game (rules, versions, send times).
//! - [`bot`], [`damka`], [`relaybot`]: the bots.
//! - [`botapi`]: bots playing over the HTTP Bot API (game streams and move POSTs),
//!   measured against the same games over the WebSocket.
//! - [`relay`], [`relaylink`]: the bare relay baseline server, and its processes
//!   linked through Redis (the multinode scenario's baseline).
//! - [`plan`], [`run`]: what a scenario asks for, and running it.
//! - [`arena`]: the arena scenario (one arena, every bot in it).
//! - [`arena_kill`]: the arena on three nodes, its organiser's node killed mid-arena;
//!   what the final standings kept, checked against the archive.
//! - [`computer`]: players of the computer, keeping a node's engine threads busy
//!   beside a scenario's games (`--computer-games`).
//! - [`chaos`]: the chaos scenario (three nodes, a node killed and Redis restarted
//!   during play; games and moves lost).
//! - [`stats`], [`procmem`], [`report`]: what is measured and how it is reported.
//! - [`spawn`]: starting damka nodes and the relay as child processes.
#![warn(missing_docs)]

pub mod arena;
pub mod arena_kill;
pub mod bot;
pub mod botapi;
pub mod chaos;
pub mod computer;
pub mod damka;
pub mod game;
pub mod http;
pub mod net;
pub mod plan;
pub mod procmem;
pub mod relay;
pub mod relaybot;
pub mod relaylink;
pub mod report;
pub mod run;
pub mod spawn;
pub mod stats;
pub mod target;
