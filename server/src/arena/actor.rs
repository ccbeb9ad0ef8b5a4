//! One arena's actor: it alone owns the players, their sheets, who waits and who plays.
//! It pairs waiting players in waves while the arena runs, starts their games through
//! the game registry (no accept step), hears each game's end from a watcher task,
//! scores it, pushes coalesced standings to watchers, and at the end, once the last
//! game has finished, archives the final standings and exits.
//!
//! A game aborted because a player made no first move is lost by that player (and won
//! by the opponent) and the late player is paused; a game aborted otherwise counts for
//! nobody. Berserk is read from the game's `berserk` events and its final state.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Weak};
use std::time::Duration;

use shared::arena::{
    ArenaInfo, ArenaMe, ArenaResult, ArenaStandings, ArenaStatus, GameFor, Membership, Sheet,
    Standing, Waiting, pair_wave, pairing_open, rank,
};
use shared::protocol::{GameEvent, GameId, OutcomeReason, ServerMessage, UserId, UserInfo};
use shared::rules::Color;
use tokio::sync::{broadcast, mpsc};
use tokio::time::{Instant, sleep_until};

use super::{ArenaCmd, ArenaDeps, ArenaError, ArenaSpec, Arenas, JoinRequest, exited};
use crate::cluster::redis::wall_ms;
use crate::db::arenas::{FinalLine, FinishedArena};
use crate::game::{GameHandle, GameSpec, NO_START, Versioned};

/// What an arena game's watcher reports when it ends.
#[derive(Debug)]
pub(crate) struct Ended {
    game_id: GameId,
    white: UserId,
    black: UserId,
    /// The result for White; `None` if the game counts for nobody.
    white_result: Option<ArenaResult>,
    /// The player paused for not making a first move.
    late: Option<Color>,
    plies: u32,
    first: Color,
    /// Who went berserk, `[white, black]`.
    berserk: [bool; 2],
}

struct Player {
    info: UserInfo,
    sheet: Sheet,
    membership: Membership,
    game: Option<GameId>,
    color_balance: i32,
    last_white: Option<bool>,
}

/// The actor.
pub(crate) struct Actor {
    spec: ArenaSpec,
    deps: ArenaDeps,
    arenas: Weak<Arenas>,
    tx: mpsc::Sender<ArenaCmd>,
    rx: mpsc::Receiver<ArenaCmd>,
    players: HashMap<UserId, Player>,
    order: Vec<Standing>,
    /// Each player's index in `order`.
    rank_of: HashMap<String, usize>,
    watchers: HashSet<UserId>,
    /// The watchers who are not players: at most `max_watchers`.
    outsiders: HashSet<UserId>,
    games: HashMap<GameId, (UserId, UserId)>,
    /// Standings changed since the last push.
    dirty: bool,
    /// A game was scored since the last push: its points are due on the leaderboard.
    scored_unpushed: bool,
    /// `order` must be recomputed.
    stale: bool,
    next_wave_ms: u64,
    /// The final standings are archived.
    archived: bool,
}

impl Actor {
    pub(crate) fn new(
        spec: ArenaSpec,
        deps: ArenaDeps,
        arenas: Weak<Arenas>,
        tx: mpsc::Sender<ArenaCmd>,
        rx: mpsc::Receiver<ArenaCmd>,
    ) -> Actor {
        Actor {
            spec,
            deps,
            arenas,
            tx,
            rx,
            players: HashMap::new(),
            order: Vec::new(),
            rank_of: HashMap::new(),
            watchers: HashSet::new(),
            outsiders: HashSet::new(),
            games: HashMap::new(),
            dirty: true,
            scored_unpushed: false,
            stale: true,
            next_wave_ms: 0,
            archived: false,
        }
    }

    fn info(&self) -> &ArenaInfo {
        &self.spec.info
    }

    fn ends_at_ms(&self) -> u64 {
        self.info().starts_at_ms + self.info().duration_ms
    }

    fn at(ms: u64) -> Instant {
        Instant::now() + Duration::from_millis(ms.saturating_sub(wall_ms()))
    }

