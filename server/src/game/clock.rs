//! The actor's view of `shared::clock`: the shared [`Clock`] state machine and one
//! [`LagCompensator`] per player, driven by tokio instants converted to the clock's
//! [`Timestamp`]s (milliseconds since the game was created). Owns nothing the shared
//! module decides: times, increments, flags and lag credit all come from there.

use std::time::Duration;

use shared::clock::lag::MAX_GAIN;
use shared::clock::{
    Category, Clock, ClockError, ControlError, Discipline, LagCompensator, LagPolicy, LagSample,
    Millis, PressOutcome, TimeControl, Timestamp, fastest_category,
};
use shared::protocol::{self, ClockState, Speed};
use shared::rules::{Color, Variant};
use tokio::time::Instant;

/// The clock of one game.
#[derive(Clone, Debug)]
pub struct GameClock {
    origin: Instant,
    control: TimeControl,
    clock: Clock,
    lag: [LagCompensator; 2],
    policy: LagPolicy,
    /// IDF art. 7.3.10: the first mover may not move before this (the break between
    /// the games of a micro-match), with its wall-clock time in ms for the players.
    break_until: Option<(Instant, u64)>,
}

/// The shared clock's control for a wire time control (checked when it was read).
pub fn control_of(tc: protocol::TimeControl) -> Result<TimeControl, ControlError> {
    Ok(tc.control())
}

/// The discipline whose categories apply to a variant.
pub fn discipline_of(variant: Variant) -> Discipline {
    variant
        .draughts()
        .map_or(Discipline::Chess, |d| Discipline::draughts(d.rules().board))
}

/// The speed of a game: the fastest category the rules of its discipline put the control
/// in, or the protocol's estimate when it falls between categories.
pub fn speed_of(variant: Variant, tc: protocol::TimeControl) -> Speed {
    let category = control_of(tc)
        .ok()
        .and_then(|c| fastest_category(&c, discipline_of(variant)));
    match category {
        Some(Category::Bullet) => Speed::Bullet,
        Some(Category::Blitz) => Speed::Blitz,
        Some(Category::Rapid) => Speed::Rapid,
        Some(Category::Classical) => Speed::Classical,
        None => tc.speed(),
    }
}

impl GameClock {
    /// A clock not yet started, `first` to move (Black in a game from a position with
    /// Black to move); times count from `origin`.
    pub fn new(
        tc: protocol::TimeControl,
        policy: LagPolicy,
        origin: Instant,
        first: Color,
    ) -> Result<GameClock, ControlError> {
        let control = control_of(tc)?;
        Ok(GameClock {
            origin,
            clock: Clock::with_first_to_move(control.clone(), first),
            lag: [
                LagCompensator::new(policy, &control),
                LagCompensator::new(policy, &control),
            ],
            control,
            policy,
            break_until: None,
        })
    }

    /// The clock of the next game of a micro-match played on a match clock (INT 3.6.4,
    /// "for all games until the first win"): the players swap colours and keep the
    /// time this game left them. `None` unless the control is a match clock and this
    /// clock was stopped without a flag.
    pub fn next_game(&self, origin: Instant, first: Color) -> Option<GameClock> {
        let clock = self.clock.next_game(true, first).ok()?;
        Some(GameClock {
            origin,
            clock,
            lag: [
                LagCompensator::new(self.policy, &self.control),
                LagCompensator::new(self.policy, &self.control),
            ],
            control: self.control.clone(),
            policy: self.policy,
            break_until: None,
        })
    }

    /// The clock of a later game of a micro-match on a match clock (INT 3.6.4) from
    /// what the previous game's clock showed at its end (see [`Clock::carried`]):
    /// `left[c]` is the time left (ms) and the moves completed in the match by the
    /// player who has colour `c` in this game. `None` unless `tc` is a match clock and
    /// both players have time left.
    pub fn carried(
        tc: protocol::TimeControl,
        policy: LagPolicy,
        origin: Instant,
        first: Color,
        left: [(u64, u32); 2],
    ) -> Option<GameClock> {
        let control = control_of(tc).ok()?;
        let left = left.map(|(ms, moves)| (Millis(ms), moves));
        let clock = Clock::carried(control.clone(), left, first).ok()?;
        Some(GameClock {
            origin,
            clock,
            lag: [
                LagCompensator::new(policy, &control),
                LagCompensator::new(policy, &control),
            ],
            control,
            policy,
            break_until: None,
        })
    }

    /// `color` goes berserk: half its time, no increment (see [`Clock::berserk`]).
    pub fn berserk(&mut self, color: Color) -> Result<(), shared::clock::ClockError> {
        self.clock.berserk(color)
    }

    /// Has `color` gone berserk?
    pub fn is_berserk(&self, color: Color) -> bool {
        self.clock.is_berserk(color)
    }

