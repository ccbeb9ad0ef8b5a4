//! Tests of the Swiss pairing: round one by the book, score groups, colours, byes, and
//! properties over random tournaments (no repeated encounter, at most one bye each).

use super::*;
use crate::law::GameResult;
use proptest::prelude::*;

fn fresh(n: usize) -> Vec<SwissPlayer> {
    vec![
        SwissPlayer {
            active: true,
            ..SwissPlayer::default()
        };
        n
    ]
}

fn pairs(r: &Round) -> Vec<(Player, Player)> {
    r.pairings.iter().map(|p| (p.white, p.black)).collect()
}

#[test]
fn round_one_pairs_the_top_half_against_the_bottom_half_with_alternating_colours() {
    let r = pair_round(&fresh(8), SwissSettings::default()).unwrap();
    // Seeds 1-5, 6-2, 3-7, 8-4 (1-based), seed 1 with the initial colour.
    assert_eq!(pairs(&r), vec![(0, 4), (5, 1), (2, 6), (7, 3)]);
    assert_eq!(r.bye, None);
    let r = pair_round(
        &fresh(8),
        SwissSettings {
            initial_colour: Color::Black,
            ..SwissSettings::default()
        },
    )
    .unwrap();
    assert_eq!(pairs(&r), vec![(4, 0), (1, 5), (6, 2), (3, 7)]);
}

#[test]
fn an_odd_field_gives_the_bye_to_the_lowest_ranked() {
    let r = pair_round(&fresh(9), SwissSettings::default()).unwrap();
    assert_eq!(r.bye, Some(8));
    assert_eq!(pairs(&r), vec![(0, 4), (5, 1), (2, 6), (7, 3)]);
}

fn result(w: Player, b: Player, g: [GameResult; 2]) -> (usize, Encounter) {
    (
        0,
        Encounter::Played {
            pairing: Pairing::new(w, b),
            games: g.to_vec(),
        },
    )
}

#[test]
fn round_two_pairs_within_score_groups_and_alternates_colours() {
    use GameResult::*;
    // Round 1 of eight: the White players 0, 5, 2, 7 all win.
    let r1 = vec![
        result(0, 4, [WhiteWin, Draw]),
        result(5, 1, [WhiteWin, Draw]),
        result(2, 6, [WhiteWin, Draw]),
        result(7, 3, [WhiteWin, Draw]),
    ];
    let h = history(8, &Scoring::default(), &r1, &[]).unwrap();
    let r = pair_round(&h, SwissSettings::default()).unwrap();
    // Winners ranked 0 2 5 7: S1 = 0 2, S2 = 5 7 → 0-5, 2-7. All had White and want
    // Black (strong): E.3 cannot separate equal histories, E.4 gives the higher ranked
    // his preference. Losers ranked 1 3 4 6: 1-4, 3-6; all want White, the higher
    // ranked gets it.
    assert_eq!(pairs(&r), vec![(5, 0), (7, 2), (1, 4), (3, 6)]);
}

#[test]
fn when_no_transposition_fits_an_exchange_between_s1_and_s2_does() {
    use GameResult::*;
    // Six players, round 1 (0-3, 4-1, 2-5) all drawn: everybody on 1 point.
    let r1 = vec![
        result(0, 3, [Draw, Draw]),
        result(4, 1, [Draw, Draw]),
        result(2, 5, [Draw, Draw]),
    ];
    let h = history(6, &Scoring::default(), &r1, &[]).unwrap();
    let r = pair_round(&h, SwissSettings::default()).unwrap();
    // S1 = 0 1 2, S2 = 3 4 5; 0-3 and 1-4 are rematches. Every transposition of S2
    // either repeats an encounter or pairs two players wanting the same colour, so the
    // smallest exchange (2 for 3) is tried: S1 = 0 1 3, S2 = 2 4 5 gives 0-5, 1-2, 3-4
    // with every preference met.
    assert_eq!(pairs(&r), vec![(5, 0), (1, 2), (3, 4)]);
}