    /// Runs until the arena is over and archived, or the server stops.
    pub(crate) async fn run(mut self) {
        let wave = Duration::from_millis(self.deps.config.wave_ms);
        let push = Duration::from_millis(self.deps.config.standings_ms);
        let mut next_wave = Self::at(self.info().starts_at_ms);
        let mut next_push = Instant::now() + push;
        loop {
            let status = self.status();
            if status == ArenaStatus::Finished && self.games.is_empty() {
                break;
            }
            let wave_at = next_wave.min(Self::at(self.ends_at_ms()));
            tokio::select! {
                () = self.deps.shutdown.cancelled() => {
                    exited(&self.arenas, &self.info().id);
                    return;
                }
                cmd = self.rx.recv() => match cmd {
                    Some(cmd) => self.on_cmd(cmd),
                    None => return,
                },
                () = sleep_until(wave_at), if status != ArenaStatus::Finished => {
                    // A wave changes no points: unless some are due, the standings
                    // wait one push interval for its games to reach their players.
                    if self.status() == ArenaStatus::Running
                        && self.wave()
                        && !self.scored_unpushed
                    {
                        next_push = next_push.max(Instant::now() + push);
                    }
                    next_wave = Instant::now() + wave;
                    self.next_wave_ms = wall_ms() + self.deps.config.wave_ms;
                }
                () = sleep_until(next_push) => {
                    if self.dirty {
                        self.push_standings();
                    }
                    next_push = Instant::now() + push;
                }
            }
        }
        self.finish().await;
        exited(&self.arenas, &self.info().id);
    }

    fn status(&self) -> ArenaStatus {
        let now = wall_ms();
        if now < self.info().starts_at_ms {
            ArenaStatus::Upcoming
        } else if now < self.ends_at_ms() {
            ArenaStatus::Running
        } else {
            ArenaStatus::Finished
        }
    }

    fn on_cmd(&mut self, cmd: ArenaCmd) {
        match cmd {
            ArenaCmd::Join(req, reply) => {
                let r = self.join(req);
                let _ = reply.send(r);
            }
            ArenaCmd::Withdraw(user, reply) => {
                let r = self.withdraw(&user);
                let _ = reply.send(r);
            }
            ArenaCmd::Pause(user, reply) => {
                let r = self.set_membership(&user, Membership::Paused);
                let _ = reply.send(r);
            }
            ArenaCmd::Watch(user, reply) => {
                let r = self.watch(&user).map(|()| self.standings_for(Some(&user)));
                let _ = reply.send(r);
            }
            ArenaCmd::Unwatch(user) => {
                self.watchers.remove(&user);
                self.outsiders.remove(&user);
            }
            ArenaCmd::Info(reply) => {
                let _ = reply.send(self.current_info());
            }
            ArenaCmd::Standings(user, reply) => {
                let _ = reply.send(self.standings_for(user.as_ref()));
            }
            ArenaCmd::Ended(ended) => self.on_ended(ended),
        }
    }

    /// Subscribes `user`: players always, others while fewer than `max_watchers` others
    /// watch.
    fn watch(&mut self, user: &UserId) -> Result<(), ArenaError> {
        if !self.players.contains_key(user) && !self.outsiders.contains(user) {
            if self.outsiders.len() >= self.deps.config.max_watchers {
                return Err(ArenaError::WatchersFull);
            }
            self.outsiders.insert(user.clone());
        }
        self.watchers.insert(user.clone());
        Ok(())
    }

    fn current_info(&self) -> ArenaInfo {
        let mut info = self.info().clone();
        info.status = self.status();
        info.players = self.players.len() as u32;
        info
    }

    fn join(&mut self, req: JoinRequest) -> Result<Membership, ArenaError> {
        if self.status() == ArenaStatus::Finished {
            return Err(ArenaError::Closed);
        }
        if self.info().rated && req.user.guest {
            return Err(ArenaError::NeedsAccount("rated arenas need an account"));
        }
        let id = req.user.id.clone();
        if let Some(p) = self.players.get_mut(&id) {
            p.membership = Membership::Active;
            self.changed();
            return Ok(Membership::Active);
        }
        super::check_conditions(&self.spec, &req)?;
        if self.players.len() >= self.deps.config.max_players {
            return Err(ArenaError::TooMany);
        }
        self.players.insert(
            id.clone(),
            Player {
                info: req.user,
                sheet: Sheet::default(),
                membership: Membership::Active,
                game: None,
                color_balance: 0,
                last_white: None,
            },
        );
        self.outsiders.remove(&id);
        self.watchers.insert(id);
        self.changed();
        Ok(Membership::Active)
    }

