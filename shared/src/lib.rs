//! damka's shared library: everything both the server and its clients must agree on.
//!
//! - [`ids`]: the identifiers of users and games.
//! - [`arena`]: blitz arena scoring sheets and wave pairing.
//! - [`rules`]: move generation, move application, notation and FEN for every draughts
//!   variant of the rule texts, and chess behind the same game-level interface.
//! - [`law`]: the game record above a position: outcomes with typed reasons, every draw
//!   rule of the texts as data per rule set, draw offers, rapid and blitz rules.
//! - [`clock`]: time controls, categories and presets, the game clock state machine, and
//!   lag compensation.
//! - [`protocol`]: the typed, versioned JSON messages between clients and the server.
//! - [`tournament`]: competitions by section II of the IDF rules: pairing systems,
//!   micro-matches, ballots, forfeits, withdrawals and tie-breaks.
//!
//! Nothing in this crate does I/O or reads the system time: it is driven entirely by the
//! values passed in, so the server, the load-test bots and the tests share one truth.

pub mod arena;
pub mod clock;
pub mod ids;
pub mod law;
pub mod protocol;
pub mod rules;
pub mod tournament;
