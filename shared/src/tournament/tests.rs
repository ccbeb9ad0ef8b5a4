//! Tests across the tournament modules: a whole round robin from the Berger table to
//! the standings, withdrawals on both sides of 18.2.1's threshold, and the ballot's
//! moves staying out of the clock's move count (5.5).

use super::berger::schedule;
use super::forfeits::{Withdrawal, round_robin_withdrawal};
use super::tiebreaks::{RoundRobinCoefficient, round_robin_order};
use super::*;
use crate::clock::{Clock, Millis, Period, PressOutcome, TimeControl, Timestamp};
use crate::law::GameResult;

/// Every micro-match of a six-player round robin, the lower index winning 3-1 except
/// that 4 beats 0 (so 0 and 1 tie on points).
fn six_player_results() -> Vec<(usize, Encounter)> {
    let s = schedule(6, 1).unwrap();
    let mut out = Vec::new();
    for (r, round) in s.iter().enumerate() {
        for &p in &round.pairings {
            let upset = p.same_players(&Pairing::new(0, 4));
            let white_wins = (p.white < p.black) != upset;
            let games = if white_wins {
                vec![GameResult::WhiteWin, GameResult::Draw]
            } else {
                vec![GameResult::BlackWin, GameResult::Draw]
            };
            out.push((r, Encounter::Played { pairing: p, games }));
        }
    }
    out
}

#[test]
fn a_six_player_round_robin_from_schedule_to_standings() {
    let results = six_player_results();
    let t = Crosstable::build(6, &Scoring::default(), &results, &[]).unwrap();
    // 0 beats 1 2 3 5 (8), 1 beats 2 3 4 5 (8), 2 beats 3 4 5 (6), 3 beats 4 5 (4),
    // 4 beats 0 and 5 (4), 5 nobody.
    assert_eq!(
        (0..6).map(|p| t.score(p)).collect::<Vec<_>>(),
        vec![8, 8, 6, 4, 4, 0]
    );
    let s = standings(
        &t,
        &round_robin_order(RoundRobinCoefficient::SonnebornBerger),
        false,
    );
    // SB(0) = 2·(8+6+4+0) = 36; SB(1) = 2·(6+4+4+0) = 28.
    assert_eq!(s[0].player, 0);
    assert_eq!(s[0].tiebreaks[0], (TieBreak::SonnebornBerger, 36));
    assert_eq!(s[1].tiebreaks[0], (TieBreak::SonnebornBerger, 28));
    // 3 and 4 on 4 points: SB(3) = 2·(4+0) = 8; SB(4) = 2·(8+0) = 16 → 4 ahead.
    let order: Vec<Player> = s.iter().map(|x| x.player).collect();
    assert_eq!(order, vec![0, 1, 2, 4, 3, 5]);
}

#[test]
fn withdrawals_either_side_of_half_way() {
    let s = schedule(6, 1).unwrap();
    let all = six_player_results();
    // Player 5 leaves after round 2 (two of five played): annulled.
    let two: Vec<_> = all.iter().filter(|(r, _)| *r < 2).cloned().collect();
    let w = round_robin_withdrawal(&s, &two, 5);
    assert!(matches!(
        w,
        Withdrawal::Annulled {
            played: 2,
            scheduled: 5
        }
    ));
    let t = Crosstable::build(6, &Scoring::default(), &two, &[5]).unwrap();
    assert!(standings(&t, &[], false).iter().all(|x| x.player != 5));
    // Player 5 leaves after round 3 (three of five): results stand, the rest are losses.
    let mut three: Vec<_> = all.iter().filter(|(r, _)| *r < 3).cloned().collect();
    let w = round_robin_withdrawal(&s, &three, 5);
    three.extend(w.forfeits(5));
    // The rest of the schedule is played by the others.
    three.extend(
        all.iter()
            .filter(|(r, e)| {
                *r >= 3 && !matches!(e, Encounter::Played { pairing, .. } if pairing.involves(5))
            })
            .cloned(),
    );
    let t = Crosstable::build(6, &Scoring::default(), &three, &[]).unwrap();
    assert_eq!(t.entries[5].len(), 5);
    assert_eq!(t.entries[5].iter().filter(|e| e.forfeit).count(), 2);
    assert_eq!(t.score(5), 0);
    // Everybody else has played or been given all five.
    assert!((0..5).all(|p| t.entries[p].len() == 5));
}

#[test]
fn ballot_moves_stay_out_of_the_clocks_move_count_5_5() {
    let table =
        BallotTable::parse(include_str!("../../../config/ballots/russian-example.txt")).unwrap();
    let opening = table.get(1).unwrap();
    assert_eq!(opening.moves.len(), 3);
    // "10 s for 2 moves, then 5 s to the end": the quota counts the game's own moves.
    let tc = TimeControl::new(vec![
        Period::for_moves(Millis::secs(10), 2),
        Period::to_end(Millis::secs(5)),
    ])
    .unwrap();
    let mut clock = Clock::with_first_to_move(tc, opening.to_move);
    clock.start(Timestamp(0)).unwrap();
    let mut period_time = Vec::new();
    for i in 1..=4u64 {
        match clock.press(Timestamp(i * 1000), Millis::ZERO).unwrap() {
            PressOutcome::Moved {
                color,
                period_time: added,
                ..
            } => period_time.push((color, added)),
            PressOutcome::Flagged { .. } => panic!("flagged"),
        }
    }
    use crate::rules::Color::*;
    // Black moves first after the ballot; each side's second own move completes the quota.
    assert_eq!(
        period_time,
        vec![
            (Black, Millis::ZERO),
            (White, Millis::ZERO),
            (Black, Millis::secs(5)),
            (White, Millis::secs(5))
        ]
    );
}