    fn withdraw(&mut self, user: &UserId) -> Result<Membership, ArenaError> {
        let p = self.players.get(user).ok_or(ArenaError::NotJoined)?;
        if p.sheet.entries.is_empty() && p.game.is_none() {
            self.players.remove(user);
            self.changed();
            return Ok(Membership::Withdrawn);
        }
        self.set_membership(user, Membership::Paused)
    }

    fn set_membership(&mut self, user: &UserId, m: Membership) -> Result<Membership, ArenaError> {
        let p = self.players.get_mut(user).ok_or(ArenaError::NotJoined)?;
        p.membership = m;
        self.changed();
        Ok(m)
    }

    fn changed(&mut self) {
        self.dirty = true;
        self.stale = true;
    }

    fn ranked(&mut self) -> &[Standing] {
        if self.stale || self.order.len() != self.players.len() {
            self.stale = false;
            self.order = rank(self.players.iter().map(|(id, p)| {
                (
                    id.0.as_str(),
                    p.info.name.as_str(),
                    p.info.rating.unwrap_or(0),
                    &p.sheet,
                )
            }));
            self.rank_of = self
                .order
                .iter()
                .enumerate()
                .map(|(i, s)| (s.user.clone(), i))
                .collect();
        }
        &self.order
    }

    /// One pairing wave; whether it paired anyone.
    fn wave(&mut self) -> bool {
        let remaining = self.ends_at_ms().saturating_sub(wall_ms());
        if !pairing_open(remaining, self.info().time_control) {
            return false;
        }
        let active = self
            .players
            .values()
            .filter(|p| p.membership == Membership::Active)
            .count();
        let order: Vec<UserId> = self
            .ranked()
            .iter()
            .map(|s| UserId(s.user.clone()))
            .collect();
        let waiting: Vec<Waiting> = order
            .iter()
            .filter_map(|id| {
                let p = self.players.get(id)?;
                (p.membership == Membership::Active && p.game.is_none()).then(|| Waiting {
                    user: id.0.clone(),
                    last_opponent: p.sheet.last_opponent().map(str::to_string),
                    color_balance: p.color_balance,
                    last_white: p.last_white,
                })
            })
            .collect();
        let started = std::time::Instant::now();
        let pairs = pair_wave(&waiting, active);
        let paired_us = started.elapsed().as_micros() as u64;
        let count = pairs.len();
        for pair in pairs {
            self.start_game(UserId(pair.white), UserId(pair.black));
        }
        let took = started.elapsed();
        if count > 0 {
            // Waves that pair nobody would only dilute the histogram.
            self.deps
                .metrics
                .arena_wave_ms
                .observe(took.as_millis() as u64);
        }
        tracing::debug!(arena = %self.info().id, waiting = waiting.len(), pairs = count,
            paired_us, total_us = took.as_micros() as u64, "arena wave");
        count > 0
    }

    fn start_game(&mut self, white: UserId, black: UserId) {
        let (Some(w), Some(b)) = (self.players.get(&white), self.players.get(&black)) else {
            return;
        };
        let info = self.info();
        let spec = GameSpec {
            variant: info.variant,
            time_control: info.time_control,
            rated: info.rated,
            white: w.info.clone(),
            black: b.info.clone(),
            start_fen: None,
            ruleset: info.ruleset,
            arena: Some(info.id.clone()),
            berserk: info.berserk,
            tournament: None,
        };
        match self.deps.games.start(spec) {
            Ok(handle) => {
                let id = handle.id().clone();
                for (user, white_side) in [(&white, true), (&black, false)] {
                    if let Some(p) = self.players.get_mut(user) {
                        p.game = Some(id.clone());
                        p.color_balance += if white_side { 1 } else { -1 };
                        p.last_white = Some(white_side);
                    }
                }
                self.games.insert(id, (white, black));
                self.changed();
                let tx = self.tx.clone();
                let db = self.deps.db.clone();
                // Subscribed before the players can act, so no event is missed.
                let events = handle.subscribe_end().ok();
                self.deps.tracker.spawn(watch_game(handle, events, tx, db));
            }
            Err(e) => {
                tracing::warn!(arena = %self.info().id, error = %e, "cannot start an arena game");
            }
        }
    }

