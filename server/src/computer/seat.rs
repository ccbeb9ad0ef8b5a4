//! The computer's seat in one game: a task joined to the game as its player, that
//! reads the state after every event and acts through the game handle like a session:
//! it moves on its turn (thinking on a search thread, on its own clock), answers draw
//! offers by its evaluation, accepts takebacks (the game is casual), claims a draw by
//! repetition when it is not better, and resigns a lost game at levels 5-8.

use std::sync::Arc;

use engine::{ClockLimits, Level, Limits, Score};
use shared::protocol::{GameState, UserId};
use shared::rules::{Color, Position};
use tokio::sync::broadcast::error::RecvError;

use super::{Computer, Replayed, chess, hub, player};
use crate::game::{GameHandle, Intent, Role};

pub(super) struct Seat {
    computer: Arc<Computer>,
    handle: GameHandle,
    color: Color,
    level: Level,
    me: UserId,
}

/// An external engine that chose a move.
#[derive(Clone, Copy)]
enum External {
    Uci,
    Hub,
}

/// What the computer does on its turn.
enum Decision {
    /// A move; `by` the external engine that chose it, if one did.
    Move {
        text: String,
        by: Option<External>,
    },
    Resign,
    Claim,
}

impl Seat {
    pub(super) fn new(
        computer: Arc<Computer>,
        handle: GameHandle,
        color: Color,
        level: Level,
    ) -> Seat {
        let me = player(level.get()).id;
        Seat {
            computer,
            handle,
            color,
            level,
            me,
        }
    }

    pub(super) async fn run(self) {
        self.play_out().await;
        self.handle.leave(self.me.clone(), Role::Player).await;
        self.computer.game_over();
    }

    async fn play_out(&self) {
        let Ok(mut events) = self.handle.subscribe() else {
            return;
        };
        // The seat attends as the player while it plays.
        let Ok(_attending) = self.handle.attend(self.color) else {
            return;
        };
        if let Err(e) = self.handle.join(self.me.clone(), Role::Player, None).await {
            tracing::warn!(game = %self.handle.id(), error = %e, "the computer could not join its game");
            return;
        }
        loop {
            let Ok(state) = self.handle.state().await else {
                return;
            };
            if state.outcome.is_some() {
                return;
            }
            self.respond(&state).await;
            tokio::select! {
                () = self.computer.shutdown.cancelled() => return,
                event = events.recv() => match event {
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => return,
                },
            }
        }
    }

    async fn act(&self, intent: Intent) -> bool {
        match self.handle.act(self.me.clone(), intent).await {
            Ok(_) => true,
            Err(e) => {
                tracing::debug!(game = %self.handle.id(), error = %e, "the computer's action was refused");
                false
            }
        }
    }

    /// Answers what the state asks of the computer, if anything.
    async fn respond(&self, state: &GameState) {
        let them = self.color.opponent();
        if state.takeback_offer == Some(them) {
            self.act(Intent::TakebackAccept).await;
            return;
        }
        let Some(game) = replay(state) else {
            tracing::warn!(game = %self.handle.id(), "the computer cannot read its game");
            return;
        };
        if state.draw_offer == Some(them) {
            let accept = self.accepts_draw(&game).await;
            let answer = if accept {
                Intent::DrawAccept
            } else {
                Intent::DrawDecline
            };
            if self.act(answer).await && accept {
                return;
            }
        }
        if state.turn != self.color || state.legal_moves.is_empty() {
            return;
        }
        let budget = self.budget(state);
        match self.decide(game, budget).await {
            Some(Decision::Move { text, by }) => {
                match by {
                    Some(External::Uci) => {
                        self.computer.metrics.computer_uci_moves.inc();
                    }
                    Some(External::Hub) => {
                        self.computer.metrics.computer_hub_moves.inc();
                    }
                    None => {}
                }
                self.act(Intent::Move {
                    text,
                    lag_ms: 0,
                    think_ms: None,
                    offer: false,
                })
                .await;
            }
            Some(Decision::Resign) => {
                self.act(Intent::Resign).await;
            }
            Some(Decision::Claim) => {
                if !self.act(Intent::DrawClaim).await {
                    tracing::debug!(game = %self.handle.id(), "repetition claim refused");
                }
            }
            None => tracing::warn!(game = %self.handle.id(), "the computer found no move"),
        }
    }