#[test]
fn a_transposition_of_s2_avoids_a_rematch() {
    use GameResult::*;
    // Four players, round 1 0-2 and 1-3 drawn. S1 = 0 1, S2 = 2 3: 0-2 is a rematch;
    // the transposition 0-3, 1-2 gives every player the colour he lacks.
    let r1 = vec![result(0, 2, [Draw, Draw]), result(1, 3, [Draw, Draw])];
    let h = history(4, &Scoring::default(), &r1, &[]).unwrap();
    let r = pair_round(&h, SwissSettings::default()).unwrap();
    assert_eq!(pairs(&r), vec![(3, 0), (2, 1)]);
}

#[test]
fn exchanges_between_s1_and_s2_come_before_colour_conflicts() {
    use GameResult::*;
    // Four players, round 1 0-2 and 3-1 both drawn. S1 = 0 1, S2 = 2 3: 0-2 is a
    // rematch; the transposition 0-3, 1-2 pairs equal colour histories twice, while
    // exchanging 1 and 2 gives 0-1 and 2-3 with every preference met.
    let r1 = vec![result(0, 2, [Draw, Draw]), result(3, 1, [Draw, Draw])];
    let h = history(4, &Scoring::default(), &r1, &[]).unwrap();
    let r = pair_round(&h, SwissSettings::default()).unwrap();
    assert_eq!(pairs(&r), vec![(1, 0), (2, 3)]);
}

#[test]
fn a_second_bye_is_never_given_and_withdrawn_players_are_not_paired() {
    let mut h = fresh(5);
    h[4].had_bye = true;
    let r = pair_round(&h, SwissSettings::default()).unwrap();
    assert_eq!(r.bye, Some(3));
    let mut h = fresh(6);
    h[2].active = false;
    let r = pair_round(&h, SwissSettings::default()).unwrap();
    assert_eq!(r.bye, Some(5));
    assert!(r.pairings.iter().all(|p| !p.involves(2)));
    assert_eq!(
        pair_round(&fresh(1), SwissSettings::default()),
        Err(SwissError::TooFewPlayers(1))
    );
}

#[test]
fn no_pairing_is_reported_when_everybody_has_met() {
    let mut h = fresh(2);
    h[0].opponents.push(1);
    h[1].opponents.push(0);
    assert_eq!(
        pair_round(&h, SwissSettings::default()),
        Err(SwissError::NoPairing)
    );
}

#[test]
fn colour_preferences_follow_a6() {
    use Color::*;
    assert_eq!(preference(&[]), None);
    assert_eq!(preference(&[White]), Some((Black, Strength::Strong)));
    assert_eq!(preference(&[White, Black]), Some((White, Strength::Mild)));
    assert_eq!(
        preference(&[White, White]),
        Some((Black, Strength::Absolute))
    );
    assert_eq!(
        preference(&[Black, White, White]),
        Some((Black, Strength::Absolute))
    );
    assert_eq!(
        preference(&[White, Black, White]),
        Some((Black, Strength::Strong))
    );
}

#[test]
fn absolute_preferences_of_the_same_colour_do_not_meet_unless_nothing_else_is_left() {
    // 0 and 1 both had White twice; 2 and 3 Black twice; all on equal points.
    let mut h = fresh(4);
    for p in 0..2 {
        h[p].colours = vec![Color::White, Color::White];
        h[p + 2].colours = vec![Color::Black, Color::Black];
    }
    // 0-2 and 1-3 met: 0-1 would pair two absolute Black preferences (C3), so 0-3, 1-2.
    h[0].opponents = vec![2];
    h[2].opponents = vec![0];
    h[1].opponents = vec![3];
    h[3].opponents = vec![1];
    let r = pair_round(&h, SwissSettings::default()).unwrap();
    assert_eq!(pairs(&r), vec![(3, 0), (2, 1)]);
    // If 0-3 and 1-2 met too, only 0-1 and 2-3 are left: C3 is relaxed rather than
    // leave the round unpaired; E.4 gives the higher ranked his colour.
    h[0].opponents.push(3);
    h[3].opponents.push(0);
    h[1].opponents.push(2);
    h[2].opponents.push(1);
    let r = pair_round(&h, SwissSettings::default()).unwrap();
    assert_eq!(pairs(&r), vec![(1, 0), (2, 3)]);
}

