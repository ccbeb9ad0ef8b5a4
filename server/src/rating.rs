//! Ratings: Glicko-2 per perf (a variant at a speed: `russian-blitz`,
//! `international-rapid`, `chess-bullet`, …), with the maths from the `skillratings`
//! crate and the policy lichess uses around it: every player starts at 1500 ± 350
//! (volatility 0.06, τ 0.75); each game is its own rating period, so a rating moves
//! after every rated game; between games the deviation grows with the days of
//! inactivity (Glicko-2 step 6 for periods without games) up to its starting value; a
//! rating whose deviation is above [`PROVISIONAL_RD`] is provisional (shown with `?`).

use shared::law::GameResult;
use shared::protocol::Speed;
use shared::rules::Variant;
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

/// A new player's rating.
pub const DEFAULT_RATING: f64 = 1500.0;
/// A new player's deviation, and the most inactivity can raise it to.
pub const DEFAULT_RD: f64 = 350.0;
/// A new player's volatility.
pub const DEFAULT_VOLATILITY: f64 = 0.06;
/// Above this deviation a rating is provisional.
pub const PROVISIONAL_RD: f64 = 110.0;
/// The deviation never falls below this (lichess: 45), so ratings keep moving.
pub const MIN_RD: f64 = 45.0;
/// The system constant τ.
pub const TAU: f64 = 0.75;
/// Length of one rating period of inactivity, in milliseconds (a day).
pub const PERIOD_MS: u64 = 24 * 3600 * 1000;

/// A rating pool: one variant at one speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Perf {
    /// The game.
    pub variant: Variant,
    /// How fast.
    pub speed: Speed,
}

/// A perf name that is not `<variant>-<speed>`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown perf `{0}`: expected <variant>-<speed>, e.g. russian-blitz")]
pub struct UnknownPerf(pub String);

impl Perf {
    /// The perf's key, e.g. `russian-blitz`.
    pub fn key(self) -> String {
        format!("{}-{}", variant_key(self.variant), speed_key(self.speed))
    }

    /// Every perf.
    pub fn all() -> impl Iterator<Item = Perf> {
        Variant::ALL.into_iter().flat_map(|variant| {
            [Speed::Bullet, Speed::Blitz, Speed::Rapid, Speed::Classical]
                .into_iter()
                .map(move |speed| Perf { variant, speed })
        })
    }
}

impl std::str::FromStr for Perf {
    type Err = UnknownPerf;

    fn from_str(s: &str) -> Result<Perf, UnknownPerf> {
        Perf::all()
            .find(|p| p.key() == s)
            .ok_or_else(|| UnknownPerf(s.chars().take(40).collect()))
    }
}

impl std::fmt::Display for Perf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.key())
    }
}

fn variant_key(v: Variant) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn speed_key(s: Speed) -> &'static str {
    match s {
        Speed::Bullet => "bullet",
        Speed::Blitz => "blitz",
        Speed::Rapid => "rapid",
        Speed::Classical => "classical",
    }
}

/// One player's rating in one perf.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glicko {
    /// The rating.
    pub rating: f64,
    /// Its deviation.
    pub rd: f64,
    /// Its volatility.
    pub volatility: f64,
}

impl Default for Glicko {
    fn default() -> Glicko {
        Glicko {
            rating: DEFAULT_RATING,
            rd: DEFAULT_RD,
            volatility: DEFAULT_VOLATILITY,
        }
    }
}

impl Glicko {
    /// Is the rating still provisional?
    pub fn provisional(&self) -> bool {
        self.rd > PROVISIONAL_RD
    }

    /// The rating as pairing and display use it.
    pub fn rounded(&self) -> u32 {
        self.rating.round().clamp(0.0, f64::from(u32::MAX)) as u32
    }

    /// The deviation after `idle_ms` without rated games: for each whole period,
    /// φ' = √(φ² + σ²) on the Glicko-2 scale, never above [`DEFAULT_RD`].
    pub fn aged(self, idle_ms: u64) -> Glicko {
        let periods = (idle_ms / PERIOD_MS) as f64;
        if periods <= 0.0 {
            return self;
        }
        let phi = self.rd / SCALE;
        let phi = (phi * phi + periods * self.volatility * self.volatility).sqrt();
        Glicko {
            rd: (phi * SCALE).min(DEFAULT_RD),
            ..self
        }
    }
}

