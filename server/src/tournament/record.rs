//! A tournament's whole state as one serialisable record: what was asked for, the rounds
//! paired, every encounter's result, the archived games, withdrawals. Everything else
//! (standings, crosstable, the next round) is computed from it with `shared::tournament`.
//! Pure and synchronous: the organiser holds it under a lock never held across `.await`.

use serde::{Deserialize, Serialize};
use shared::law::GameResult;
use shared::protocol::{
    GameId, TieBreakValue, TimeControl, TournamentGame, TournamentId, TournamentMatch,
    TournamentPlayer, TournamentRound, TournamentStanding, TournamentStatus, TournamentSummary,
    TournamentTeam, TournamentView, UserId, UserInfo,
};
use shared::rules::{Color, Variant};
use shared::tournament::berger;
use shared::tournament::forfeits::{Withdrawal, round_robin_withdrawal};
use shared::tournament::knockout::Knockout;
use shared::tournament::swiss::{self, SwissSettings};
use shared::tournament::tiebreaks::{round_robin_order, swiss_order};
use shared::tournament::{
    Absence, Crosstable, Encounter, Pairing, Player, Round, RoundRobinCoefficient, Scoring,
    SwissProgram, TieBreak, standings,
};

/// The competition system (IDF s.2 art. 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum System {
    /// Round robin in `cycles` cycles (2.1).
    RoundRobin {
        /// Cycles.
        cycles: u32,
    },
    /// Swiss with a set number of rounds (2.3).
    Swiss {
        /// Rounds.
        rounds: u32,
    },
    /// Scheveningen (2.4): the first half of `players` (team A) against the second
    /// half (team B), each member meeting every member of the other team once.
    Scheveningen {},
    /// Olympic system, with elimination (2.2). A struct variant with no fields, so that
    /// `deny_unknown_fields` refuses extra keys (serde ignores them after a unit variant's
    /// tag).
    Knockout {},
}

/// When rounds start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// On a schedule: `round_gap_ms` after creation, then after each round.
    #[default]
    Schedule,
    /// On the organiser's command (`POST /api/tournaments/{id}/rounds`).
    Command,
}

fn default_break_ms() -> u64 {
    300_000
}

/// What an organiser asks for (the body of `POST /api/tournaments`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentSpec {
    /// The name.
    pub name: String,
    /// The game.
    pub variant: Variant,
    /// Every game's clock.
    pub time_control: TimeControl,
    /// Round robin or Swiss.
    pub system: System,
    /// Players in seed order (an entry with an unknown key is refused).
    #[serde(deserialize_with = "strict_players")]
    pub players: Vec<UserInfo>,
    /// Points and micro-matches (art. 2.6, 15).
    #[serde(default)]
    pub scoring: Scoring,
    /// A ballot table file in `tournaments.ballot_dir` (art. 2.7), if openings are drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ballot: Option<String>,
    /// Break between the games of a micro-match (art. 7.3.10: 5 minutes).
    #[serde(default = "default_break_ms")]
    pub break_ms: u64,
    /// Pause before each round starts (the schedule); the first round starts this long
    /// after creation.
    #[serde(default)]
    pub round_gap_ms: u64,
    /// On a schedule or on the organiser's command.
    #[serde(default)]
    pub start: Start,
    /// Sonneborn-Berger or Shmulyan (20.1.3.1).
    #[serde(default)]
    pub coefficient: RoundRobinCoefficient,
    /// Whose Swiss order of tie-breaks applies (20.1.3.2).
    #[serde(default)]
    pub swiss_program: SwissProgram,
    /// Swiss: the colour of the top seed in round 1 (Dutch E.5); drawn by lot when the
    /// tournament is created if not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_colour: Option<Color>,
    /// Scheveningen: the names of team A (the first half of `players`) and team B; "A"
    /// and "B" if not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<[String; 2]>,
    /// Mixed system (2.5): the stage played after this one, by the best of its final
    /// standings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_stage: Option<Box<NextStage>>,
    /// The stage this one follows (set by the server when it creates a next stage; a
    /// request that gives it is refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_stage: Option<TournamentId>,
}

/// The next stage of a mixed competition (art. 2.5): another system for the players
/// placed best in this stage, seeded in the order of its final standings. Everything
/// else (variant, clock, scoring, ballot, breaks, start) is as in this stage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NextStage {
    /// Its name.
    pub name: String,
    /// Its system.
    pub system: System,
    /// How many go on: the places 1 to `qualify` of this stage (at least 2).
    pub qualify: u32,
    /// The stage after it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_stage: Option<Box<NextStage>>,
}

/// A `players` entry as the spec takes it: a [`UserInfo`] whose unknown keys are
/// refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecPlayer {
    id: UserId,
    name: String,
    guest: bool,
    #[serde(default)]
    rating: Option<u32>,
}

