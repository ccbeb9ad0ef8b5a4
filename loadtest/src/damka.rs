//! Bots against a damka server: a session (WebSocket with a guest token, `hello`,
//! `welcome`), a player that pairs through the real lobby (seek and accept, or quick
//! pairing) and plays random legal moves until its game ends, and a spectator that
//! follows the games of its pair.

use std::sync::Arc;
use std::time::Duration;

use shared::protocol::{
    ClientMessage, ColorChoice, GameEvent, GameId, PROTOCOL_VERSION, SeekId, ServerMessage,
    TimeControl, UserId,
};
use shared::rules::{Color, Variant};
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, sleep_until};

use crate::bot::{BotError, Ctx, Window, recv, send};
use crate::game::{GameView, Seq};
use crate::net::{Ws, websocket};
use crate::stats::Stats;
use crate::target::Target;

/// A welcomed session.
pub struct Session {
    /// The socket.
    pub ws: Ws,
    /// Who we are.
    pub user: UserId,
}

/// Opens a session: WebSocket upgrade with the token, `hello`, `welcome`. Records the
/// setup time.
pub async fn connect(ctx: &Ctx, target: &Target, token: &str) -> Result<Session, BotError> {
    let t0 = Instant::now();
    let mut ws = websocket(target, "/ws", Some(token), &ctx.sources).await?;
    send(
        &mut ws,
        &ClientMessage::Hello {
            protocol: PROTOCOL_VERSION,
            client: Some("damka-loadtest".into()),
        },
    )
    .await?;
    loop {
        match recv(&mut ws).await? {
            ServerMessage::Welcome { user, .. } => {
                ctx.stats.setup.record(t0.elapsed());
                return Ok(Session { ws, user: user.id });
            }
            ServerMessage::Error { code, .. } => {
                return Err(BotError::Protocol(format!("hello refused: {code}")));
            }
            _ => {}
        }
    }
}

/// How a player finds its opponent.
pub enum Pairing {
    /// Opens a seek and hands its id to the partner.
    Seek(mpsc::Sender<SeekId>),
    /// Accepts the partner's seeks.
    Accept(mpsc::Receiver<SeekId>),
    /// Joins the quick-pairing pool.
    Pool,
}

/// One player's part in a run.
pub struct PlayerPlan {
    /// The game.
    pub variant: Variant,
    /// The clock.
    pub time_control: TimeControl,
    /// How to find opponents.
    pub pairing: Pairing,
    /// Start delay after the window opens (the ramp).
    pub offset: Duration,
    /// Games to play at most.
    pub games: Option<u32>,
    /// Where the current game id is published for the pair's spectators.
    pub publish: Option<watch::Sender<Option<GameId>>>,
    /// Moves to play before resigning.
    pub max_plies: u32,
    /// Think time.
    pub think: crate::plan::Think,
}

/// Plays games until the window ends or the plan's count is reached.
pub async fn player(
    ctx: Arc<Ctx>,
    mut s: Session,
    mut plan: PlayerPlan,
    mut rng: fastrand::Rng,
) -> Result<(), BotError> {
    let window = ctx.window().await?;
    sleep_until(window.start + plan.offset).await;
    let mut played = 0;
    while Instant::now() < window.end && plan.games.is_none_or(|g| played < g) {
        let t0 = Instant::now();
        let Some(state) = pair(&ctx, &mut s, &mut plan, window).await? else {
            return Ok(());
        };
        ctx.stats.pairing.record(t0.elapsed());
        let me = if state.white.id == s.user {
            Color::White
        } else if state.black.id == s.user {
            Color::Black
        } else {
            return Err(BotError::Protocol(
                "game_start for a game we do not play".into(),
            ));
        };
        if me == Color::White {
            ctx.stats.games_started.inc();
        }
        if let Some(p) = &plan.publish {
            p.send_replace(Some(state.game_id.clone()));
        }
        let view = GameView::from_state(&state, Some(me))?;
        let how = How {
            think: plan.think,
            max_plies: plan.max_plies,
        };
        play(&ctx, &mut s, view, how, &mut rng, window, &mut |_| {}).await?;
        played += 1;
    }
    Ok(())
}

