//! Arena logic tests: scoring examples for every rule, and properties of wave pairing.

use proptest::prelude::*;

use super::sheet::GameFor;
use super::*;
use crate::clock::spec::TimeControl;

fn game(result: ArenaResult, berserk: bool, own_moves: u32, plies: u32) -> GameFor {
    GameFor {
        game_id: "g".into(),
        opponent: "o".into(),
        opponent_rating: 1500,
        result,
        berserk,
        own_moves,
        plies,
    }
}

use ArenaResult::{Draw, Loss, Win};

fn points(games: &[(ArenaResult, bool, u32, u32)]) -> Vec<u32> {
    let mut sheet = Sheet::default();
    games
        .iter()
        .map(|&(r, b, m, p)| sheet.add(game(r, b, m, p)).points)
        .collect()
}

#[test]
fn plain_scores() {
    assert_eq!(
        points(&[
            (Win, false, 20, 40),
            (Loss, false, 20, 40),
            (Draw, false, 20, 40)
        ]),
        vec![2, 0, 1]
    );
}

#[test]
fn streak_doubles_until_a_game_is_not_won() {
    let p = points(&[
        (Win, false, 20, 40),
        (Win, false, 20, 40),
        (Win, false, 20, 40),
        (Win, false, 20, 40),
        (Draw, false, 20, 40),
        (Win, false, 20, 40),
        (Win, false, 20, 40),
        (Loss, false, 20, 40),
        (Win, false, 20, 40),
    ]);
    assert_eq!(p, vec![2, 2, 4, 4, 2, 2, 2, 0, 2]);
}

#[test]
fn berserk_point_needs_a_win_and_seven_moves() {
    let p = points(&[
        (Win, true, 7, 14),
        (Loss, true, 30, 60),
        (Win, true, 6, 12),
        (Draw, true, 20, 40),
    ]);
    assert_eq!(p, vec![3, 0, 2, 1]);
    // On fire, the berserk point is added after doubling.
    let p = points(&[(Win, false, 9, 18), (Win, false, 9, 18), (Win, true, 9, 18)]);
    assert_eq!(p, vec![2, 2, 5]);
}

#[test]
fn draw_runs_score_only_the_first_unless_long() {
    let p = points(&[
        (Draw, false, 10, 20),
        (Draw, false, 10, 20),
        (Draw, false, 30, LONG_DRAW_PLIES),
        (Draw, false, 10, LONG_DRAW_PLIES - 1),
        (Win, false, 10, 20),
        (Draw, false, 10, 20),
    ]);
    assert_eq!(p, vec![1, 0, 1, 0, 2, 1]);
}

#[test]
fn performance_and_ranking() {
    let mut a = Sheet::default();
    a.add(GameFor {
        opponent_rating: 1600,
        ..game(Win, false, 10, 20)
    });
    a.add(GameFor {
        opponent_rating: 1400,
        ..game(Loss, false, 10, 20)
    });
    assert_eq!(a.performance(), Some(1500));
    let mut b = Sheet::default();
    b.add(GameFor {
        opponent_rating: 1800,
        ..game(Win, false, 10, 20)
    });
    b.add(GameFor {
        opponent_rating: 1800,
        ..game(Loss, false, 10, 20)
    });
    let empty = Sheet::default();
    let table = rank([
        ("a", "A", 1500, &a),
        ("b", "B", 1400, &b),
        ("c", "C", 2000, &empty),
    ]);
    let order: Vec<_> = table.iter().map(|s| (s.user.as_str(), s.rank)).collect();
    assert_eq!(order, vec![("b", 1), ("a", 2), ("c", 3)]);
    assert_eq!(table[0].points, vec![2, 0]);
}

#[test]
fn closing_time() {
    let tc = TimeControl::new(180, 2);
    assert_eq!(estimated_game_ms(tc), 260_000);
    assert!(pairing_open(260_000, tc));
    assert!(!pairing_open(259_999, tc));
}

fn waiting(user: usize, last: Option<usize>, balance: i32) -> Waiting {
    Waiting {
        user: format!("p{user}"),
        last_opponent: last.map(|l| format!("p{l}")),
        color_balance: balance,
        last_white: None,
    }
}

#[test]
fn rematch_avoided_by_swapping() {
    // p0-p1 free, p2-p3 just played each other: p0-p2 and p1-p3 or the like.
    let w = vec![
        waiting(0, None, 0),
        waiting(1, None, 0),
        waiting(2, Some(3), 0),
        waiting(3, Some(2), 0),
    ];
    let pairs = pair_wave(&w, 10);
    assert_eq!(pairs.len(), 2);
    for p in &pairs {
        let set = [p.white.as_str(), p.black.as_str()];
        assert!(!(set.contains(&"p2") && set.contains(&"p3")), "{pairs:?}");
    }
}

