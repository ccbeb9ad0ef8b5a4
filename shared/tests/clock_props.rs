//! Property tests of the clock: time never runs for the side not to move, and a side's
//! remaining time never increases except by its increment, a new period or a refund.

use proptest::prelude::*;
use shared::clock::{
    Clock, LagCompensator, LagPolicy, LagSample, Millis, Period, PressOutcome, TimeControl,
    Timestamp,
};
use shared::rules::Color;

#[derive(Clone, Debug)]
enum Op {
    /// Advance the instant by this many ms, then press with this lag credit.
    Press(u64, u64),
    /// Advance, then look at the clock only.
    Look(u64),
    /// Advance, pause; advance, resume.
    Outage(u64, u64),
    /// Give this much time to White (true) or Black.
    Give(bool, u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u64..40_000, 0u64..2_000).prop_map(|(d, l)| Op::Press(d, l)),
        2 => (0u64..40_000).prop_map(Op::Look),
        1 => (0u64..20_000, 0u64..100_000).prop_map(|(a, b)| Op::Outage(a, b)),
        1 => (any::<bool>(), 0u64..10_000).prop_map(|(w, a)| Op::Give(w, a)),
    ]
}

fn control() -> impl Strategy<Value = TimeControl> {
    (
        1u64..600,
        0u64..10,
        0u64..10,
        prop::option::of((1u32..5, 1u64..300)),
        any::<bool>(),
    )
        .prop_map(|(base_s, inc_s, delay_s, second, delay_mode)| {
            let mut first = Period::to_end(Millis::secs(base_s));
            if delay_mode {
                first = first.with_delay(Millis::secs(delay_s));
            } else {
                first = first.with_increment(Millis::secs(inc_s));
            }
            let periods = match second {
                Some((quota, t)) => vec![
                    Period {
                        moves: Some(quota),
                        ..first
                    },
                    Period::for_moves(Millis::secs(t), quota),
                ],
                None => vec![first],
            };
            TimeControl::new(periods).expect("generated controls are valid")
        })
}

proptest! {
    #[test]
    fn time_only_runs_for_the_side_to_move(tc in control(), ops in prop::collection::vec(op(), 1..80)) {
        let mut clock = Clock::new(tc.clone());
        let mut now = 0u64;
        clock.start(Timestamp(now)).expect("start");
        for op in ops {
            if clock.flagged().is_some() {
                break;
            }
            let mover = clock.to_move();
            let idle = mover.opponent();
            let idle_before = clock.remaining(idle, Timestamp(now));
            let mover_before = clock.remaining(mover, Timestamp(now));
            match op {
                Op::Look(d) => {
                    now += d;
                    prop_assert_eq!(clock.remaining(idle, Timestamp(now)), idle_before);
                    prop_assert!(clock.remaining(mover, Timestamp(now)) <= mover_before);
                }
                Op::Press(d, lag) => {
                    now += d;
                    let period = tc.period(clock.side(mover).period);
                    let turn_start = clock.side(mover).remaining;
                    let out = clock.press(Timestamp(now), Millis(lag)).expect("press");
                    prop_assert_eq!(clock.remaining(idle, Timestamp(now)), idle_before);
                    match out {
                        PressOutcome::Moved { remaining, increment, period_time, credited, .. } => {
                            prop_assert!(credited.as_ms() <= lag);
                            prop_assert_eq!(increment, period.increment);
                            // Time gained only from increment, a new period's time and
                            // the lag refund; never more than the turn started with.
                            prop_assert!(remaining <= mover_before + increment + period_time + credited);
                            prop_assert!(remaining <= turn_start + increment + period_time);
                            prop_assert!(!remaining.is_zero());
                        }
                        PressOutcome::Flagged { color, .. } => {
                            prop_assert_eq!(color, mover);
                            prop_assert_eq!(clock.remaining(mover, Timestamp(now)), Millis::ZERO);
                        }
                    }
                }
                Op::Outage(a, b) => {
                    now += a;
                    clock.pause(Timestamp(now)).expect("pause");
                    let frozen = clock.remaining(mover, Timestamp(now));
                    now += b;
                    prop_assert_eq!(clock.remaining(mover, Timestamp(now)), frozen);
                    prop_assert_eq!(clock.remaining(idle, Timestamp(now)), idle_before);
                    clock.resume(Timestamp(now)).expect("resume");
                    prop_assert_eq!(clock.remaining(mover, Timestamp(now)), frozen);
                    prop_assert!(frozen <= mover_before);
                }
                Op::Give(white, amount) => {
                    let color = if white { Color::White } else { Color::Black };
                    let before = clock.remaining(color, Timestamp(now));
                    let overrun = clock.is_flagged(Timestamp(now));
                    clock.give_time(color, Millis(amount)).expect("give");
                    // (A side already past its flag may stay at zero: the overrun eats
                    // small gifts.)
                    if !overrun {
                        prop_assert_eq!(clock.remaining(color, Timestamp(now)), before + Millis(amount));
                    }
                }
            }
            // The flag instant is exactly where the remaining time reaches zero.
            if let Some(flag) = clock.flag_at() {
                prop_assert!(clock.is_flagged(flag));
                if flag.0 > now {
                    prop_assert!(!clock.is_flagged(Timestamp(flag.0 - 1)));
                }
            }
        }
    }

    #[test]
    fn no_lag_policy_credits_more_than_its_quota(
        samples in prop::collection::vec((0u64..20_000, 0u64..60_000, prop::option::of(0u64..60_000)), 1..100),
        base_s in 15u64..600,
        damka in any::<bool>(),
    ) {
        let tc = TimeControl::sudden_death(Millis::secs(base_s)).expect("valid");
        let policy = if damka { LagPolicy::Damka } else { LagPolicy::Lichess };
        let mut lag = LagCompensator::new(policy, &tc);
        for (measured, elapsed, think) in samples {
            let quota = lag.quota();
            let sample = LagSample {
                measured: Millis(measured),
                server_elapsed: Millis(elapsed),
                client_think: think.map(Millis),
            };
            let got = lag.credit(&sample);
            prop_assert!(got <= quota);
            if damka {
                prop_assert!(got <= Millis(elapsed));
                prop_assert!(got.as_ms() <= measured + (measured / 4).max(20));
            }
        }
    }
}