/// Glicko-2's scale factor between the Glicko and Glicko-2 scales.
const SCALE: f64 = 173.7178;

fn to_lib(g: Glicko) -> Glicko2Rating {
    Glicko2Rating {
        rating: g.rating,
        deviation: g.rd,
        volatility: g.volatility,
    }
}

fn from_lib(g: Glicko2Rating) -> Glicko {
    Glicko {
        rating: g.rating,
        rd: g.deviation.clamp(MIN_RD, DEFAULT_RD),
        volatility: g.volatility,
    }
}

/// Both players' ratings after one game (each already aged for inactivity).
pub fn update(white: Glicko, black: Glicko, result: GameResult) -> (Glicko, Glicko) {
    // The library scores from White's side.
    let outcome = match result {
        GameResult::WhiteWin => Outcomes::WIN,
        GameResult::BlackWin => Outcomes::LOSS,
        GameResult::Draw => Outcomes::DRAW,
    };
    let config = Glicko2Config {
        tau: TAU,
        ..Glicko2Config::new()
    };
    let (w, b) = glicko2(&to_lib(white), &to_lib(black), &outcome, &config);
    (from_lib(w), from_lib(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::rules::draughts::DraughtsVariant;
    use skillratings::glicko2::glicko2_rating_period;

    /// Glickman, "Example of the Glicko-2 system" (2013), section 3: a player rated
    /// 1500 ± 200 (σ 0.06) beats 1400 ± 30 and loses to 1550 ± 100 and 1700 ± 300 in
    /// one period with τ = 0.5; the paper's answer is 1464.06 ± 151.52, σ 0.05999.
    #[test]
    fn glickman_worked_example() {
        let player = Glicko2Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opp = |rating, deviation| Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let results = [
            (opp(1400.0, 30.0), Outcomes::WIN),
            (opp(1550.0, 100.0), Outcomes::LOSS),
            (opp(1700.0, 300.0), Outcomes::LOSS),
        ];
        let config = Glicko2Config {
            tau: 0.5,
            ..Glicko2Config::new()
        };
        let after = glicko2_rating_period(&player, &results, &config);
        assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
        assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
        assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
    }

    #[test]
    fn a_win_raises_and_a_loss_lowers() {
        let (w, b) = update(Glicko::default(), Glicko::default(), GameResult::WhiteWin);
        assert!(w.rating > 1500.0 && b.rating < 1500.0);
        assert!((w.rating - 1500.0 + b.rating - 1500.0).abs() < 1e-6);
        assert!(w.rd < DEFAULT_RD && w.provisional());
        let (w, b) = update(Glicko::default(), Glicko::default(), GameResult::Draw);
        assert!((w.rating - 1500.0).abs() < 1e-9 && (b.rating - 1500.0).abs() < 1e-9);
    }

    #[test]
    fn inactivity_widens_the_deviation_up_to_the_start_value() {
        let g = Glicko {
            rating: 1800.0,
            rd: 60.0,
            volatility: 0.06,
        };
        assert_eq!(g.aged(PERIOD_MS - 1), g);
        let month = g.aged(30 * PERIOD_MS);
        assert!(month.rd > 60.0 && month.rd < DEFAULT_RD, "{month:?}");
        assert!(g.aged(400_000 * PERIOD_MS).rd <= DEFAULT_RD);
        assert_eq!(month.rating, 1800.0);
    }

    #[test]
    fn perf_keys_round_trip() {
        for p in Perf::all() {
            assert_eq!(p.key().parse::<Perf>().unwrap(), p);
        }
        assert_eq!(
            Perf {
                variant: Variant::Draughts(DraughtsVariant::International),
                speed: Speed::Rapid
            }
            .key(),
            "international-rapid"
        );
        assert!("russian-hyper".parse::<Perf>().is_err());
        assert!("".parse::<Perf>().is_err());
    }
}
