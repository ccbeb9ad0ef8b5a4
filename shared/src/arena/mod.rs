//! Blitz arenas as pure logic, no I/O: the scoring [`sheet`] of each player (points per
//! game, streaks, berserk, draw runs, performance rating, the standings order) and the
//! wave [`pairing`] of waiting players by rank; the [`view`] clients get on the wire. The server's organiser feeds them game
//! results and waiting players; every number it shows can be recomputed from here.

pub mod pairing;
pub mod sheet;
pub mod view;

#[cfg(test)]
mod tests;

pub use pairing::{Pair, Waiting, estimated_game_ms, pair_wave, pairing_open};
pub use sheet::{ArenaResult, Entry, Flag, GameFor, LONG_DRAW_PLIES, Sheet, Standing, rank};
pub use view::{ArenaInfo, ArenaMe, ArenaStandings, ArenaStatus, Membership};