fn strict_players<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<UserInfo>, D::Error> {
    let players = Vec::<SpecPlayer>::deserialize(d)?;
    Ok(players
        .into_iter()
        .map(|p| UserInfo {
            id: p.id,
            name: p.name,
            guest: p.guest,
            rating: p.rating,
            bot: false,
        })
        .collect())
}

/// Why a spec or a request was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// Too few players or rounds.
    #[error("{0}")]
    Invalid(String),
    /// The same user twice.
    #[error("player {0} is registered twice")]
    DuplicatePlayer(UserId),
    /// Not a draughts variant.
    #[error("IDF competitions are for draughts variants, not {0}")]
    NotDraughts(Variant),
    /// The ballot table could not be loaded.
    #[error("ballot table: {0}")]
    Ballot(String),
}

impl TournamentSpec {
    /// Checks what does not depend on files.
    pub fn check(&self) -> Result<(), SpecError> {
        self.check_stage()?;
        // Each later stage as it will be created (the best `qualify` players).
        let mut players = self.players.len();
        let mut stage = self.next_stage.as_deref();
        while let Some(next) = stage {
            let qualify = next.qualify as usize;
            if qualify < 2 || qualify > players {
                return Err(SpecError::Invalid(format!(
                    "stage {}: 2 to {players} players go on, not {qualify}",
                    next.name
                )));
            }
            let later = TournamentSpec {
                name: next.name.clone(),
                system: next.system,
                players: self.players[..qualify].to_vec(),
                next_stage: None,
                ..self.clone()
            };
            later.check_stage()?;
            players = qualify;
            stage = next.next_stage.as_deref();
        }
        Ok(())
    }

    /// The next stage's spec, with `players` (in the order of this stage's final
    /// standings), following tournament `previous`.
    pub fn next_stage_spec(
        &self,
        players: Vec<UserInfo>,
        previous: TournamentId,
    ) -> Option<TournamentSpec> {
        let next = self.next_stage.as_deref()?;
        let mut players = players;
        players.truncate(next.qualify as usize);
        Some(TournamentSpec {
            name: next.name.clone(),
            system: next.system,
            players,
            next_stage: next.next_stage.clone(),
            previous_stage: Some(previous),
            initial_colour: None,
            ..self.clone()
        })
    }

    fn check_stage(&self) -> Result<(), SpecError> {
        if self.variant.is_chess() {
            return Err(SpecError::NotDraughts(self.variant));
        }
        self.time_control
            .fits(self.variant)
            .map_err(|unfit| SpecError::Invalid(unfit.to_string()))?;
        let n = self.players.len();
        if n < 2 {
            return Err(SpecError::Invalid(format!("at least two players, not {n}")));
        }
        if n > 256 {
            return Err(SpecError::Invalid("at most 256 players".into()));
        }
        for (i, p) in self.players.iter().enumerate() {
            if self.players[..i].iter().any(|q| q.id == p.id) {
                return Err(SpecError::DuplicatePlayer(p.id.clone()));
            }
        }
        if !(1..=2).contains(&self.scoring.games) {
            return Err(SpecError::Invalid(
                "games per encounter must be 1 or 2".into(),
            ));
        }
        match self.system {
            System::RoundRobin { cycles } if !(1..=4).contains(&cycles) => {
                Err(SpecError::Invalid("1 to 4 cycles".into()))
            }
            System::Swiss { rounds } if rounds == 0 || rounds as usize >= n => Err(
                SpecError::Invalid(format!("a Swiss of {n} players has 1 to {} rounds", n - 1)),
            ),
            System::Scheveningen {} if !n.is_multiple_of(2) => Err(SpecError::Invalid(
                "a Scheveningen needs two teams of equal size: an even number of players".into(),
            )),
            _ => Ok(()),
        }
    }

    /// Rounds in all.
    pub fn rounds(&self) -> usize {
        match self.system {
            System::RoundRobin { cycles } => {
                berger::rounds_per_cycle(self.players.len()) * cycles as usize
            }
            System::Swiss { rounds } => rounds as usize,
            System::Scheveningen {} => self.players.len() / 2,
            System::Knockout {} => self.players.len().next_power_of_two().trailing_zeros() as usize,
        }
    }

    /// The tie-break order of this tournament (20.1.3).
    pub fn tiebreaks(&self) -> Vec<TieBreak> {
        match self.system {
            // Scheveningen: every member meets every member of the other team once, as
            // in a round robin between the teams: the round-robin order (the text names
            // none for it).
            System::RoundRobin { .. } | System::Scheveningen {} => {
                round_robin_order(self.coefficient)
            }
            System::Swiss { rounds } => swiss_order(
                self.swiss_program,
                self.players.len(),
                (rounds as usize).saturating_sub(1),
            ),
            System::Knockout {} => Vec::new(),
        }
    }
}

