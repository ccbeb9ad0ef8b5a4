//! Time controls on the wire: the `"5+3"` shorthand (minutes + increment seconds) and the
//! structured object that spells out every kind the rule texts know: sudden death,
//! Fischer, FIDE delay, several periods with move quotas and carried time (INT 3.6.1),
//! and the match clock of a Lehmann-Georgiev tie-break (INT 3.6.4). A control is read
//! exactly (never rounded) and checked when it is decoded; every refusal names the
//! article or the damka limit it breaks.
//!
//! The type is `Copy` (at most [`MAX_PERIODS`] periods, stored inline) so that seeks,
//! pools and games carry it as freely as before; [`TimeControl::control`] gives the
//! `shared::clock` control the game's clock runs.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::clock::{self, Millis, Period};
use crate::rules::Variant;

/// The most periods a control may have (damka's limit; INT 3.6.1's controls have two).
pub const MAX_PERIODS: usize = 3;
/// The most time one period may give: 10 hours (damka's limit).
pub const MAX_PERIOD_MS: u64 = 10 * 60 * 60 * 1000;
/// The least starting time: 1 second (damka's limit).
pub const MIN_START_MS: u64 = 1000;
/// The most increment or delay per move: 10 minutes (damka's limit).
pub const MAX_PER_MOVE_MS: u64 = 10 * 60 * 1000;
/// The largest move quota of a period (damka's limit).
pub const MAX_QUOTA: u32 = 200;

/// One period of a control, as on the wire.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct PeriodSpec {
    /// Main time this period adds, in milliseconds (the first period's is the starting
    /// time).
    pub time_ms: u64,
    /// Moves each player must make in this period; absent: to the end of the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<u32>,
    /// Fischer increment after each move, in milliseconds.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub increment_ms: u64,
    /// FIDE delay (FIDE 6.2): each move the main time starts only after this long.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub delay_ms: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl PeriodSpec {
    fn period(self) -> Period {
        Period {
            time: Millis(self.time_ms),
            moves: self.moves,
            increment: Millis(self.increment_ms),
            delay: Millis(self.delay_ms),
        }
    }
}

/// A time control as players choose it. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimeControl {
    periods: [PeriodSpec; MAX_PERIODS],
    len: u8,
    match_clock: bool,
}

/// A time control that could not be read, with the article or limit it breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad time control `{text}`: {why}")]
pub struct BadTimeControl {
    /// The control as given.
    pub text: String,
    /// Why, naming the article or the damka limit.
    pub why: String,
}

/// A control the rule texts of the variant do not know, for the variant's games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnfitTimeControl {
    /// A delay for draughts: delay is a chess clock mode (FIDE 6.2).
    #[error(
        "delay is a chess clock mode (FIDE 6.2); the draughts texts (IDF s.2 art. 5, INT 3.6) \
         know sudden death, Fischer and periods only"
    )]
    DelayInDraughts,
}

/// The structured wire form.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Structured {
    periods: Vec<PeriodSpec>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    match_clock: bool,
}

impl TimeControl {
    /// Fischer: `initial_secs` on each clock and `increment_secs` after each move.
    pub const fn new(initial_secs: u32, increment_secs: u32) -> TimeControl {
        let first = PeriodSpec {
            time_ms: initial_secs as u64 * 1000,
            moves: None,
            increment_ms: increment_secs as u64 * 1000,
            delay_ms: 0,
        };
        TimeControl {
            periods: [
                first,
                PeriodSpec {
                    time_ms: 0,
                    moves: None,
                    increment_ms: 0,
                    delay_ms: 0,
                },
                PeriodSpec {
                    time_ms: 0,
                    moves: None,
                    increment_ms: 0,
                    delay_ms: 0,
                },
            ],
            len: 1,
            match_clock: false,
        }
    }

