//! Time-control categories (classical, rapid, blitz, and damka's own bullet) for each
//! discipline, and [`validate`], which refuses a control outside its category with the
//! article and range it breaks.
//!
//! The ranges, as the rule texts give them (all bounds inclusive unless said otherwise):
//!
//! **64-square draughts, IDF s.2 art. 22.1.** A game is accelerated when each player has
//! at most 15 minutes for the whole game, so classical is more than 15 minutes of
//! starting time. Rapid: 7 to 15 minutes, or Fischer with 5 to 10 minutes plus seconds
//! per move. Blitz: 3 to 5 minutes, or Fischer with 3 minutes plus seconds per move.
//! Sudden death 6 minutes, or Fischer 4 minutes plus increment, fall between the ranges
//! and are refused by both. Art. 5.6 and 22.4 add that with electronic clocks (always the
//! case online) official play to the end of the game must use Fischer; see
//! [`super::presets::Preset::fischer_required`].
//!
//! **100-square draughts, INT 3.6.2-3.6.3.** Rapid: 15 to 30 minutes; with Fischer, 15 to
//! 30 minutes *on the first 60 moves* (time + 60 x increment), and at least 10 min + 5 s.
//! Blitz: 5 to 15 minutes; with Fischer 5 to 15 minutes on the first 60 moves, at least
//! 3 min + 2 s. The digest (RULES.md) gives only "rapid 15-30 min, min 10 min+5 s; blitz
//! 5-15 min, min 3 min+2 s" and omits the 60-move count; the text wins and is what is
//! implemented. Classical (INT 3.6.1 lists only long controls, and lets regulations set
//! others): longer than rapid, i.e. more than 30 minutes counted the same way.
//!
//! **Chess, FIDE Appendices A1 and B1 of the Macedonian text.** Rapid: at least 15 but
//! less than 60 minutes, counting time + 60 x increment. Blitz: less than 15 minutes,
//! counted the same way. Classical: 60 minutes or more. This is the edition in the seeds;
//! newer FIDE Laws (2018 on) define rapid as more than 10 and less than 60 minutes and
//! blitz as 10 minutes or less. The text wins, so 12 + 0 is blitz here.
//!
//! **Bullet (a damka extension for its online pools, in no rule text).** Below the
//! discipline's blitz: 64-square less than 3 minutes of starting time; 100-square less
//! than 5 minutes counting 60 moves of increment; chess less than 3 minutes counting 60
//! moves of increment (so chess bullet is also FIDE blitz).
//!
//! Rapid, blitz and bullet are "for the whole game" in every text: they take a single
//! period (sudden death, Fischer or, for chess, delay). The draughts texts know no delay
//! clocks, so a delay control is refused for draughts rapid and blitz; for chess a delay
//! counts like an increment (the text names only the increment). Classical accepts every
//! shape.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::control::TimeControl;
use super::time::Millis;
use crate::rules::draughts::BoardSize;

/// The family of rules whose time-control categories apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Discipline {
    /// Draughts on the 64-square board (IDF rules).
    Draughts64,
    /// Draughts on the 100-square board (INT rules).
    Draughts100,
    /// Chess and Chess960 (FIDE Laws).
    Chess,
}

impl Discipline {
    /// The draughts discipline of a board size.
    pub fn draughts(board: BoardSize) -> Discipline {
        match board {
            BoardSize::Eight => Discipline::Draughts64,
            BoardSize::Ten => Discipline::Draughts100,
        }
    }

    /// The prefix of preset ids: `64`, `100` or `chess`.
    pub fn id_prefix(self) -> &'static str {
        match self {
            Discipline::Draughts64 => "64",
            Discipline::Draughts100 => "100",
            Discipline::Chess => "chess",
        }
    }
}

impl fmt::Display for Discipline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Discipline::Draughts64 => "64-square draughts",
            Discipline::Draughts100 => "100-square draughts",
            Discipline::Chess => "chess",
        })
    }
}

/// A time-control category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// damka extension, in no rule text: faster than blitz, for online pools.
    Bullet,
    /// Blitz ("молниеносная игра", "молња").
    Blitz,
    /// Rapid ("быстрая игра", "брз шах").
    Rapid,
    /// Classical (standard) play.
    Classical,
}

