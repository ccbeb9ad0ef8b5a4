//! damka's draughts engine: one search for all eight draughts variants of the rule
//! texts, on `shared::rules`, with levels 1-8 and the Hub protocol.
//!
//! Layout:
//! - [`level`]: the eight levels (depth, time and deliberate error growing with the level).
//! - `time`: how long a move may take, from a clock (sudden death, Fischer, moves to go,
//!   delay) or a fixed move time, with a hard stop.
//! - `eval`: the static evaluation, per variant family as data (`Weights`), and the
//!   standard draw endings the rules declare drawn.
//! - `tt`: the transposition table, keyed by the positions' Zobrist-style keys.
//! - `search`: iterative deepening, principal-variation alpha-beta, captures searched
//!   out (they are forced), killer and history ordering, repetition and the draw law's
//!   move counters as draws inside the tree.
//! - [`hub`]: the Hub protocol, version 2, as Scan 3.1 speaks it (`damka-engine hub`).
//!
//! The free functions ([`think`], [`analyse`], [`accepts_draw`], [`should_resign`]) are
//! what the server calls; [`Engine`] keeps a transposition table between searches (the
//! Hub engine uses it). Chess is not searched here: [`EngineError::NotDraughts`].

mod eval;
pub mod hub;
pub mod level;
mod search;
mod time;
mod tt;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use shared::rules::draughts::{self, DraughtsVariant};
use shared::rules::{Move, Position};

pub use level::Level;

/// Why the engine could not answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// A level outside 1..=8.
    #[error("unknown level {0}: levels are 1 to 8")]
    InvalidLevel(u8),
    /// The side to move has no legal move: there is nothing to think about.
    #[error("the game is over: the side to move has no legal move")]
    GameOver,
    /// Chess and Chess960 are played by an external UCI engine, not by this one.
    #[error("this engine plays draughts only")]
    NotDraughts,
}

/// The clock of the side to move, for time management.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockLimits {
    /// Time left on the clock.
    pub remaining_ms: u64,
    /// Fischer increment added after each move.
    pub increment_ms: u64,
    /// Moves left to the next time control (periods), if any.
    pub moves_to_go: Option<u32>,
    /// Delay before the clock starts running, each move.
    pub delay_ms: u64,
}

/// What bounds a search. Every bound that is set applies; none set means the level's
/// own depth and time (or, for [`analyse`], one second).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Deepest iteration, in plies.
    pub depth: Option<u8>,
    /// Nodes to search at most.
    pub nodes: Option<u64>,
    /// Time for this move.
    pub movetime_ms: Option<u64>,
    /// The side to move's clock: the engine budgets its own time from it.
    pub clock: Option<ClockLimits>,
    /// Set from another thread to stop at once; the best move found so far is returned.
    pub stop: Option<Arc<AtomicBool>>,
    /// Plies played since the last capture or move of a man (the draw law counts moves of
    /// kings only, IDF 8.2.14, INT 3.5): the engine sees a rule draw coming.
    pub law_plies: u16,
    /// Called every few hundred microseconds of search; it may sleep to give the core
    /// to other work (the server paces its searches while people play live games).
    pub pace: Option<Pace>,
}

/// A hook the search calls between batches of nodes (see [`Limits::pace`]).
#[derive(Clone)]
pub struct Pace(Arc<dyn Fn() + Send + Sync>);

impl Pace {
    /// The search will call `f` between batches of nodes, on its own thread.
    pub fn new(f: impl Fn() + Send + Sync + 'static) -> Pace {
        Pace(Arc::new(f))
    }

    /// Runs the hook (the search does, between batches of nodes).
    pub fn call(&self) {
        (self.0)();
    }
}

impl std::fmt::Debug for Pace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pace")
    }
}

/// An evaluation from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Hundredths of a man.
    Centi(i32),
    /// The side to move wins in this many of its moves.
    WinIn(u16),
    /// The side to move loses in this many of its moves.
    LossIn(u16),
}

impl Score {
    /// The score on one scale: a won or lost game is ±10,000 minus the moves to it.
    pub fn as_centi(self) -> i32 {
        match self {
            Score::Centi(c) => c,
            Score::WinIn(n) => 10_000 - i32::from(n),
            Score::LossIn(n) => -10_000 + i32::from(n),
        }
    }

    /// The same score seen from the other side.
    pub fn flipped(self) -> Score {
        match self {
            Score::Centi(c) => Score::Centi(-c),
            Score::WinIn(n) => Score::LossIn(n),
            Score::LossIn(n) => Score::WinIn(n),
        }
    }
}

/// The engine's answer: the move, its score, and how it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thought {
    /// The move to play.
    pub best: Move,
    /// Its score for the side to move (at full strength; a level's error is not in it).
    pub score: Score,
    /// Depth of the last completed iteration.
    pub depth: u8,
    /// Nodes searched.
    pub nodes: u64,
    /// The expected line, starting with `best`.
    pub pv: Vec<Move>,
    /// Time spent.
    pub elapsed_ms: u64,
}

/// A searching engine with its own transposition table, kept between searches of one
/// game (the Hub engine holds one; the free functions make a small one per call).
pub struct Engine {
    tt: tt::Table,
}

