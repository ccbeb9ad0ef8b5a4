//! The preset time controls of the rule texts, as data users pick from, each with a
//! stable id (`<board>-<category>-<control>`, e.g. `64-blitz-3+2`: minutes + seconds per
//! move; `120/50-60/25r`: 120 min for 50 moves then 60 min for each 25 moves; a trailing
//! `-match` for a match clock).
//!
//! Sources: IDF s.2 art. 5.1 (classical), 5.2 (rapid), 5.3 (blitz) for 64-square
//! draughts; INT 3.6.1 (classical), 3.6.2-3.6.3 (the Fischer minimums of rapid and
//! blitz) and 3.6.4 (the Lehmann-Georgiev match clock) for 100-square draughts. The
//! chess text names no presets, so there are none for chess.
//!
//! Online play always uses an electronic clock, and IDF art. 5.6 and 22.4 then require
//! Fischer seconds for controls "to the end of the game" in official play. The sudden
//! death presets of art. 5.1-5.3 are kept (casual play, and fidelity to the lists) but
//! marked [`Preset::fischer_required`].

use super::category::{Category, Discipline};
use super::control::{Period, TimeControl};
use super::time::Millis;

/// One preset time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// Stable id, e.g. `64-blitz-3+2`.
    pub id: &'static str,
    /// The discipline it is for.
    pub discipline: Discipline,
    /// Its category.
    pub category: Category,
    /// Where the rule texts list it.
    pub article: &'static str,
    /// The text's own wording, translated.
    pub description: &'static str,
    /// True for sudden death presets that IDF art. 5.6 / 22.4 do not allow in official
    /// play with electronic clocks (online play always has them).
    pub fischer_required: bool,
    periods: &'static [Period],
    match_clock: bool,
}

impl Preset {
    /// The time control.
    pub fn control(&self) -> TimeControl {
        let tc = TimeControl::trusted(self.periods.to_vec());
        if self.match_clock { tc.for_match() } else { tc }
    }
}

const fn fischer(min: u64, s: u64) -> Period {
    Period::to_end(Millis::mins(min)).with_increment(Millis::secs(s))
}

macro_rules! p64 {
    ($id:literal, $cat:ident, $art:literal, $desc:literal, $min:literal + $s:literal) => {
        Preset {
            id: $id,
            discipline: Discipline::Draughts64,
            category: Category::$cat,
            article: $art,
            description: $desc,
            fischer_required: $s == 0,
            periods: &[fischer($min, $s)],
            match_clock: false,
        }
    };
}

