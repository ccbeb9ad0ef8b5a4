//! What clients see of a tournament: the live view sent in `tournament` messages and
//! served by `GET /api/tournaments/{id}`, and the summary `GET /api/tournaments` lists.
//! Players are referred to by their seed (1-based pairing number).

use serde::{Deserialize, Serialize};

use super::types::{TournamentId, UserInfo};
use crate::clock::spec::TimeControl;
use crate::ids::GameId;
use crate::law::GameResult;
use crate::rules::Variant;
use crate::tournament::Absence;

/// Where a tournament is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    /// Created, first round not started.
    Upcoming,
    /// Rounds are being played.
    Running,
    /// Every round is over.
    Finished,
}

/// One line of `GET /api/tournaments`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentSummary {
    /// The id.
    pub id: TournamentId,
    /// The name.
    pub name: String,
    /// `round_robin`, `swiss`, `knockout` or `scheveningen`.
    pub system: String,
    /// The game.
    pub variant: Variant,
    /// The clock of every game.
    pub time_control: TimeControl,
    /// Upcoming, running or finished.
    pub status: TournamentStatus,
    /// How many players.
    pub players: u32,
    /// Rounds started so far.
    pub round: u32,
    /// Rounds in all.
    pub rounds: u32,
    /// Whether a round is being played now.
    pub round_in_progress: bool,
}

/// A registered player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentPlayer {
    /// 1-based pairing number.
    pub seed: u32,
    /// Who.
    pub user: UserInfo,
    /// Left the competition (art. 18.2).
    pub withdrawn: bool,
    /// Results annulled (art. 18.2.1): not in the standings.
    pub annulled: bool,
}

/// One game of an encounter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentGame {
    /// The live or archived game.
    pub game_id: GameId,
    /// White's seed.
    pub white: u32,
    /// Black's seed.
    pub black: u32,
    /// The result once over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
}

/// One pairing of a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentMatch {
    /// The first game's White (seed).
    pub white: u32,
    /// The first game's Black (seed).
    pub black: u32,
    /// The ballot entry drawn for this micro-match, if the tournament uses a ballot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening: Option<u32>,
    /// Games started so far.
    pub games: Vec<TournamentGame>,
    /// Lost by absence (art. 17).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<Absence>,
    /// Whether the encounter has its result.
    pub finished: bool,
}

/// One round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentRound {
    /// 1-based.
    pub number: u32,
    /// Pairings in board order.
    pub matches: Vec<TournamentMatch>,
    /// The seed with the bye.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bye: Option<u32>,
}

/// A tie-break value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TieBreakValue {
    /// Short name (`SB`, `Bh`, `Cut1`...).
    pub name: String,
    /// Its value.
    pub value: i64,
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentStanding {
    /// First place of the line (shared places repeat it).
    pub place: u32,
    /// Last place of a shared place.
    pub place_to: u32,
    /// The player's seed.
    pub seed: u32,
    /// Points.
    pub score: u32,
    /// Tie-break values in the order applied.
    pub tiebreaks: Vec<TieBreakValue>,
    /// An extra match decides (equal after every criterion, or 20.1.2).
    pub playoff: bool,
}

/// The whole live picture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentView {
    /// Summary.
    pub summary: TournamentSummary,
    /// Players by seed.
    pub players: Vec<TournamentPlayer>,
    /// Rounds started so far.
    pub rounds: Vec<TournamentRound>,
    /// Standings after the finished encounters.
    pub standings: Vec<TournamentStanding>,
    /// `crosstable[i][j]`: points seed i+1 scored against seed j+1 (absent if they have
    /// not met).
    pub crosstable: Vec<Vec<Option<u32>>>,
    /// Scheveningen (art. 2.4): the two teams' standings (art. 20.2); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<TournamentTeam>,
    /// Mixed system (art. 2.5): the stage this one follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_stage: Option<TournamentId>,
    /// Mixed system (art. 2.5): the stage that follows, once this one is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_stage: Option<TournamentId>,
}

/// One team's line of a Scheveningen's standings (art. 20.2: by the points its members
/// scored; equal totals by the points on board 1, then board 2, ... (20.2.3.1)).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentTeam {
    /// 1 or 2 (equal teams share 1).
    pub place: u32,
    /// The team's name.
    pub name: String,
    /// Its members' seeds, board 1 first.
    pub seeds: Vec<u32>,
    /// The points its members scored.
    pub score: u32,
    /// Each board's points, board 1 first.
    pub boards: Vec<u32>,
}