/// Pairs through the lobby; the started game's state, or none if the window ended.
async fn pair(
    ctx: &Ctx,
    s: &mut Session,
    plan: &mut PlayerPlan,
    window: Window,
) -> Result<Option<shared::protocol::GameState>, BotError> {
    match &plan.pairing {
        Pairing::Seek(_) => {
            send(
                &mut s.ws,
                &ClientMessage::Seek {
                    variant: plan.variant,
                    time_control: plan.time_control,
                    rated: false,
                    color: ColorChoice::Random,
                    ruleset: None,
                },
            )
            .await?
        }
        Pairing::Pool => {
            send(
                &mut s.ws,
                &ClientMessage::PoolJoin {
                    variant: plan.variant,
                    time_control: plan.time_control,
                    rated: false,
                },
            )
            .await?
        }
        Pairing::Accept(_) => {}
    }
    loop {
        let seek_id = async {
            match &mut plan.pairing {
                Pairing::Accept(rx) => rx.recv().await,
                _ => std::future::pending().await,
            }
        };
        tokio::select! {
            () = sleep_until(window.end) => return Ok(None),
            id = seek_id => match id {
                Some(seek_id) => send(&mut s.ws, &ClientMessage::AcceptSeek { seek_id }).await?,
                None => return Ok(None),
            },
            msg = recv(&mut s.ws) => match msg? {
                ServerMessage::GameStart { game } => return Ok(Some(game)),
                ServerMessage::SeekCreated { seek } => {
                    if let Pairing::Seek(tx) = &plan.pairing {
                        let _ = tx.send(seek.seek_id).await;
                    }
                }
                ServerMessage::Error { code, .. } => {
                    ctx.stats.server_errors.inc();
                    ctx.stats.reason(format!("error {code}"));
                }
                _ => {}
            }
        }
    }
}

/// How a player plays its games.
#[derive(Clone, Copy, Debug)]
pub struct How {
    /// Think time.
    pub think: crate::plan::Think,
    /// Moves to play before resigning.
    pub max_plies: u32,
}

/// Plays one game to its end (true) or the window's (false). Messages that are not
/// about this game go to `other`.
pub async fn play(
    ctx: &Ctx,
    s: &mut Session,
    mut view: GameView,
    plan: How,
    rng: &mut fastrand::Rng,
    window: Window,
    other: &mut (dyn FnMut(ServerMessage) + Send),
) -> Result<bool, BotError> {
    let stats: &Stats = &ctx.stats;
    let clock = ctx.tracks.get(&view.id);
    let white = view.me == Some(Color::White);
    let mut due = view
        .my_turn()
        .then(|| Instant::now() + plan.think.sample(rng));
    let mut move_id = 0u64;
    let mut resigned = false;
    loop {
        tokio::select! {
            biased;
            msg = recv(&mut s.ws) => match msg? {
                ServerMessage::GameEvent { game_id, version, event } if game_id == view.id => {
                    match view.sequence(version) {
                        Seq::Next => {}
                        Seq::Gap(n) => stats.events_dropped.add(n),
                        Seq::Stale => {
                            stats.events_out_of_order.inc();
                            continue;
                        }
                    }
                    match event {
                        GameEvent::Move { by, played, fen, .. } => {
                            let now = Instant::now();
                            if Some(by) != view.me {
                                stats.moves_received.inc();
                                if let Some(d) = clock.since(u64::from(view.ply), now) {
                                    stats.move_rtt.record(d);
                                }
                            }
                            if let Err(e) = view.apply(&played.text, Some(&fen)) {
                                stats.rule_mismatches.inc();
                                return Err(e.into());
                            }
                            if view.my_turn() {
                                due = Some(now + plan.think.sample(rng));
                            }
                        }
                        GameEvent::GameOver { outcome, .. } => {
                            if white {
                                stats.games_finished.inc();
                                stats.reason(format!("outcome {:?}", outcome.reason));
                                ctx.tracks.remove(&view.id);
                            }
                            return Ok(true);
                        }
                        _ => {}
                    }
                }
                ServerMessage::Error { code, move_id: mid, .. } => {
                    stats.server_errors.inc();
                    stats.reason(format!("error {code}"));
                    if mid.is_some() && view.my_turn() {
                        due = Some(Instant::now() + plan.think.sample(rng));
                    }
                }
                msg => other(msg),
            },
            () = sleep_until(due.unwrap_or(window.end)), if due.is_some() => {
                due = None;
                if view.ply >= plan.max_plies {
                    if !resigned {
                        resigned = true;
                        send(&mut s.ws, &ClientMessage::Resign { game_id: view.id.clone() }).await?;
                    }
                    continue;
                }
                let Some(mv) = view.choose(rng) else {
                    // The server ends a game without moves; wait for its game_over.
                    continue;
                };
                move_id += 1;
                let text = view.text(&mv);
                clock.sent(u64::from(view.ply), Instant::now());
                send(&mut s.ws, &ClientMessage::Move {
                    game_id: view.id.clone(),
                    text,
                    move_id,
                    think_ms: None,
                    offer_draw: false,
                }).await?;
                stats.moves_sent.inc();
            }
            () = sleep_until(window.end) => {
                if white {
                    stats.games_cut.inc();
                    let _ = send(&mut s.ws, &ClientMessage::Resign { game_id: view.id.clone() }).await;
                    ctx.tracks.remove(&view.id);
                }
                return Ok(false);
            }
        }
    }
}