impl Category {
    /// Every category, fastest first.
    pub const ALL: [Category; 4] = [
        Category::Bullet,
        Category::Blitz,
        Category::Rapid,
        Category::Classical,
    ];

    /// The word used in preset ids.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Bullet => "bullet",
            Category::Blitz => "blitz",
            Category::Rapid => "rapid",
            Category::Classical => "classical",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a control does not belong to the category asked for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CategoryError {
    /// A measure of the control is outside the category's range.
    #[error(
        "{control} is not {discipline} {category}: {article} requires {requirement}, \
         but this control has {found}"
    )]
    OutOfRange {
        /// The control, as text.
        control: String,
        /// The discipline.
        discipline: Discipline,
        /// The category asked for.
        category: Category,
        /// The article (or "damka extension").
        article: &'static str,
        /// The range, in words.
        requirement: &'static str,
        /// The measured value, in words.
        found: String,
    },
    /// Several periods, or a move quota, in a category played "for the whole game".
    #[error(
        "{control} is not {discipline} {category}: {article} gives one time for the whole \
         game, without periods or move quotas"
    )]
    NotSinglePeriod {
        /// The control, as text.
        control: String,
        /// The discipline.
        discipline: Discipline,
        /// The category asked for.
        category: Category,
        /// The article.
        article: &'static str,
    },
    /// A delay clock in a draughts category whose text knows only sudden death and Fischer.
    #[error(
        "{control} is not {discipline} {category}: {article} knows sudden death and Fischer \
         increments, not delay clocks"
    )]
    DelayNotInRules {
        /// The control, as text.
        control: String,
        /// The discipline.
        discipline: Discipline,
        /// The category asked for.
        category: Category,
        /// The article.
        article: &'static str,
    },
}

fn mins(m: Millis) -> String {
    let ms = m.as_ms();
    if ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else {
        format!("{:.2} min", ms as f64 / 60_000.0)
    }
}

struct Check<'a> {
    control: &'a TimeControl,
    discipline: Discipline,
    category: Category,
    article: &'static str,
}

impl Check<'_> {
    fn range(
        &self,
        ok: bool,
        requirement: &'static str,
        found: String,
    ) -> Result<(), CategoryError> {
        if ok {
            Ok(())
        } else {
            Err(CategoryError::OutOfRange {
                control: self.control.to_string(),
                discipline: self.discipline,
                category: self.category,
                article: self.article,
                requirement,
                found,
            })
        }
    }

    fn single(&self) -> Result<(), CategoryError> {
        if self.control.is_single_period() {
            Ok(())
        } else {
            Err(CategoryError::NotSinglePeriod {
                control: self.control.to_string(),
                discipline: self.discipline,
                category: self.category,
                article: self.article,
            })
        }
    }

    fn no_delay(&self) -> Result<(), CategoryError> {
        if self.control.periods().iter().all(|p| p.delay.is_zero()) {
            Ok(())
        } else {
            Err(CategoryError::DelayNotInRules {
                control: self.control.to_string(),
                discipline: self.discipline,
                category: self.category,
                article: self.article,
            })
        }
    }
}

