//! Bots against the bare relay, doing what the damka bots do with the same messages:
//! players exchange a seek-sized frame to "pair", then the mover sends exactly the
//! `game_event` JSON damka would send for its move and the relay copies it to the
//! opponent and the room's spectators, who check versions and legality the same way.
//! With no server to end games, every bot ends a game where the rules (or the ply cap)
//! do, and the next game starts in the same room.

use std::sync::Arc;
use std::time::Duration;

use futures_util::SinkExt;
use shared::protocol::{ClientMessage, ColorChoice, GameEvent, GameId, ServerMessage, TimeControl};
use shared::rules::{Color, Variant};
use tokio::time::{Instant, sleep_until};
use tokio_tungstenite::tungstenite::Message;

use crate::bot::{BotError, Ctx, Window, next_text};
use crate::game::GameView;
use crate::net::{Ws, websocket};
use crate::plan::Think;
use crate::relay::START;
use crate::stats::Stats;
use crate::target::Target;

/// Joins room `room` of `size` members (the WebSocket handshake). Records the setup
/// time.
pub async fn connect(ctx: &Ctx, target: &Target, room: &str, size: usize) -> Result<Ws, BotError> {
    let t0 = Instant::now();
    let ws = websocket(target, &format!("/r/{room}?n={size}"), None, &ctx.sources).await?;
    ctx.stats.setup.record(t0.elapsed());
    Ok(ws)
}

/// Waits until the room is full (its start frame).
pub async fn wait_start(ws: &mut Ws) -> Result<(), BotError> {
    loop {
        if next_text(ws).await?.as_str() == START {
            return Ok(());
        }
    }
}

/// One relay player's part.
pub struct RelayPlayer {
    /// The room, used as the game id.
    pub room: GameId,
    /// This bot's side (white starts each game).
    pub me: Color,
    /// The game.
    pub variant: Variant,
    /// The clock (only for the size of the seek frame).
    pub time_control: TimeControl,
    /// Start delay after the window opens.
    pub offset: Duration,
    /// Games to play at most.
    pub games: Option<u32>,
    /// Moves before a game ends.
    pub max_plies: u32,
    /// Think time.
    pub think: Think,
}

fn ended(view: &GameView, max_plies: u32) -> bool {
    view.ply >= max_plies || view.rules_over()
}

/// Plays games in its room until the window ends.
pub async fn player(
    ctx: Arc<Ctx>,
    mut ws: Ws,
    plan: RelayPlayer,
    mut rng: fastrand::Rng,
) -> Result<(), BotError> {
    let window = ctx.window().await?;
    sleep_until(window.start + plan.offset).await;
    let seek = serde_json::to_string(&ClientMessage::Seek {
        variant: plan.variant,
        time_control: plan.time_control,
        rated: false,
        color: ColorChoice::Random,
        ruleset: None,
        rating_range: None,
    })
    .map_err(|e| BotError::Decode(e.to_string()))?;
    let mut version = 0;
    let mut played = 0;
    while Instant::now() < window.end && plan.games.is_none_or(|g| played < g) {
        let t0 = Instant::now();
        ws.send(Message::text(seek.clone())).await?;
        let paired = tokio::select! {
            () = sleep_until(window.end) => false,
            r = wait_seek(&mut ws) => { r?; true }
        };
        if !paired {
            break;
        }
        ctx.stats.pairing.record(t0.elapsed());
        if plan.me == Color::White {
            ctx.stats.games_started.inc();
        }
        let view = GameView::fresh(plan.room.clone(), plan.variant, Some(plan.me), version);
        version = play(&ctx, &mut ws, view, &plan, &mut rng, window).await?;
        played += 1;
    }
    Ok(())
}

/// Waits for the partner's seek frame (skipping stray move frames of a game already
/// over on our side).
async fn wait_seek(ws: &mut Ws) -> Result<(), BotError> {
    loop {
        let text = next_text(ws).await?;
        if text.as_str().starts_with(r#"{"type":"seek""#) {
            return Ok(());
        }
    }
}

