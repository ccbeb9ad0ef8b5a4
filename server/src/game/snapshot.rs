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
    /// The tournament the game belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
    /// The arena the game belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena: Option<String>,
    /// Berserk allowed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub berserk: bool,
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

/// What a write stores besides the events and the law's new actions: everything of a
/// [`Snapshot`] that changes during a game, except the law's game (kept as the
/// snapshot's game followed by the actions appended since). Small, and the same size
/// at every move.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tail {
    /// Events so far.
    pub version: u64,
    /// The law's actions so far (the snapshot's and the appended ones).
    pub actions: usize,
    /// The law's outcome, checked when the actions are replayed.
    pub outcome: Option<law::Outcome>,
    /// An ending the law does not know (abandonment).
    pub external: Option<Outcome>,
    /// The clock.
    pub clock: SavedClock,
    /// Wall-clock ms of the clock's time zero.
    pub origin_ms: u64,
    /// Wall-clock ms when this was written.
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
    pub archived: bool,
}

/// A stored game that cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum StoredError {
    /// A JSON value does not parse.
    #[error("unreadable {what}: {error}")]
    Json {
        /// Which part.
        what: &'static str,
        /// Why.
        error: serde_json::Error,
    },
    /// The appended actions do not replay onto the snapshot's game.
    #[error("the stored actions do not replay: {0}")]
    Replay(String),
}

impl Snapshot {
    /// The snapshot a game's stored parts make: the last whole snapshot, the law's
    /// actions appended since (JSON) and the latest [`Tail`] (JSON; none: the
    /// snapshot is the latest state).
    pub fn from_parts(
        snapshot: &str,
        tail: Option<&str>,
        acts: &[String],
    ) -> Result<Snapshot, StoredError> {
        let json = |what| move |error| StoredError::Json { what, error };
        let mut s: Snapshot = serde_json::from_str(snapshot).map_err(json("snapshot"))?;
        let Some(tail) = tail else {
            return Ok(s);
        };
        let p: Tail = serde_json::from_str(tail).map_err(json("tail"))?;
        if !acts.is_empty() || s.game.actions().len() != p.actions {
            let mut record = s.game.record();
            for a in acts {
                record
                    .actions
                    .push(serde_json::from_str(a).map_err(json("action"))?);
            }
            if record.actions.len() != p.actions {
                return Err(StoredError::Replay(format!(
                    "{} actions stored, {} written",
                    record.actions.len(),
                    p.actions
                )));
            }
            record.moves.clear();
            record.outcome = p.outcome;
            s.game = record
                .replay()
                .map_err(|e| StoredError::Replay(e.to_string()))?;
        }
        s.version = p.version;
        s.external = p.external;
        s.clock = p.clock;
        s.origin_ms = p.origin_ms;
        s.saved_ms = p.saved_ms;
        s.takeback_offer = p.takeback_offer;
        s.rematch_offer = p.rematch_offer;
        s.rematch_started = p.rematch_started;
        s.ended = p.ended;
        s.archived = p.archived;
        Ok(s)
    }
}