/// One game of the tournament as its record keeps it (the archive has the full game).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedGame {
    /// 0-based round.
    pub round: usize,
    /// The micro-match's pairing.
    pub pairing: Pairing,
    /// 0-based game of the micro-match.
    pub index: usize,
    /// The game.
    pub game_id: GameId,
    /// The colours of this game.
    pub colours: Pairing,
    /// The ballot entry drawn, if any.
    pub opening: Option<u32>,
    /// The ballot moves, recorded before the game's own moves (art. 5.5: not clocked).
    pub ballot_moves: Vec<String>,
    /// The position the game started from (after the ballot).
    pub start_fen: String,
    /// The game's own moves.
    pub moves: Vec<String>,
    /// The result; `None` while the game is being played.
    pub result: Option<GameResult>,
    /// On a match clock (INT 3.6.4), what the game's clock showed White and Black (ms)
    /// when the game ended with the clock stopped (not on time, not aborted): the next
    /// game of the micro-match starts with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_left_ms: Option<[u64; 2]>,
}

/// Everything about a tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentRecord {
    /// The id.
    pub id: TournamentId,
    /// What was asked for.
    pub spec: TournamentSpec,
    /// Upcoming, running, finished.
    pub status: TournamentStatus,
    /// Rounds paired so far.
    pub rounds: Vec<Round>,
    /// Ballot entries drawn, per (round, pairing).
    pub openings: Vec<(usize, Pairing, u32)>,
    /// Completed encounters: (round, encounter).
    pub results: Vec<(usize, Encounter)>,
    /// Every game, live or over.
    pub games: Vec<PlayedGame>,
    /// Withdrawn players and the round before which they left.
    pub withdrawn: Vec<(Player, usize)>,
    /// Withdrawals asked for during a round, applied when it ends.
    pub pending_withdrawals: Vec<Player>,
    /// Players annulled under 18.2.1.
    pub annulled: Vec<Player>,
    /// Whether a round is being played.
    pub round_running: bool,
    /// The organiser asked for the next round and it has not been paired yet.
    #[serde(default)]
    pub start_requested: bool,
    /// Knockout: the bracket.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bracket: Option<Knockout>,
    /// Saves so far: a store keeps the newest revision.
    #[serde(default)]
    pub revision: u64,
    /// The organiser lease's fence of the node that organises it (0 without a
    /// cluster): a store refuses a save with a lower fence than the one it holds.
    #[serde(default)]
    pub fence: u64,
    /// Mixed system (2.5): the next stage, once created.
    #[serde(default)]
    pub next_stage_id: Option<TournamentId>,
}

impl TournamentRecord {
    /// A new, upcoming tournament.
    pub fn new(id: TournamentId, spec: TournamentSpec) -> TournamentRecord {
        TournamentRecord {
            id,
            spec,
            status: TournamentStatus::Upcoming,
            rounds: Vec::new(),
            openings: Vec::new(),
            results: Vec::new(),
            games: Vec::new(),
            withdrawn: Vec::new(),
            pending_withdrawals: Vec::new(),
            annulled: Vec::new(),
            round_running: false,
            start_requested: false,
            bracket: None,
            revision: 0,
            fence: 0,
            next_stage_id: None,
        }
    }

    /// The id its next stage (art. 2.5) gets: the first stage's id and the stage's
    /// number (`abc` is followed by `abc-2`, `abc-2` by `abc-3`). Fixed by this
    /// record, so whichever organiser creates the next stage creates the same one.
    pub fn next_stage_id_to_be(&self) -> TournamentId {
        let numbered = self.spec.previous_stage.as_ref().and_then(|_| {
            let (first, n) = self.id.rsplit_once('-')?;
            Some((first, n.parse::<u32>().ok()?))
        });
        match numbered {
            Some((first, n)) => format!("{first}-{}", n + 1),
            None => format!("{}-2", self.id),
        }
    }

    /// The seed (0-based) of a user.
    pub fn seed_of(&self, user: &UserId) -> Option<Player> {
        self.spec.players.iter().position(|p| p.id == *user)
    }

    fn is_withdrawn(&self, p: Player) -> bool {
        self.withdrawn.iter().any(|&(q, _)| q == p)
    }

    fn has_result(&self, round: usize, p: Pairing) -> bool {
        self.results.iter().any(|(r, e)| {
            *r == round
                && matches!(e, Encounter::Played { pairing, .. } | Encounter::Forfeit { pairing, .. } if pairing.same_players(&p))
        })
    }