/// Checks that `control` belongs to `category` in `discipline`; the error names the
/// article and the range broken. See the module documentation for every range.
pub fn validate(
    control: &TimeControl,
    discipline: Discipline,
    category: Category,
) -> Result<(), CategoryError> {
    use Category::*;
    use Discipline::*;
    let first = control.first();
    let base = first.time;
    let inc = first.increment;
    let game = control.nominal_game_time();
    let article = match (discipline, category) {
        (Draughts64, Bullet) | (Draughts100, Bullet) | (Chess, Bullet) => {
            "damka extension (bullet pools)"
        }
        (Draughts64, Blitz) => "IDF s.2 art. 22.1 B",
        (Draughts64, Rapid) => "IDF s.2 art. 22.1 A",
        (Draughts64, Classical) => "IDF s.2 art. 22.1 (accelerated games are at most 15 min)",
        (Draughts100, Blitz) => "INT 3.6.3",
        (Draughts100, Rapid) => "INT 3.6.2",
        (Draughts100, Classical) => "INT 3.6.1-3.6.2 (classical is longer than rapid)",
        (Chess, Blitz) => "FIDE Appendix B1",
        (Chess, Rapid) => "FIDE Appendix A1",
        (Chess, Classical) => "FIDE Appendices A1, B1 (classical is longer than rapid)",
    };
    let c = Check {
        control,
        discipline,
        category,
        article,
    };
    let m = Millis::mins;
    match (discipline, category) {
        (Draughts64, Classical) => c.range(
            base > m(15),
            "more than 15 min of starting time",
            mins(base),
        ),
        (Draughts64, Bullet) => {
            c.single()?;
            c.range(base < m(3), "less than 3 min of starting time", mins(base))
        }
        (Draughts64, Rapid) => {
            c.single()?;
            c.no_delay()?;
            if inc.is_zero() {
                c.range(
                    (m(7)..=m(15)).contains(&base),
                    "7 to 15 min for the game, or Fischer 5 to 10 min + increment",
                    mins(base),
                )
            } else {
                c.range(
                    (m(5)..=m(10)).contains(&base),
                    "Fischer 5 to 10 min + increment, or 7 to 15 min for the game",
                    format!("{} + increment", mins(base)),
                )
            }
        }
        (Draughts64, Blitz) => {
            c.single()?;
            c.no_delay()?;
            if inc.is_zero() {
                c.range(
                    (m(3)..=m(5)).contains(&base),
                    "3 to 5 min for the game, or Fischer 3 min + increment",
                    mins(base),
                )
            } else {
                c.range(
                    base == m(3),
                    "Fischer 3 min + increment, or 3 to 5 min for the game",
                    format!("{} + increment", mins(base)),
                )
            }
        }
        (Draughts100, Classical) => c.range(
            game > m(30),
            "more than 30 min counting 60 moves of increment",
            mins(game),
        ),
        (Draughts100, Bullet) => {
            c.single()?;
            c.range(
                game < m(5),
                "less than 5 min counting 60 moves of increment",
                mins(game),
            )
        }
        (Draughts100, Rapid) => {
            c.single()?;
            c.no_delay()?;
            if inc.is_zero() {
                c.range(
                    (m(15)..=m(30)).contains(&base),
                    "15 to 30 min for the game",
                    mins(base),
                )
            } else {
                c.range(
                    (m(15)..=m(30)).contains(&game),
                    "15 to 30 min on the first 60 moves (time + 60 x increment)",
                    mins(game),
                )?;
                c.range(
                    base >= m(10) && inc >= Millis::secs(5),
                    "a Fischer control of at least 10 min + 5 s per move",
                    format!("{} + {} s", mins(base), inc.as_ms() as f64 / 1000.0),
                )
            }
        }
        (Draughts100, Blitz) => {
            c.single()?;
            c.no_delay()?;
            if inc.is_zero() {
                c.range(
                    (m(5)..=m(15)).contains(&base),
                    "5 to 15 min for the game",
                    mins(base),
                )
            } else {
                c.range(
                    (m(5)..=m(15)).contains(&game),
                    "5 to 15 min on the first 60 moves (time + 60 x increment)",
                    mins(game),
                )?;
                c.range(
                    base >= m(3) && inc >= Millis::secs(2),
                    "a Fischer control of at least 3 min + 2 s per move",
                    format!("{} + {} s", mins(base), inc.as_ms() as f64 / 1000.0),
                )
            }
        }
        (Chess, Classical) => c.range(
            game >= m(60),
            "60 min or more counting 60 moves of increment",
            mins(game),
        ),
        (Chess, Rapid) => {
            c.single()?;
            c.range(
                game >= m(15) && game < m(60),
                "at least 15 and less than 60 min, counting 60 moves of increment",
                mins(game),
            )
        }
        (Chess, Blitz) => {
            c.single()?;
            c.range(
                game < m(15),
                "less than 15 min, counting 60 moves of increment",
                mins(game),
            )
        }
        (Chess, Bullet) => {
            c.single()?;
            c.range(
                game < m(3),
                "less than 3 min, counting 60 moves of increment",
                mins(game),
            )
        }
    }
}

