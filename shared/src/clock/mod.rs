//! Game clocks and time controls: what a time control is ([`TimeControl`]), the state
//! machine that runs it ([`Clock`]), which category a control belongs to in each
//! discipline ([`validate`]), the rule texts' preset controls ([`PRESETS`]), and lag
//! compensation ([`LagCompensator`]).
//!
//! Pure: no I/O, no threads, no system time. Every operation takes the instant it happens
//! at as a [`Timestamp`] (milliseconds from an origin the caller picks), so the server's
//! game actor, tests and replays drive the same code.
//!
//! Where the digest (RULES.md) and the rule texts disagree the texts win:
//! - INT 3.6.2-3.6.3 count a Fischer control's time "on the first 60 moves" (time +
//!   60 x increment must lie in 15-30 min for rapid, 5-15 min for blitz); the digest
//!   gives only the bare ranges and minimums. See [`category`].
//! - The FIDE text in the seeds defines rapid as at least 15 and less than 60 minutes and
//!   blitz as less than 15 minutes (Appendices A1, B1), not the 2018 Laws' "more than 10"
//!   / "10 or less". See [`category`].
//! - IDF s.2 art. 5.6 and 22.4 require Fischer seconds with electronic clocks in official
//!   play; the digest does not mention it. See [`presets`].

pub mod category;
pub mod control;
pub mod lag;
pub mod machine;
pub mod presets;
pub mod spec;
pub mod time;

#[cfg(test)]
mod tests;

pub use category::{Category, CategoryError, Discipline, categories, fastest_category, validate};
pub use control::{ControlError, Period, TimeControl};
pub use lag::{LagCompensator, LagPolicy, LagSample};
pub use machine::{Clock, ClockError, ClockView, Phase, PressOutcome, SideClock};
pub use presets::{PRESETS, Preset, preset, presets_for};
pub use time::{Millis, Timestamp};
