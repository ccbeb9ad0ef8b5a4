//! Archiving a finished game from its actor: the record becomes an [`ArchivedGame`]
//! (every move with the mover's clock after it, taken from the event log), written by
//! [`Db::archive`] idempotently by game id with the rating changes. A write that fails
//! or takes longer than `database.archive_wait_ms` is tried again with a doubling pause
//! up to `database.retry_max_ms`; the actor stays alive (and its state in Redis or the
//! database says `archived: false`) until the write succeeds, so a database that is
//! down delays archiving and loses nothing.

use std::time::Duration;

use shared::protocol::{
    ClockState, GameId, GameState, Outcome, OutcomeReason, Ratings, UserId, UserInfo,
};
use shared::rules::{Color, Position, Variant};
use tokio::time::Instant;

use super::GameMeta;
use super::clock::speed_of;
use super::record::Record;
use crate::db::{ArchivedGame, ArchivedMove, ArchivedPlayer, Db};
use crate::rating::Perf;

/// Where and how an actor archives its game.
#[derive(Clone, Debug)]
pub struct ArchiveSink {
    /// The database.
    pub db: Db,
    /// How long `game_over` waits for the first write.
    pub wait: Duration,
    /// The longest pause between two tries.
    pub retry_max: Duration,
}

/// The first pause after a failed write.
const FIRST_RETRY: Duration = Duration::from_millis(250);

/// An actor's progress in archiving its game.
#[derive(Debug, Default)]
pub struct ArchiveState {
    /// Stored in the database.
    pub archived: bool,
    /// The ending whose `game_over` is still to be emitted.
    pub pending: Option<(Outcome, ClockState)>,
    /// When to try again after a failure.
    pub next_try: Option<Instant>,
    /// Failed tries so far.
    pub failures: u32,
}

impl ArchiveState {
    /// The pause before the next try after `failures` failures.
    pub fn backoff(&self, max: Duration) -> Duration {
        let shift = self.failures.saturating_sub(1).min(16);
        FIRST_RETRY.saturating_mul(1 << shift).min(max)
    }
}

fn player(user: &UserInfo) -> ArchivedPlayer {
    ArchivedPlayer {
        id: user.id.0.clone(),
        name: user.name.clone(),
        guest: user.guest,
        rating_before: None,
        rating_after: None,
    }
}

fn text<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The game as the archive stores it, with the mover's clock after each move and
/// who went berserk.
pub fn archived_game(
    meta: &GameMeta,
    record: &Record,
    (clocks, berserk): (&[u64], &[Color]),
    outcome: &Outcome,
    started_ms: u64,
    ended_ms: u64,
) -> ArchivedGame {
    let spec = &meta.spec;
    let moves = record
        .moves()
        .enumerate()
        .map(|(i, san)| ArchivedMove {
            san: san.to_owned(),
            clock_ms: clocks.get(i).copied(),
        })
        .collect();
    let result = match (outcome.reason, outcome.winner) {
        (OutcomeReason::Aborted, _) => "*",
        (_, Some(Color::White)) => "1-0",
        (_, Some(Color::Black)) => "0-1",
        (_, None) => "1/2-1/2",
    };
    let perf = Perf {
        variant: spec.variant,
        speed: speed_of(spec.variant, spec.time_control),
    };
    let ms = |t: u64| i64::try_from(t).unwrap_or(i64::MAX);
    ArchivedGame {
        id: meta.id.0.clone(),
        variant: text(&spec.variant),
        rules: text(&record.ruleset()),
        perf: perf.key(),
        rated: spec.rated,
        clock: spec.time_control.to_string(),
        white: player(&spec.white),
        black: player(&spec.black),
        start_fen: spec.start_fen.clone(),
        moves,
        result: result.to_string(),
        winner: outcome.winner,
        reason: outcome.reason,
        rule: outcome.detail.clone(),
        started_at: ms(started_ms),
        ended_at: ms(ended_ms),
        arena: spec.arena.clone(),
        tournament: spec.tournament.clone(),
        // From the clock, not the log: after a takeover the log may start after the
        // `berserk` event.
        berserk: berserk.to_vec(),
    }
}

/// One try at writing the game, bounded by `wait`.
pub async fn try_archive(
    sink: &ArchiveSink,
    game: &ArchivedGame,
    wait: Duration,
) -> Option<Ratings> {
    match tokio::time::timeout(wait, sink.db.archive(game)).await {
        Ok(Ok(ratings)) => Some(ratings),
        Ok(Err(e)) => {
            tracing::warn!(game = %game.id, error = %e, "cannot archive the game yet");
            None
        }
        Err(_) => {
            tracing::warn!(game = %game.id, "archiving the game is slow; will try again");
            None
        }
    }
}

fn parse<T: serde::de::DeserializeOwned>(s: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
}

/// The final state of an archived game, for a `watch` or `resume` that comes after the
/// game left memory: the moves replayed from the start position, the last clocks, the
/// result. `None` if the stored game cannot be read back.
pub fn archived_state(game: &ArchivedGame) -> Option<GameState> {
    let variant: Variant = parse(&game.variant)?;
    let mut pos = match &game.start_fen {
        Some(fen) => Position::from_fen(variant, fen).ok()?,
        None => Position::start(variant),
    };
    let initial_fen = pos.fen();
    let mut clock = ClockState {
        white_ms: 0,
        black_ms: 0,
        running: None,
    };
    let mut last_move = None;
    for m in &game.moves {
        let mover = pos.side_to_move();
        let mv = pos.parse_move(&m.san).ok()?;
        last_move = Some(pos.move_info(&mv));
        pos.play(&mv).ok()?;
        if let Some(ms) = m.clock_ms {
            match mover {
                Color::White => clock.white_ms = ms,
                Color::Black => clock.black_ms = ms,
            }
        }
    }
    let user = |p: &ArchivedPlayer| UserInfo {
        id: UserId(p.id.clone()),
        name: p.name.clone(),
        guest: p.guest,
        rating: p.rating_before.map(|r| r.round().max(0.0) as u32),
        bot: false,
    };
    let time_control: shared::protocol::TimeControl = game.clock.parse().ok()?;
    Some(GameState {
        game_id: GameId(game.id.clone()),
        ruleset: parse(&game.rules),
        version: 0,
        variant,
        time_control,
        speed: Some(speed_of(variant, time_control)),
        rated: game.rated,
        white: user(&game.white),
        black: user(&game.black),
        initial_fen,
        fen: pos.fen(),
        moves: game.moves.iter().map(|m| m.san.clone()).collect(),
        last_move,
        turn: pos.side_to_move(),
        // Over: nobody is to move.
        legal_moves: Vec::new(),
        draw_offer_refusal: None,
        clock,
        draw_offer: None,
        takeback_offer: None,
        connected: [false, false],
        away: Vec::new(),
        spectators: 0,
        outcome: Some(Outcome {
            winner: game.winner,
            reason: game.reason,
            detail: game.rule.clone(),
        }),
        archived: true,
        berserk: game.berserk.clone(),
        arena: game.arena.clone(),
        tournament: game.tournament.clone(),
        created_ms: u64::try_from(game.started_at).ok(),
        break_until_ms: None,
    })
}
