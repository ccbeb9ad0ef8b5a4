//! The [`Clock`] state machine: two players' times, driven only by the instants passed in.
//!
//! Life of a clock: [`Clock::new`] (not started) → [`Clock::start`] (the first mover's
//! time runs; the server decides when, e.g. after the opening ballot, IDF s.2 art. 5.5:
//! ballot moves are never pressed and so never count towards a quota) → [`Clock::press`]
//! once per completed move → the game ends by [`Clock::stop`] or by a flag
//! ([`Clock::settle_flag`], or a press that came too late). [`Clock::pause`] and
//! [`Clock::resume`] freeze the side to move, for example to refund the time that ran
//! while the server was down: pause at the last instant the server is known to have been
//! alive and resume when the game is served again.
//!
//! Rules this module guarantees:
//! - only the side to move's time runs; the other side's stored time changes only by
//!   its own press (increment, new period), [`Clock::give_time`] or a match carry-over;
//! - a flag exactly at zero counts: a side whose remaining time is `0` has flagged,
//!   and a press that uses exactly all the remaining time is a flag;
//! - the increment is added only after a move completed in time, never on a flagged move;
//! - in a delay period the main time starts running only after the delay; unused delay
//!   is lost, so delay never adds time;
//! - completing a period's quota adds the next period's time to what is left (unused
//!   time carries over, INT 3.6.1, FIDE 6.2); a last period with a quota repeats.
//!
//! Lag: [`Clock::press`] takes the lag the game actor decided to credit (see
//! [`super::lag`]); it is subtracted from the time the move took, never below zero.
//! [`Clock::flag_at`] ignores lag: an actor that wants to honour late moves with lag
//! credit should wait a little past that instant (for example by the lag quota) before
//! calling [`Clock::settle_flag`].

use serde::{Deserialize, Serialize};

use super::control::TimeControl;
use super::time::{Millis, Timestamp};
use crate::rules::Color;

/// Why a clock operation was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    /// The clock has not been started.
    #[error("the clock has not been started")]
    NotStarted,
    /// The clock was already started.
    #[error("the clock has already been started")]
    AlreadyStarted,
    /// The clock is paused.
    #[error("the clock is paused")]
    Paused,
    /// The clock is not paused.
    #[error("the clock is not paused")]
    NotPaused,
    /// The game is over (a flag fell or the clock was stopped).
    #[error("the clock is stopped: the game is over")]
    GameOver,
    /// An instant before the last event of the clock.
    #[error("instant {at} is before the clock's last event at {last}")]
    TimeWentBackwards {
        /// The instant given.
        at: Timestamp,
        /// The clock's last event.
        last: Timestamp,
    },
    /// [`Clock::next_game`] on a clock whose control is not a match clock.
    #[error("this time control does not carry over between games")]
    NotMatchClock,
    /// [`Clock::berserk`] a second time.
    #[error("already berserk")]
    AlreadyBerserk,
    /// [`Clock::next_game`] before the game was stopped.
    #[error("the game is still in progress")]
    GameInProgress,
}

/// One player's side of the clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideClock {
    /// Main time left, as of the start of this side's current turn (or now, if it is not
    /// this side's turn).
    pub remaining: Millis,
    /// Moves this side has completed with the clock running (in a match clock, over all
    /// games so far).
    pub moves: u32,
    /// 0-based index of the period this side is in.
    pub period: usize,
    /// Moves completed in the current period.
    pub period_moves: u32,
}

/// Where the clock is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// Created, not started.
    NotStarted,
    /// The side to move's time is running since `since`; `banked` is the time this turn
    /// had already run before `since` (across pauses).
    Running {
        /// When the clock last started or resumed running.
        since: Timestamp,
        /// Time of this turn that ran before `since`.
        banked: Millis,
    },
    /// Frozen at `at`, after `banked` of the turn had run.
    Paused {
        /// When the clock was paused.
        at: Timestamp,
        /// Time of this turn that ran before the pause.
        banked: Millis,
    },
    /// `color`'s flag fell at `at`; the game is over on time.
    Flagged {
        /// Who flagged.
        color: Color,
        /// The exact instant the time ran out.
        at: Timestamp,
    },
    /// Stopped at `at` without a flag (the game ended otherwise).
    Stopped {
        /// When the clock was stopped.
        at: Timestamp,
    },
}

