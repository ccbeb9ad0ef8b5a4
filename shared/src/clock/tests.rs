//! Unit tests of the clock state machine: every kind of control, flags, periods, delay,
//! pauses, match carry-over and persistence. All time is passed in; nothing sleeps.

use super::*;
use crate::rules::Color::{Black, White};

fn t(ms: u64) -> Timestamp {
    Timestamp(ms)
}
const NO_LAG: Millis = Millis::ZERO;

fn started(control: TimeControl) -> Clock {
    let mut c = Clock::new(control);
    c.start(t(0)).expect("starts");
    c
}

fn fischer(min: u64, s: u64) -> TimeControl {
    TimeControl::fischer(Millis::mins(min), Millis::secs(s)).expect("valid")
}

fn remaining_after(outcome: PressOutcome) -> Millis {
    match outcome {
        PressOutcome::Moved { remaining, .. } => remaining,
        PressOutcome::Flagged { color, at } => panic!("unexpected flag of {color} at {at}"),
    }
}

#[test]
fn sudden_death_runs_only_for_the_side_to_move() {
    let mut c = started(TimeControl::sudden_death(Millis::mins(1)).expect("valid"));
    assert_eq!(c.remaining(White, t(10_000)), Millis::secs(50));
    assert_eq!(c.remaining(Black, t(10_000)), Millis::mins(1));
    let out = c.press(t(10_000), NO_LAG).expect("press");
    assert_eq!(remaining_after(out), Millis::secs(50));
    assert_eq!(c.to_move(), Black);
    assert_eq!(c.remaining(White, t(40_000)), Millis::secs(50));
    assert_eq!(c.remaining(Black, t(40_000)), Millis::secs(30));
    assert_eq!(c.flag_at(), Some(t(70_000)));
}

#[test]
fn flag_exactly_at_zero_counts() {
    let mut c = started(TimeControl::sudden_death(Millis::secs(10)).expect("valid"));
    assert_eq!(c.flag_at(), Some(t(10_000)));
    assert!(!c.is_flagged(t(9_999)));
    assert!(c.is_flagged(t(10_000)));
    // A press that uses exactly all the time is a flag.
    let out = c.press(t(10_000), NO_LAG).expect("press");
    assert_eq!(
        out,
        PressOutcome::Flagged {
            color: White,
            at: t(10_000)
        }
    );
    assert_eq!(c.flagged(), Some(White));
    assert_eq!(c.press(t(10_001), NO_LAG), Err(ClockError::GameOver));
}

#[test]
fn one_millisecond_before_zero_is_in_time() {
    let mut c = started(fischer(1, 2));
    let out = c.press(t(59_999), NO_LAG).expect("press");
    assert_eq!(remaining_after(out), Millis(2_001));
}

#[test]
fn increment_is_added_after_a_move_in_time() {
    let mut c = started(fischer(3, 2));
    let out = c.press(t(5_000), NO_LAG).expect("press");
    assert_eq!(remaining_after(out), Millis::secs(177));
    assert_eq!(c.remaining(White, t(99_999)), Millis::secs(177));
}

#[test]
fn increment_is_not_added_on_a_flagged_move() {
    let mut c = started(fischer(1, 5));
    let out = c.press(t(61_000), NO_LAG).expect("press");
    assert_eq!(
        out,
        PressOutcome::Flagged {
            color: White,
            at: t(60_000)
        }
    );
    assert_eq!(c.remaining(White, t(61_000)), Millis::ZERO);
    assert_eq!(c.side(White).moves, 0);
}

#[test]
fn settle_flag_records_the_exact_instant() {
    let mut c = started(fischer(1, 0));
    assert_eq!(c.settle_flag(t(59_000)), Ok(None));
    assert_eq!(c.settle_flag(t(65_000)), Ok(Some(White)));
    assert_eq!(
        c.phase(),
        Phase::Flagged {
            color: White,
            at: t(60_000)
        }
    );
    assert_eq!(c.settle_flag(t(70_000)), Ok(Some(White)));
    assert_eq!(
        c.give_time(Black, Millis::secs(1)),
        Err(ClockError::GameOver)
    );
}

#[test]
fn lag_credit_is_clamped_and_can_save_a_late_move() {
    let mut c = started(fischer(1, 0));
    // Arrived 300 ms after the flag instant, 500 ms of lag credited: in time.
    let out = c.press(t(60_300), Millis(500)).expect("press");
    assert_eq!(
        out,
        PressOutcome::Moved {
            color: White,
            used: Millis(59_800),
            credited: Millis(500),
            increment: Millis::ZERO,
            period_time: Millis::ZERO,
            remaining: Millis(200),
        }
    );
    // Credit never exceeds the turn's elapsed time, so it never adds time.
    let out = c.press(t(60_400), Millis::secs(10)).expect("press");
    assert_eq!(remaining_after(out), Millis::mins(1));
}

