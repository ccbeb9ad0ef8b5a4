//! Lateness and absence (IDF s.2 art. 17) and withdrawals (art. 18.2).
//!
//! - 17.1: a player who does not come, or comes later than the time of the first
//!   control of the first game of the micro-match, loses the micro-match.
//! - 17.2: if both do not come (or are that late), both lose.
//! - 18.2.1, round robin: a player who leaves having played fewer than half of his games
//!   (micro-matches) is taken out of the competition and the results of his games are
//!   annulled; a player who leaves having played half or more keeps his results, and
//!   every game (micro-match) he has not played counts as a loss for him.
//! - 18.2.2, Swiss: the results of the games played stand; he is simply not paired again.
//!
//! "Played" here means played over the board: an encounter lost or won by forfeit does
//! not count towards the half of 18.2.1 (the text says "сыграл", played).

use serde::{Deserialize, Serialize};

use super::micromatch::Encounter;
use super::{Absence, Pairing, Player, Round};
use crate::clock::{Millis, TimeControl};

/// When each player of a micro-match turned up, measured from the scheduled start of its
/// first game; `None` means not (yet) at all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attendance {
    /// The first game's White.
    pub white: Option<Millis>,
    /// The first game's Black.
    pub black: Option<Millis>,
}

impl Attendance {
    /// The ruling of art. 17 once the first control's time has run out: `None` if both
    /// came in time, otherwise who lost the micro-match by absence. Coming exactly when
    /// the first control's time is up is already too late: the time is up.
    pub fn ruling(&self, first_control: Millis) -> Option<Absence> {
        let late = |t: Option<Millis>| t.is_none_or(|t| t >= first_control);
        match (late(self.white), late(self.black)) {
            (false, false) => None,
            (true, false) => Some(Absence::White),
            (false, true) => Some(Absence::Black),
            (true, true) => Some(Absence::Both),
        }
    }
}

/// The time a player may be late by (art. 17.1): the first control of the first game,
/// i.e. the main time of the control's first period.
pub fn forfeit_after(control: &TimeControl) -> Millis {
    control.first().time
}

/// What happens to a player who leaves a competition (art. 18.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ruling", rename_all = "snake_case")]
pub enum Withdrawal {
    /// Round robin, fewer than half played (18.2.1): out of the standings, every result
    /// annulled.
    Annulled {
        /// Encounters played over the board.
        played: usize,
        /// Encounters in the schedule.
        scheduled: usize,
    },
    /// Round robin, half or more played (18.2.1): results stand; these scheduled
    /// pairings, not yet played, are losses for him (forfeits by his absence).
    Stands {
        /// Encounters played over the board.
        played: usize,
        /// Encounters in the schedule.
        scheduled: usize,
        /// (round, pairing) of every scheduled encounter of his without a result.
        losses: Vec<(usize, Pairing)>,
    },
    /// Swiss (18.2.2): results stand, no more pairings.
    Swiss,
}