/// What a press did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum PressOutcome {
    /// The move was in time; the opponent's clock now runs.
    Moved {
        /// Who moved.
        color: Color,
        /// Main time the move cost (after lag credit and delay).
        used: Millis,
        /// Lag actually credited (at most the time the turn had run).
        credited: Millis,
        /// Increment added.
        increment: Millis,
        /// Main time added because a quota was completed and a new period began.
        period_time: Millis,
        /// The mover's time left after the press.
        remaining: Millis,
    },
    /// The time had already run out: no increment, the game is over on time.
    Flagged {
        /// Who flagged.
        color: Color,
        /// The exact instant the time ran out (without lag credit).
        at: Timestamp,
    },
}

/// A read-only picture of the clock at an instant, for display or the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// White's time left.
    pub white: Millis,
    /// Black's time left.
    pub black: Millis,
    /// The side whose turn it is.
    pub to_move: Color,
    /// Whether the side to move's time is running.
    pub running: bool,
    /// Delay left this turn before the main time starts running.
    pub delay_left: Millis,
}

/// A two-player game clock. See the module documentation for its rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    control: TimeControl,
    sides: [SideClock; 2],
    to_move: Color,
    phase: Phase,
    /// Sides that went berserk: no increment any more.
    #[serde(default)]
    no_increment: [bool; 2],
}

impl Clock {
    /// A clock for `control`, not started, White to move first.
    pub fn new(control: TimeControl) -> Clock {
        Clock::with_first_to_move(control, Color::White)
    }

    /// A clock for `control`, not started, `first` to move first (for a game from a
    /// set-up position).
    pub fn with_first_to_move(control: TimeControl, first: Color) -> Clock {
        let side = SideClock {
            remaining: control.first().time,
            moves: 0,
            period: 0,
            period_moves: 0,
        };
        Clock {
            control,
            sides: [side; 2],
            to_move: first,
            phase: Phase::NotStarted,
            no_increment: [false; 2],
        }
    }