/// Every preset, in the order of the texts.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "64-classical-45/25-15",
        discipline: Discipline::Draughts64,
        category: Category::Classical,
        article: "IDF s.2 art. 5.1",
        description: "45 minutes for the first 25 moves, then 15 minutes to the end of the game",
        fischer_required: false,
        periods: &[
            Period::for_moves(Millis::mins(45), 25),
            Period::to_end(Millis::mins(15)),
        ],
        match_clock: false,
    },
    p64!(
        "64-classical-45+0",
        Classical,
        "IDF s.2 art. 5.1",
        "45 minutes to the end of the game",
        45 + 0
    ),
    p64!(
        "64-classical-45+30",
        Classical,
        "IDF s.2 art. 5.1",
        "45 minutes plus 30 seconds per move",
        45 + 30
    ),
    p64!(
        "64-classical-45+15",
        Classical,
        "IDF s.2 art. 5.1",
        "45 minutes plus 15 seconds per move",
        45 + 15
    ),
    p64!(
        "64-classical-45+10",
        Classical,
        "IDF s.2 art. 5.1",
        "45 minutes plus 10 seconds per move",
        45 + 10
    ),
    p64!(
        "64-classical-25+10",
        Classical,
        "IDF s.2 art. 5.1",
        "25 minutes plus 10 seconds per move",
        25 + 10
    ),
    p64!(
        "64-classical-25+5",
        Classical,
        "IDF s.2 art. 5.1",
        "25 minutes plus 5 seconds per move",
        25 + 5
    ),
    p64!(
        "64-classical-20+10",
        Classical,
        "IDF s.2 art. 5.1",
        "20 minutes plus 10 seconds per move",
        20 + 10
    ),
    p64!(
        "64-classical-20+5",
        Classical,
        "IDF s.2 art. 5.1",
        "20 minutes plus 5 seconds per move",
        20 + 5
    ),
    p64!(
        "64-rapid-10+0",
        Rapid,
        "IDF s.2 art. 5.2",
        "10 minutes to the end of the game",
        10 + 0
    ),
    p64!(
        "64-rapid-10+3",
        Rapid,
        "IDF s.2 art. 5.2",
        "10 minutes plus 3 seconds per move",
        10 + 3
    ),
    p64!(
        "64-rapid-10+5",
        Rapid,
        "IDF s.2 art. 5.2",
        "10 minutes plus 5 seconds per move",
        10 + 5
    ),
    p64!(
        "64-rapid-7+3",
        Rapid,
        "IDF s.2 art. 5.2",
        "7 minutes plus 3 seconds per move",
        7 + 3
    ),
    p64!(
        "64-rapid-7+5",
        Rapid,
        "IDF s.2 art. 5.2",
        "7 minutes plus 5 seconds per move",
        7 + 5
    ),
    p64!(
        "64-rapid-6+3",
        Rapid,
        "IDF s.2 art. 5.2",
        "6 minutes plus 3 seconds per move",
        6 + 3
    ),
    p64!(
        "64-rapid-6+5",
        Rapid,
        "IDF s.2 art. 5.2",
        "6 minutes plus 5 seconds per move",
        6 + 5
    ),
    p64!(
        "64-rapid-5+3",
        Rapid,
        "IDF s.2 art. 5.2",
        "5 minutes plus 3 seconds per move",
        5 + 3
    ),
    p64!(
        "64-rapid-5+5",
        Rapid,
        "IDF s.2 art. 5.2",
        "5 minutes plus 5 seconds per move",
        5 + 5
    ),
    p64!(
        "64-blitz-3+0",
        Blitz,
        "IDF s.2 art. 5.3",
        "3 minutes to the end of the game",
        3 + 0
    ),
    p64!(
        "64-blitz-3+3",
        Blitz,
        "IDF s.2 art. 5.3",
        "3 minutes plus 3 seconds per move",
        3 + 3
    ),
    p64!(
        "64-blitz-3+2",
        Blitz,
        "IDF s.2 art. 5.3",
        "3 minutes plus 2 seconds per move",
        3 + 2
    ),
    Preset {
        id: "100-classical-120/50-60/25r",
        discipline: Discipline::Draughts100,
        category: Category::Classical,
        article: "INT 3.6.1",
        description: "2 hours for 50 moves, then 1 hour for each 25 moves; unused time is carried over",
        fischer_required: false,
        periods: &[
            Period::for_moves(Millis::hours(2), 50),
            Period::for_moves(Millis::hours(1), 25),
        ],
        match_clock: false,
    },
    Preset {
        id: "100-classical-120/50-60",
        discipline: Discipline::Draughts100,
        category: Category::Classical,
        article: "INT 3.6.1",
        description: "6-hour round: 2 hours for 50 moves and 1 hour to the end of the game",
        fischer_required: false,
        periods: &[
            Period::for_moves(Millis::hours(2), 50),
            Period::to_end(Millis::hours(1)),
        ],
        match_clock: false,
    },
    Preset {
        id: "100-classical-120/50-30",
        discipline: Discipline::Draughts100,
        category: Category::Classical,
        article: "INT 3.6.1",
        description: "5-hour round: 2 hours for 50 moves and 30 minutes to the end of the game",
        fischer_required: false,
        periods: &[
            Period::for_moves(Millis::hours(2), 50),
            Period::to_end(Millis::mins(30)),
        ],
        match_clock: false,
    },
    Preset {
        id: "100-classical-90/40-60",
        discipline: Discipline::Draughts100,
        category: Category::Classical,
        article: "INT 3.6.1",
        description: "5-hour round: 1 hour 30 minutes for 40 moves and 1 hour to the end of the game",
        fischer_required: false,
        periods: &[
            Period::for_moves(Millis::mins(90), 40),
            Period::to_end(Millis::hours(1)),
        ],
        match_clock: false,
    },
    Preset {
        id: "100-classical-80+60",
        discipline: Discipline::Draughts100,
        category: Category::Classical,
        article: "INT 3.6.1",
        description: "Fischer: 1 hour 20 minutes (the text allows up to 2 hours) plus 1 minute per move",
        fischer_required: false,
        periods: &[fischer(80, 60)],
        match_clock: false,
    },
    Preset {
        id: "100-rapid-10+5",
        discipline: Discipline::Draughts100,
        category: Category::Rapid,
        article: "INT 3.6.2",
        description: "the minimum Fischer rapid control: 10 minutes plus 5 seconds per move",
        fischer_required: false,
        periods: &[fischer(10, 5)],
        match_clock: false,
    },
    Preset {
        id: "100-blitz-3+2",
        discipline: Discipline::Draughts100,
        category: Category::Blitz,
        article: "INT 3.6.3",
        description: "the minimum Fischer blitz control: 3 minutes plus 2 seconds per move",
        fischer_required: false,
        periods: &[fischer(3, 2)],
        match_clock: false,
    },
    Preset {
        id: "100-blitz-5+3-match",
        discipline: Discipline::Draughts100,
        category: Category::Blitz,
        article: "INT 3.6.4",
        description: "Lehmann-Georgiev tie-break: 5 minutes plus 3 seconds per move for all games until the first win",
        fischer_required: false,
        periods: &[fischer(5, 3)],
        match_clock: true,
    },
];