impl Withdrawal {
    /// The forfeits that turn `losses` into results, the withdrawn player absent.
    pub fn forfeits(&self, player: Player) -> Vec<(usize, Encounter)> {
        match self {
            Withdrawal::Stands { losses, .. } => losses
                .iter()
                .map(|&(round, pairing)| {
                    let absent = if pairing.white == player {
                        Absence::White
                    } else {
                        Absence::Black
                    };
                    (round, Encounter::Forfeit { pairing, absent })
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Art. 18.2.1: the ruling for `player` leaving a round robin whose whole `schedule` is
/// given, with the `results` so far.
pub fn round_robin_withdrawal(
    schedule: &[Round],
    results: &[(usize, Encounter)],
    player: Player,
) -> Withdrawal {
    let mine = super::berger::pairings_of(schedule, player);
    let scheduled = mine.len();
    let has_result = |round: usize, p: Pairing| {
        results.iter().any(|(r, e)| {
            *r == round
                && match e {
                    Encounter::Played { pairing, .. } | Encounter::Forfeit { pairing, .. } => {
                        pairing.same_players(&p)
                    }
                    Encounter::Bye { .. } => false,
                }
        })
    };
    let played = results
        .iter()
        .filter(|(_, e)| matches!(e, Encounter::Played { pairing, .. } if pairing.involves(player)))
        .count();
    if played * 2 < scheduled {
        Withdrawal::Annulled { played, scheduled }
    } else {
        let losses = mine
            .into_iter()
            .filter(|&(r, p)| !has_result(r, p))
            .collect();
        Withdrawal::Stands {
            played,
            scheduled,
            losses,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::berger::schedule;
    use super::*;
    use crate::law::GameResult::Draw;

    #[test]
    fn lateness_up_to_the_first_control_is_allowed_and_not_beyond() {
        let first = Millis::mins(45);
        let on_time = Attendance {
            white: Some(Millis::ZERO),
            black: Some(Millis::mins(44)),
        };
        assert_eq!(on_time.ruling(first), None);
        let black_late = Attendance {
            white: Some(Millis::ZERO),
            black: Some(Millis::mins(45)),
        };
        assert_eq!(black_late.ruling(first), Some(Absence::Black));
        let white_absent = Attendance {
            white: None,
            black: Some(Millis::ZERO),
        };
        assert_eq!(white_absent.ruling(first), Some(Absence::White));
        assert_eq!(Attendance::default().ruling(first), Some(Absence::Both));
    }

    #[test]
    fn the_forfeit_time_is_the_first_period() {
        let tc = TimeControl::new(vec![
            crate::clock::Period::for_moves(Millis::mins(45), 25),
            crate::clock::Period::to_end(Millis::mins(15)),
        ])
        .unwrap();
        assert_eq!(forfeit_after(&tc), Millis::mins(45));
    }

    /// Six players, five rounds: half of five is two and a half.
    fn results_until(rounds: usize, s: &[Round]) -> Vec<(usize, Encounter)> {
        s.iter()
            .take(rounds)
            .enumerate()
            .flat_map(|(i, r)| {
                r.pairings.iter().map(move |&p| {
                    (
                        i,
                        Encounter::Played {
                            pairing: p,
                            games: vec![Draw, Draw],
                        },
                    )
                })
            })
            .collect()
    }

    #[test]
    fn leaving_after_two_of_five_annuls_and_after_three_stands_with_losses() {
        let s = schedule(6, 1).unwrap();
        let after_two = results_until(2, &s);
        assert_eq!(
            round_robin_withdrawal(&s, &after_two, 0),
            Withdrawal::Annulled {
                played: 2,
                scheduled: 5
            }
        );
        let after_three = results_until(3, &s);
        let w = round_robin_withdrawal(&s, &after_three, 0);
        let Withdrawal::Stands {
            played: 3,
            scheduled: 5,
            losses,
        } = &w
        else {
            panic!("{w:?}")
        };
        assert_eq!(
            losses,
            &vec![(3, Pairing::new(0, 3)), (4, Pairing::new(4, 0))]
        );
        let f = w.forfeits(0);
        assert_eq!(
            f[0],
            (
                3,
                Encounter::Forfeit {
                    pairing: Pairing::new(0, 3),
                    absent: Absence::White
                }
            )
        );
        assert_eq!(
            f[1],
            (
                4,
                Encounter::Forfeit {
                    pairing: Pairing::new(4, 0),
                    absent: Absence::Black
                }
            )
        );
    }

    #[test]
    fn exactly_half_stands() {
        // Five players: four matches each, leaving after two is exactly half.
        let s = schedule(5, 1).unwrap();
        let mut r = results_until(3, &s);
        // Player 0 had the bye in round 1; after three rounds he played two.
        r.retain(|(_, e)| !matches!(e, Encounter::Bye { .. }));
        let w = round_robin_withdrawal(&s, &r, 0);
        assert!(
            matches!(
                w,
                Withdrawal::Stands {
                    played: 2,
                    scheduled: 4,
                    ..
                }
            ),
            "{w:?}"
        );
    }

    #[test]
    fn forfeits_do_not_count_as_played() {
        let s = schedule(4, 1).unwrap();
        let r = vec![
            (
                0,
                Encounter::Forfeit {
                    pairing: s[0].pairings[0],
                    absent: Absence::Black,
                },
            ),
            (
                1,
                Encounter::Played {
                    pairing: s[1].pairings[1],
                    games: vec![Draw, Draw],
                },
            ),
        ];
        // Player 0 won round 1 by forfeit and played round 2: one of three played.
        assert_eq!(
            round_robin_withdrawal(&s, &r, 0),
            Withdrawal::Annulled {
                played: 1,
                scheduled: 3
            }
        );
    }
}