/// Follows the games published by its pair's white player until the window ends.
pub async fn spectator(
    ctx: Arc<Ctx>,
    mut s: Session,
    mut games: watch::Receiver<Option<GameId>>,
) -> Result<(), BotError> {
    let window = ctx.window().await?;
    let stats = &ctx.stats;
    let mut wanted: Option<GameId> = None;
    let mut view: Option<GameView> = None;
    let mut publisher_alive = true;
    loop {
        tokio::select! {
            () = sleep_until(window.end) => return Ok(()),
            changed = games.changed(), if publisher_alive => {
                if changed.is_err() {
                    publisher_alive = false;
                    continue;
                }
                let next = games.borrow_and_update().clone();
                if next.is_some() && next != wanted {
                    if let Some(old) = wanted.take() {
                        send(&mut s.ws, &ClientMessage::Unwatch { game_id: old }).await?;
                    }
                    view = None;
                    if let Some(id) = &next {
                        send(&mut s.ws, &ClientMessage::Watch { game_id: id.clone() }).await?;
                    }
                    wanted = next;
                }
            }
            msg = recv(&mut s.ws) => match msg? {
                ServerMessage::GameState { game } if Some(&game.game_id) == wanted.as_ref() => {
                    view = Some(GameView::from_state(&game, None)?);
                }
                ServerMessage::GameEvent { game_id, version, event } => {
                    let Some(v) = view.as_mut().filter(|v| v.id == game_id) else {
                        continue;
                    };
                    match v.sequence(version) {
                        Seq::Next => {}
                        Seq::Gap(n) => stats.events_dropped.add(n),
                        Seq::Stale => {
                            stats.events_out_of_order.inc();
                            continue;
                        }
                    }
                    if let GameEvent::Move { played, fen, .. } = event {
                        stats.spectator_moves.inc();
                        if let Some(d) = ctx.tracks.get(&v.id).since(u64::from(v.ply), Instant::now()) {
                            stats.fanout.record(d);
                        }
                        if let Err(e) = v.apply(&played.text, Some(&fen)) {
                            stats.rule_mismatches.inc();
                            return Err(e.into());
                        }
                    }
                }
                ServerMessage::Error { code, .. } => {
                    stats.server_errors.inc();
                    stats.reason(format!("error {code}"));
                }
                _ => {}
            }
        }
    }
}

/// Holds a session open (answering the server's pings) until the window ends, then
/// checks it still answers an application `ping`. Returns whether it did.
pub async fn idle(ctx: Arc<Ctx>, mut s: Session) -> Result<bool, BotError> {
    let window = ctx.window().await?;
    loop {
        tokio::select! {
            () = sleep_until(window.end) => break,
            msg = recv(&mut s.ws) => { msg?; }
        }
    }
    send(&mut s.ws, &ClientMessage::Ping { id: 1 }).await?;
    let pong = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let ServerMessage::Pong { id: 1, .. } = recv(&mut s.ws).await? {
                return Ok::<_, BotError>(true);
            }
        }
    })
    .await;
    crate::bot::close(s.ws).await;
    Ok(matches!(pong, Ok(Ok(true))))
}