#[test]
fn delay_main_time_starts_after_the_delay_and_never_gains() {
    let mut c = started(TimeControl::delay(Millis::mins(1), Millis::secs(5)).expect("valid"));
    assert_eq!(c.delay_left(t(2_000)), Millis::secs(3));
    assert_eq!(c.remaining(White, t(5_000)), Millis::mins(1));
    assert_eq!(c.remaining(White, t(7_000)), Millis::secs(58));
    assert_eq!(c.flag_at(), Some(t(65_000)));
    // A move within the delay leaves the main time unchanged: unused delay is lost.
    let out = c.press(t(2_000), NO_LAG).expect("press");
    assert_eq!(remaining_after(out), Millis::mins(1));
    // Black uses 8 s: 3 s of main time.
    let out = c.press(t(10_000), NO_LAG).expect("press");
    assert_eq!(remaining_after(out), Millis::secs(57));
    // White flags exactly when main time and delay are both used.
    assert!(!c.is_flagged(t(74_999)));
    assert!(c.is_flagged(t(75_000)));
    let out = c.press(t(75_000), NO_LAG).expect("press");
    assert_eq!(
        out,
        PressOutcome::Flagged {
            color: White,
            at: t(75_000)
        }
    );
}

#[test]
fn int_3_6_1_periods_carry_unused_time_at_moves_50_and_75() {
    let control = TimeControl::new(vec![
        Period::for_moves(Millis::hours(2), 50),
        Period::for_moves(Millis::hours(1), 25),
    ])
    .expect("valid");
    let mut c = started(control);
    let mut now = 0;
    // White spends 2 min a move, Black 1 s.
    for n in 1..=75u32 {
        now += 120_000;
        let out = c.press(t(now), NO_LAG).expect("white");
        let PressOutcome::Moved {
            remaining,
            period_time,
            ..
        } = out
        else {
            panic!("white flagged at move {n}");
        };
        match n {
            // 50 moves x 2 min = 100 min used; 20 min left + 60 min = 80 min.
            50 => {
                assert_eq!(period_time, Millis::hours(1));
                assert_eq!(remaining, Millis::mins(80));
            }
            // 25 more moves x 2 min = 50 min: 30 min left + 60 min = 90 min.
            75 => {
                assert_eq!(period_time, Millis::hours(1));
                assert_eq!(remaining, Millis::mins(90));
            }
            49 => assert_eq!(remaining, Millis::mins(22)),
            74 => assert_eq!(remaining, Millis::mins(32)),
            _ => assert_eq!(period_time, Millis::ZERO),
        }
        now += 1_000;
        c.press(t(now), NO_LAG).expect("black");
    }
    assert_eq!(c.side(White).period, 1);
    assert_eq!(c.side(White).period_moves, 0);
    assert_eq!(c.side(White).moves, 75);
}

#[test]
fn int_3_6_1_two_hours_then_one_hour_to_the_end() {
    let control = TimeControl::new(vec![
        Period::for_moves(Millis::hours(2), 50),
        Period::to_end(Millis::hours(1)),
    ])
    .expect("valid");
    let mut c = started(control);
    let mut now = 0;
    for _ in 0..50 {
        now += 60_000;
        c.press(t(now), NO_LAG).expect("white");
        now += 1;
        c.press(t(now), NO_LAG).expect("black");
    }
    // 50 min used of 120, plus the hour to the end.
    assert_eq!(c.side(White).remaining, Millis::mins(130));
    // No more time is ever added.
    for _ in 0..100 {
        now += 1_000;
        c.press(t(now), NO_LAG).expect("white");
        now += 1;
        c.press(t(now), NO_LAG).expect("black");
    }
    assert_eq!(
        c.side(White).remaining,
        Millis::mins(130).saturating_sub(Millis::secs(100))
    );
}

#[test]
fn flag_before_completing_the_quota_loses() {
    let control = TimeControl::new(vec![
        Period::for_moves(Millis::mins(2), 2),
        Period::to_end(Millis::hours(1)),
    ])
    .expect("valid");
    let mut c = started(control);
    c.press(t(60_000), NO_LAG).expect("white 1");
    c.press(t(61_000), NO_LAG).expect("black 1");
    // White's second move would complete the quota, but comes exactly at zero.
    let out = c.press(t(121_000), NO_LAG).expect("white 2");
    assert_eq!(
        out,
        PressOutcome::Flagged {
            color: White,
            at: t(121_000)
        }
    );
}

