//! Lag compensation: how much of a move's network time the game actor credits back to the
//! mover (the `credited_lag` of [`super::Clock::press`]). One [`LagCompensator`] per
//! player per game; it is serializable so it persists with the clock.
//!
//! Inputs, per move ([`LagSample`]): `measured`, the server's own estimate of the round
//! trip this move cost (for example a recent transport-level WebSocket ping, answered by
//! the browser's network stack rather than page scripts); `server_elapsed`, the time from
//! sending the opponent's move to receiving this one; and optionally `client_think`, the
//! think time the client says it measured. `server_elapsed - client_think` is the lag the
//! client *claims*.
//!
//! # The lichess baseline ([`LagPolicy::Lichess`])
//!
//! As in lichess's scalachess `LagTracker`: a quota gain per move of
//! `min(1 s, 10 ms x (2/5 x estimated total seconds + 15))` (estimated total seconds =
//! starting time + 40 x increment, [`super::TimeControl::estimate_total_seconds`]); the
//! quota starts at 3 gains and is capped at 7 gains. Each move the lag (the client's
//! claim, or `measured` when the client reports nothing) is credited up to the quota:
//! `credited = min(lag, quota)`, then `quota = min(cap, quota - credited + gain)`.
//! (lichess also lowers the gain to the client's frame lag; that refinement is left out.)
//!
//! # damka's policy ([`LagPolicy::Damka`])
//!
//! 1. The claim is *checked against the server's measurement*: a claim is believed up to
//!    `measured + max(measured / 4, 20 ms)` (jitter allowance). With no client report,
//!    `measured` itself is credited: the move's exchange physically cost one round trip.
//!    Never more than `server_elapsed`.
//! 2. Because claims can no longer be inflated, the quota can follow the player's real
//!    lag: the gain of each move is the measured lag, clamped between the lichess gain
//!    and twice the lichess gain (and 1 s).
//! 3. The quota (start 3 lichess gains, cap 7 x the current gain) stays the outer bound:
//!    no input, however large, credits more than the quota.
//!
//! # Why damka's is fairer, with numbers
//!
//! *A cheater at 1+0* (lichess gain 390 ms, quota 1 170 ms, cap 2 730 ms) whose real round
//! trip is 30 ms reports a think time of 0 on every move, claiming the whole 2 s he
//! thought as lag. lichess credits 1 170 ms on the first move and then the full 390 ms
//! gain on every move: over 40 moves 1 170 + 39 x 390 = 16 380 ms, about 15 s more than
//! his 1.2 s of genuine lag, a quarter of a one-minute game. damka believes at most
//! 30 + 20 = 50 ms per move: 2 000 ms in all, 0.8 s more than his genuine lag.
//!
//! *An honest player at 1/4+0* (15 s; lichess gain 210 ms, quota 630 ms) on a steady
//! 300 ms round trip. lichess credits 300, 300, 300, 300, 270, then 210 per move as the
//! quota runs dry: 6 720 ms over 30 moves for 9 000 ms of real lag, so 2.3 s, 15 % of his
//! game, goes to the network. damka's gain follows his measured 300 ms (within 210..420),
//! the quota never drains, and all 9 000 ms are credited.
//!
//! *An honest player at 1+0 on a steady 150 ms* gets all of it back under both.
//!
//! The cost: a client that also delays its answers to the server's pings can raise its
//! gain, but never above twice lichess's, and the quota bounds every move.

use serde::{Deserialize, Serialize};

use super::control::TimeControl;
use super::time::Millis;

/// What the server knows about one move's network time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LagSample {
    /// Server-estimated round-trip lag for this move (e.g. a recent ping).
    pub measured: Millis,
    /// Time from sending the opponent's move to receiving this move.
    pub server_elapsed: Millis,
    /// The think time the client reports, if any.
    pub client_think: Option<Millis>,
}

impl LagSample {
    /// The lag the client claims: `server_elapsed - client_think` (never negative).
    pub fn claimed(&self) -> Option<Millis> {
        self.client_think
            .map(|think| self.server_elapsed.saturating_sub(think))
    }
}

/// Which compensation rule to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LagPolicy {
    /// Credit nothing (over-the-board play, correspondence).
    Off,
    /// lichess's quota scheme, exactly; see the module documentation.
    Lichess,
    /// damka's: claims checked against the server's measurement, quota following the
    /// measured lag; see the module documentation.
    Damka,
}