/// Colours follow the balance (whites minus blacks in this arena), not the count of
/// whites: p0 has played six games, three with White (balance 0), p1 one game, with White
/// (balance +1). p1 has had White less often, but p0 has the lower balance and gets
/// White. On equal balances the one who had Black last gets White, then the higher
/// ranked.
#[test]
fn white_goes_to_the_lower_colour_balance() {
    let pair = |a: Waiting, b: Waiting| pair_wave(&[a, b], 10).remove(0);
    let with_last = |mut w: Waiting, white: bool| {
        w.last_white = Some(white);
        w
    };
    let p = pair(
        with_last(waiting(1, None, 1), true),
        with_last(waiting(0, None, 0), true),
    );
    assert_eq!((p.white.as_str(), p.black.as_str()), ("p0", "p1"));
    let p = pair(
        with_last(waiting(0, None, 0), true),
        with_last(waiting(1, None, 0), false),
    );
    assert_eq!((p.white.as_str(), p.black.as_str()), ("p1", "p0"));
    let p = pair(waiting(0, None, 0), waiting(1, None, 0));
    assert_eq!((p.white.as_str(), p.black.as_str()), ("p0", "p1"));
}

#[test]
fn two_players_alone_may_rematch() {
    let w = vec![waiting(0, Some(1), 1), waiting(1, Some(0), -1)];
    assert_eq!(
        pair_wave(&w, 2),
        vec![Pair {
            white: "p1".into(),
            black: "p0".into()
        }]
    );
    assert!(pair_wave(&w, 3).is_empty());
}

proptest! {
    #[test]
    fn waves_are_sound(
        n in 0usize..60,
        lasts in proptest::collection::vec(proptest::option::of(0usize..60), 60),
        balances in proptest::collection::vec(-3i32..=3, 60),
    ) {
        let w: Vec<Waiting> = (0..n)
            .map(|i| waiting(i, lasts[i].filter(|&l| l != i), balances[i]))
            .collect();
        let pairs = pair_wave(&w, n + 5);
        let by_name = |u: &str| w.iter().find(|x| x.user == u).unwrap();
        let mut seen = std::collections::HashSet::new();
        for p in &pairs {
            prop_assert!(seen.insert(p.white.clone()), "paired twice");
            prop_assert!(seen.insert(p.black.clone()), "paired twice");
            let (a, b) = (by_name(&p.white), by_name(&p.black));
            prop_assert!(a.last_opponent.as_deref() != Some(b.user.as_str()));
            prop_assert!(b.last_opponent.as_deref() != Some(a.user.as_str()));
            prop_assert!(a.color_balance <= b.color_balance, "white to the lower balance");
        }
        // Nobody waits who could have been paired with another leftover.
        let left: Vec<&Waiting> = w.iter().filter(|x| !seen.contains(&x.user)).collect();
        for (i, a) in left.iter().enumerate() {
            for b in &left[i + 1..] {
                prop_assert!(
                    a.last_opponent.as_deref() == Some(b.user.as_str())
                        || b.last_opponent.as_deref() == Some(a.user.as_str()),
                    "{} and {} both left waiting", a.user, b.user
                );
            }
        }
    }

    #[test]
    fn score_is_the_sum_of_explained_entries(
        games in proptest::collection::vec((0u8..3, any::<bool>(), 0u32..40, 0u32..120), 0..40)
    ) {
        let mut sheet = Sheet::default();
        for (r, b, m, p) in games {
            let result = [Win, Draw, Loss][usize::from(r)];
            let fire = sheet.on_fire();
            let after_draw = sheet.entries.last().is_some_and(|e| e.result == Draw);
            let e = sheet.add(game(result, b, m, p)).clone();
            let base = match result {
                Win => if fire { 4 } else { 2 },
                Draw if after_draw && p < LONG_DRAW_PLIES => 0,
                Draw => if fire { 2 } else { 1 },
                Loss => 0,
            };
            let bonus = u32::from(b && result == Win && m >= 7);
            prop_assert_eq!(e.points, base + bonus);
        }
        prop_assert_eq!(sheet.score(), sheet.entries.iter().map(|e| e.points).sum::<u32>());
    }
}

/// The goal: 5,000 waiting players paired within 1 s (the whole wave, with
/// everyone's last opponent also waiting, the worst case for the rematch rule).
#[test]
fn a_wave_of_5000_is_paired_within_a_second() {
    let n = 5000;
    let w: Vec<Waiting> = (0..n)
        .map(|i| waiting(i, Some(i ^ 1), (i % 3) as i32 - 1))
        .collect();
    let started = std::time::Instant::now();
    let pairs = pair_wave(&w, n);
    let took = started.elapsed();
    eprintln!("5000 waiting: {} pairs in {took:?}", pairs.len());
    assert_eq!(pairs.len(), n / 2);
    assert!(took < std::time::Duration::from_secs(1), "{took:?}");
}