    /// Pairs round `round` (0-based) and records it: the Berger table's round, or a
    /// Swiss pairing of the active players. Returns the encounters to play.
    pub fn pair_next(&mut self) -> Result<Vec<Pairing>, swiss::SwissError> {
        let round = self.rounds.len();
        let plan = match self.spec.system {
            System::RoundRobin { cycles } => {
                let all = berger::schedule(self.spec.players.len(), cycles as usize)
                    .map_err(|_| swiss::SwissError::TooFewPlayers(self.spec.players.len()))?;
                all.get(round).cloned().unwrap_or_default()
            }
            System::Swiss { .. } => {
                let withdrawn: Vec<Player> = self.withdrawn.iter().map(|&(p, _)| p).collect();
                let h = swiss::history(
                    self.spec.players.len(),
                    &self.spec.scoring,
                    &self.results,
                    &withdrawn,
                )
                .map_err(|_| swiss::SwissError::NoPairing)?;
                let scoring = &self.spec.scoring;
                let per_round = match scoring.unit {
                    shared::tournament::Unit::Game => u32::from(scoring.games),
                    shared::tournament::Unit::MicroMatch => 1,
                };
                let settings = SwissSettings {
                    initial_colour: self.spec.initial_colour.unwrap_or(Color::White),
                    last_round: round + 1 == self.spec.rounds(),
                    win_points: scoring.points.win * per_round,
                };
                swiss::pair_round(&h, settings)?
            }
            System::Scheveningen {} => {
                let m = self.spec.players.len() / 2;
                let (a, b): (Vec<Player>, Vec<Player>) = ((0..m).collect(), (m..2 * m).collect());
                let all = shared::tournament::scheveningen::schedule(&a, &b)
                    .map_err(|_| swiss::SwissError::TooFewPlayers(self.spec.players.len()))?;
                let plan = all.get(round).cloned().unwrap_or_default();
                // A player who withdrew loses his remaining encounters by absence.
                for p in &plan.pairings {
                    let absent = match (self.is_withdrawn(p.white), self.is_withdrawn(p.black)) {
                        (true, true) => Some(Absence::Both),
                        (true, false) => Some(Absence::White),
                        (false, true) => Some(Absence::Black),
                        (false, false) => None,
                    };
                    if let Some(absent) = absent {
                        self.results.push((
                            round,
                            Encounter::Forfeit {
                                pairing: *p,
                                absent,
                            },
                        ));
                    }
                }
                plan
            }
            System::Knockout {} => self.knockout_round(round),
        };
        // A Swiss bye scores (Scoring::bye); in a round robin every player sits out once
        // per cycle against the dummy of the Berger table, which scores nothing.
        if let (Some(b), System::Swiss { .. }) = (plan.bye, self.spec.system) {
            self.results.push((round, Encounter::Bye { player: b }));
        }
        let to_play = plan
            .pairings
            .iter()
            .copied()
            .filter(|p| {
                !self.annulled.contains(&p.white)
                    && !self.annulled.contains(&p.black)
                    && !self.has_result(round, *p)
            })
            .collect();
        self.rounds.push(plan);
        self.status = TournamentStatus::Running;
        self.round_running = true;
        self.start_requested = false;
        Ok(to_play)
    }

    /// The encounters of `round` still to be played: neither annulled nor with a result.
    pub fn to_play(&self, round: usize) -> Vec<Pairing> {
        self.rounds.get(round).map_or_else(Vec::new, |plan| {
            plan.pairings
                .iter()
                .copied()
                .filter(|p| {
                    !self.annulled.contains(&p.white)
                        && !self.annulled.contains(&p.black)
                        && !self.has_result(round, *p)
                })
                .collect()
        })
    }

    /// The ballot entry drawn for an encounter, if any.
    pub fn opening_of(&self, round: usize, p: Pairing) -> Option<u32> {
        self.openings
            .iter()
            .find(|&&(r, q, _)| r == round && q == p)
            .map(|&(_, _, n)| n)
    }

    /// Knockout: the encounters of `round` ready in the bracket; a withdrawn player's
    /// encounter is lost by absence at once (18.2: he is not there).
    fn knockout_round(&mut self, round: usize) -> Round {
        let n = self.spec.players.len();
        let bracket = self
            .bracket
            .get_or_insert_with(|| Knockout::new(n).unwrap_or(Knockout { rounds: Vec::new() }));
        let pairings: Vec<Pairing> = bracket
            .pending()
            .into_iter()
            .filter(|&(r, _, _)| r == round)
            .map(|x| x.2)
            .collect();
        for &p in &pairings {
            let absent = match (self.is_withdrawn(p.white), self.is_withdrawn(p.black)) {
                (true, true) => Some(Absence::Both),
                (true, false) => Some(Absence::White),
                (false, true) => Some(Absence::Black),
                (false, false) => None,
            };
            if let Some(absent) = absent {
                self.results
                    .push((round, Encounter::Forfeit { pairing: p, absent }));
                self.knockout_decided(round, p, forfeit_winner(p, absent));
            }
        }
        Round {
            pairings,
            bye: None,
        }
    }

