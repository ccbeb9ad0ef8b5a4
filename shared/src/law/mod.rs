//! The game law: the record of a game above its position, every draw rule of every rule
//! set as data, draw offers and claims, the rapid/blitz provisions, flags, resignation,
//! abort, and the typed outcome.
//!
//! - [`outcome`]: verdicts, results and typed reasons ([`RuleId`] names every article).
//! - [`situation`]: the vocabulary of endgame situations (material, fixed squares, kings
//!   on the main road or the double diagonals) and its matcher.
//! - [`rulebook`]: every rule set as data ([`RulesetId::rules`]).
//! - [`settings`]: per-game facts the law depends on (time-control category, recorded,
//!   increment).
//! - [`offers`]: draw-offer state and refusals.
//! - [`tally`]: the running counts behind the rules.
//! - [`game`]: the [`Game`] record and its API.
//!
//! Pure: no I/O, no clocks, no system time. Time forfeits come in as calls
//! ([`Game::flag`], [`Game::both_flags`]) from whoever owns the clock. See `docs/law.md`
//! for every rule with its article and damka's reading of it.

pub mod game;
pub mod offers;
pub mod outcome;
pub mod rulebook;
pub mod settings;
pub mod situation;
pub mod tally;

pub use game::{
    Action, Actions, Claim, ClaimRefusal, Game, GameRecord, LawError, Played, ReplayError,
};
pub use offers::OfferRefusal;
pub use outcome::{GameResult, Outcome, Reason, RuleId, Verdict, Via};
pub use rulebook::{Decision, DrawRule, NoIncrement, OfferRules, Ruleset, RulesetId, Trigger};
pub use settings::Settings;
pub use tally::{CountUnit, Progress};