/// Smallest jitter allowance over the measured lag a claim may have under [`LagPolicy::Damka`].
pub const DAMKA_MIN_JITTER: Millis = Millis(20);
/// Largest quota gain of any policy.
pub const MAX_GAIN: Millis = Millis(1_000);

/// One player's lag-compensation state for one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LagCompensator {
    policy: LagPolicy,
    base_gain: Millis,
    quota: Millis,
    credited_total: Millis,
    moves: u32,
}

/// lichess's per-move quota gain for a control: `min(100, est * 2 / 5 + 15)` centiseconds.
pub fn lichess_gain(control: &TimeControl) -> Millis {
    let est = control.estimate_total_seconds();
    let centis = (est.saturating_mul(2) / 5).saturating_add(15).min(100);
    Millis(centis * 10)
}

impl LagCompensator {
    /// A fresh compensator for a game with `control`.
    pub fn new(policy: LagPolicy, control: &TimeControl) -> LagCompensator {
        let base_gain = lichess_gain(control);
        LagCompensator {
            policy,
            base_gain,
            quota: base_gain.saturating_mul(3),
            credited_total: Millis::ZERO,
            moves: 0,
        }
    }

    /// The policy.
    pub fn policy(&self) -> LagPolicy {
        self.policy
    }

    /// The most the next move can be credited.
    pub fn quota(&self) -> Millis {
        match self.policy {
            LagPolicy::Off => Millis::ZERO,
            _ => self.quota,
        }
    }

    /// lichess's gain for this control (the damka gain's floor).
    pub fn base_gain(&self) -> Millis {
        self.base_gain
    }

    /// Lag credited so far this game.
    pub fn credited_total(&self) -> Millis {
        self.credited_total
    }

    /// Moves seen so far.
    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// The lag of `sample` this policy is willing to believe, before the quota.
    pub fn plausible_lag(&self, sample: &LagSample) -> Millis {
        match self.policy {
            LagPolicy::Off => Millis::ZERO,
            LagPolicy::Lichess => sample.claimed().unwrap_or(sample.measured),
            LagPolicy::Damka => {
                let m = sample.measured;
                let bound = m.saturating_add(Millis(m.as_ms() / 4).max(DAMKA_MIN_JITTER));
                sample
                    .claimed()
                    .map_or(m, |claim| claim.min(bound))
                    .min(sample.server_elapsed)
            }
        }
    }

    fn gain(&self, sample: &LagSample) -> Millis {
        match self.policy {
            LagPolicy::Off | LagPolicy::Lichess => self.base_gain,
            LagPolicy::Damka => {
                let ceiling = self
                    .base_gain
                    .saturating_mul(2)
                    .min(MAX_GAIN)
                    .max(self.base_gain);
                sample.measured.clamp(self.base_gain, ceiling)
            }
        }
    }