    /// Knockout: records who went through encounter `pairing` of `round`.
    pub fn knockout_decided(&mut self, round: usize, pairing: Pairing, winner: Option<Player>) {
        let Some(bracket) = self.bracket.as_mut() else {
            return;
        };
        let index = bracket.rounds.get(round).and_then(|ties| {
            ties.iter()
                .position(|t| t.top == Some(pairing.white) && t.bottom == Some(pairing.black))
        });
        if let Some(index) = index
            && let Err(e) = bracket.record(round, index, winner)
        {
            tracing::warn!(error = %e, "knockout result not recorded");
        }
    }

    /// Ends the running round: applies the withdrawals asked for during it. Returns
    /// whether it was the last ([`Self::rounds_over`]). The status stays running: the
    /// organiser marks the tournament finished ([`Self::finish`]) once its next stage
    /// (art. 2.5) is made and linked, so no view shows a finished stage without it.
    pub fn end_round(&mut self) -> bool {
        self.round_running = false;
        for p in std::mem::take(&mut self.pending_withdrawals) {
            self.apply_withdrawal(p);
        }
        self.rounds_over()
    }

    /// Every round has been played and ended: nothing is left to pair or to withdraw from.
    pub fn rounds_over(&self) -> bool {
        self.status == TournamentStatus::Finished
            || (!self.round_running && self.rounds.len() >= self.spec.rounds())
    }

    /// Marks the tournament finished.
    pub fn finish(&mut self) {
        self.status = TournamentStatus::Finished;
    }

    /// Art. 18.2: `p` leaves. Between rounds it applies at once; during a round, when
    /// the round ends.
    pub fn withdraw(&mut self, p: Player) -> bool {
        if self.is_withdrawn(p) || self.pending_withdrawals.contains(&p) || self.rounds_over() {
            return false;
        }
        if self.round_running {
            self.pending_withdrawals.push(p);
        } else {
            self.apply_withdrawal(p);
        }
        true
    }

    fn apply_withdrawal(&mut self, p: Player) {
        self.withdrawn.push((p, self.rounds.len()));
        if let System::RoundRobin { cycles } = self.spec.system {
            let Ok(schedule) = berger::schedule(self.spec.players.len(), cycles as usize) else {
                return;
            };
            match round_robin_withdrawal(&schedule, &self.results, p) {
                Withdrawal::Annulled { .. } => self.annulled.push(p),
                w @ Withdrawal::Stands { .. } => self.results.extend(w.forfeits(p)),
                Withdrawal::Swiss => {}
            }
        }
    }

    /// The crosstable of the finished encounters.
    pub fn crosstable(&self) -> Option<Crosstable> {
        Crosstable::build(
            self.spec.players.len(),
            &self.spec.scoring,
            &self.results,
            &self.annulled,
        )
        .ok()
    }

    /// A summary line.
    pub fn summary(&self) -> TournamentSummary {
        TournamentSummary {
            id: self.id.clone(),
            name: self.spec.name.clone(),
            system: match self.spec.system {
                System::RoundRobin { .. } => "round_robin".into(),
                System::Swiss { .. } => "swiss".into(),
                System::Scheveningen {} => "scheveningen".into(),
                System::Knockout {} => "knockout".into(),
            },
            variant: self.spec.variant,
            time_control: self.spec.time_control,
            status: self.status,
            players: seed(self.spec.players.len()),
            round: seed(self.rounds.len()),
            rounds: seed(self.spec.rounds()),
            round_in_progress: self.round_running || self.start_requested,
        }
    }

    /// The whole view.
    pub fn view(&self) -> TournamentView {
        let n = self.spec.players.len();
        let table = self.crosstable();
        let standings_list = match (&self.bracket, &table) {
            (Some(b), Some(t)) => knockout_standings(b, t),
            (None, Some(t)) => standings(t, &self.spec.tiebreaks(), false),
            _ => Vec::new(),
        };
        let teams = self.teams(table.as_ref());
        TournamentView {
            teams,
            previous_stage: self.spec.previous_stage.clone(),
            next_stage: self.next_stage_id.clone(),
            summary: self.summary(),
            players: self
                .spec
                .players
                .iter()
                .enumerate()
                .map(|(i, u)| TournamentPlayer {
                    seed: seed(i + 1),
                    user: u.clone(),
                    withdrawn: self.is_withdrawn(i),
                    annulled: self.annulled.contains(&i),
                })
                .collect(),
            rounds: self
                .rounds
                .iter()
                .enumerate()
                .map(|(r, plan)| self.round_view(r, plan))
                .collect(),
            standings: standings_list
                .iter()
                .map(|s| TournamentStanding {
                    place: seed(s.place),
                    place_to: seed(s.place_to),
                    seed: seed(s.player + 1),
                    score: s.score,
                    tiebreaks: s
                        .tiebreaks
                        .iter()
                        .map(|&(tb, value)| TieBreakValue {
                            name: tb.label(),
                            value,
                        })
                        .collect(),
                    playoff: s.playoff,
                })
                .collect(),
            crosstable: (0..n)
                .map(|i| {
                    (0..n)
                        .map(|j| {
                            table
                                .as_ref()
                                .filter(|t| t.met(i, j))
                                .map(|t| t.points_against(i, j))
                        })
                        .collect()
                })
                .collect(),
        }
    }