    fn budget(&self, state: &GameState) -> ClockLimits {
        let remaining_ms = match self.color {
            Color::White => state.clock.white_ms,
            Color::Black => state.clock.black_ms,
        };
        let first = state.time_control.first();
        ClockLimits {
            remaining_ms,
            increment_ms: first.increment_ms,
            moves_to_go: first.moves,
            delay_ms: first.delay_ms,
        }
    }

    async fn decide(&self, game: Replayed, clock: ClockLimits) -> Option<Decision> {
        let level = self.level;
        let engines = Engines {
            uci: self.computer.config.uci_engine.clone(),
            hub: self
                .computer
                .by_hub(game.pos.variant())
                .then(|| self.computer.config.hub_engine.clone()),
        };
        let pace = self.computer.pace.clone();
        self.computer
            .search(move || decide(game, (level, pace), clock, &engines))
            .await
            .flatten()
    }

    async fn accepts_draw(&self, game: &Replayed) -> bool {
        let (pos, history, level, color) = (
            game.pos.clone(),
            game.history.clone(),
            self.level,
            self.color,
        );
        self.computer
            .search(move || match &pos {
                Position::Chess(p) => chess::accepts_draw(p, color),
                Position::Draughts(_) => engine::accepts_draw(&pos, &history, level),
            })
            .await
            .unwrap_or(false)
    }
}

/// The external engines the computer may use for a game.
struct Engines {
    uci: String,
    /// The Hub engine's command line, when it plays this game's variant.
    hub: Option<String>,
}

/// The computer's decision, on a search thread.
fn decide(
    game: Replayed,
    (level, pace): (Level, Option<engine::Pace>),
    clock: ClockLimits,
    engines: &Engines,
) -> Option<Decision> {
    if let (Some(command), Position::Draughts(p)) = (&engines.hub, &game.pos) {
        // The level's think time, never more than the clock allows.
        let ms = level
            .spec()
            .movetime_ms
            .min(engine_budget(clock))
            .clamp(20, 5_000);
        // Tried twice (a fresh process each time), then the built-in engine plays.
        for attempt in 1..=2 {
            match hub::best_move(command, p, ms) {
                Ok(mv) => {
                    return Some(Decision::Move {
                        text: p.move_text(&mv),
                        by: Some(External::Hub),
                    });
                }
                Err(e) => tracing::warn!(attempt, error = %e, "the Hub engine failed"),
            }
        }
    }
    let repeated = game
        .history
        .iter()
        .filter(|&&k| k == game.pos.key())
        .count()
        >= 2;
    match &game.pos {
        Position::Chess(p) => {
            let budget = engine_budget(clock);
            let choice = chess::best_move(&engines.uci, p, level.get(), budget);
            if repeated && choice.score.is_some_and(|s| s <= 0) {
                return Some(Decision::Claim);
            }
            (!choice.text.is_empty()).then_some(Decision::Move {
                text: choice.text,
                by: choice.by_uci.then_some(External::Uci),
            })
        }
        Position::Draughts(_) => {
            let limits = Limits {
                clock: Some(clock),
                law_plies: game.law_plies,
                pace,
                ..Limits::default()
            };
            let t = engine::think(&game.pos, &game.history, level, &limits).ok()?;
            if engine::should_resign(level, t.score) {
                return Some(Decision::Resign);
            }
            if repeated && matches!(t.score, Score::Centi(c) if c <= 0) {
                return Some(Decision::Claim);
            }
            Some(Decision::Move {
                text: game.pos.move_text(&t.best),
                by: None,
            })
        }
    }
}

/// A chess move's time budget from the clock: a thirtieth of what is left.
fn engine_budget(clock: ClockLimits) -> u64 {
    clock.remaining_ms / 30 + clock.increment_ms / 2
}

/// The game's position and history, replayed from its start.
fn replay(state: &GameState) -> Option<Replayed> {
    let start = Position::from_fen(state.variant, &state.initial_fen).ok()?;
    let mut game = Replayed::start(start);
    for text in &state.moves {
        game.play(text).ok()?;
    }
    Some(game)
}
