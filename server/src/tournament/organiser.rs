//! The organiser of one tournament: a tracked task that pairs each round when its time
//! comes (`round_gap_ms` after the previous one, or on the organiser's command), then
//! plays every micro-match of the round at once, each as its own tracked task.
//!
//! A micro-match (IDF s.2 art. 2.6): the ballot entry is drawn once (2.7, 7.2.4); game 1
//! starts at once from the drawn position with the first pairing's colours, game 2
//! after the break (7.3.10) with colours swapped. Games are created directly by the
//! organiser and start on their own. Art. 17: if by the first control's time a player of
//! game 1 has not started (the side to move has made no move; the other side has neither
//! moved nor connected), the game is aborted and the micro-match is lost by absence, by
//! both if both are absent.

use std::sync::Arc;
use std::time::Duration;

use shared::law::GameResult;
use shared::protocol::{GameEvent, GameId, GameState, Outcome, OutcomeReason};
use shared::rules::Color;
use shared::tournament::ballot::RandomSource;
use shared::tournament::forfeits::forfeit_after;
use shared::tournament::knockout;
use shared::tournament::micromatch::colours_in_game;
use shared::tournament::{Absence, BallotTable, Encounter, Opening, Pairing};
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Instant, sleep, sleep_until};

use super::record::{PlayedGame, Start, System, TournamentRecord, TournamentSpec, forfeit_winner};
use super::{Live, TournamentError};
use crate::game::{GameHandle, GameSpec, Intent};
use crate::tournament::Host;

/// Random numbers from the operating system for ballot draws.
struct OsRandom;

impl RandomSource for OsRandom {
    fn next_u64(&mut self) -> u64 {
        getrandom::u64().unwrap_or_else(|_| {
            // No OS randomness: fall back to the clock's nanoseconds.
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64)
        })
    }
}

/// Runs the tournament to its end (or until the server drains). A record loaded from
/// the store in the middle of a round goes on with that round: encounters with a result
/// stay, the others are played from where their games are (see [`micro_match`]).
pub async fn run(app: Arc<impl Host>, live: Arc<Live>, ballot: Option<Arc<BallotTable>>) {
    // Players and watchers learn at once of the games of a resumed round.
    app.tournaments().publish(&app, &live).await;
    loop {
        let (gap, start, running, over) = {
            let r = live.record();
            (
                Duration::from_millis(r.spec.round_gap_ms),
                r.spec.start,
                r.round_running,
                r.rounds_over(),
            )
        };
        if over {
            // Taken over after the last round ended, before the stage was marked finished.
            conclude(&app, &live).await;
            return;
        }
        if !running {
            let requested = live.record().start_requested;
            match start {
                Start::Schedule => tokio::select! {
                    () = live.stopped(&app) => return,
                    () = sleep(gap) => {}
                },
                Start::Command if requested => {}
                Start::Command => tokio::select! {
                    () = live.stopped(&app) => return,
                    () = live.next_round.notified() => {}
                },
            }
            let paired = live.record().pair_next();
            if let Err(e) = paired {
                let id = live.record().id.clone();
                tracing::error!(tournament = %id, error = %e, "cannot pair the round; the tournament ends here");
                live.record().status = shared::protocol::TournamentStatus::Finished;
                app.tournaments().publish(&app, &live).await;
                app.tournaments().retire(&id);
                return;
            }
            app.tournaments().publish(&app, &live).await;
        }
        let (round, pairings) = {
            let r = live.record();
            (r.rounds.len() - 1, r.to_play(r.rounds.len() - 1))
        };
        let handles: Vec<_> = pairings
            .into_iter()
            .map(|p| {
                let drawn = live.record().opening_of(round, p);
                let opening = ballot.as_ref().and_then(|b| match drawn {
                    Some(n) => b.get(n).cloned(),
                    None => Some(b.draw(&mut OsRandom).clone()),
                });
                app.tracker()
                    .spawn(micro_match(app.clone(), live.clone(), round, p, opening))
            })
            .collect();
        for h in handles {
            if h.await.is_err() {
                tracing::error!("a micro-match task failed");
            }
        }
        if live.stopping(&app) {
            return;
        }
        if !live.record().to_play(round).is_empty() {
            // A game could not be followed (its node died and nobody owns it yet):
            // pick the round up again shortly.
            tokio::select! {
                () = live.stopped(&app) => return,
                () = sleep(Duration::from_millis(500)) => {}
            }
            continue;
        }
        if live.record().end_round() {
            conclude(&app, &live).await;
            return;
        }
        app.tournaments().publish(&app, &live).await;
    }
}