    /// Scheveningen (art. 20.2): each team's points (its members' points), placed by
    /// them, then by the points on board 1, board 2, ... (20.2.3.1; head-to-head, the
    /// second criterion, is the same for two teams). Empty for other systems.
    fn teams(&self, table: Option<&Crosstable>) -> Vec<TournamentTeam> {
        if self.spec.system != (System::Scheveningen {}) {
            return Vec::new();
        }
        let m = self.spec.players.len() / 2;
        let names = self
            .spec
            .teams
            .clone()
            .unwrap_or_else(|| ["A".to_string(), "B".to_string()]);
        let mut teams: Vec<TournamentTeam> = names
            .into_iter()
            .enumerate()
            .map(|(t, name)| {
                let members: Vec<Player> = (t * m..(t + 1) * m).collect();
                let boards: Vec<u32> = members
                    .iter()
                    .map(|&p| table.map_or(0, |tb| tb.score(p)))
                    .collect();
                TournamentTeam {
                    place: 1,
                    name,
                    seeds: members.iter().map(|&p| seed(p + 1)).collect(),
                    score: boards.iter().sum(),
                    boards,
                }
            })
            .collect();
        let key = |t: &TournamentTeam| (t.score, t.boards.clone());
        teams.sort_by_key(|t| std::cmp::Reverse(key(t)));
        if key(&teams[0]) != key(&teams[1]) {
            teams[1].place = 2;
        }
        teams
    }

    /// Mixed system (2.5): the players in the order of the final standings (places,
    /// then the standings' order within a shared place), for the next stage.
    pub fn by_final_standings(&self) -> Vec<UserInfo> {
        self.view()
            .standings
            .iter()
            .filter_map(|l| self.spec.players.get(l.seed as usize - 1).cloned())
            .collect()
    }

    fn round_view(&self, r: usize, plan: &Round) -> TournamentRound {
        TournamentRound {
            number: seed(r + 1),
            matches: plan
                .pairings
                .iter()
                .map(|&p| {
                    let result = self.results.iter().find(|(rr, e)| {
                        *rr == r
                            && matches!(e, Encounter::Played { pairing, .. } | Encounter::Forfeit { pairing, .. } if pairing.same_players(&p))
                    });
                    TournamentMatch {
                        white: seed(p.white + 1),
                        black: seed(p.black + 1),
                        opening: self
                            .openings
                            .iter()
                            .find(|(rr, pp, _)| *rr == r && *pp == p)
                            .map(|x| x.2),
                        games: self
                            .games
                            .iter()
                            .filter(|g| g.round == r && g.pairing == p)
                            .map(|g| TournamentGame {
                                game_id: g.game_id.clone(),
                                white: seed(g.colours.white + 1),
                                black: seed(g.colours.black + 1),
                                result: g.result,
                            })
                            .collect(),
                        forfeit: result.and_then(|(_, e)| match e {
                            Encounter::Forfeit { absent, .. } => Some(*absent),
                            _ => None,
                        }),
                        finished: result.is_some(),
                    }
                })
                .collect(),
            bye: plan.bye.map(|b| seed(b + 1)),
        }
    }
}

/// Knockout places (art. 2.2): by the round a player went out in, those still in first.
fn knockout_standings(b: &Knockout, t: &Crosstable) -> Vec<shared::tournament::Standing> {
    let n = t.players();
    let mut placed: Vec<(usize, Player)> = (0..n).map(|p| (b.place(p).unwrap_or(1), p)).collect();
    placed.sort_unstable();
    placed
        .iter()
        .map(|&(place, p)| {
            let same = placed.iter().filter(|x| x.0 == place).count();
            shared::tournament::Standing {
                player: p,
                place,
                place_to: place + same - 1,
                score: t.score(p),
                tiebreaks: Vec::new(),
                playoff: false,
            }
        })
        .collect()
}

/// Who goes through a knockout encounter lost by absence.
pub fn forfeit_winner(p: Pairing, absent: Absence) -> Option<Player> {
    match absent {
        Absence::White => Some(p.black),
        Absence::Black => Some(p.white),
        Absence::Both => None,
    }
}