impl Engine {
    /// An engine with a transposition table of about `hash_mb` MiB.
    pub fn new(hash_mb: usize) -> Engine {
        Engine {
            tt: tt::Table::with_megabytes(hash_mb),
        }
    }

    /// Forgets everything learnt (a new, unrelated game).
    pub fn clear(&mut self) {
        self.tt.clear();
    }

    /// The move a level plays, with the level's deliberate error.
    pub fn think(
        &mut self,
        pos: &Position,
        history: &[u64],
        level: Level,
        limits: &Limits,
    ) -> Result<Thought, EngineError> {
        let (p, moves) = draughts_root(pos)?;
        let plan = level.plan(limits);
        let mut thought = search::run(&mut self.tt, &p, history, &plan)?;
        if let Some(error) = level.error_centi().filter(|_| moves.len() > 1) {
            thought.best =
                search::choose_with_error(&mut self.tt, &p, history, &plan, error, thought.best);
            thought.pv = vec![thought.best];
        }
        Ok(wrap(thought))
    }

    /// The best move at full strength within `limits` (one second if none is set).
    pub fn analyse(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &Limits,
    ) -> Result<Thought, EngineError> {
        let (p, _) = draughts_root(pos)?;
        let plan = Level::full().plan_for_analysis(limits);
        Ok(wrap(search::run(&mut self.tt, &p, history, &plan)?))
    }
}

/// The move a level plays in `pos`; `history` holds the keys ([`Position::key`]) of the
/// game's earlier positions, oldest first, for repetition.
pub fn think(
    pos: &Position,
    history: &[u64],
    level: Level,
    limits: &Limits,
) -> Result<Thought, EngineError> {
    with_fresh_engine(|e| e.think(pos, history, level, limits))
}

/// The best move and score at full strength, for analysis.
pub fn analyse(pos: &Position, history: &[u64], limits: &Limits) -> Result<Thought, EngineError> {
    with_fresh_engine(|e| e.analyse(pos, history, limits))
}

thread_local! {
    /// The free functions' engine: one table per thread, allocated once and emptied
    /// before each search. A table allocated and freed per search maps and unmaps 8 MiB
    /// each time, and in a server those calls take the process's memory-map lock that
    /// every other thread's page faults need: an idle-class search thread holding it
    /// stalls the live games' threads (measured in docs/performance.md).
    static ENGINE: std::cell::RefCell<Engine> = std::cell::RefCell::new(Engine::new(SMALL_HASH_MB));
}

/// Runs `f` on this thread's engine, emptied first (each call searches as a new engine
/// would).
fn with_fresh_engine<T>(f: impl FnOnce(&mut Engine) -> T) -> T {
    ENGINE.with_borrow_mut(|e| {
        e.clear();
        f(e)
    })
}

/// Does the computer at `level` accept a draw offered in `pos` (it to move or not)? It
/// accepts when it stands worse, or when the position is a dead draw.
pub fn accepts_draw(pos: &Position, history: &[u64], level: Level) -> bool {
    let Ok((p, _)) = draughts_root(pos) else {
        return false;
    };
    if eval::is_standard_draw(&p) {
        return true;
    }
    let limits = Limits {
        movetime_ms: Some(level.draw_think_ms()),
        ..Limits::default()
    };
    match analyse(pos, history, &limits) {
        Ok(t) => {
            let mine = if pos.side_to_move() == p.side_to_move() {
                t.score
            } else {
                t.score.flipped()
            };
            mine.as_centi() <= -DRAW_ACCEPT_BELOW
        }
        Err(_) => false,
    }
}

/// Does the computer at `level` resign with `score` (its own, as [`Thought::score`])?
/// Levels 1-4 play on to the end, as a beginner's opponent should; higher levels resign
/// a lost game or a deficit of five men.
pub fn should_resign(level: Level, score: Score) -> bool {
    level.get() >= 5
        && match score {
            Score::LossIn(_) => true,
            Score::Centi(c) => c <= -RESIGN_BELOW,
            Score::WinIn(_) => false,
        }
}

/// The draughts variant of a position, if it is one.
pub fn variant_of(pos: &Position) -> Option<DraughtsVariant> {
    match pos {
        Position::Draughts(p) => Some(p.variant()),
        Position::Chess(_) => None,
    }
}

const SMALL_HASH_MB: usize = 8;
const DRAW_ACCEPT_BELOW: i32 = 30;
const RESIGN_BELOW: i32 = 500;

fn draughts_root(pos: &Position) -> Result<(draughts::Position, Vec<draughts::Move>), EngineError> {
    let Position::Draughts(p) = pos else {
        return Err(EngineError::NotDraughts);
    };
    let moves = p.legal_moves();
    if moves.is_empty() {
        return Err(EngineError::GameOver);
    }
    Ok((*p, moves))
}

fn wrap(t: search::Found) -> Thought {
    Thought {
        best: Move::Draughts(t.best),
        score: t.score,
        depth: t.depth,
        nodes: t.nodes,
        pv: t.pv.into_iter().map(Move::Draughts).collect(),
        elapsed_ms: t.elapsed_ms,
    }
}