#[test]
fn increments_per_period() {
    let control = TimeControl::new(vec![
        Period::for_moves(Millis::mins(90), 40).with_increment(Millis::secs(30)),
        Period::to_end(Millis::mins(30)).with_increment(Millis::secs(10)),
    ])
    .expect("valid");
    let mut c = started(control);
    let mut now = 0;
    for _ in 0..40 {
        now += 30_000;
        c.press(t(now), NO_LAG).expect("white");
        now += 30_000;
        c.press(t(now), NO_LAG).expect("black");
    }
    assert_eq!(c.side(White).remaining, Millis::mins(120));
    now += 20_000;
    let out = c.press(t(now), NO_LAG).expect("white 41");
    assert_eq!(
        remaining_after(out),
        Millis::mins(120).saturating_sub(Millis::secs(10))
    );
}

#[test]
fn pause_refunds_an_outage() {
    let mut c = started(fischer(5, 0));
    c.press(t(1_000), NO_LAG).expect("white");
    // Black's turn started at 1 s; the server was last alive at 11 s and came back at
    // 100 s: Black is charged 10 s, not 99 s.
    c.pause(t(11_000)).expect("pause");
    assert_eq!(c.flag_at(), None);
    assert_eq!(c.remaining(Black, t(50_000)), Millis::secs(290));
    assert_eq!(c.press(t(50_000), NO_LAG), Err(ClockError::Paused));
    c.resume(t(100_000)).expect("resume");
    assert_eq!(c.remaining(Black, t(105_000)), Millis::secs(285));
    assert_eq!(c.flag_at(), Some(t(390_000)));
    let out = c.press(t(105_000), NO_LAG).expect("black");
    assert_eq!(remaining_after(out), Millis::secs(285));
}

#[test]
fn time_cannot_go_backwards() {
    let mut c = started(fischer(5, 0));
    c.press(t(5_000), NO_LAG).expect("white");
    assert_eq!(
        c.press(t(4_000), NO_LAG),
        Err(ClockError::TimeWentBackwards {
            at: t(4_000),
            last: t(5_000)
        })
    );
    assert!(matches!(
        c.pause(t(1)),
        Err(ClockError::TimeWentBackwards { .. })
    ));
}

#[test]
fn lifecycle_errors() {
    let mut c = Clock::new(fischer(5, 0));
    assert_eq!(c.press(t(0), NO_LAG), Err(ClockError::NotStarted));
    assert_eq!(c.flag_at(), None);
    assert!(!c.is_flagged(t(1_000_000)));
    c.start(t(0)).expect("start");
    assert_eq!(c.start(t(1)), Err(ClockError::AlreadyStarted));
    assert_eq!(c.resume(t(1)), Err(ClockError::NotPaused));
    assert_eq!(c.next_game(false, White), Err(ClockError::NotMatchClock));
}

#[test]
fn give_time_adds_to_either_side() {
    let mut c = started(fischer(5, 0));
    c.give_time(Black, Millis::mins(2)).expect("give");
    c.give_time(White, Millis::secs(10)).expect("give");
    assert_eq!(c.remaining(Black, t(3_000)), Millis::mins(7));
    assert_eq!(c.remaining(White, t(3_000)), Millis::secs(307));
    assert_eq!(c.flag_at(), Some(t(310_000)));
}

#[test]
fn stop_charges_without_increment() {
    let mut c = started(fischer(1, 5));
    assert_eq!(c.stop(t(20_000)), Ok(None));
    assert_eq!(c.remaining(White, t(99_000)), Millis::secs(40));
    assert_eq!(c.stop(t(30_000)), Err(ClockError::GameOver));
    let mut late = started(fischer(1, 5));
    assert_eq!(late.stop(t(61_000)), Ok(Some(White)));
}

#[test]
fn int_3_6_4_match_clock_carries_into_the_next_game() {
    let control = fischer(5, 3).for_match();
    let mut g1 = started(control);
    g1.press(t(10_000), NO_LAG).expect("white"); // 290 + 3 = 293 s
    g1.press(t(30_000), NO_LAG).expect("black"); // 280 + 3 = 283 s
    assert_eq!(g1.next_game(true, White), Err(ClockError::GameInProgress));
    // Drawn by agreement at 40 s: White charged 10 s.
    g1.stop(t(40_000)).expect("stop");
    // Players swap colors: game 1's Black (283 s) is now White.
    let mut g2 = g1.next_game(true, White).expect("next game");
    assert_eq!(g2.remaining(White, t(0)), Millis::secs(283));
    assert_eq!(g2.remaining(Black, t(0)), Millis::secs(283));
    assert_eq!(g2.side(Black).moves, 1);
    g2.start(t(100_000)).expect("start");
    assert_eq!(g2.flag_at(), Some(t(383_000)));
    // Without swapping, each color keeps its own time.
    let g2b = g1.next_game(false, White).expect("next game");
    assert_eq!(g2b.side(White).remaining, Millis::secs(283));
    // A game lost on time ends the match.
    let mut lost = started(fischer(1, 3).for_match());
    lost.settle_flag(t(60_000)).expect("flag");
    assert_eq!(lost.next_game(true, White), Err(ClockError::GameOver));
}