    /// The clock's state without its origin, for a snapshot.
    pub fn saved(&self) -> super::snapshot::SavedClock {
        super::snapshot::SavedClock {
            clock: self.clock.clone(),
            lag: self.lag,
        }
    }

    /// A clock from a snapshot, counting from `origin`.
    pub fn restore(
        saved: super::snapshot::SavedClock,
        policy: LagPolicy,
        origin: Instant,
    ) -> GameClock {
        GameClock {
            origin,
            control: saved.clock.control().clone(),
            clock: saved.clock,
            lag: saved.lag,
            policy,
            break_until: None,
        }
    }

    /// Gives back the time that ran between `from` and `to` (an ownerless outage): the
    /// clock is paused at `from` and resumed at `to`. Nothing happens unless a side's
    /// time is running.
    pub fn refund(&mut self, from: Instant, to: Instant) {
        let shared::clock::Phase::Running { since, .. } = self.clock.phase() else {
            return;
        };
        let from = self.at(from).max(since);
        let to = self.at(to).max(from);
        if self.clock.pause(from).is_ok() {
            let _ = self.clock.resume(to);
        }
    }

    fn at(&self, now: Instant) -> Timestamp {
        let ms = now.saturating_duration_since(self.origin).as_millis();
        Timestamp(u64::try_from(ms).unwrap_or(u64::MAX))
    }

    fn instant(&self, t: Timestamp) -> Instant {
        self.origin + Duration::from_millis(t.0)
    }

    /// Back to the initial times, not started, `first` to move (every move was taken
    /// back).
    pub fn reset(&mut self, first: Color) {
        self.clock = Clock::with_first_to_move(self.control.clone(), first);
        self.lag = [
            LagCompensator::new(self.policy, &self.control),
            LagCompensator::new(self.policy, &self.control),
        ];
    }

    /// The first move of the game at `now`: the clocks start, the first mover is
    /// charged nothing, and the opponent's time runs from here. After a break of
    /// 7.3.10 the first mover's clock has been running since the game began: he is
    /// charged the time it ran.
    pub fn first_move(&mut self, now: Instant) -> Result<(), ClockError> {
        let at = self.at(now);
        if self.break_until.is_some() {
            return self.clock.press(at, Millis::ZERO).map(|_| ());
        }
        self.clock.start(at)?;
        self.clock.press(at, Millis::ZERO).map(|_| ())
    }

    /// IDF art. 7.3.10, the break between the games of a micro-match: the first mover's
    /// clock is set `break_ms` above the control and started at `now`; he may move once
    /// `break_ms` have run ([`GameClock::break_until`]).
    pub fn start_break(&mut self, now: Instant, break_ms: u64) -> Result<(), ClockError> {
        let first = self.clock.to_move();
        self.clock.give_time(first, Millis::ms(break_ms))?;
        self.clock.start(self.at(now))?;
        let wall = crate::cluster::redis::wall_ms().saturating_add(break_ms);
        self.break_until = Some((now + Duration::from_millis(break_ms), wall));
        Ok(())
    }

    /// IDF art. 7.3.9's clock conditions for `color` at `now`: the period it plays in
    /// runs to the end of the game without increment, and it has less than a minute
    /// left. The time left, or why the conditions are not met.
    pub fn short_of_time_to_the_end(&self, color: Color, now: Instant) -> Result<u64, String> {
        let period = self.control.period(self.clock.side(color).period);
        if period.moves.is_some() {
            return Err("the control is not to the end of the game".into());
        }
        if period.increment > Millis::ZERO {
            return Err("the control adds Fischer increments".into());
        }
        let state = self.state(now);
        let left = if color == Color::White {
            state.white_ms
        } else {
            state.black_ms
        };
        if left >= super::time_claim::UNDER_MS {
            return Err(format!("{} s left, not less than a minute", left / 1000));
        }
        Ok(left)
    }

    /// When the break of 7.3.10 ends (the instant, and wall-clock ms), for a game that
    /// began with one.
    pub fn break_until(&self) -> Option<(Instant, u64)> {
        self.break_until
    }

    /// `mover` completed a move at `now`. `measured_ms` is the session's measured round
    /// trip, `think_ms` the think time the client reported. Returns the flagged colour if
    /// the time had already run out.
    pub fn press(
        &mut self,
        mover: Color,
        now: Instant,
        measured_ms: u64,
        think_ms: Option<u64>,
    ) -> Result<Option<Color>, ClockError> {
        let at = self.at(now);
        let sample = LagSample {
            measured: Millis(measured_ms),
            server_elapsed: self.turn_elapsed(at),
            client_think: think_ms.map(Millis),
        };
        debug_assert_eq!(mover, self.clock.to_move(), "the clock runs for the mover");
        let credit = self.lag[mover.index()].credit(&sample);
        match self.clock.press(at, credit)? {
            PressOutcome::Moved { .. } => Ok(None),
            PressOutcome::Flagged { color, .. } => Ok(Some(color)),
        }
    }

