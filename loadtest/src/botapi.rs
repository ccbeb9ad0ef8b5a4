//! The Bot API scenario: pairs of bot accounts (registered, given a `bot:play` token,
//! upgraded) play chess over damka's HTTP Bot API, as lichess-bot does: the challenger
//! challenges its partner, the partner accepts, both read the game from
//! `GET /api/bot/game/stream/{id}` (NDJSON) and move with
//! `POST /api/bot/game/{id}/move/{uci}`. A move's round trip runs from the mover's POST
//! until the opponent's stream shows a `gameState` with that move. The same counters
//! and histograms as the WebSocket scenarios, so the two compare row by row.

use shared::protocol::{GameId, TimeControl};
use shared::rules::{Color, Move, Position, Variant};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, sleep_until};

use crate::bot::{BotError, Ctx, Window};
use crate::game::GameView;
use crate::http::{HttpClient, Ndjson};
use crate::plan::{Common, PlayPlan, SystemUnderTest};
use crate::report::RunReport;
use crate::run::{Harness, RunError};
use crate::target::Target;

/// The scopes a bot's token needs: playing, and challenging its partner.
const SCOPES: [&str; 2] = ["bot:play", "challenge:write"];
/// Every bot account's password.
const PASSWORD: &str = "loadtest-bot-password";

/// A bot account ready to play: its personal token, and its event stream if it waits
/// for challenges (a bot is online while one is open; challenges to offline bots are
/// refused).
struct Account {
    token: String,
    events: Option<Ndjson>,
}

/// A challenge made and handed to the partner, who answers once it is accepted.
type Handoff = (String, oneshot::Sender<()>);

/// What a game of the scenario is: the variant (chess) and the clock.
#[derive(Clone, Copy)]
struct Game {
    variant: Variant,
    time_control: TimeControl,
}

/// Plays `plan.games` games between pairs of bots over the Bot API on the damka nodes
/// of `backend` (pair `i` on node `i mod n`), each pair starting at its ramp offset and
/// playing games one after another until the window ends. Chess only: the variant is
/// the plan's first mix entry.
pub async fn play(
    backend: &SystemUnderTest,
    plan: &PlayPlan,
    common: &Common,
) -> Result<RunReport, RunError> {
    let SystemUnderTest::Damka { nodes, .. } = backend else {
        return Err(RunError::Setup(
            "the Bot API scenario runs against damka".into(),
        ));
    };
    if nodes.is_empty() {
        return Err(RunError::NoNodes);
    }
    let game = checked_game(plan)?;
    let mut h = Harness::new(backend, common)?;
    let mut rng = fastrand::Rng::with_seed(common.seed);
    // Names of this run's own, so that a reused database has no account of the name.
    let tag = rng.u32(..);
    let pairs = plan.games.max(1);
    for g in 0..plan.games {
        let target = nodes[g % nodes.len()];
        let offset = plan.ramp.mul_f64(g as f64 / pairs as f64);
        let (tx, rx) = mpsc::channel::<Handoff>(1);
        let white = format!("Lb{tag:x}w{g}");
        let black = format!("Lb{tag:x}b{g}");
        let how = crate::damka::How {
            think: plan.think,
            max_plies: plan.max_plies,
        };
        let seeds = [rng.u64(..), rng.u64(..)];
        let ctx = h.ctx.clone();
        let partner = black.clone();
        h.spawn(
            async move { account(&ctx, target, &white, false).await },
            move |ctx, me: Account| async move {
                let window = ctx.window().await?;
                sleep_until(window.start + offset).await;
                let mut rng = fastrand::Rng::with_seed(seeds[0]);
                let mut seat = Seat {
                    ctx: &ctx,
                    target,
                    client: HttpClient::new(target, &ctx.sources),
                    token: me.token,
                    window,
                };
                challenger(&mut seat, &partner, game, tx, how, &mut rng).await
            },
        );
        let ctx = h.ctx.clone();
        h.spawn(
            async move { account(&ctx, target, &black, true).await },
            move |ctx, me: Account| async move {
                let window = ctx.window().await?;
                let mut rng = fastrand::Rng::with_seed(seeds[1]);
                let mut seat = Seat {
                    ctx: &ctx,
                    target,
                    client: HttpClient::new(target, &ctx.sources),
                    token: me.token,
                    window,
                };
                let Some(events) = me.events else {
                    return Err(BotError::Protocol("no event stream".into()));
                };
                accepter(&mut seat, game, rx, events, how, &mut rng).await
            },
        );
    }
    Ok(
        h.finish(backend, "botapi", plan.duration, plan.games as u64)
            .await,
    )
}