/// A count or index as the wire's `u32`.
fn seed(x: usize) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// Re-exported for the organiser.
pub type Forfeit = Absence;

#[cfg(test)]
mod tests {
    use super::*;
    use shared::protocol::UserId;
    use shared::rules::draughts::DraughtsVariant;

    fn users(n: usize) -> Vec<UserInfo> {
        (0..n)
            .map(|i| UserInfo {
                id: UserId(format!("u{i}")),
                name: format!("U{i}"),
                guest: false,
                rating: None,
                bot: false,
            })
            .collect()
    }

    fn spec(n: usize, system: System) -> TournamentSpec {
        TournamentSpec {
            name: "t".into(),
            variant: Variant::Draughts(DraughtsVariant::Russian),
            time_control: TimeControl::new(60, 1),
            system,
            players: users(n),
            scoring: Scoring::default(),
            ballot: None,
            break_ms: 0,
            round_gap_ms: 0,
            start: Start::Schedule,
            coefficient: RoundRobinCoefficient::SonnebornBerger,
            swiss_program: SwissProgram::TournamentManager,
            initial_colour: None,
            teams: None,
            next_stage: None,
            previous_stage: None,
        }
    }

    #[test]
    fn stages_are_numbered_from_the_first_stages_id() {
        let first = TournamentRecord::new("abc".into(), spec(4, System::Swiss { rounds: 2 }));
        assert_eq!(first.next_stage_id_to_be(), "abc-2");
        let mut second_spec = spec(2, System::RoundRobin { cycles: 1 });
        second_spec.previous_stage = Some("abc".into());
        let second = TournamentRecord::new("abc-2".into(), second_spec.clone());
        assert_eq!(second.next_stage_id_to_be(), "abc-3");
        // A first stage is never renumbered, whatever its id looks like.
        let odd = TournamentRecord::new("a-7".into(), spec(4, System::Swiss { rounds: 2 }));
        assert_eq!(odd.next_stage_id_to_be(), "a-7-2");
    }

    #[test]
    fn bad_specs_are_refused_with_typed_errors() {
        assert!(matches!(
            spec(1, System::RoundRobin { cycles: 1 }).check(),
            Err(SpecError::Invalid(_))
        ));
        assert!(matches!(
            spec(4, System::RoundRobin { cycles: 0 }).check(),
            Err(SpecError::Invalid(_))
        ));
        assert!(matches!(
            spec(4, System::Swiss { rounds: 4 }).check(),
            Err(SpecError::Invalid(_))
        ));
        assert!(spec(4, System::Swiss { rounds: 3 }).check().is_ok());
        let mut s = spec(4, System::RoundRobin { cycles: 1 });
        s.players[3] = s.players[0].clone();
        assert_eq!(
            s.check(),
            Err(SpecError::DuplicatePlayer(UserId("u0".into())))
        );
        let mut s = spec(4, System::RoundRobin { cycles: 1 });
        s.variant = Variant::Chess;
        assert_eq!(s.check(), Err(SpecError::NotDraughts(Variant::Chess)));
        let mut s = spec(4, System::RoundRobin { cycles: 1 });
        s.scoring.games = 3;
        assert!(matches!(s.check(), Err(SpecError::Invalid(_))));
    }

    fn play_round(r: &mut TournamentRecord, pairings: &[Pairing]) {
        let round = r.rounds.len() - 1;
        for &p in pairings {
            r.results.push((
                round,
                Encounter::Played {
                    pairing: p,
                    games: vec![GameResult::WhiteWin, GameResult::Draw],
                },
            ));
        }
    }

    #[test]
    fn a_withdrawal_during_a_round_waits_for_its_end_and_annuls_before_half_way() {
        let mut r = TournamentRecord::new("t".into(), spec(6, System::RoundRobin { cycles: 1 }));
        let p = r.pair_next().unwrap();
        play_round(&mut r, &p);
        assert!(!r.end_round());
        let p = r.pair_next().unwrap();
        // Player 4 leaves during round 2: nothing changes until the round ends.
        assert!(r.withdraw(4));
        assert!(!r.withdraw(4));
        assert!(r.annulled.is_empty());
        play_round(&mut r, &p);
        r.end_round();
        // Two of five played: annulled; later rounds skip his pairings.
        assert_eq!(r.annulled, vec![4]);
        let p = r.pair_next().unwrap();
        assert_eq!(p.len(), 2);
        assert!(p.iter().all(|x| !x.involves(4)));
        let v = r.view();
        assert!(v.players[4].annulled && v.players[4].withdrawn);
        assert!(v.standings.iter().all(|s| s.seed != 5));
        assert_eq!(v.summary.round, 3);
        assert!(v.summary.round_in_progress);
    }