/// The last round is over: makes and links the next stage if there is one, then marks
/// the tournament finished, publishes it and lets it go. A view never shows the stage
/// finished before the link is in it.
async fn conclude(app: &Arc<impl Host>, live: &Arc<Live>) {
    if !next_stage(app, live).await {
        // Stopped while the store was down: whoever takes the stage over concludes it.
        return;
    }
    live.record().finish();
    app.tournaments().publish(app, live).await;
    let id = live.record().id.clone();
    app.tournaments().retire(&id);
}

/// Mixed system (art. 2.5): when a stage with a next one is over, creates the next
/// stage with the best of its final standings, seeded in that order, and records its
/// id (shown in both views). Once only: a record that has it already is left alone,
/// and the next stage's id is fixed by this stage's, so an organiser that takes over a
/// stage whose organiser died after creating the next one (before recording the link)
/// links that one instead of creating a second. A lease still held by the dead
/// organiser is waited out. False if the organiser was stopped before it could.
async fn next_stage(app: &Arc<impl Host>, live: &Arc<Live>) -> bool {
    let (spec, id) = {
        let r = live.record();
        if r.next_stage_id.is_some() {
            return true;
        }
        let spec = r.spec.next_stage_spec(r.by_final_standings(), r.id.clone());
        (spec, r.next_stage_id_to_be())
    };
    let Some(spec) = spec else { return true };
    loop {
        match app
            .tournaments()
            .prepare_stage(spec.clone(), id.clone())
            .await
        {
            Ok(prepared) => {
                if let Some(prepared) = prepared {
                    app.tournaments().launch(app, prepared);
                }
                live.record().next_stage_id = Some(id);
                return true;
            }
            Err(TournamentError::Store(e)) => {
                tracing::warn!(tournament = %live.record().id, error = %e, "cannot create the next stage yet");
                tokio::select! {
                    () = live.stopped(app) => return false,
                    () = sleep(Duration::from_millis(500)) => {}
                }
            }
            Err(e) => {
                let id = live.record().id.clone();
                tracing::error!(tournament = %id, error = %e, "cannot create the next stage");
                return true;
            }
        }
    }
}

/// Plays one micro-match and records its result; in a knockout, a drawn micro-match
/// goes on "to the first win" (see `shared::tournament::knockout`).
async fn micro_match(
    app: Arc<impl Host>,
    live: Arc<Live>,
    round: usize,
    pairing: Pairing,
    opening: Option<Opening>,
) {
    let (spec, games, earlier) = {
        let mut r = live.record();
        if let Some(o) = &opening
            && r.opening_of(round, pairing).is_none()
        {
            r.openings.push((round, pairing, o.number));
        }
        let earlier: Vec<(usize, GameId, Option<GameResult>)> = r
            .games
            .iter()
            .filter(|g| g.round == round && g.pairing == pairing)
            .map(|g| (g.index, g.game_id.clone(), g.result))
            .collect();
        (r.spec.clone(), usize::from(r.spec.scoring.games), earlier)
    };
    let knockout = spec.system == System::Knockout {};
    let mut results: Vec<GameResult> = Vec::with_capacity(games);
    let mut index = 0;
    // After a restart or a takeover: the games this encounter already has.
    let mut resumed: Option<GameId> = None;
    for (i, id, result) in earlier {
        if i != index {
            break;
        }
        match result {
            Some(r) => {
                results.push(r);
                index += 1;
            }
            None => {
                resumed = Some(id);
                break;
            }
        }
    }
    loop {
        let base_done = index >= games;
        if base_done && (!knockout || knockout::winner(pairing, &results, games).is_some()) {
            break;
        }
        if base_done && index >= games + MAX_DECIDERS {
            break;
        }
        let existing = resumed.take();
        let game = Game {
            round,
            pairing,
            index,
            opening: opening.as_ref(),
            existing,
        };
        match play_game(&app, &live, &spec, game).await {
            End::Result(res) => results.push(res),
            End::Absent(absent) => {
                {
                    let mut r = live.record();
                    r.results
                        .push((round, Encounter::Forfeit { pairing, absent }));
                    if knockout {
                        r.knockout_decided(round, pairing, forfeit_winner(pairing, absent));
                    }
                }
                app.tournaments().publish(&app, &live).await;
                return;
            }
            End::Gone => return,
        }
        index += 1;
    }
    {
        let mut r = live.record();
        let base = results[..games.min(results.len())].to_vec();
        r.results.push((
            round,
            Encounter::Played {
                pairing,
                games: base,
            },
        ));
        if knockout {
            // After MAX_DECIDERS drawn deciding games the better seed goes through (the
            // text is silent).
            let winner = knockout::winner(pairing, &results, games)
                .unwrap_or(pairing.white.min(pairing.black));
            r.knockout_decided(round, pairing, Some(winner));
        }
    }
    app.tournaments().publish(&app, &live).await;
}

