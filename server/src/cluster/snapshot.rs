//! What a node stores of a live game after every event, enough for another node to go
//! on with it: the spec, the law's game (positions, offers, draw-rule tallies), the
//! clock with its lag compensators, the offers the actor keeps, and the wall-clock
//! instants that let the next owner map the clock onto its own timeline and give back
//! the time that ran while nobody owned the game.

use serde::{Deserialize, Serialize};
use shared::clock::{Clock, LagCompensator};
use shared::law;
use shared::protocol::{GameId, Outcome, TimeControl, UserInfo};
use shared::rules::{Color, Variant};

/// The clock's own state, without the node-local instant it counts from.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SavedClock {
    /// The shared clock.
    pub clock: Clock,
    /// White's and Black's lag compensators.
    pub lag: [LagCompensator; 2],
}

/// A live game as stored in Redis.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Snapshot {
    /// The game.
    pub id: GameId,
    /// Its variant.
    pub variant: Variant,
    /// Its clock.
    pub time_control: TimeControl,
    /// Rated or casual.
    pub rated: bool,
    /// White's player.
    pub white: UserInfo,
    /// Black's player.
    pub black: UserInfo,
    /// The start position, if not the variant's own.
    #[serde(default)]
    pub start_fen: Option<String>,
    /// Mean rating, for TV.
    pub rating: u32,
    /// Events so far.
    pub version: u64,
    /// The law's game.
    pub game: law::Game,
    /// An ending the law does not know (abandonment).
    pub external: Option<Outcome>,
    /// The clock.
    pub clock: SavedClock,
    /// Wall-clock ms of the clock's time zero.
    pub origin_ms: u64,
    /// Wall-clock ms when this snapshot was taken.
    pub saved_ms: u64,
    /// A pending takeback request.
    pub takeback_offer: Option<Color>,
    /// A pending rematch offer.
    pub rematch_offer: Option<Color>,
    /// The rematch has started.
    pub rematch_started: bool,
    /// The game is over.
    pub ended: bool,
    /// The finished game is in the archive.
    #[serde(default)]
    pub archived: bool,
}

/// A live game written to `shutdown.persist_dir` at a single node's shutdown: its
/// snapshot and its event log (JSON of each `game_event`), enough to resume it at the
/// next start.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Persisted {
    /// The game's state.
    pub snapshot: Snapshot,
    /// Every event so far, in order.
    pub events: Vec<String>,
}