    /// The time control.
    pub fn control(&self) -> &TimeControl {
        &self.control
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The side whose turn it is.
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// `color`'s stored side (for the side to move, as of the start of its turn).
    pub fn side(&self, color: Color) -> SideClock {
        self.sides[color.index()]
    }

    fn side_mut(&mut self, color: Color) -> &mut SideClock {
        &mut self.sides[color.index()]
    }

    /// How long the current turn has run by `at` (0 when not running or paused).
    fn turn_elapsed(&self, at: Timestamp) -> Millis {
        match self.phase {
            Phase::Running { since, banked } => banked.saturating_add(at.saturating_since(since)),
            Phase::Paused { banked, .. } => banked,
            _ => Millis::ZERO,
        }
    }

    fn current_delay(&self) -> Millis {
        self.control.period(self.side(self.to_move).period).delay
    }

    fn turn_live(&self) -> bool {
        matches!(self.phase, Phase::Running { .. } | Phase::Paused { .. })
    }

    /// `color`'s time left at `at`. Instants before the clock's last event count as that
    /// event (the time is never "un-run"). After a flag, the flagged side shows zero.
    pub fn remaining(&self, color: Color, at: Timestamp) -> Millis {
        let stored = self.side(color).remaining;
        if color != self.to_move || !self.turn_live() {
            return stored;
        }
        let main_used = self.turn_elapsed(at).saturating_sub(self.current_delay());
        stored.saturating_sub(main_used)
    }

    /// The delay still to run this turn before the main time starts at `at`.
    pub fn delay_left(&self, at: Timestamp) -> Millis {
        if !self.turn_live() {
            return Millis::ZERO;
        }
        self.current_delay().saturating_sub(self.turn_elapsed(at))
    }

    /// Both times and the turn at `at`.
    pub fn view(&self, at: Timestamp) -> ClockView {
        ClockView {
            white: self.remaining(Color::White, at),
            black: self.remaining(Color::Black, at),
            to_move: self.to_move,
            running: matches!(self.phase, Phase::Running { .. }),
            delay_left: self.delay_left(at),
        }
    }

    /// The exact instant the side to move will flag if it does not move, when its time
    /// is running; `None` when not started, paused or over. Lag credit is not included.
    pub fn flag_at(&self) -> Option<Timestamp> {
        match self.phase {
            Phase::Running { since, banked } => {
                let budget = self
                    .side(self.to_move)
                    .remaining
                    .saturating_add(self.current_delay());
                Some(since + budget.saturating_sub(banked))
            }
            _ => None,
        }
    }

    /// Whether a flag has fallen by `at`: the clock recorded a flag, or the side to move
    /// has zero time left at `at` (a flag exactly at zero counts).
    pub fn is_flagged(&self, at: Timestamp) -> bool {
        match self.phase {
            Phase::Flagged { .. } => true,
            Phase::Running { .. } | Phase::Paused { .. } => {
                self.remaining(self.to_move, at).is_zero()
            }
            _ => false,
        }
    }

    /// Who flagged, if the clock recorded a flag.
    pub fn flagged(&self) -> Option<Color> {
        match self.phase {
            Phase::Flagged { color, .. } => Some(color),
            _ => None,
        }
    }

    fn check_not_before(&self, at: Timestamp) -> Result<(), ClockError> {
        let last = match self.phase {
            Phase::Running { since, .. } => since,
            Phase::Paused { at, .. } | Phase::Stopped { at } | Phase::Flagged { at, .. } => at,
            Phase::NotStarted => return Ok(()),
        };
        if at < last {
            Err(ClockError::TimeWentBackwards { at, last })
        } else {
            Ok(())
        }
    }

    fn check_live(&self) -> Result<(), ClockError> {
        match self.phase {
            Phase::NotStarted => Err(ClockError::NotStarted),
            Phase::Flagged { .. } | Phase::Stopped { .. } => Err(ClockError::GameOver),
            _ => Ok(()),
        }
    }

    /// `color` goes berserk (arenas): its main time is halved and it gets no increment
    /// from now on. Once per side, and only while the game is not over; whether the
    /// player has moved yet is for the caller to check.
    pub fn berserk(&mut self, color: Color) -> Result<(), ClockError> {
        if matches!(self.phase, Phase::Flagged { .. } | Phase::Stopped { .. }) {
            return Err(ClockError::GameOver);
        }
        if self.no_increment[color.index()] {
            return Err(ClockError::AlreadyBerserk);
        }
        self.no_increment[color.index()] = true;
        let side = self.side_mut(color);
        side.remaining = Millis::ms(side.remaining.as_ms() / 2);
        Ok(())
    }

    /// Has `color` gone berserk?
    pub fn is_berserk(&self, color: Color) -> bool {
        self.no_increment[color.index()]
    }

    /// Starts the first mover's time at `at`.
    pub fn start(&mut self, at: Timestamp) -> Result<(), ClockError> {
        if self.phase != Phase::NotStarted {
            return Err(ClockError::AlreadyStarted);
        }
        self.phase = Phase::Running {
            since: at,
            banked: Millis::ZERO,
        };
        Ok(())
    }

    /// Records the flag of the side to move if its time has run out by `at`, ending the
    /// game; returns who flagged (also when the flag was recorded earlier). The server's
    /// flag timer calls this at [`Clock::flag_at`].
    pub fn settle_flag(&mut self, at: Timestamp) -> Result<Option<Color>, ClockError> {
        if let Phase::Flagged { color, .. } = self.phase {
            return Ok(Some(color));
        }
        self.check_live()?;
        self.check_not_before(at)?;
        if !self.is_flagged(at) {
            return Ok(None);
        }
        let color = self.to_move;
        let flag_instant = self.flag_at().map_or(at, |f| f.min(at));
        self.side_mut(color).remaining = Millis::ZERO;
        self.phase = Phase::Flagged {
            color,
            at: flag_instant,
        };
        Ok(Some(color))
    }

    /// The side to move completes a move at `at`, with `credited_lag` given back (clamped
    /// to the time the turn has run). Applies delay, increment and period transitions
    /// and starts the opponent's time at `at`. If the time had run out (remaining would
    /// be zero or less), the flag is recorded, no increment is added and
    /// [`PressOutcome::Flagged`] is returned.
    pub fn press(
        &mut self,
        at: Timestamp,
        credited_lag: Millis,
    ) -> Result<PressOutcome, ClockError> {
        self.check_live()?;
        if matches!(self.phase, Phase::Paused { .. }) {
            return Err(ClockError::Paused);
        }
        self.check_not_before(at)?;
        let color = self.to_move;
        let elapsed = self.turn_elapsed(at);
        let credited = credited_lag.min(elapsed);
        let used_total = elapsed.saturating_sub(credited);
        let side = self.side(color);
        let period = self.control.period(side.period);
        let used = used_total.saturating_sub(period.delay);
        if used >= side.remaining {
            let flag_instant = self.flag_at().map_or(at, |f| f.min(at));
            self.side_mut(color).remaining = Millis::ZERO;
            self.phase = Phase::Flagged {
                color,
                at: flag_instant,
            };
            return Ok(PressOutcome::Flagged {
                color,
                at: flag_instant,
            });
        }
        let mut next = side;
        let increment = if self.no_increment[color.index()] {
            Millis::ZERO
        } else {
            period.increment
        };
        next.remaining = side.remaining.saturating_sub(used) + increment;
        next.moves = next.moves.saturating_add(1);
        next.period_moves = next.period_moves.saturating_add(1);
        let mut period_time = Millis::ZERO;
        if period.moves.is_some_and(|quota| next.period_moves >= quota) {
            next.period = self.control.next_period_index(side.period);
            next.period_moves = 0;
            period_time = self.control.period(next.period).time;
            next.remaining += period_time;
        }
        *self.side_mut(color) = next;
        self.to_move = color.opponent();
        self.phase = Phase::Running {
            since: at,
            banked: Millis::ZERO,
        };
        Ok(PressOutcome::Moved {
            color,
            used,
            credited,
            increment,
            period_time,
            remaining: next.remaining,
        })
    }

    /// Gives the turn back to the other side at `at` without a move (a one-ply
    /// takeback): the side to move is charged nothing for the time it had been
    /// thinking and gets no increment, and the other side's time runs from `at`. Move
    /// counts and periods stay as they are.
    pub fn hand_back(&mut self, at: Timestamp) -> Result<(), ClockError> {
        self.check_live()?;
        if matches!(self.phase, Phase::Paused { .. }) {
            return Err(ClockError::Paused);
        }
        self.check_not_before(at)?;
        self.to_move = self.to_move.opponent();
        self.phase = Phase::Running {
            since: at,
            banked: Millis::ZERO,
        };
        Ok(())
    }

    /// Freezes the side to move's time as of `at` (which may be in the past, e.g. the
    /// last instant the server was known alive, but not before the turn started).
    pub fn pause(&mut self, at: Timestamp) -> Result<(), ClockError> {
        self.check_live()?;
        let Phase::Running { since, banked } = self.phase else {
            return Err(ClockError::Paused);
        };
        self.check_not_before(at)?;
        self.phase = Phase::Paused {
            at,
            banked: banked.saturating_add(at.saturating_since(since)),
        };
        Ok(())
    }

    /// Lets the side to move's time run again from `at`; the paused span is not charged.
    pub fn resume(&mut self, at: Timestamp) -> Result<(), ClockError> {
        self.check_live()?;
        let Phase::Paused { banked, .. } = self.phase else {
            return Err(ClockError::NotPaused);
        };
        self.check_not_before(at)?;
        self.phase = Phase::Running { since: at, banked };
        Ok(())
    }

    /// Adds `amount` to `color`'s time (an arbiter's decision, e.g. FIDE 7.4's two
    /// minutes, or a refund). Refused once the game is over.
    pub fn give_time(&mut self, color: Color, amount: Millis) -> Result<(), ClockError> {
        if matches!(self.phase, Phase::Flagged { .. } | Phase::Stopped { .. }) {
            return Err(ClockError::GameOver);
        }
        let side = self.side_mut(color);
        side.remaining += amount;
        Ok(())
    }

    /// Ends the game at `at` without a press (mate, resignation, agreed draw, ...): the
    /// side to move is charged the time it used, without increment. If its time had
    /// already run out, the flag is recorded instead and its color returned.
    pub fn stop(&mut self, at: Timestamp) -> Result<Option<Color>, ClockError> {
        match self.phase {
            Phase::Flagged { .. } | Phase::Stopped { .. } => return Err(ClockError::GameOver),
            Phase::NotStarted => {
                self.phase = Phase::Stopped { at };
                return Ok(None);
            }
            _ => {}
        }
        self.check_not_before(at)?;
        if self.is_flagged(at) {
            return self.settle_flag(at);
        }
        let color = self.to_move;
        let left = self.remaining(color, at);
        self.side_mut(color).remaining = left;
        self.phase = Phase::Stopped { at };
        Ok(None)
    }

    /// The clock for the next game of a match (INT 3.6.4): each player keeps the time,
    /// move count and period they ended this game with. `swap_colors` says whether the
    /// players change colors; `first` moves first in the new game. The new clock is not
    /// started.
    pub fn next_game(&self, swap_colors: bool, first: Color) -> Result<Clock, ClockError> {
        if !self.control.is_match_clock() {
            return Err(ClockError::NotMatchClock);
        }
        match self.phase {
            Phase::Stopped { .. } => {}
            Phase::Flagged { .. } => return Err(ClockError::GameOver),
            _ => return Err(ClockError::GameInProgress),
        }
        let [w, b] = self.sides;
        let sides = if swap_colors { [b, w] } else { [w, b] };
        Ok(Clock {
            control: self.control.clone(),
            sides,
            to_move: first,
            phase: Phase::NotStarted,
            no_increment: [false; 2],
        })
    }

    /// The clock of the next game of a match (INT 3.6.4) from what the last game's clock
    /// showed at its end, for an owner that has only that (a tournament organiser
    /// following games other tasks or nodes run): `left[c]` is the time left and the
    /// moves completed so far in the match by the player who has colour `c` in the new
    /// game. Periods and their move counts follow from the moves, as [`Clock::press`]
    /// advanced them; the result equals [`Clock::next_game`] of the last game's clock.
    /// `first` moves first; the new clock is not started. A player with no time left
    /// has flagged: the match clock is over.
    pub fn carried(
        control: TimeControl,
        left: [(Millis, u32); 2],
        first: Color,
    ) -> Result<Clock, ClockError> {
        if !control.is_match_clock() {
            return Err(ClockError::NotMatchClock);
        }
        if left.iter().any(|(time, _)| *time == Millis::ZERO) {
            return Err(ClockError::GameOver);
        }
        let side = |(remaining, moves): (Millis, u32)| {
            let (period, period_moves) = control.period_after(moves);
            SideClock {
                remaining,
                moves,
                period,
                period_moves,
            }
        };
        let sides = [side(left[0]), side(left[1])];
        Ok(Clock {
            control,
            sides,
            to_move: first,
            phase: Phase::NotStarted,
            no_increment: [false; 2],
        })
    }
}