/// Deciding games a knockout encounter may add to a drawn micro-match.
const MAX_DECIDERS: usize = 10;

/// Which game of which micro-match.
struct Game<'a> {
    round: usize,
    pairing: Pairing,
    index: usize,
    opening: Option<&'a Opening>,
    /// The game already started for this slot (a resumed tournament).
    existing: Option<GameId>,
}

/// The game of a slot that was started before a restart or a takeover: its live
/// handle (here or, in a cluster, on the node that owns it), or its archived result.
/// `None` if it is neither live nor archived (lost with a node that had no persistence):
/// the slot is then played again.
async fn pick_up(app: &Arc<impl Host>, id: &GameId) -> Option<Result<GameHandle, End>> {
    if let Some(h) = app.games().find(id).await {
        return Some(Ok(h));
    }
    match app.db().game(&id.0).await {
        Ok(Some(a)) => Some(Err(match a.reason {
            OutcomeReason::Aborted => End::Absent(Absence::Both),
            _ => End::Result(GameResult::from_winner(a.winner)),
        })),
        Ok(None) => None,
        Err(e) => {
            tracing::warn!(game = %id, error = %e, "cannot read the archive");
            None
        }
    }
}

/// Creates one game of a micro-match (or picks up the one already started), and waits
/// for its end; the first game enforces art. 17 at the first control's time.
async fn play_game(
    app: &Arc<impl Host>,
    live: &Arc<Live>,
    spec: &TournamentSpec,
    g: Game<'_>,
) -> End {
    let colours = colours_in_game(g.pairing, g.index);
    if let Some(id) = &g.existing {
        match pick_up(app, id).await {
            Some(Ok(handle)) => {
                // The first-control deadline counts again from now: lenient to the
                // players after the organiser's outage.
                return follow(app, live, spec, &g, handle).await;
            }
            Some(Err(end)) => {
                let end = relative(end, &g, colours);
                record_end(live, id, None, end, false);
                app.tournaments().publish(app, live).await;
                return end;
            }
            None => {
                tracing::warn!(game = %id, "a tournament game was lost; it is played again");
                live.record().games.retain(|a| a.game_id != *id);
            }
        }
    }
    let game = GameSpec {
        variant: spec.variant,
        time_control: spec.time_control,
        rated: false,
        white: spec.players[colours.white].clone(),
        black: spec.players[colours.black].clone(),
        start_fen: g.opening.map(|o| o.start_fen.clone()),
        ruleset: None,
        tournament: Some(live.record().id.clone()),
        arena: None,
        berserk: false,
    };
    let left = (g.index > 0)
        .then(|| carried_clock(&live.record(), spec, &g, colours))
        .flatten();
    // Art. 7.3.10: every later game of the micro-match begins with the break on its
    // White's clock.
    let break_ms = if g.index > 0 { spec.break_ms } else { 0 };
    let handle = match app.games().start_carrying(game, left, break_ms) {
        Ok(h) => h,
        Err(e) => {
            tracing::error!(error = %e, "cannot start a tournament game");
            return End::Gone;
        }
    };
    live.record().games.push(PlayedGame {
        round: g.round,
        pairing: g.pairing,
        index: g.index,
        game_id: handle.id().clone(),
        colours,
        opening: g.opening.map(|o| o.number),
        ballot_moves: g.opening.map(|o| o.moves.clone()).unwrap_or_default(),
        start_fen: g.opening.map(|o| o.start_fen.clone()).unwrap_or_default(),
        moves: Vec::new(),
        result: None,
        clock_left_ms: None,
    });
    app.tournaments().publish(app, live).await;
    follow(app, live, spec, &g, handle).await
}