    fn on_ended(&mut self, e: Ended) {
        if self.games.remove(&e.game_id).is_none() {
            return;
        }
        let sides = e.for_sides(|u| {
            self.players
                .get(u)
                .map_or(0, |p| p.info.rating.unwrap_or(0))
        });
        let late = e.late_player().cloned();
        for (user, game) in sides {
            let Some(p) = self.players.get_mut(&user) else {
                continue;
            };
            p.game = None;
            if let Some(game) = game {
                p.sheet.add(game);
                self.scored_unpushed = true;
            }
            if late.as_ref() == Some(&user) {
                p.membership = Membership::Paused;
                (self.deps.notify)(
                    &user,
                    ServerMessage::ArenaMember {
                        arena_id: self.spec.info.id.clone(),
                        membership: Membership::Paused,
                    },
                );
            }
        }
        self.changed();
    }

    /// The standings with `user`'s own line.
    fn standings_for(&mut self, user: Option<&UserId>) -> ArenaStandings {
        let mut standings = self.shared_standings();
        standings.me = user.and_then(|u| self.me_line(u, standings.status));
        standings
    }

    /// What every watcher sees (no `me`): ranked once, whatever the number of watchers.
    fn shared_standings(&mut self) -> ArenaStandings {
        let page = self.deps.config.page_size;
        // `finished` is told once the final standings are archived; until then the
        // last games are still counting.
        let status = match self.status() {
            ArenaStatus::Finished if !self.archived => ArenaStatus::Running,
            s => s,
        };
        let remaining_ms = match status {
            ArenaStatus::Upcoming => self.info().starts_at_ms.saturating_sub(wall_ms()),
            _ => self.ends_at_ms().saturating_sub(wall_ms()),
        };
        self.ranked();
        let top: Vec<Standing> = self.order.iter().take(page).cloned().collect();
        let featured = self
            .order
            .iter()
            .find_map(|s| self.players.get(&UserId(s.user.clone()))?.game.clone());
        ArenaStandings {
            arena_id: self.info().id.clone(),
            status,
            remaining_ms,
            players: self.players.len() as u32,
            playing: self.players.values().filter(|p| p.game.is_some()).count() as u32,
            top,
            me: None,
            featured,
        }
    }

    /// `user`'s own line and sheet, from the current ranking.
    fn me_line(&self, user: &UserId, status: ArenaStatus) -> Option<ArenaMe> {
        let p = self.players.get(user)?;
        let standing = self.order.get(*self.rank_of.get(&user.0)?)?.clone();
        Some(ArenaMe {
            standing,
            sheet: p.sheet.entries.clone(),
            membership: p.membership,
            game_id: p.game.clone(),
            next_wave_at_ms: (status == ArenaStatus::Running
                && p.game.is_none()
                && p.membership == Membership::Active)
                .then_some(self.next_wave_ms),
        })
    }

    /// Sends the standings to every watcher (each with their own line). The ranking,
    /// the page and the featured game are computed once per push, not once per
    /// watcher: with thousands of players that was quadratic work every push.
    fn push_standings(&mut self) {
        let shared = self.shared_standings();
        for user in &self.watchers {
            let mut standings = shared.clone();
            standings.me = self.me_line(user, shared.status);
            (self.deps.notify)(user, ServerMessage::ArenaStandings { standings });
        }
        self.dirty = false;
        self.scored_unpushed = false;
    }