/// The plan's game, if the Bot API scenario can play it: chess (its `gameState` moves
/// are UCI, which the bots' rules read) on a clock of whole seconds (the challenge's
/// `clock.limit` and `clock.increment`).
fn checked_game(plan: &PlayPlan) -> Result<Game, RunError> {
    let Some(&(variant, time_control)) = plan.mix.first() else {
        return Err(RunError::Setup("no game given".into()));
    };
    if variant != Variant::Chess {
        return Err(RunError::Setup(format!(
            "the Bot API scenario plays chess, not {variant}"
        )));
    }
    let first = time_control.first();
    if time_control.periods().len() != 1
        || !first.time_ms.is_multiple_of(1000)
        || !first.increment_ms.is_multiple_of(1000)
        || first.delay_ms != 0
    {
        return Err(RunError::Setup(
            "the Bot API scenario needs a clock of whole seconds, one period, no delay".into(),
        ));
    }
    Ok(Game {
        variant,
        time_control,
    })
}

/// Registers `name`, makes it a personal token with the bot scopes, upgrades it to a
/// bot account, and opens its event stream if it is to be `online`.
async fn account(ctx: &Ctx, target: Target, name: &str, online: bool) -> Result<Account, BotError> {
    let mut client = HttpClient::new(target, &ctx.sources);
    let t0 = Instant::now();
    let session = client.register(name, PASSWORD).await?;
    let body = serde_json::json!({ "description": "loadtest", "scopes": SCOPES }).to_string();
    let made = client
        .call("POST", "/api/tokens", Some(&session), &body)
        .await?;
    let made: serde_json::Value =
        serde_json::from_str(&made).map_err(|e| BotError::Decode(e.to_string()))?;
    let token = made["token"]
        .as_str()
        .ok_or_else(|| BotError::Protocol("no token in POST /api/tokens".into()))?
        .to_string();
    client
        .call("POST", "/api/bot/account/upgrade", Some(&token), "")
        .await?;
    let events = if online {
        Some(Ndjson::open(target, &ctx.sources, "/api/stream/event", &token).await?)
    } else {
        None
    };
    ctx.stats.setup.record(t0.elapsed());
    Ok(Account { token, events })
}

/// One bot at the board: its HTTP connection for requests, its token, the window.
struct Seat<'a> {
    ctx: &'a Ctx,
    target: Target,
    client: HttpClient<'a>,
    token: String,
    window: Window,
}

impl Seat<'_> {
    /// `POST path` with the bot's token.
    async fn post(&mut self, path: &str, body: &str) -> Result<String, BotError> {
        Ok(self
            .client
            .call("POST", path, Some(&self.token), body)
            .await?)
    }
}

/// Challenges `partner` to a game as White, hands the challenge over, waits until it is
/// accepted and plays it; again until the window ends.
async fn challenger(
    seat: &mut Seat<'_>,
    partner: &str,
    game: Game,
    handoff: mpsc::Sender<Handoff>,
    how: crate::damka::How,
    rng: &mut fastrand::Rng,
) -> Result<(), BotError> {
    let first = game.time_control.first();
    let form = serde_json::json!({
        "rated": false,
        "clock.limit": first.time_ms / 1000,
        "clock.increment": first.increment_ms / 1000,
        "color": "white",
        "variant": game.variant.to_string(),
    })
    .to_string();
    while Instant::now() < seat.window.end {
        let t0 = Instant::now();
        let made = seat
            .post(&format!("/api/challenge/{partner}"), &form)
            .await?;
        let made: serde_json::Value =
            serde_json::from_str(&made).map_err(|e| BotError::Decode(e.to_string()))?;
        let id = made["id"]
            .as_str()
            .ok_or_else(|| BotError::Protocol("no id in the challenge".into()))?
            .to_string();
        let (accepted_tx, accepted) = oneshot::channel();
        if handoff.send((id.clone(), accepted_tx)).await.is_err() || accepted.await.is_err() {
            return Ok(());
        }
        seat.ctx.stats.pairing.record(t0.elapsed());
        play_game(seat, &id, game.variant, Color::White, how, rng).await?;
    }
    Ok(())
}

