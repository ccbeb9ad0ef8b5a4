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

use crate::bot::{BotError, Ctx, Window, decode, next_text, recv, send};
use crate::game::GameView;
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
        let game = (plan.variant, plan.time_control);
        let Some(state) = pair(&ctx, &mut s, &mut plan.pairing, game, window, "error").await?
        else {
            return Ok(());
        };
        ctx.stats.pairing.record(t0.elapsed());
        let view = seated_view(&ctx, &state, &s.user)?;
        if let Some(p) = &plan.publish {
            p.send_replace(Some(state.game_id.clone()));
        }
        let how = How {
            think: plan.think,
            max_plies: plan.max_plies,
        };
        play(&ctx, &mut s, view, how, &mut rng, window, &mut |_| {}).await?;
        played += 1;
    }
    Ok(())
}

/// A player's view of a game that just started, from its side (a start of a game the
/// bot does not play is a protocol error); the game is counted once, by White.
pub fn seated_view(
    ctx: &Ctx,
    game: &shared::protocol::GameState,
    user: &UserId,
) -> Result<GameView, BotError> {
    let me = if game.white.id == *user {
        Color::White
    } else if game.black.id == *user {
        Color::Black
    } else {
        return Err(BotError::Protocol(
            "game_start for a game we do not play".into(),
        ));
    };
    if me == Color::White {
        ctx.stats.games_started.inc();
    }
    Ok(GameView::from_state(game, Some(me))?)
}

/// Pairs through the lobby for a game of `variant` at `time_control`: opens the seek
/// or joins the pool `pairing` asks for, accepts the seeks it is handed, hands on the
/// seek it opened; the server's errors are counted with the reason `<what> <code>`. The
/// started game's state, or none if the window ended.
pub async fn pair(
    ctx: &Ctx,
    s: &mut Session,
    pairing: &mut Pairing,
    (variant, time_control): (Variant, TimeControl),
    window: Window,
    what: &str,
) -> Result<Option<shared::protocol::GameState>, BotError> {
    let ask = match &*pairing {
        Pairing::Seek(_) => Some(ClientMessage::Seek {
            variant,
            time_control,
            rated: false,
            color: ColorChoice::Random,
            ruleset: None,
            rating_range: None,
        }),
        Pairing::Pool => Some(ClientMessage::PoolJoin {
            variant,
            time_control,
            rated: false,
        }),
        Pairing::Accept(_) => None,
    };
    if let Some(ask) = ask {
        send(&mut s.ws, &ask).await?;
    }
    loop {
        let seek_id = async {
            match &mut *pairing {
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
                    if let Pairing::Seek(tx) = &*pairing {
                        let _ = tx.send(seek.seek_id).await;
                    }
                }
                ServerMessage::Error { code, .. } => {
                    ctx.stats.server_errors.inc();
                    ctx.stats.reason(format!("{what} {code}"));
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
                    if !stats.is_new(view.sequence(version)) {
                        continue;
                    }
                    match event {
                        GameEvent::Move { by, played, fen, legal_moves, .. } => {
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
                            // Legal moves come to the player to move alone, and are
                            // those of our own copy (none once the server's law ended
                            // the game, which our copy may not know yet).
                            let right = legal_moves.is_empty()
                                || (view.my_turn() && view.same_legal_moves(&legal_moves));
                            if !right {
                                stats.legal_moves_wrong.inc();
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
            text = next_text(&mut s.ws) => {
                let text = text?;
                let frame_len = text.len() as u64;
                match decode(&text)? {
                    ServerMessage::GameState { game } if Some(&game.game_id) == wanted.as_ref() => {
                        if !game.legal_moves.is_empty() {
                            stats.legal_moves_wrong.inc();
                        }
                        view = Some(GameView::from_state(&game, None)?);
                    }
                    ServerMessage::GameEvent { game_id, version, event } => {
                        let Some(v) = view.as_mut().filter(|v| v.id == game_id) else {
                            continue;
                        };
                        if !stats.is_new(v.sequence(version)) {
                            continue;
                        }
                        if let GameEvent::Move { played, fen, legal_moves, .. } = event {
                            stats.spectator_moves.inc();
                            stats.spectator_bytes.add(frame_len);
                            if !legal_moves.is_empty() {
                                stats.legal_moves_wrong.inc();
                            }
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
}

/// Holds a session open (answering the server's pings) until the window ends, then
/// checks it still answers an application `ping`. Returns whether it did.
pub async fn idle(ctx: Arc<Ctx>, mut s: Session) -> Result<bool, BotError> {
    // Keep reading while the others connect: reading answers the server's pings, and a
    // connection that answers none for `ws.ping_timeout_ms` is closed (4004).
    let window = loop {
        tokio::select! {
            w = ctx.window() => break w?,
            msg = recv(&mut s.ws) => { msg?; }
        }
    };
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