/// Plays a random Swiss: `n` players, `rounds` rounds, results from `seed`.
fn simulate(
    n: usize,
    rounds: usize,
    outcomes: &[u8],
    withdraw: Option<(Player, usize)>,
) -> Vec<Round> {
    let scoring = Scoring::default();
    let mut results = Vec::new();
    let mut out = Vec::new();
    let mut k = 0;
    for round in 0..rounds {
        let withdrawn: Vec<Player> = withdraw
            .filter(|&(_, r)| r <= round)
            .map(|(p, _)| p)
            .into_iter()
            .collect();
        let h = history(n, &scoring, &results, &withdrawn).unwrap();
        let r = pair_round(&h, SwissSettings::default()).unwrap();
        for p in &r.pairings {
            let pick = |x: u8| match x % 3 {
                0 => GameResult::WhiteWin,
                1 => GameResult::Draw,
                _ => GameResult::BlackWin,
            };
            let g = [
                pick(outcomes[k % outcomes.len()]),
                pick(outcomes[(k + 1) % outcomes.len()]),
            ];
            k += 2;
            results.push((
                round,
                Encounter::Played {
                    pairing: *p,
                    games: g.to_vec(),
                },
            ));
        }
        if let Some(b) = r.bye {
            results.push((round, Encounter::Bye { player: b }));
        }
        out.push(r);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn no_repeats_and_at_most_one_bye_each(n in 2usize..17, extra in 0usize..8, outcomes in proptest::collection::vec(any::<u8>(), 1..64)) {
        let rounds = (n / 2).max(1).min(1 + extra);
        let s = simulate(n, rounds, &outcomes, None);
        let mut met = HashSet::new();
        let mut byes = vec![0; n];
        for r in &s {
            let mut seen = vec![0; n];
            for p in &r.pairings {
                prop_assert!(p.white != p.black);
                prop_assert!(met.insert((p.white.min(p.black), p.white.max(p.black))), "repeat {:?}", p);
                seen[p.white] += 1;
                seen[p.black] += 1;
            }
            if let Some(b) = r.bye { byes[b] += 1; seen[b] += 1; }
            prop_assert!(seen.iter().all(|&x| x == 1));
            prop_assert_eq!(r.bye.is_some(), n % 2 == 1);
        }
        prop_assert!(byes.iter().all(|&b| b <= 1));
    }

    #[test]
    fn a_withdrawn_player_is_never_paired_again(n in 4usize..13, at in 1usize..3, outcomes in proptest::collection::vec(any::<u8>(), 1..32)) {
        let rounds = (n / 2).max(at + 1);
        prop_assume!(rounds <= n / 2);
        let s = simulate(n, rounds, &outcomes, Some((0, at)));
        for r in &s[at..] {
            prop_assert!(r.pairings.iter().all(|p| !p.involves(0)));
            prop_assert!(r.bye != Some(0));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    /// C3 and A.6 at work over random tournaments (6-16 players, up to five rounds and no
    /// more than half as many rounds as players; 30 000 cases were run once without a
    /// counterexample): nobody's colour difference exceeds 2 and nobody has the same
    /// colour three rounds running.
    #[test]
    fn colour_difference_stays_within_two_and_never_three_in_a_row(n in 6usize..17, outcomes in proptest::collection::vec(any::<u8>(), 1..64)) {
        let rounds = (n / 2).min(5);
        let s = simulate(n, rounds, &outcomes, None);
        let mut colours = vec![Vec::new(); n];
        for r in &s {
            for p in &r.pairings {
                colours[p.white].push(Color::White);
                colours[p.black].push(Color::Black);
            }
        }
        for c in &colours {
            let w = c.iter().filter(|&&x| x == Color::White).count() as i64;
            let diff = 2 * w - c.len() as i64;
            prop_assert!(diff.abs() <= 2, "{:?}", c);
            prop_assert!(!c.windows(3).any(|x| x[0] == x[1] && x[1] == x[2]), "{:?}", c);
        }
    }
}

/// C7: the floater of a bracket is chosen so that the next bracket pairs as many of the
/// floaters as it can. After two rounds (0-4 1-5 2-3, then 5-0 3-1 4-2), players 0, 1
/// and 2 have 4 points, 3 and 4 have 2, and 5 none. One of the top three floats. The
/// lowest ranked, 2, has met both of the next bracket (3 and 4) and would float on to 5
/// (0-1, 3-4, 2-5: two pairs across score groups where one will do); 1 can meet 4, so
/// the Dutch system floats 1: 0-2, 1-4, 3-5.
#[test]
fn the_floater_is_chosen_for_the_next_bracket_c7() {
    let player = |score: u32, opponents: [Player; 2], colours: [Color; 2]| SwissPlayer {
        score,
        opponents: opponents.to_vec(),
        colours: colours.to_vec(),
        active: true,
        ..SwissPlayer::default()
    };
    use Color::{Black as B, White as W};
    let h = vec![
        player(4, [4, 5], [W, B]),
        player(4, [5, 3], [W, B]),
        player(4, [3, 4], [W, B]),
        player(2, [2, 1], [B, W]),
        player(2, [0, 2], [B, W]),
        player(0, [1, 0], [B, W]),
    ];
    let r = pair_round(&h, SwissSettings::default()).unwrap();
    let mut got: Vec<(Player, Player)> = r
        .pairings
        .iter()
        .map(|p| (p.white.min(p.black), p.white.max(p.black)))
        .collect();
    got.sort_unstable();
    assert_eq!(got, vec![(0, 2), (1, 4), (3, 5)]);
}

/// One tournament as a pairing program wrote it (TRF): per player, per round, the
/// opponent (`None`: the pairing-allocated bye), his colour, his result (`WhiteWin`: he
/// won) and whether it was a forfeit.
type TrfRound = (Option<Player>, Color, GameResult, bool);
type TrfRounds = Vec<Vec<TrfRound>>;

/// Reads the player lines (`001`) of a TRF file: rounds per player from column 92 on,
/// ten characters each (`  opp c r`, `0000 - U` for a bye).
fn read_trf(text: &str) -> Vec<TrfRounds> {
    let mut players: Vec<(usize, Vec<TrfRound>)> = Vec::new();
    for line in text.split(['\n', '\r']).filter(|l| l.starts_with("001")) {
        let number: usize = line[4..8].trim().parse().unwrap();
        let rounds = line
            .get(91..)
            .unwrap_or("")
            .as_bytes()
            .chunks(10)
            .filter_map(|c| {
                let t: Vec<&str> = std::str::from_utf8(c).ok()?.split_whitespace().collect();
                let opp: usize = t.first()?.parse().ok()?;
                let colour = if t.get(1) == Some(&"w") {
                    Color::White
                } else {
                    Color::Black
                };
                let (mine, forfeit) = match *t.get(2)? {
                    "1" | "U" => (GameResult::WhiteWin, false),
                    "+" => (GameResult::WhiteWin, true),
                    "-" => (GameResult::BlackWin, true),
                    "=" => (GameResult::Draw, false),
                    _ => (GameResult::BlackWin, false),
                };
                Some((opp.checked_sub(1), colour, mine, forfeit))
            })
            .collect();
        players.push((number - 1, rounds));
    }
    players.sort_by_key(|p| p.0);
    players.into_iter().map(|p| vec![p.1]).collect()
}

/// The Dutch system against an independent implementation: `BBP_PAIRINGS` names a
/// bbpPairings executable (FIDE-endorsed, Dutch rules of 2025; built by the developer,
/// never part of the repository). For each of `SWISS_ORACLE_RUNS` (default 200) random
/// tournaments it generates (its own pairings, random results), every round from the
/// second on is paired by damka from the same history and compared. Skipped without
/// the variable. Prints the agreement; fails below the rate docs/tournaments.md reports.
#[test]
fn agreement_with_bbp_pairings() {
    let Ok(bbp) = std::env::var("BBP_PAIRINGS") else {
        eprintln!("BBP_PAIRINGS unset: the Dutch pairing is not compared");
        return;
    };
    let runs: u64 = std::env::var("SWISS_ORACLE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let dir = std::env::temp_dir().join(format!("damka-swiss-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut rounds, mut same_pairs, mut same_colours) = (0u32, 0u32, 0u32);
    let mut differing = Vec::new();
    let mut skipped = 0;
    let mut seed = 0;
    while seed < runs + skipped {
        seed += 1;
        let n = 5 + (seed * 7 % 16) as usize;
        let total = 3 + (seed % 5) as usize;
        let total = total.min(n - 1);
        let config = dir.join("rtg.txt");
        std::fs::write(
            &config,
            format!("PlayersNumber={n}\nRoundsNumber={total}\nDrawPercentage=30\n"),
        )
        .unwrap();
        let out = dir.join("t.trf");
        let status = std::process::Command::new(&bbp)
            .args(["--dutch", "-g"])
            .arg(&config)
            .arg("-o")
            .arg(&out)
            .args(["-s", &seed.to_string()])
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        if !status.success() {
            // The generator found no legal pairing for a later round (a small field
            // whose players have all met): nothing to compare.
            skipped += 1;
            continue;
        }
        let trf: Vec<Vec<TrfRound>> = read_trf(&std::fs::read_to_string(&out).unwrap())
            .into_iter()
            .map(|mut v| v.remove(0))
            .collect();
        let initial = trf[0][0].1;
        let round_of = |r: usize| -> (Vec<(Player, Player)>, Option<Player>) {
            let mut pairs = Vec::new();
            let mut bye = None;
            for (p, rs) in trf.iter().enumerate() {
                match rs.get(r) {
                    Some(&(None, ..)) => bye = Some(p),
                    Some(&(Some(o), Color::White, ..)) => pairs.push((p, o)),
                    _ => {}
                }
            }
            pairs.sort_unstable();
            (pairs, bye)
        };
        let scoring = Scoring {
            unit: super::super::micromatch::Unit::Game,
            games: 1,
            ..Scoring::default()
        };
        // Every round's encounters as damka records them.
        let played: Vec<Vec<(usize, Encounter)>> = (0..total)
            .map(|past| {
                let (pairs, bye) = round_of(past);
                let mut results = Vec::new();
                for (w, b) in pairs {
                    let (_, _, res, forfeit) = trf[w][past];
                    let pairing = Pairing::new(w, b);
                    results.push((
                        past,
                        match (forfeit, res) {
                            (true, GameResult::WhiteWin) => Encounter::Forfeit {
                                pairing,
                                absent: Absence::Black,
                            },
                            (true, _) => Encounter::Forfeit {
                                pairing,
                                absent: Absence::White,
                            },
                            (false, _) => Encounter::Played {
                                pairing,
                                games: vec![res],
                            },
                        },
                    ));
                }
                if let Some(b) = bye {
                    results.push((past, Encounter::Bye { player: b }));
                }
                results
            })
            .collect();
        for r in 1..total {
            let results = played[..r].concat();
            let h = history(n, &scoring, &results, &[]).unwrap();
            let mine = match pair_round(
                &h,
                SwissSettings {
                    initial_colour: initial,
                    last_round: r + 1 == total,
                    ..SwissSettings::default()
                },
            ) {
                Ok(m) => m,
                Err(e) => {
                    rounds += 1;
                    differing.push(format!(
                        "seed {seed} ({n} players) round {}: damka {e}, bbpPairings {:?}",
                        r + 1,
                        round_of(r)
                    ));
                    continue;
                }
            };
            let mut mine_pairs: Vec<(Player, Player)> =
                mine.pairings.iter().map(|p| (p.white, p.black)).collect();
            mine_pairs.sort_unstable();
            let theirs = round_of(r);
            let unordered = |v: &[(Player, Player)]| {
                let mut u: Vec<(Player, Player)> =
                    v.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
                u.sort_unstable();
                u
            };
            rounds += 1;
            if unordered(&mine_pairs) == unordered(&theirs.0) && mine.bye == theirs.1 {
                same_pairs += 1;
                if mine_pairs == theirs.0 {
                    same_colours += 1;
                }
            } else if differing.len() < 10 {
                differing.push(format!(
                    "seed {seed} ({n} players) round {}: damka {mine_pairs:?} bye {:?}, bbpPairings {:?} bye {:?}",
                    r + 1,
                    mine.bye,
                    theirs.0,
                    theirs.1
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{runs} tournaments ({skipped} generations skipped), {rounds} rounds paired from round 2 on: same pairs in {same_pairs} ({:.1}%), same pairs and colours in {same_colours} ({:.1}%)",
        100.0 * f64::from(same_pairs) / f64::from(rounds),
        100.0 * f64::from(same_colours) / f64::from(rounds)
    );
    for d in &differing {
        eprintln!("{d}");
    }
    // docs/tournaments.md reports 81.2% over the default 200 tournaments.
    assert!(
        f64::from(same_pairs) >= 0.8 * f64::from(rounds),
        "agreement below the documented rate"
    );
}