    /// The arena is over and its last game finished: archive, tell the watchers.
    async fn finish(&mut self) {
        self.changed();
        let order = self.ranked().to_vec();
        let standings = order
            .into_iter()
            .map(|s| {
                let sheet = self
                    .players
                    .get(&UserId(s.user.clone()))
                    .map(|p| p.sheet.entries.clone())
                    .unwrap_or_default();
                FinalLine { standing: s, sheet }
            })
            .collect();
        let finished = FinishedArena {
            arena: self.current_info(),
            ended_at_ms: wall_ms(),
            standings,
        };
        let mut pause = Duration::from_millis(250);
        loop {
            match self.deps.db.save_arena(&finished).await {
                Ok(()) => break,
                Err(e) => {
                    tracing::warn!(arena = %self.info().id, error = %e, "cannot archive the arena yet");
                    tokio::select! {
                        () = self.deps.shutdown.cancelled() => return,
                        () = tokio::time::sleep(pause) => {}
                    }
                    pause = (pause * 2).min(Duration::from_secs(30));
                }
            }
        }
        tracing::info!(arena = %self.info().id, players = self.players.len(), "arena finished");
        self.archived = true;
        self.push_standings();
    }
}

impl Ended {
    /// The game's id.
    pub(crate) fn game_id(&self) -> &GameId {
        &self.game_id
    }

    /// White and Black.
    pub(crate) fn players(&self) -> (&UserId, &UserId) {
        (&self.white, &self.black)
    }

    /// The player paused for not making a first move.
    pub(crate) fn late_player(&self) -> Option<&UserId> {
        match self.late? {
            Color::White => Some(&self.white),
            Color::Black => Some(&self.black),
        }
    }

    /// A game that never started (lost with a node before it existed): it counts for
    /// nobody and frees its players.
    pub(crate) fn void(game_id: GameId, white: UserId, black: UserId) -> Ended {
        Ended {
            game_id,
            white,
            black,
            white_result: None,
            late: None,
            plies: 0,
            first: Color::White,
            berserk: [false; 2],
        }
    }

    /// Each player with the game for their sheet (`None`: it counts for nobody);
    /// `rating` gives a player's rating, recorded as their opponent's.
    pub(crate) fn for_sides(
        &self,
        rating: impl Fn(&UserId) -> u32,
    ) -> [(UserId, Option<GameFor>); 2] {
        let own = |c: Color| {
            if c == self.first {
                self.plies.div_ceil(2)
            } else {
                self.plies / 2
            }
        };
        let side = |color: Color, user: &UserId, opp: &UserId| {
            let result = self.white_result.map(|r| match (color, r) {
                (Color::White, r) => r,
                (Color::Black, ArenaResult::Win) => ArenaResult::Loss,
                (Color::Black, ArenaResult::Loss) => ArenaResult::Win,
                (Color::Black, ArenaResult::Draw) => ArenaResult::Draw,
            });
            let game = result.map(|result| GameFor {
                game_id: self.game_id.0.clone(),
                opponent: opp.0.clone(),
                opponent_rating: rating(opp),
                result,
                berserk: self.berserk[color.index()],
                own_moves: own(color),
                plies: self.plies,
            });
            (user.clone(), game)
        };
        [
            side(Color::White, &self.white, &self.black),
            side(Color::Black, &self.black, &self.white),
        ]
    }
}

/// Waits for an arena game's end and reports it to the arena.
async fn watch_game(
    handle: GameHandle,
    events: Option<broadcast::Receiver<Arc<Versioned>>>,
    tx: mpsc::Sender<ArenaCmd>,
    db: crate::db::Db,
) {
    let Some(ended) = game_end(&handle, events, &db).await else {
        tracing::warn!(game = %handle.id(), "an arena game ended without a readable result");
        return;
    };
    let _ = tx.send(ArenaCmd::Ended(ended)).await;
}

