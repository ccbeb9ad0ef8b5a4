//! Players of the computer, to keep a node's engine threads busy during a scenario
//! (`--computer-games`): each asks for a game against the computer, answers every
//! computer move at once with a random legal move, and asks again when its game ends,
//! until the window closes. What they see is counted apart ([`ComputerCounts`]), never
//! in the run's move statistics, so the scenario's figures stay those of the human
//! games beside them.

use std::sync::Arc;
use std::time::Duration;

use shared::protocol::{ClientMessage, ColorChoice, GameEvent, ServerMessage, TimeControl};
use shared::rules::{Color, Variant};
use tokio::time::{Instant, sleep, sleep_until};

use crate::bot::{BotError, Ctx, Window, recv, send};
use crate::damka::Session;
use crate::game::GameView;
use crate::stats::Counter;

/// What the computer players ask for.
#[derive(Clone, Copy, Debug)]
pub struct ComputerPlan {
    /// The game.
    pub variant: Variant,
    /// The clock.
    pub time_control: TimeControl,
    /// The computer's level, 1 to 8.
    pub level: u8,
}

/// What the computer players saw.
#[derive(Default)]
pub struct ComputerCounts {
    /// Games against the computer started.
    pub games: Counter,
    /// Moves the computer played.
    pub moves: Counter,
    /// `computer_play` answered with an error (e.g. `busy`).
    pub refused: Counter,
}

/// Plays the computer, game after game, until the window ends.
pub async fn player(
    ctx: Arc<Ctx>,
    mut s: Session,
    plan: ComputerPlan,
    counts: Arc<ComputerCounts>,
    mut rng: fastrand::Rng,
) -> Result<(), BotError> {
    let window = ctx.window().await?;
    while Instant::now() < window.end {
        let ask = ClientMessage::ComputerPlay {
            variant: plan.variant,
            level: plan.level,
            time_control: plan.time_control,
            color: ColorChoice::Random,
            fen: None,
        };
        send(&mut s.ws, &ask).await?;
        let Some(mut view) = started(&mut s, &counts, window).await? else {
            sleep(Duration::from_secs(1)).await;
            continue;
        };
        counts.games.inc();
        play_out(&mut s, &mut view, &counts, &mut rng, window).await?;
    }
    Ok(())
}

/// The game the computer was asked for, from our side; none if refused or the window
/// ended first.
async fn started(
    s: &mut Session,
    counts: &ComputerCounts,
    window: Window,
) -> Result<Option<GameView>, BotError> {
    loop {
        let msg = tokio::select! {
            () = sleep_until(window.end) => return Ok(None),
            msg = recv(&mut s.ws) => msg?,
        };
        match msg {
            ServerMessage::GameStart { game } => {
                let me = if game.white.id == s.user {
                    Color::White
                } else {
                    Color::Black
                };
                return Ok(Some(GameView::from_state(&game, Some(me))?));
            }
            ServerMessage::Error { .. } => {
                counts.refused.inc();
                return Ok(None);
            }
            _ => {}
        }
    }
}

/// Answers the computer at once until the game ends (or resigns it when the window
/// does).
async fn play_out(
    s: &mut Session,
    view: &mut GameView,
    counts: &ComputerCounts,
    rng: &mut fastrand::Rng,
    window: Window,
) -> Result<(), BotError> {
    let mut move_id = 0;
    let mut answered = None;
    loop {
        if view.my_turn()
            && answered != Some(view.ply)
            && let Some(mv) = view.choose(rng)
        {
            answered = Some(view.ply);
            move_id += 1;
            let text = view.text(&mv);
            let game_id = view.id.clone();
            send(
                &mut s.ws,
                &ClientMessage::Move {
                    game_id,
                    text,
                    move_id,
                    think_ms: None,
                    offer_draw: false,
                },
            )
            .await?;
        }
        let msg = tokio::select! {
            () = sleep_until(window.end) => {
                let resign = ClientMessage::Resign { game_id: view.id.clone() };
                let _ = send(&mut s.ws, &resign).await;
                return Ok(());
            }
            msg = recv(&mut s.ws) => msg?,
        };
        let ServerMessage::GameEvent { game_id, event, .. } = msg else {
            continue;
        };
        if game_id != view.id {
            continue;
        }
        match event {
            GameEvent::Move { by, played, .. } => {
                if Some(by) != view.me {
                    counts.moves.inc();
                }
                view.apply(&played.text, None)?;
            }
            GameEvent::GameOver { .. } => return Ok(()),
            _ => {}
        }
    }
}