    fn turn_elapsed(&self, at: Timestamp) -> Millis {
        match self.clock.phase() {
            shared::clock::Phase::Running { since, banked } => {
                banked.saturating_add(at.saturating_since(since))
            }
            _ => Millis::ZERO,
        }
    }

    /// Hands the turn back without charging anyone and without increment (a one-ply
    /// takeback).
    pub fn hand_back(&mut self, now: Instant) -> Result<(), ClockError> {
        self.clock.hand_back(self.at(now))
    }

    /// When the side to move flags if it does not move.
    pub fn flag_at(&self) -> Option<Instant> {
        self.clock.flag_at().map(|t| self.instant(t))
    }

    /// When the server settles the flag of the side to move: its flag instant plus a
    /// grace of that player's lag quota (at most [`MAX_GAIN`], 1 s), so that a move
    /// sent in time but still in flight is judged with its lag credit (the note on
    /// [`Clock::flag_at`]). A move arriving in the grace stands only if the credit the
    /// policy gives covers the overrun; otherwise the flag is recorded at the instant
    /// the time ran out. With the `off` policy there is no grace.
    pub fn flag_deadline(&self) -> Option<Instant> {
        let mover = self.clock.to_move();
        let grace = self.lag[mover.index()].quota().min(MAX_GAIN);
        self.clock
            .flag_at()
            .map(|t| self.instant(t) + Duration::from_millis(grace.as_ms()))
    }

    /// Records a flag that has fallen by `now`; who flagged.
    pub fn settle_flag(&mut self, now: Instant) -> Option<Color> {
        self.clock.settle_flag(self.at(now)).ok().flatten()
    }

    /// Stops the clock at the end of the game.
    pub fn stop(&mut self, now: Instant) {
        // Already stopped or flagged: nothing to do.
        let _ = self.clock.stop(self.at(now));
    }

    /// The side whose time runs.
    pub fn running(&self) -> Option<Color> {
        matches!(self.clock.phase(), shared::clock::Phase::Running { .. })
            .then(|| self.clock.to_move())
    }

    /// Both clocks for the wire.
    pub fn state(&self, now: Instant) -> ClockState {
        let view = self.clock.view(self.at(now));
        ClockState {
            white_ms: view.white.as_ms(),
            black_ms: view.black.as_ms(),
            running: view.running.then_some(view.to_move),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::rules::draughts::DraughtsVariant;

    #[test]
    fn fischer_through_the_shared_clock() {
        let t0 = Instant::now();
        let tc = protocol::TimeControl::new(60, 2);
        let mut clock = GameClock::new(tc, LagPolicy::Off, t0, Color::White).unwrap();
        assert_eq!(clock.flag_at(), None);
        clock.first_move(t0).unwrap();
        assert_eq!(clock.running(), Some(Color::Black));
        assert_eq!(clock.flag_at(), Some(t0 + Duration::from_secs(60)));
        let t1 = t0 + Duration::from_secs(10);
        assert_eq!(clock.press(Color::Black, t1, 0, None).unwrap(), None);
        let s = clock.state(t1 + Duration::from_secs(5));
        assert_eq!(
            (s.white_ms, s.black_ms, s.running),
            (57_000, 52_000, Some(Color::White))
        );
        let late = t1 + Duration::from_secs(62);
        assert_eq!(clock.settle_flag(late), Some(Color::White));
        assert_eq!(clock.state(late).white_ms, 0);
    }

    #[test]
    fn speeds_follow_the_rule_texts() {
        assert_eq!(
            speed_of(Variant::Chess, protocol::TimeControl::new(60, 0)),
            Speed::Bullet
        );
        assert_eq!(
            speed_of(Variant::Chess, protocol::TimeControl::new(300, 3)),
            Speed::Blitz
        );
        assert_eq!(
            speed_of(
                Variant::Draughts(DraughtsVariant::Russian),
                protocol::TimeControl::new(5400, 30)
            ),
            Speed::Classical
        );
        // IDF 22.1: Fischer with 5 to 10 minutes is rapid; 3 minutes + seconds is blitz.
        assert_eq!(
            speed_of(
                Variant::Draughts(DraughtsVariant::Russian),
                protocol::TimeControl::new(300, 3)
            ),
            Speed::Rapid
        );
        assert_eq!(
            speed_of(
                Variant::Draughts(DraughtsVariant::Russian),
                protocol::TimeControl::new(180, 2)
            ),
            Speed::Blitz
        );
        // Between IDF 22.1's ranges: the estimate (4 min + 40 x 3 s = 6 min: blitz).
        assert_eq!(
            speed_of(
                Variant::Draughts(DraughtsVariant::Russian),
                protocol::TimeControl::new(240, 3)
            ),
            Speed::Blitz
        );
    }
}