/// Plays one game; returns the room's last version.
async fn play(
    ctx: &Ctx,
    ws: &mut Ws,
    mut view: GameView,
    plan: &RelayPlayer,
    rng: &mut fastrand::Rng,
    window: Window,
) -> Result<u64, BotError> {
    let stats: &Stats = &ctx.stats;
    let clock = ctx.tracks.get(&view.id);
    let white = plan.me == Color::White;
    let mut due = view
        .my_turn()
        .then(|| Instant::now() + plan.think.sample(rng));
    loop {
        tokio::select! {
            biased;
            text = next_text(ws) => {
                let text = text?;
                let msg: ServerMessage = serde_json::from_str(text.as_str())
                    .map_err(|e| BotError::Decode(e.to_string()))?;
                let ServerMessage::GameEvent { version, event: GameEvent::Move { played, fen, .. }, .. } = msg else {
                    continue;
                };
                if !stats.is_new(view.sequence(version)) {
                    continue;
                }
                let now = Instant::now();
                stats.moves_received.inc();
                if let Some(d) = clock.since(version, now) {
                    stats.move_rtt.record(d);
                }
                if let Err(e) = view.apply(&played.text, Some(&fen)) {
                    stats.rule_mismatches.inc();
                    return Err(e.into());
                }
                if ended(&view, plan.max_plies) {
                    if white {
                        stats.games_finished.inc();
                    }
                    return Ok(view.version);
                }
                due = Some(now + plan.think.sample(rng));
            }
            () = sleep_until(due.unwrap_or(window.end)), if due.is_some() => {
                due = None;
                let Some(mv) = view.choose(rng) else {
                    continue;
                };
                let version = view.version + 1;
                let frame = view.event_frame(&mv, version);
                let text = view.text(&mv);
                clock.sent(version, Instant::now());
                ws.send(Message::text(frame)).await?;
                stats.moves_sent.inc();
                view.sequence(version);
                view.apply(&text, None)?;
                if ended(&view, plan.max_plies) {
                    if white {
                        stats.games_finished.inc();
                    }
                    return Ok(view.version);
                }
            }
            () = sleep_until(window.end) => {
                if white {
                    stats.games_cut.inc();
                }
                return Ok(view.version);
            }
        }
    }
}

/// Watches a room: checks every move frame, restarting its copy when a game ends.
pub async fn spectator(
    ctx: Arc<Ctx>,
    mut ws: Ws,
    room: GameId,
    variant: Variant,
    max_plies: u32,
) -> Result<(), BotError> {
    let window = ctx.window().await?;
    let stats = &ctx.stats;
    let clock = ctx.tracks.get(&room);
    let mut view = GameView::fresh(room.clone(), variant, None, 0);
    loop {
        let text = tokio::select! {
            () = sleep_until(window.end) => return Ok(()),
            t = next_text(&mut ws) => t?,
        };
        let Ok(ServerMessage::GameEvent {
            version,
            event: GameEvent::Move { played, fen, .. },
            ..
        }) = serde_json::from_str::<ServerMessage>(text.as_str())
        else {
            continue;
        };
        if !stats.is_new(view.sequence(version)) {
            continue;
        }
        stats.spectator_moves.inc();
        stats.spectator_bytes.add(text.len() as u64);
        if let Some(d) = clock.since(version, Instant::now()) {
            stats.fanout.record(d);
        }
        if let Err(e) = view.apply(&played.text, Some(&fen)) {
            stats.rule_mismatches.inc();
            return Err(e.into());
        }
        if ended(&view, max_plies) {
            view = GameView::fresh(room.clone(), variant, None, view.version);
        }
    }
}

/// Holds a room connection until the window ends, then checks the partner still
/// relays: both send a frame and wait for the other's.
pub async fn idle(ctx: Arc<Ctx>, mut ws: Ws) -> Result<bool, BotError> {
    let window = ctx.window().await?;
    // A frame during the hold can only be the partner's check, sent a little early.
    let mut heard = false;
    loop {
        tokio::select! {
            () = sleep_until(window.end) => break,
            t = next_text(&mut ws) => {
                t?;
                heard = true;
            }
        }
    }
    ws.send(Message::text(r#"{"type":"ping","id":1}"#)).await?;
    let alive = heard
        || matches!(
            tokio::time::timeout(Duration::from_secs(10), next_text(&mut ws)).await,
            Ok(Ok(_))
        );
    crate::bot::close(ws).await;
    Ok(alive)
}