/// Waits for an arena game's end (`events` subscribed before anyone could act, if
/// possible); `None` if no result could be read (its node died: ask again later).
///
/// A game already over when it is followed (it ended while nobody organised the
/// arena) sends no more events: its end is read at once, not after the game (or this
/// node's proxy of it, a minute after the end) has left memory.
pub(crate) async fn game_end(
    handle: &GameHandle,
    mut events: Option<broadcast::Receiver<Arc<Versioned>>>,
    db: &crate::db::Db,
) -> Option<Ended> {
    let mut berserk = [false; 2];
    // The outcome as `game_over` tells it: with the detail the record may not keep.
    let mut told = None;
    if let Some(events) = &mut events {
        while handle.meta().is_live() {
            match events.recv().await {
                Ok(v) => {
                    if heard(&v, &mut told, &mut berserk) {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            }
        }
    }
    let state = handle.state().await;
    // A game that was ending as it was followed: its `game_over` went out before the
    // state was answered.
    if let Some(events) = &mut events {
        loop {
            match events.try_recv() {
                Ok(v) => {
                    heard(&v, &mut told, &mut berserk);
                }
                Err(broadcast::error::TryRecvError::Lagged(_)) => {}
                Err(_) => break,
            }
        }
    }
    let ended = match state {
        Ok(state) => told.or(state.outcome).map(|o| {
            let plies = state.moves.len() as u32;
            for c in &state.berserk {
                berserk[c.index()] = true;
            }
            (o, plies, first_mover(plies, state.turn), state.turn)
        }),
        Err(_) => archived(db, handle.id(), &mut berserk).await,
    };
    let (outcome, plies, first, turn) = ended?;
    let spec = &handle.meta().spec;
    Some(ended_of(
        handle.id().clone(),
        (spec.white.id.clone(), spec.black.id.clone()),
        (outcome, plies, first, turn),
        berserk,
    ))
}

/// Notes what an event says of the game's end: its outcome (`true`: it is over) or
/// who went berserk.
fn heard(
    v: &Versioned,
    told: &mut Option<shared::protocol::Outcome>,
    berserk: &mut [bool; 2],
) -> bool {
    match &v.event {
        GameEvent::GameOver { outcome, .. } => {
            *told = Some(outcome.clone());
            true
        }
        GameEvent::Berserk { by, .. } => {
            berserk[by.index()] = true;
            false
        }
        _ => false,
    }
}

/// A game's end for the arena from its outcome.
fn ended_of(
    game_id: GameId,
    (white, black): (UserId, UserId),
    (outcome, plies, first, turn): (shared::protocol::Outcome, u32, Color, Color),
    berserk: [bool; 2],
) -> Ended {
    let no_start =
        outcome.reason == OutcomeReason::Aborted && outcome.detail.as_deref() == Some(NO_START);
    let late = no_start.then_some(turn);
    let white_result = match (outcome.reason, outcome.winner) {
        (OutcomeReason::Aborted, _) if no_start => Some(if turn == Color::White {
            ArenaResult::Loss
        } else {
            ArenaResult::Win
        }),
        (OutcomeReason::Aborted, _) => None,
        (_, Some(Color::White)) => Some(ArenaResult::Win),
        (_, Some(Color::Black)) => Some(ArenaResult::Loss),
        (_, None) => Some(ArenaResult::Draw),
    };
    Ended {
        game_id,
        white,
        black,
        white_result,
        late,
        plies,
        first,
        berserk,
    }
}

/// The end of a game already gone from memory, from the archive (`None`: not there).
/// Berserk is read from the archived game.
pub(crate) async fn archived_end(
    db: &crate::db::Db,
    id: &GameId,
    players: (UserId, UserId),
) -> Option<Ended> {
    let g = db.game(&id.0).await.ok()??;
    let state = crate::game::archive::archived_state(&g)?;
    let plies = state.moves.len() as u32;
    let mut berserk = [false; 2];
    for c in &state.berserk {
        berserk[c.index()] = true;
    }
    Some(ended_of(
        id.clone(),
        players,
        (
            state.outcome?,
            plies,
            first_mover(plies, state.turn),
            state.turn,
        ),
        berserk,
    ))
}

/// The result of a game already gone from memory, from the archive; who went berserk
/// is added to `berserk`.
async fn archived(
    db: &crate::db::Db,
    id: &GameId,
    berserk: &mut [bool; 2],
) -> Option<(shared::protocol::Outcome, u32, Color, Color)> {
    let g = db.game(&id.0).await.ok()??;
    let state = crate::game::archive::archived_state(&g)?;
    // A follower that subscribed after a side went berserk (an organiser that took
    // over mid-game) learns it only here.
    for c in &state.berserk {
        berserk[c.index()] = true;
    }
    let plies = state.moves.len() as u32;
    Some((
        state.outcome?,
        plies,
        first_mover(plies, state.turn),
        state.turn,
    ))
}

/// Who moved first in a game of `plies` plies with `turn` to move now.
fn first_mover(plies: u32, turn: Color) -> Color {
    if plies.is_multiple_of(2) {
        turn
    } else {
        turn.opponent()
    }
}