#[test]
fn int_3_6_4_a_carried_clock_equals_next_game_periods_included() {
    // Two periods of 3 moves (the last repeats): periods and move counts must carry.
    let control = TimeControl::new(vec![
        Period::for_moves(Millis::secs(60), 3),
        Period::for_moves(Millis::secs(30), 3),
    ])
    .expect("control")
    .for_match();
    let mut g1 = started(control.clone());
    let mut at = 0;
    for _ in 0..7 {
        at += 1_000;
        g1.press(t(at), NO_LAG).expect("in time");
    }
    g1.stop(t(at + 500)).expect("stop");
    let next = g1.next_game(true, White).expect("next game");
    // Game 1's White made 4 moves (period 2 of the match, 1 move in it), Black 3.
    let left = |c: crate::rules::Color| (g1.side(c).remaining, g1.side(c).moves);
    let carried = Clock::carried(control.clone(), [left(Black), left(White)], White);
    assert_eq!(carried, Ok(next.clone()));
    assert_eq!(next.side(Black).period, 1);
    assert_eq!(next.side(Black).period_moves, 1);
    assert_eq!(next.side(White).period, 1);
    assert_eq!(next.side(White).period_moves, 0);
    // Not a match clock, or a player without time: nothing carries.
    let plain = fischer(5, 3);
    assert_eq!(
        Clock::carried(plain, [(Millis::secs(1), 0); 2], White),
        Err(ClockError::NotMatchClock)
    );
    assert_eq!(
        Clock::carried(control, [(Millis::ZERO, 3), (Millis::secs(1), 3)], White),
        Err(ClockError::GameOver)
    );
}

#[test]
fn black_can_move_first() {
    let mut c = Clock::with_first_to_move(fischer(1, 0), Black);
    c.start(t(0)).expect("start");
    assert_eq!(c.remaining(Black, t(1_000)), Millis::secs(59));
    assert_eq!(c.remaining(White, t(1_000)), Millis::secs(60));
}

#[test]
fn state_round_trips_through_serde_mid_turn() {
    let mut c = started(TimeControl::delay(Millis::mins(3), Millis::secs(2)).expect("valid"));
    c.press(t(4_000), NO_LAG).expect("white");
    c.pause(t(6_000)).expect("pause");
    let json = serde_json::to_string(&c).expect("serialize");
    let mut back: Clock = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, c);
    back.resume(t(9_000)).expect("resume");
    c.resume(t(9_000)).expect("resume");
    assert_eq!(back.press(t(12_000), NO_LAG), c.press(t(12_000), NO_LAG));
    assert_eq!(back.view(t(13_000)), c.view(t(13_000)));
}

#[test]
fn view_shows_both_sides() {
    let c = started(TimeControl::delay(Millis::secs(30), Millis::secs(3)).expect("valid"));
    assert_eq!(
        c.view(t(1_000)),
        ClockView {
            white: Millis::secs(30),
            black: Millis::secs(30),
            to_move: White,
            running: true,
            delay_left: Millis::secs(2),
        }
    );
}

#[test]
fn berserk_halves_the_time_and_cancels_the_increment() {
    use crate::clock::{Clock, Millis, PressOutcome, Timestamp};
    let control = crate::clock::TimeControl::fischer(Millis::secs(60), Millis::secs(2)).unwrap();
    let mut clock = Clock::new(control);
    clock.berserk(crate::rules::Color::Black).unwrap();
    assert!(clock.berserk(crate::rules::Color::Black).is_err());
    assert!(clock.is_berserk(crate::rules::Color::Black));
    assert_eq!(
        clock.side(crate::rules::Color::Black).remaining,
        Millis::secs(30)
    );
    clock.start(Timestamp::ms(0)).unwrap();
    clock.press(Timestamp::ms(1000), Millis::ZERO).unwrap();
    // White keeps its increment: 60 - 1 + 2.
    assert_eq!(
        clock.side(crate::rules::Color::White).remaining,
        Millis::secs(61)
    );
    let out = clock.press(Timestamp::ms(3000), Millis::ZERO).unwrap();
    assert!(matches!(out, PressOutcome::Moved { increment, .. } if increment == Millis::ZERO));
    assert_eq!(
        clock.side(crate::rules::Color::Black).remaining,
        Millis::secs(28)
    );
}