/// On a match clock (INT 3.6.4), what game `g` starts with: the times the previous
/// game of the micro-match left its players and the moves each has completed in the
/// match, by `colours` (this game's). `None` (the control's starting times) if the
/// previous game left none: not a match clock, or it ended on time or was aborted, or
/// it ended while no organiser followed it.
fn carried_clock(
    r: &TournamentRecord,
    spec: &TournamentSpec,
    g: &Game<'_>,
    colours: Pairing,
) -> Option<[(u64, u32); 2]> {
    if !spec.time_control.is_match_clock() {
        return None;
    }
    let earlier: Vec<&PlayedGame> = r
        .games
        .iter()
        .filter(|p| p.round == g.round && p.pairing == g.pairing && p.index < g.index)
        .collect();
    let previous = earlier.iter().find(|p| p.index + 1 == g.index)?;
    let ms = previous.clock_left_ms?;
    let of = |player: usize| -> (u64, u32) {
        let time = if previous.colours.white == player {
            ms[0]
        } else {
            ms[1]
        };
        let moves = earlier.iter().map(|p| moves_of(spec, p, player)).sum();
        (time, moves)
    };
    Some([of(colours.white), of(colours.black)])
}

/// The moves `player` (a seed) made in game `p`, each a press of the clock.
fn moves_of(spec: &TournamentSpec, p: &PlayedGame, player: usize) -> u32 {
    let first = if p.start_fen.is_empty() {
        shared::rules::Position::start(spec.variant).side_to_move()
    } else {
        shared::rules::Position::from_fen(spec.variant, &p.start_fen)
            .map_or(Color::White, |pos| pos.side_to_move())
    };
    let colour = if p.colours.white == player {
        Color::White
    } else {
        Color::Black
    };
    let plies = u32::try_from(p.moves.len()).unwrap_or(u32::MAX);
    if colour == first {
        plies.div_ceil(2)
    } else {
        plies / 2
    }
}

/// Waits for a tournament game's end and records it.
async fn follow(
    app: &Arc<impl Host>,
    live: &Arc<Live>,
    spec: &TournamentSpec,
    g: &Game<'_>,
    handle: GameHandle,
) -> End {
    let colours = colours_in_game(g.pairing, g.index);
    let first_control = Duration::from_millis(forfeit_after(&spec.time_control.control()).as_ms());
    let deadline = (g.index == 0).then(|| Instant::now() + first_control);
    let end = relative(watch(&handle, deadline).await, g, colours);
    let state = handle.state().await.ok();
    let match_clock = spec.time_control.is_match_clock();
    record_end(live, handle.id(), state.as_ref(), end, match_clock);
    app.tournaments().publish(app, live).await;
    end
}

/// A game's end as the micro-match sees it.
fn relative(end: End, g: &Game<'_>, colours: Pairing) -> End {
    match end {
        // Art. 17 speaks of the first game; a player who does not start a later one
        // (the server's first-move limit aborts it) loses that game.
        End::Absent(Absence::White) if g.index > 0 => End::Result(GameResult::BlackWin),
        End::Absent(Absence::Black) if g.index > 0 => End::Result(GameResult::WhiteWin),
        // `watch` sees the game's colours; the micro-match speaks of its pairing's.
        End::Absent(a) if colours != g.pairing => End::Absent(match a {
            Absence::White => Absence::Black,
            Absence::Black => Absence::White,
            Absence::Both => Absence::Both,
        }),
        other => other,
    }
}