    #[test]
    fn a_withdrawal_after_half_way_keeps_results_and_loses_the_rest() {
        let mut r = TournamentRecord::new("t".into(), spec(6, System::RoundRobin { cycles: 1 }));
        for _ in 0..3 {
            let p = r.pair_next().unwrap();
            play_round(&mut r, &p);
            r.end_round();
        }
        assert!(r.withdraw(0));
        assert!(r.annulled.is_empty());
        let forfeits = r
            .results
            .iter()
            .filter(|(_, e)| matches!(e, Encounter::Forfeit { .. }))
            .count();
        assert_eq!(forfeits, 2);
        // Rounds 4 and 5: his pairings already have their result and are not played.
        let p = r.pair_next().unwrap();
        assert!(p.iter().all(|x| !x.involves(0)));
        let v = r.view();
        let line = v.standings.iter().find(|s| s.seed == 1).unwrap();
        assert!(line.score > 0);
        assert_eq!(
            v.rounds[3]
                .matches
                .iter()
                .filter(|m| m.forfeit.is_some())
                .count(),
            1
        );
    }

    #[test]
    fn a_round_robin_bye_scores_nothing_a_swiss_bye_does() {
        let mut r = TournamentRecord::new("t".into(), spec(5, System::RoundRobin { cycles: 1 }));
        r.pair_next().unwrap();
        assert_eq!(r.rounds[0].bye, Some(0));
        assert!(r.results.is_empty());
        let mut r = TournamentRecord::new("t".into(), spec(5, System::Swiss { rounds: 2 }));
        r.pair_next().unwrap();
        assert_eq!(r.results, vec![(0, Encounter::Bye { player: 4 })]);
        assert_eq!(r.view().standings[0].score, 2);
    }

    #[test]
    fn the_swiss_pairs_active_players_only_and_ends_after_its_rounds() {
        let mut r = TournamentRecord::new("t".into(), spec(5, System::Swiss { rounds: 2 }));
        let p = r.pair_next().unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(r.rounds[0].bye, Some(4));
        play_round(&mut r, &p);
        assert!(r.withdraw(0));
        assert!(!r.end_round());
        let p = r.pair_next().unwrap();
        assert_eq!(p.len(), 2);
        assert!(p.iter().all(|x| !x.involves(0)));
        assert_eq!(r.rounds[1].bye, None);
        play_round(&mut r, &p);
        assert!(r.end_round());
        // Over, but finished only once the organiser has made the next stage.
        assert_eq!(r.status, TournamentStatus::Running);
        assert!(r.rounds_over());
        assert!(!r.withdraw(1), "no withdrawal once every round is played");
        r.finish();
        assert_eq!(r.status, TournamentStatus::Finished);
        assert!(!r.withdraw(1));
    }

    #[test]
    fn the_pdn_numbers_moves_from_black_when_black_starts() {
        let mut r = TournamentRecord::new("t".into(), spec(2, System::RoundRobin { cycles: 1 }));
        r.games.push(PlayedGame {
            round: 0,
            pairing: Pairing::new(0, 1),
            index: 0,
            game_id: shared::protocol::GameId("g1".into()),
            colours: Pairing::new(0, 1),
            opening: Some(13),
            ballot_moves: Vec::new(),
            start_fen: "B:Wa1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3,d4:Bb6,d6,f6,h6,a7,c7,e7,b8,d8,f8,h8,g5".into(),
            moves: vec!["g5-h4".into(), "c3-b4".into(), "h6-g5".into()],
            result: Some(GameResult::Draw),
            clock_left_ms: None,
        });
        r.games.push(PlayedGame {
            round: 0,
            pairing: Pairing::new(0, 1),
            index: 1,
            game_id: shared::protocol::GameId("g2".into()),
            colours: Pairing::new(1, 0),
            opening: Some(1),
            ballot_moves: vec!["c3-d4".into(), "f6-g5".into(), "b2-c3".into()],
            start_fen: String::new(),
            moves: vec!["g7-f6".into(), "a3-b4".into()],
            result: Some(GameResult::BlackWin),
            clock_left_ms: None,
        });
        let pdn = super::super::pdn::tournament(&r);
        assert!(pdn.contains("[FEN \"B:Wa1"), "{pdn}");
        assert!(pdn.contains("[Ballot \"13\"]"));
        assert!(pdn.contains("\n1... g5-h4 2. c3-b4 h6-g5 1-1\n"), "{pdn}");
        assert!(
            pdn.contains("[White \"U1\"]\n[Black \"U0\"]\n[Result \"0-2\"]"),
            "{pdn}"
        );
        assert!(
            pdn.contains("\n1. c3-d4 f6-g5 2. b2-c3 {end of ballot} g7-f6 3. a3-b4 0-2\n"),
            "{pdn}"
        );
    }
}