/// Accepts the partner's challenges and plays them as Black until the window ends,
/// online through `events` (read between games: what it says is not needed, the
/// partner hands the challenge over).
async fn accepter(
    seat: &mut Seat<'_>,
    game: Game,
    mut handoff: mpsc::Receiver<Handoff>,
    mut events: Ndjson,
    how: crate::damka::How,
    rng: &mut fastrand::Rng,
) -> Result<(), BotError> {
    loop {
        let next = tokio::select! {
            () = sleep_until(seat.window.end) => return Ok(()),
            next = handoff.recv() => next,
            line = events.next() => {
                if line?.is_none() {
                    return Err(BotError::Protocol("the event stream ended".into()));
                }
                continue;
            }
        };
        let Some((id, accepted)) = next else {
            return Ok(());
        };
        seat.post(&format!("/api/challenge/{id}/accept"), "")
            .await?;
        let _ = accepted.send(());
        play_game(seat, &id, game.variant, Color::Black, how, rng).await?;
    }
}

/// Plays game `id` as `me` from its stream to its end (true) or the window's (false).
async fn play_game(
    seat: &mut Seat<'_>,
    id: &str,
    variant: Variant,
    me: Color,
    how: crate::damka::How,
    rng: &mut fastrand::Rng,
) -> Result<bool, BotError> {
    let ctx = seat.ctx;
    let stats = &ctx.stats;
    let game_id = GameId(id.to_string());
    let path = format!("/api/bot/game/stream/{id}");
    let mut stream = Ndjson::open(seat.target, &ctx.sources, &path, &seat.token).await?;
    let clock = ctx.tracks.get(&game_id);
    let white = me == Color::White;
    if white {
        stats.games_started.inc();
    }
    let mut view = GameView::fresh(game_id.clone(), variant, Some(me), 0);
    let mut due: Option<Instant> = None;
    // The ply our last move was sent at, until the stream shows it.
    let mut sent_at: Option<u32> = None;
    let mut resigned = false;
    loop {
        tokio::select! {
            biased;
            line = stream.next() => {
                let Some(line) = line? else {
                    return Err(BotError::Protocol("the game stream ended before the game".into()));
                };
                let state = match line["type"].as_str() {
                    Some("gameFull") => &line["state"],
                    Some("gameState") => &line,
                    _ => continue,
                };
                let moves = state["moves"].as_str().unwrap_or("");
                let now = Instant::now();
                for text in moves.split_whitespace().skip(view.ply as usize) {
                    if !view.my_turn() {
                        stats.moves_received.inc();
                        if let Some(d) = clock.since(u64::from(view.ply), now) {
                            stats.move_rtt.record(d);
                        }
                    }
                    if let Err(e) = view.apply(text, None) {
                        stats.rule_mismatches.inc();
                        return Err(e.into());
                    }
                }
                let status = state["status"].as_str().unwrap_or("");
                if status != "started" && status != "created" {
                    if white {
                        stats.games_finished.inc();
                        stats.reason(format!("outcome {status}"));
                        ctx.tracks.remove(&game_id);
                    }
                    return Ok(true);
                }
                if view.my_turn() && due.is_none() && sent_at != Some(view.ply) {
                    due = Some(now + how.think.sample(rng));
                }
            }
            () = sleep_until(due.unwrap_or(seat.window.end)), if due.is_some() => {
                due = None;
                if view.ply >= how.max_plies {
                    if !resigned {
                        resigned = true;
                        seat.post(&format!("/api/bot/game/{id}/resign"), "").await?;
                    }
                    continue;
                }
                let Some(mv) = view.choose(rng) else {
                    // The server ends a game without moves; wait for its gameState.
                    continue;
                };
                let uci = uci(&view.position, &mv);
                clock.sent(u64::from(view.ply), Instant::now());
                sent_at = Some(view.ply);
                match seat.post(&format!("/api/bot/game/{id}/move/{uci}"), "").await {
                    Ok(_) => stats.moves_sent.inc(),
                    Err(e) => {
                        stats.server_errors.inc();
                        stats.reason(format!("move {}", e.reason()));
                        sent_at = None;
                        due = Some(Instant::now() + how.think.sample(rng));
                    }
                }
            }
            () = sleep_until(seat.window.end) => {
                if white {
                    stats.games_cut.inc();
                    let _ = seat.post(&format!("/api/bot/game/{id}/resign"), "").await;
                    ctx.tracks.remove(&game_id);
                }
                return Ok(false);
            }
        }
    }
}

/// A chess move in UCI, as the Bot API takes it.
fn uci(position: &Position, mv: &Move) -> String {
    match (position, mv) {
        (Position::Chess(p), Move::Chess(m)) => p.uci(m),
        _ => position.move_text(mv),
    }
}