    /// A control from its periods, checked: the `shared::clock` invariants (with the
    /// articles they come from) and damka's limits.
    pub fn from_periods(periods: &[PeriodSpec], match_clock: bool) -> Result<TimeControl, String> {
        if periods.len() > MAX_PERIODS {
            return Err(format!(
                "at most {MAX_PERIODS} periods (damka's limit; INT 3.6.1's controls have two)"
            ));
        }
        for (i, p) in periods.iter().enumerate() {
            if p.time_ms > MAX_PERIOD_MS {
                return Err(format!("period {i}: at most 10 hours (damka's limit)"));
            }
            if p.increment_ms > MAX_PER_MOVE_MS || p.delay_ms > MAX_PER_MOVE_MS {
                return Err(format!(
                    "period {i}: increment and delay are at most 10 minutes (damka's limit)"
                ));
            }
            if p.moves.is_some_and(|m| m > MAX_QUOTA) {
                return Err(format!(
                    "period {i}: a quota of at most {MAX_QUOTA} moves (damka's limit)"
                ));
            }
        }
        let control = clock::TimeControl::new(periods.iter().map(|p| p.period()).collect())
            .map_err(|e| control_error(&e))?;
        if control.first().time < Millis(MIN_START_MS) {
            return Err("the starting time is at least 1 second (damka's limit)".into());
        }
        let mut out = TimeControl::new(0, 0);
        for (slot, p) in out.periods.iter_mut().zip(periods) {
            *slot = *p;
        }
        out.len = periods.len() as u8;
        out.match_clock = match_clock;
        Ok(out)
    }

    /// The periods, first to last (never empty).
    pub fn periods(&self) -> &[PeriodSpec] {
        &self.periods[..usize::from(self.len).clamp(1, MAX_PERIODS)]
    }

    /// The first period.
    pub fn first(&self) -> PeriodSpec {
        self.periods[0]
    }

    /// Whether the clock carries over to the next game of a match (INT 3.6.4).
    pub fn is_match_clock(&self) -> bool {
        self.match_clock
    }

    /// Whether any period adds a Fischer increment (IDF 22.7 and UA rule 9 ask).
    pub fn has_increment(&self) -> bool {
        self.periods().iter().any(|p| p.increment_ms > 0)
    }

    /// Whether any period has a FIDE delay.
    pub fn has_delay(&self) -> bool {
        self.periods().iter().any(|p| p.delay_ms > 0)
    }

    /// Whether `variant`'s games may be played on this control: a delay (FIDE 6.2) is a
    /// chess clock mode the draughts texts (IDF s.2 art. 5, INT 3.6) do not know. Every
    /// place that accepts a control for a variant (seeks, challenges, pools, tournaments,
    /// arenas) asks this.
    pub fn fits(&self, variant: Variant) -> Result<(), UnfitTimeControl> {
        if variant.draughts().is_some() && self.has_delay() {
            return Err(UnfitTimeControl::DelayInDraughts);
        }
        Ok(())
    }

    /// The starting time in milliseconds.
    pub fn initial_ms(&self) -> u64 {
        self.first().time_ms
    }

    /// The clock's control for this wire control.
    pub fn control(&self) -> clock::TimeControl {
        let periods = self.periods().iter().map(|p| p.period()).collect();
        // Checked when the wire control was built; an unchecked one (only `new`, with
        // zero time) still gives a control rather than a panic.
        let control = clock::TimeControl::new(periods).unwrap_or_else(|_| {
            clock::TimeControl::trusted(vec![Period::to_end(Millis(MIN_START_MS))])
        });
        if self.match_clock {
            control.for_match()
        } else {
            control
        }
    }

    /// The lichess-style speed estimate: starting time plus 40 moves of the first
    /// period's increment or delay, for controls that fit no category of the texts.
    pub fn speed(self) -> Speed {
        let first = self.first();
        let estimate_ms = first
            .time_ms
            .saturating_add(40 * first.increment_ms.saturating_add(first.delay_ms));
        match estimate_ms / 1000 {
            0..180 => Speed::Bullet,
            180..480 => Speed::Blitz,
            480..1500 => Speed::Rapid,
            _ => Speed::Classical,
        }
    }

    /// The shorthand, when the control has one (a single Fischer or sudden-death period
    /// with whole increment seconds, no match clock).
    fn shorthand(&self) -> Option<String> {
        let p = self.first();
        if self.len != 1
            || self.match_clock
            || p.moves.is_some()
            || p.delay_ms != 0
            || !p.increment_ms.is_multiple_of(1000)
        {
            return None;
        }
        // Minutes with at most 6 decimals, exactly (what `minutes_to_ms` reads back):
        // the remainder's millionths of a minute, r * 1_000_000 / 60_000 = r * 50 / 3,
        // must be whole; otherwise only the structured form is exact.
        let (whole, rest) = (p.time_ms / 60_000, p.time_ms % 60_000);
        if !rest.is_multiple_of(3) {
            return None;
        }
        let minutes = if rest == 0 {
            whole.to_string()
        } else {
            let millionths = format!("{:06}", rest * 50 / 3);
            format!("{whole}.{}", millionths.trim_end_matches('0'))
        };
        Some(format!("{minutes}+{}", p.increment_ms / 1000))
    }
}