    /// The lag to credit for this move; updates the quota. Pass the result to
    /// [`super::Clock::press`].
    pub fn credit(&mut self, sample: &LagSample) -> Millis {
        if self.policy == LagPolicy::Off {
            self.moves = self.moves.saturating_add(1);
            return Millis::ZERO;
        }
        let gain = self.gain(sample);
        let cap = gain.saturating_mul(7);
        let credited = self.plausible_lag(sample).min(self.quota);
        self.quota = self
            .quota
            .saturating_sub(credited)
            .saturating_add(gain)
            .min(cap);
        self.credited_total += credited;
        self.moves = self.moves.saturating_add(1);
        credited
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(min_quarters: u64, inc_s: u64) -> TimeControl {
        TimeControl::fischer(Millis(min_quarters * 15_000), Millis::secs(inc_s)).expect("valid")
    }

    fn honest(rtt: u64, think: u64) -> LagSample {
        LagSample {
            measured: Millis(rtt),
            server_elapsed: Millis(rtt + think),
            client_think: Some(Millis(think)),
        }
    }

    #[test]
    fn lichess_gain_matches_scalachess() {
        assert_eq!(lichess_gain(&tc(4, 0)), Millis(390)); // 1+0: 60 s -> 39 cs
        assert_eq!(lichess_gain(&tc(1, 0)), Millis(210)); // 1/4+0: 15 s -> 21 cs
        assert_eq!(lichess_gain(&tc(12, 0)), Millis(870)); // 3+0: 180 s -> 87 cs
        assert_eq!(lichess_gain(&tc(12, 2)), Millis(1_000)); // 3+2: 260 s -> capped
    }

    #[test]
    fn lichess_baseline_is_exact() {
        let mut l = LagCompensator::new(LagPolicy::Lichess, &tc(4, 0));
        assert_eq!(l.quota(), Millis(1_170));
        // A 2 s claim takes the whole quota, which then refills by one gain.
        assert_eq!(l.credit(&honest(30, 0).with_claim(2_030)), Millis(1_170));
        assert_eq!(l.quota(), Millis(390));
        // Small lags refill towards the cap of 7 gains.
        for _ in 0..20 {
            l.credit(&honest(100, 500));
        }
        assert_eq!(l.quota(), Millis(2_730));
    }

    impl LagSample {
        fn with_claim(mut self, claim: u64) -> LagSample {
            self.server_elapsed = Millis(claim);
            self.client_think = Some(Millis::ZERO);
            self
        }
    }

    #[test]
    fn doc_example_cheater_at_1_0() {
        let control = tc(4, 0);
        let cheat = LagSample {
            measured: Millis(30),
            server_elapsed: Millis(2_030),
            client_think: Some(Millis::ZERO),
        };
        let mut lichess = LagCompensator::new(LagPolicy::Lichess, &control);
        let mut damka = LagCompensator::new(LagPolicy::Damka, &control);
        for _ in 0..40 {
            lichess.credit(&cheat);
            damka.credit(&cheat);
        }
        assert_eq!(lichess.credited_total(), Millis(16_380));
        assert_eq!(damka.credited_total(), Millis(2_000));
    }

    #[test]
    fn doc_example_honest_ultrabullet() {
        let control = tc(1, 0);
        let mut lichess = LagCompensator::new(LagPolicy::Lichess, &control);
        let mut damka = LagCompensator::new(LagPolicy::Damka, &control);
        for _ in 0..30 {
            lichess.credit(&honest(300, 200));
            damka.credit(&honest(300, 200));
        }
        assert_eq!(lichess.credited_total(), Millis(6_720));
        assert_eq!(damka.credited_total(), Millis(9_000));
    }

    #[test]
    fn steady_150ms_at_1_0_gets_nearly_all_back_under_damka() {
        let mut damka = LagCompensator::new(LagPolicy::Damka, &tc(4, 0));
        for i in 0..60u64 {
            // Jitter of +-10 ms around 150 ms, honest reports.
            let rtt = 140 + (i * 7) % 21;
            damka.credit(&honest(rtt, 800));
        }
        let real: u64 = (0..60u64).map(|i| 140 + (i * 7) % 21).sum();
        assert!(damka.credited_total().as_ms() * 100 >= real * 99);
        // Without client reports the measured round trip is credited.
        let mut silent = LagCompensator::new(LagPolicy::Damka, &tc(4, 0));
        let sample = LagSample {
            measured: Millis(150),
            server_elapsed: Millis(950),
            client_think: None,
        };
        for _ in 0..60 {
            assert_eq!(silent.credit(&sample), Millis(150));
        }
    }

    #[test]
    fn huge_claims_never_beat_the_quota() {
        for policy in [LagPolicy::Lichess, LagPolicy::Damka] {
            let control = tc(4, 0);
            let mut c = LagCompensator::new(policy, &control);
            let mut bound = c.quota();
            let ceiling = lichess_gain(&control).saturating_mul(2);
            for i in 0..100u64 {
                // The cheater also inflates the measured ping.
                let s = LagSample {
                    measured: Millis(5_000 + i),
                    server_elapsed: Millis(60_000),
                    client_think: Some(Millis::ZERO),
                };
                let before = c.quota();
                let got = c.credit(&s);
                assert!(got <= before, "{policy:?}: {got} > quota {before}");
                bound += ceiling;
            }
            assert!(c.credited_total() <= bound);
        }
    }

    #[test]
    fn off_credits_nothing() {
        let mut c = LagCompensator::new(LagPolicy::Off, &tc(4, 0));
        assert_eq!(c.credit(&honest(300, 10)), Millis::ZERO);
        assert_eq!(c.quota(), Millis::ZERO);
    }
}