/// Every category `control` belongs to in `discipline`, fastest first. Categories can
/// overlap (100-square 15 min sudden death is both blitz and rapid; chess bullet is also
/// blitz) and a control can fall between them (64-square 6 min sudden death).
pub fn categories(control: &TimeControl, discipline: Discipline) -> Vec<Category> {
    Category::ALL
        .into_iter()
        .filter(|&c| validate(control, discipline, c).is_ok())
        .collect()
}

/// The fastest category `control` fits, the first of [`categories`]: the categories
/// after it are not checked (a check that fails writes its reasons).
pub fn fastest_category(control: &TimeControl, discipline: Discipline) -> Option<Category> {
    Category::ALL
        .into_iter()
        .find(|&c| validate(control, discipline, c).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::control::Period;
    use Category::*;
    use Discipline::*;

    fn sd(min: u64) -> TimeControl {
        TimeControl::sudden_death(Millis::mins(min)).expect("valid")
    }
    fn fi(min: u64, s: u64) -> TimeControl {
        TimeControl::fischer(Millis::mins(min), Millis::secs(s)).expect("valid")
    }
    fn ok(tc: &TimeControl, d: Discipline, c: Category) -> bool {
        validate(tc, d, c).is_ok()
    }

    #[test]
    fn idf_22_1_a_rapid_64_boundaries() {
        assert!(!ok(&sd(6), Draughts64, Rapid));
        assert!(ok(&sd(7), Draughts64, Rapid));
        assert!(ok(&sd(15), Draughts64, Rapid));
        assert!(!ok(&sd(16), Draughts64, Rapid));
        assert!(!ok(&fi(4, 3), Draughts64, Rapid));
        assert!(ok(&fi(5, 3), Draughts64, Rapid));
        assert!(ok(&fi(10, 5), Draughts64, Rapid));
        assert!(!ok(&fi(11, 5), Draughts64, Rapid));
    }

    #[test]
    fn idf_22_1_b_blitz_64_boundaries() {
        assert!(!ok(&sd(2), Draughts64, Blitz));
        assert!(ok(&sd(3), Draughts64, Blitz));
        assert!(ok(&sd(5), Draughts64, Blitz));
        assert!(!ok(&sd(6), Draughts64, Blitz));
        assert!(ok(&fi(3, 2), Draughts64, Blitz));
        assert!(!ok(&fi(4, 2), Draughts64, Blitz));
        assert!(!ok(&fi(2, 2), Draughts64, Blitz));
    }

    #[test]
    fn idf_22_1_classical_64_is_over_15_minutes() {
        assert!(!ok(&sd(15), Draughts64, Classical));
        assert!(ok(&sd(16), Draughts64, Classical));
        assert!(ok(&fi(20, 5), Draughts64, Classical));
        let periods = TimeControl::new(vec![
            Period::for_moves(Millis::mins(45), 25),
            Period::to_end(Millis::mins(15)),
        ])
        .expect("valid");
        assert!(ok(&periods, Draughts64, Classical));
        assert!(matches!(
            validate(&periods, Draughts64, Rapid),
            Err(CategoryError::NotSinglePeriod { .. })
        ));
    }

    #[test]
    fn int_3_6_2_rapid_100_boundaries() {
        assert!(!ok(&sd(14), Draughts100, Rapid));
        assert!(ok(&sd(15), Draughts100, Rapid));
        assert!(ok(&sd(30), Draughts100, Rapid));
        assert!(!ok(&sd(31), Draughts100, Rapid));
        // Minimum Fischer 10 min + 5 s: 10 + 60 x 5 s = 15 min.
        assert!(ok(&fi(10, 5), Draughts100, Rapid));
        assert!(!ok(&fi(10, 4), Draughts100, Rapid));
        assert!(!ok(&fi(9, 10), Draughts100, Rapid));
        // 20 + 60 x 10 s = 30 min: in; 20 + 60 x 11 s = 31 min: out.
        assert!(ok(&fi(20, 10), Draughts100, Rapid));
        assert!(!ok(&fi(20, 11), Draughts100, Rapid));
    }

    #[test]
    fn int_3_6_3_blitz_100_boundaries() {
        assert!(!ok(&sd(4), Draughts100, Blitz));
        assert!(ok(&sd(5), Draughts100, Blitz));
        assert!(ok(&sd(15), Draughts100, Blitz));
        assert!(!ok(&sd(16), Draughts100, Blitz));
        assert!(ok(&fi(3, 2), Draughts100, Blitz));
        assert!(!ok(&fi(3, 1), Draughts100, Blitz));
        assert!(!ok(&fi(2, 5), Draughts100, Blitz));
        assert!(ok(&fi(5, 10), Draughts100, Blitz));
        assert!(!ok(&fi(5, 11), Draughts100, Blitz));
    }

    #[test]
    fn int_3_6_1_classical_100() {
        assert!(ok(&fi(80, 60), Draughts100, Classical));
        assert!(!ok(&sd(30), Draughts100, Classical));
        assert!(ok(&sd(31), Draughts100, Classical));
    }

    #[test]
    fn fide_appendix_a1_b1_chess_boundaries() {
        assert!(ok(&sd(14), Chess, Blitz));
        assert!(!ok(&sd(15), Chess, Blitz));
        assert!(ok(&sd(15), Chess, Rapid));
        assert!(ok(&fi(10, 5), Chess, Rapid)); // 10 + 5 = 15
        assert!(ok(&fi(3, 2), Chess, Blitz)); // 3 + 2 = 5
        assert!(ok(&sd(59), Chess, Rapid));
        assert!(!ok(&sd(60), Chess, Rapid));
        assert!(ok(&sd(60), Chess, Classical));
        assert!(!ok(&sd(59), Chess, Classical));
        // A delay counts like an increment: 14 min + 60 x 1 s = 15 min.
        let d = TimeControl::delay(Millis::mins(14), Millis::secs(1)).expect("valid");
        assert!(ok(&d, Chess, Rapid));
        // The text's edition: 12 min is blitz, not rapid as in FIDE 2018.
        assert!(ok(&sd(12), Chess, Blitz));
    }

    #[test]
    fn damka_bullet_extension() {
        assert!(ok(&fi(1, 0), Chess, Bullet));
        assert!(ok(&fi(1, 1), Chess, Bullet)); // 1 + 1 = 2 min
        assert!(!ok(&fi(2, 1), Chess, Bullet)); // 2 + 1 = 3 min
        assert!(!ok(&fi(2, 1), Draughts64, Blitz));
        assert!(ok(&fi(2, 1), Draughts64, Bullet));
        assert!(!ok(&sd(3), Draughts64, Bullet));
        assert!(ok(&fi(2, 2), Draughts100, Bullet)); // 2 + 2 = 4 min
        assert!(!ok(&fi(3, 2), Draughts100, Bullet));
    }

    #[test]
    fn draughts_rapid_refuses_delay() {
        let d = TimeControl::delay(Millis::mins(10), Millis::secs(5)).expect("valid");
        assert!(matches!(
            validate(&d, Draughts64, Rapid),
            Err(CategoryError::DelayNotInRules { .. })
        ));
    }

    #[test]
    fn error_message_names_article_and_range() {
        let err = validate(&sd(6), Draughts64, Rapid).expect_err("6 min is not rapid");
        let text = err.to_string();
        assert!(text.contains("IDF s.2 art. 22.1 A"), "{text}");
        assert!(text.contains("7 to 15 min"), "{text}");
        assert!(text.contains("6 min"), "{text}");
    }

    #[test]
    fn categories_overlap_and_gaps() {
        assert_eq!(categories(&sd(15), Draughts100), vec![Blitz, Rapid]);
        assert_eq!(categories(&sd(6), Draughts64), vec![]);
        assert_eq!(categories(&fi(1, 0), Chess), vec![Bullet, Blitz]);
        for (tc, d) in [
            (sd(15), Draughts100),
            (sd(6), Draughts64),
            (fi(1, 0), Chess),
        ] {
            assert_eq!(
                fastest_category(&tc, d),
                categories(&tc, d).first().copied()
            );
        }
    }
}