/// A clock invariant broken, with the article it comes from.
fn control_error(e: &clock::ControlError) -> String {
    use clock::ControlError as E;
    match e {
        E::NoPeriods => "a control needs at least one period".into(),
        E::NoStartingTime => "the first period gives no time".into(),
        E::ZeroQuota { index } => {
            format!("period {index}: a quota of 0 moves (INT 3.6.1 counts N moves per period)")
        }
        E::OpenPeriodNotLast { index } => format!(
            "period {index} lasts to the end of the game but another follows (INT 3.6.1: only the last period may be open)"
        ),
        E::IncrementAndDelay { index } => format!(
            "period {index} has both an increment and a delay (FIDE 6.2 and IDF s.2 5.3 know them as two modes)"
        ),
    }
}

/// Reads a decimal number of minutes into exact milliseconds, or says why not.
fn minutes_to_ms(text: &str) -> Result<u64, String> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits_ok = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if int.is_empty() && frac.is_empty() || !digits_ok(int) || !digits_ok(frac) {
        return Err("minutes must be a decimal number such as 5 or 0.5".into());
    }
    if frac.len() > 6 || int.len() > 4 {
        return Err("minutes must be at most 600 with at most 6 decimals".into());
    }
    let int: u64 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| "bad minutes".to_string())?
    };
    let scale = 10u64.pow(frac.len() as u32);
    let frac_n: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().map_err(|_| "bad minutes".to_string())?
    };
    let frac_ms = frac_n * 60_000;
    if !frac_ms.is_multiple_of(scale) {
        return Err(format!(
            "{text} minutes is not a whole number of milliseconds; damka does not round"
        ));
    }
    Ok(int * 60_000 + frac_ms / scale)
}

fn parse_shorthand(s: &str) -> Result<TimeControl, String> {
    let (minutes, increment) = s
        .split_once('+')
        .ok_or("expected minutes+seconds such as 5+3, or the structured object")?;
    let time_ms = minutes_to_ms(minutes.trim())?;
    let increment = increment.trim();
    if increment.is_empty() || !increment.chars().all(|c| c.is_ascii_digit()) || increment.len() > 4
    {
        return Err("the increment is a whole number of seconds".into());
    }
    let increment: u64 = increment.parse().map_err(|_| "bad increment".to_string())?;
    TimeControl::from_periods(
        &[PeriodSpec {
            time_ms,
            moves: None,
            increment_ms: increment * 1000,
            delay_ms: 0,
        }],
        false,
    )
}

impl fmt::Display for TimeControl {
    /// The shorthand (`5+3`) when there is one, else the structured JSON.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.shorthand() {
            Some(s) => f.write_str(&s),
            None => {
                let structured = Structured {
                    periods: self.periods().to_vec(),
                    match_clock: self.match_clock,
                };
                let json = serde_json::to_string(&structured).map_err(|_| fmt::Error)?;
                f.write_str(&json)
            }
        }
    }
}

impl FromStr for TimeControl {
    type Err = BadTimeControl;

    /// The shorthand, or the structured object as JSON text (as in config files).
    fn from_str(s: &str) -> Result<TimeControl, BadTimeControl> {
        let text = s.trim();
        let bad = |why: String| BadTimeControl {
            text: text.chars().take(80).collect(),
            why,
        };
        if text.starts_with('{') {
            let structured: Structured =
                serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
            TimeControl::from_periods(&structured.periods, structured.match_clock).map_err(bad)
        } else {
            parse_shorthand(text).map_err(bad)
        }
    }
}

impl Serialize for TimeControl {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.shorthand() {
            Some(text) => s.serialize_str(&text),
            None => Structured {
                periods: self.periods().to_vec(),
                match_clock: self.match_clock,
            }
            .serialize(s),
        }
    }
}

/// Either wire form.
#[derive(Deserialize)]
#[serde(untagged)]
enum Wire {
    Text(String),
    Object(Structured),
}

