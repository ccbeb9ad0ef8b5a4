//! What clients see of an arena on the wire: its description ([`ArenaInfo`]), a
//! standings update ([`ArenaStandings`]: a page of the leaderboard, the player's own line
//! and sheet, how many play, the featured game) and a player's membership.

use serde::{Deserialize, Serialize};

use super::sheet::{Entry, Standing};
use crate::clock::spec::TimeControl;
use crate::ids::GameId;
use crate::law::RulesetId;
use crate::rules::Variant;

/// Where an arena is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArenaStatus {
    /// Not started: players may join.
    Upcoming,
    /// Pairing.
    Running,
    /// Over: the standings are final.
    Finished,
}

/// An arena as listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaInfo {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The game.
    pub variant: Variant,
    /// The rule set, when the variant has several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruleset: Option<RulesetId>,
    /// The clock of every game.
    pub time_control: TimeControl,
    /// Rated games.
    pub rated: bool,
    /// Start, Unix milliseconds.
    pub starts_at_ms: u64,
    /// Length in milliseconds.
    pub duration_ms: u64,
    /// Berserk allowed.
    pub berserk: bool,
    /// Rated games needed in the arena's perf to join.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub min_games: u32,
    /// Lowest rating allowed to join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rating: Option<u32>,
    /// Highest rating allowed to join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rating: Option<u32>,
    /// A password is needed to join.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub private: bool,
    /// Who created it (`schedule` for the operator's recurring arenas).
    pub created_by: String,
    /// Where it is in its life.
    pub status: ArenaStatus,
    /// Players who joined.
    pub players: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A player's relation to an arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Membership {
    /// In the arena, paired when waiting.
    Active,
    /// In the standings but not paired until joining again.
    Paused,
    /// Left before any game: off the standings.
    Withdrawn,
}

/// The player's own place, sent to each subscriber who plays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaMe {
    /// The standings line.
    pub standing: Standing,
    /// Every finished game with its points and why.
    pub sheet: Vec<Entry>,
    /// Active or paused.
    pub membership: Membership,
    /// The game being played now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_id: Option<GameId>,
    /// When the next pairing wave runs (Unix ms), if the player waits for a game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_wave_at_ms: Option<u64>,
}

/// A standings update.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArenaStandings {
    /// The arena.
    pub arena_id: String,
    /// Where it is in its life.
    pub status: ArenaStatus,
    /// Milliseconds until the end (until the start while upcoming).
    pub remaining_ms: u64,
    /// Players in the standings.
    pub players: u32,
    /// Players in a game now.
    pub playing: u32,
    /// The first page of the leaderboard.
    pub top: Vec<Standing>,
    /// The subscriber's own line, if they play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub me: Option<ArenaMe>,
    /// The game to watch: the live game of the best-ranked players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub featured: Option<GameId>,
}
