//! The seam to `shared::clock`: a Fischer clock driven by the instants the actor passes
//! in. Replace with the shared clock (and its lag-compensation policy) when it lands;
//! the actor only uses what is here.

use std::time::Duration;

use shared::protocol::{ClockState, TimeControl};
use shared::rules::Color;
use tokio::time::Instant;

/// Two clocks, at most one running.
#[derive(Clone, Debug)]
pub struct GameClock {
    remaining: [Duration; 2],
    increment: Duration,
    running: Option<(Color, Instant)>,
}

impl GameClock {
    /// Both clocks at the initial time, stopped.
    pub fn new(tc: TimeControl) -> GameClock {
        let initial = Duration::from_secs(u64::from(tc.initial_secs));
        GameClock {
            remaining: [initial; 2],
            increment: Duration::from_secs(u64::from(tc.increment_secs)),
            running: None,
        }
    }

    /// Starts `color`'s clock at `now` (no increment to anybody).
    pub fn start(&mut self, color: Color, now: Instant) {
        self.stop(now);
        self.running = Some((color, now));
    }

    /// Stops whatever runs, charging its time.
    pub fn stop(&mut self, now: Instant) {
        if let Some((c, since)) = self.running.take() {
            let spent = now.saturating_duration_since(since);
            self.remaining[c.index()] = self.remaining[c.index()].saturating_sub(spent);
        }
    }

    /// `mover` completed a move at `now`: charge the time less `lag_credit` (never more
    /// than the time spent), add the increment, start the opponent's clock. Returns
    /// `false`, changing nothing, if the mover's flag had already fallen.
    pub fn press(&mut self, mover: Color, now: Instant, lag_credit: Duration) -> bool {
        if self.flag_at().is_some_and(|t| t <= now) {
            return false;
        }
        let spent = match self.running {
            Some((c, since)) if c == mover => now.saturating_duration_since(since),
            _ => Duration::ZERO,
        };
        let charged = spent.saturating_sub(lag_credit.min(spent));
        let left = &mut self.remaining[mover.index()];
        *left = left.saturating_sub(charged) + self.increment;
        self.running = Some((mover.opponent(), now));
        true
    }

    /// When the running clock reaches zero.
    pub fn flag_at(&self) -> Option<Instant> {
        self.running
            .map(|(c, since)| since + self.remaining[c.index()])
    }

    /// The side whose clock runs.
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(c, _)| c)
    }

    /// Remaining time of `color` at `now`.
    pub fn remaining(&self, color: Color, now: Instant) -> Duration {
        match self.running {
            Some((c, since)) if c == color => {
                self.remaining[c.index()].saturating_sub(now.saturating_duration_since(since))
            }
            _ => self.remaining[color.index()],
        }
    }

    /// Both clocks for the wire.
    pub fn state(&self, now: Instant) -> ClockState {
        let ms = |c| u64::try_from(self.remaining(c, now).as_millis()).unwrap_or(u64::MAX);
        ClockState {
            white_ms: ms(Color::White),
            black_ms: ms(Color::Black),
            running: self.running(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fischer_with_lag_credit() {
        let t0 = Instant::now();
        let mut clock = GameClock::new(TimeControl::new(60, 2));
        clock.start(Color::White, t0);
        assert!(clock.press(
            Color::White,
            t0 + Duration::from_secs(10),
            Duration::from_millis(300)
        ));
        assert_eq!(
            clock.remaining(Color::White, t0),
            Duration::from_millis(52_300)
        );
        assert_eq!(clock.running(), Some(Color::Black));
        assert_eq!(clock.flag_at(), Some(t0 + Duration::from_secs(70)));
        assert!(!clock.press(Color::Black, t0 + Duration::from_secs(70), Duration::ZERO));
        let s = clock.state(t0 + Duration::from_secs(40));
        assert_eq!((s.white_ms, s.black_ms), (52_300, 30_000));
    }
}