impl<'de> Deserialize<'de> for TimeControl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TimeControl, D::Error> {
        match Wire::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "a time control is minutes+seconds such as \"5+3\", or {\"periods\": [...]}",
            )
        })? {
            Wire::Text(text) => text.parse().map_err(serde::de::Error::custom),
            Wire::Object(o) => TimeControl::from_periods(&o.periods, o.match_clock)
                .map_err(|why| serde::de::Error::custom(format!("bad time control: {why}"))),
        }
    }
}

/// How fast a game is; decides, among other things, how long a disconnected player
/// may stay away before the opponent can claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speed {
    /// Under 3 minutes estimated.
    Bullet,
    /// 3 to 8 minutes.
    Blitz,
    /// 8 to 25 minutes.
    Rapid,
    /// 25 minutes or more.
    Classical,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn shorthand_is_exact_and_round_trips() {
        assert_eq!(tc("5+3"), TimeControl::new(300, 3));
        for s in [
            "5+3", "0.5+0", "0.02+0", "90+30", "0.25+1", "1.5+2", "600+600",
        ] {
            assert_eq!(tc(s).to_string(), s);
            let json = serde_json::to_string(&tc(s)).unwrap();
            assert_eq!(json, format!("\"{s}\""));
            assert_eq!(serde_json::from_str::<TimeControl>(&json).unwrap(), tc(s));
        }
        assert_eq!(tc("0.02+0").initial_ms(), 1200);
        assert_eq!(tc(".5+0").to_string(), "0.5+0");
        for bad in [
            "",
            "5",
            "+3",
            "a+b",
            "0+0",
            "-1+0",
            "NaN+0",
            "inf+0",
            "5+-1",
            "1000+0",
            "0.00001+0",
            "0.01+0",
            "5+1.5",
            "5+601",
            "1e3+0",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn structured_controls_and_their_articles() {
        let periods =
            r#"{"periods":[{"time_ms":7200000,"moves":50},{"time_ms":3600000,"moves":25}]}"#;
        let int = tc(periods);
        assert_eq!(serde_json::to_string(&int).unwrap(), periods);
        assert_eq!(int.control().to_string(), "120'/50, 60'/25 repeating");
        let delay = tc(r#"{"periods":[{"time_ms":300000,"delay_ms":5000}]}"#);
        assert!(delay.has_delay() && !delay.has_increment());
        assert_eq!(delay.fits(Variant::Chess), Ok(()));
        let unfit = delay
            .fits(Variant::Draughts(
                crate::rules::draughts::DraughtsVariant::Russian,
            ))
            .unwrap_err();
        assert_eq!(unfit, UnfitTimeControl::DelayInDraughts);
        assert!(unfit.to_string().contains("FIDE 6.2"), "{unfit}");
        assert_eq!(
            tc("3+2").fits(Variant::Draughts(
                crate::rules::draughts::DraughtsVariant::Russian
            )),
            Ok(())
        );
        let m = tc(r#"{"periods":[{"time_ms":300000,"increment_ms":3000}],"match_clock":true}"#);
        assert!(m.is_match_clock() && m.control().is_match_clock());
        // A Fischer object is the shorthand on the way out.
        assert_eq!(
            serde_json::to_string(&tc(
                r#"{"periods":[{"time_ms":300000,"increment_ms":3000}]}"#
            ))
            .unwrap(),
            "\"5+3\""
        );
        let err = |s: &str| s.parse::<TimeControl>().unwrap_err().why;
        assert!(err(r#"{"periods":[{"time_ms":60000},{"time_ms":60000}]}"#).contains("INT 3.6.1"));
        assert!(err(r#"{"periods":[{"time_ms":60000,"moves":0}]}"#).contains("INT 3.6.1"));
        assert!(
            err(r#"{"periods":[{"time_ms":60000,"increment_ms":1000,"delay_ms":1000}]}"#)
                .contains("FIDE 6.2")
        );
        assert!(err(r#"{"periods":[]}"#).contains("at least one period"));
        assert!(err(r#"{"periods":[{"time_ms":500}]}"#).contains("1 second"));
        assert!(err(r#"{"periods":[{"time_ms":60000,"moves":10},{"time_ms":1,"moves":10},{"time_ms":1,"moves":10},{"time_ms":1}]}"#).contains("at most 3"));
        assert!(err(r#"{"periods":[{"time_ms":60000,"bogus":1}]}"#).contains("bogus"));
    }
}