/// The preset with id `id`.
pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

/// The presets of one discipline, optionally of one category, in the order of the texts.
pub fn presets_for(
    discipline: Discipline,
    category: Option<Category>,
) -> impl Iterator<Item = &'static Preset> {
    PRESETS
        .iter()
        .filter(move |p| p.discipline == discipline && category.is_none_or(|c| p.category == c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::category::validate;
    use std::collections::HashSet;

    #[test]
    fn every_preset_is_a_valid_control_in_its_category() {
        for p in PRESETS {
            let tc = p.control();
            assert!(TimeControl::new(tc.periods().to_vec()).is_ok(), "{}", p.id);
            assert_eq!(validate(&tc, p.discipline, p.category), Ok(()), "{}", p.id);
            assert!(p.id.starts_with(p.discipline.id_prefix()), "{}", p.id);
            assert!(p.id.contains(p.category.as_str()), "{}", p.id);
        }
    }

    #[test]
    fn ids_are_unique_and_found() {
        let ids: HashSet<_> = PRESETS.iter().map(|p| p.id).collect();
        assert_eq!(ids.len(), PRESETS.len());
        let blitz = preset("64-blitz-3+2").expect("listed");
        assert_eq!(
            blitz.control(),
            TimeControl::fischer(Millis::mins(3), Millis::secs(2)).expect("valid")
        );
        assert!(preset("100-blitz-5+3-match").is_some_and(|p| p.control().is_match_clock()));
        assert!(preset("nope").is_none());
        assert_eq!(
            presets_for(Discipline::Draughts64, Some(Category::Blitz)).count(),
            3
        );
        assert_eq!(
            presets_for(Discipline::Draughts64, Some(Category::Rapid)).count(),
            9
        );
        assert_eq!(
            presets_for(Discipline::Draughts64, Some(Category::Classical)).count(),
            9
        );
        assert_eq!(presets_for(Discipline::Chess, None).count(), 0);
    }

    #[test]
    fn idf_5_6_sudden_death_presets_are_marked() {
        let marked: Vec<_> = PRESETS
            .iter()
            .filter(|p| p.fischer_required)
            .map(|p| p.id)
            .collect();
        assert_eq!(
            marked,
            ["64-classical-45+0", "64-rapid-10+0", "64-blitz-3+0"]
        );
    }
}