/// Writes a game's moves and result into the record, and on a match clock what the
/// clock left the players if it was stopped without a flag.
fn record_end(live: &Live, id: &GameId, state: Option<&GameState>, end: End, match_clock: bool) {
    let mut r = live.record();
    if let Some(a) = r.games.iter_mut().find(|a| a.game_id == *id) {
        if let Some(s) = state {
            a.moves = s.moves.clone();
            if a.start_fen.is_empty() {
                a.start_fen = s.initial_fen.clone();
            }
            let stopped = s.outcome.as_ref().is_some_and(|o| {
                !matches!(o.reason, OutcomeReason::Timeout | OutcomeReason::Aborted)
            });
            if match_clock && stopped {
                a.clock_left_ms = Some([s.clock.white_ms, s.clock.black_ms]);
            }
        }
        if let End::Result(res) = end {
            a.result = Some(res);
        }
    }
}

/// How a game ended for the organiser.
#[derive(Clone, Copy, Debug)]
enum End {
    /// Played to a result.
    Result(GameResult),
    /// Not started in time (art. 17), from the first game's pairing's point of view.
    Absent(Absence),
    /// The game vanished (shutdown).
    Gone,
}

/// Who is absent at the deadline (art. 17): the side to move if it has made no move;
/// the other side if it has neither moved nor connected. `None` if both came.
fn absence(state: &GameState) -> Option<Absence> {
    let first = shared::rules::Position::from_fen(state.variant, &state.initial_fen)
        .map_or(Color::White, |p| p.side_to_move());
    let plies = state.moves.len();
    let moved = |c: Color| if c == first { plies >= 1 } else { plies >= 2 };
    let present = |c: Color| moved(c) || (c != state.turn && state.connected[c.index()]);
    match (present(Color::White), present(Color::Black)) {
        (true, true) => None,
        (false, true) => Some(Absence::White),
        (true, false) => Some(Absence::Black),
        (false, false) => Some(Absence::Both),
    }
}

/// Waits for the game to end; with a deadline, enforces art. 17 at it.
async fn watch(handle: &GameHandle, mut deadline: Option<Instant>) -> End {
    let Ok(mut events) = handle.subscribe_end() else {
        return End::Gone;
    };
    let mut ruled: Option<Absence> = None;
    // The game may have moved on before the subscription: read its state once first.
    let mut check = true;
    loop {
        if check {
            check = false;
            match handle.state().await {
                Ok(state) => {
                    if let Some(o) = &state.outcome {
                        return ended(&state, o, ruled);
                    }
                }
                Err(_) => return End::Gone,
            }
        }
        tokio::select! {
            ev = events.recv() => match ev {
                Ok(v) => check = matches!(v.event, GameEvent::GameOver { .. }),
                Err(RecvError::Lagged(_)) => check = true,
                Err(RecvError::Closed) => return End::Gone,
            },
            () = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                deadline = None;
                let Ok(state) = handle.state().await else { return End::Gone };
                if let Some(a) = absence(&state) {
                    ruled = Some(a);
                    let absent = if a == Absence::Black { &handle.meta().spec.black } else { &handle.meta().spec.white };
                    if let Err(e) = handle.act(absent.id.clone(), Intent::Abort).await {
                        tracing::warn!(error = %e, "cannot abort a game lost by absence");
                    }
                    check = true;
                }
            }
        }
    }
}

/// The end of a game whose state has an outcome.
fn ended(state: &GameState, o: &Outcome, ruled: Option<Absence>) -> End {
    if let Some(a) = ruled {
        return End::Absent(a);
    }
    if matches!(o.reason, OutcomeReason::Aborted) {
        // Aborted before both moved (the server's own first-move limit): absence.
        return End::Absent(absence(state).unwrap_or(Absence::Both));
    }
    End::Result(GameResult::from_winner(o.winner))
}
