//! Playing the computer. `computer_play` starts a casual game against the computer at a
//! level 1-8: damka's own engine (`engine`, every draughts variant) or, for chess and
//! Chess960, an external UCI engine with a built-in fallback ([`chess`]). The computer
//! is an ordinary player of the ordinary game actor: a seat task ([`seat`]) joined as
//! a player, playing through the same game handle as a session, so its clock runs and
//! the law applies to it as to anyone.
//!
//! Capacity: every search runs on a search thread ([`threads`]: `SCHED_IDLE`, never on
//! the async runtime), at most `computer.max_searches` at once (the others wait in a
//! queue, the gauge `damka_computer_queue`); a node holds at most `computer.max_games` computer games and
//! answers `busy` beyond. Finished games are analysed on the same search threads
//! ([`analysis`]). While people play other live games on the node, draughts searches
//! are paced to `computer.live_share` of their time ([`pace`]).

pub mod analysis;
mod chess;
mod hub;
mod pace;
pub mod placement;
mod seat;
mod threads;

pub use analysis::AnalysisRefusal;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use shared::protocol::{ColorChoice, ErrorCode, TimeControl, UserId, UserInfo};
use shared::rules::{Color, Move, Position, Variant};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::ComputerConfig;
use crate::db::Db;
use crate::game::{GameError, GameHandle, GameRegistry, GameSpec};
use crate::metrics::Metrics;

/// Why a computer game was not started.
#[derive(Debug, thiserror::Error)]
pub enum ComputerError {
    /// A level outside 1-8.
    #[error("level {0} does not exist: levels are 1 to 8")]
    InvalidLevel(u8),
    /// The start position is not a legal position of the variant, or has no move.
    #[error("{0}")]
    InvalidPosition(String),
    /// The node's computer players are all busy.
    #[error("the computer players of this server are all busy: try again shortly")]
    Busy,
    /// The configured external engine cannot play the game.
    #[error("{0}")]
    EngineUnavailable(String),
    /// The game could not start.
    #[error(transparent)]
    Game(#[from] GameError),
    /// Another node, asked to hold the game, refused it.
    #[error("{1}")]
    Elsewhere(ErrorCode, String),
}

impl ComputerError {
    /// The error code on the wire.
    pub fn code(&self) -> ErrorCode {
        match self {
            ComputerError::InvalidLevel(_) => ErrorCode::InvalidLevel,
            ComputerError::InvalidPosition(_) => ErrorCode::InvalidPosition,
            ComputerError::Busy => ErrorCode::Busy,
            ComputerError::EngineUnavailable(_) => ErrorCode::EngineUnavailable,
            ComputerError::Game(e) => e.code(),
            ComputerError::Elsewhere(code, _) => *code,
        }
    }
}

/// What a player asks for.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ComputerRequest {
    /// The game.
    pub variant: Variant,
    /// 1 to 8.
    pub level: u8,
    /// The clock.
    pub time_control: TimeControl,
    /// The side the player wants.
    pub color: ColorChoice,
    /// A start position, if not the usual one.
    pub fen: Option<String>,
}

/// The computer players of this node.
pub struct Computer {
    config: ComputerConfig,
    searches: threads::SearchThreads,
    games: Arc<AtomicUsize>,
    /// Paces draughts searches while other live games are on the node (`pace`).
    pace: Option<engine::Pace>,
    metrics: Arc<Metrics>,
    tracker: TaskTracker,
    shutdown: CancellationToken,
    analyses: analysis::Analyses,
}

/// The computer as a player: `computer-<level>`, named "Computer level n".
pub fn player(level: u8) -> UserInfo {
    UserInfo {
        id: UserId(format!("computer-{level}")),
        name: format!("Computer level {level}"),
        guest: false,
        rating: None,
        bot: false,
    }
}

impl Computer {
    /// The computer players, their tasks tracked by `tracker` and stopped by `shutdown`;
    /// analyses are read from and stored in `db`.
    pub fn new(
        config: ComputerConfig,
        metrics: Arc<Metrics>,
        tracker: TaskTracker,
        shutdown: CancellationToken,
        db: Db,
    ) -> Arc<Computer> {
        let (analyses, queue) = analysis::Analyses::new(config.analysis_queue);
        let games = Arc::new(AtomicUsize::new(0));
        let (live, ours) = (metrics.clone(), games.clone());
        // Live games on the node other than the computer's own.
        let pace = pace::hook(config.live_share, move || {
            let computer_games = i64::try_from(ours.load(Ordering::Relaxed)).unwrap_or(i64::MAX);
            live.games_live.get() > computer_games
        });
        let computer = Arc::new(Computer {
            searches: threads::SearchThreads::start(config.max_searches, metrics.clone()),
            config,
            games,
            pace,
            metrics,
            tracker: tracker.clone(),
            shutdown,
            analyses,
        });
        tracker.spawn(computer.clone().run_analyses(db, queue));
        computer
    }

    /// Is `variant` played by the external Hub engine here?
    fn by_hub(&self, variant: Variant) -> bool {
        !self.config.hub_engine.trim().is_empty()
            && self
                .config
                .hub_variants
                .iter()
                .any(|v| v.eq_ignore_ascii_case(variant.name()))
    }

    /// Checks that the engine configured for `variant` can play it: an external Hub
    /// engine must declare the variant. Built-in engines always can.
    pub async fn check_engine(&self, variant: Variant) -> Result<(), ComputerError> {
        let Some(v) = variant.draughts().filter(|_| self.by_hub(variant)) else {
            return Ok(());
        };
        let command = self.config.hub_engine.clone();
        let probe = tokio::task::spawn_blocking(move || hub::plays(&command, v)).await;
        match probe {
            Ok(Ok(true)) => Ok(()),
            Ok(Ok(false)) => Err(ComputerError::EngineUnavailable(format!(
                "the engine configured for {variant} does not play it"
            ))),
            Ok(Err(e)) => Err(ComputerError::EngineUnavailable(format!(
                "the engine configured for {variant} does not answer: {e}"
            ))),
            Err(e) => Err(ComputerError::EngineUnavailable(e.to_string())),
        }
    }

    /// Starts a casual game of `human` against the computer and seats the computer.
    pub fn play(
        self: &Arc<Self>,
        games: &Arc<GameRegistry>,
        human: UserInfo,
        req: ComputerRequest,
    ) -> Result<GameHandle, ComputerError> {
        let level =
            engine::Level::new(req.level).map_err(|_| ComputerError::InvalidLevel(req.level))?;
        if let Some(fen) = &req.fen {
            let pos = Position::from_fen(req.variant, fen)
                .map_err(|e| ComputerError::InvalidPosition(format!("{}: {e}", req.variant)))?;
            if pos.legal_moves().is_empty() {
                return Err(ComputerError::InvalidPosition(
                    "the side to move has no legal move".into(),
                ));
            }
        }
        let taken = self.games.fetch_add(1, Ordering::SeqCst);
        if taken >= self.config.max_games {
            self.games.fetch_sub(1, Ordering::SeqCst);
            return Err(ComputerError::Busy);
        }
        let human_white = match req.color {
            ColorChoice::White => true,
            ColorChoice::Black => false,
            ColorChoice::Random => fastrand::bool(),
        };
        let bot = player(level.get());
        let (white, black) = if human_white {
            (human, bot)
        } else {
            (bot, human)
        };
        let started = games.start(GameSpec {
            variant: req.variant,
            time_control: req.time_control,
            rated: false,
            white,
            black,
            start_fen: req.fen,
            ruleset: None,
            tournament: None,
            arena: None,
            berserk: false,
        });
        let handle = match started {
            Ok(h) => h,
            Err(e) => {
                self.games.fetch_sub(1, Ordering::SeqCst);
                return Err(e.into());
            }
        };
        self.metrics.computer_games.inc();
        let color = if human_white {
            Color::Black
        } else {
            Color::White
        };
        let seat = seat::Seat::new(self.clone(), handle.clone(), color, level);
        self.tracker.spawn(seat.run());
        Ok(handle)
    }

    /// How many more games against the computer this node can hold.
    pub fn free_games(&self) -> usize {
        self.config
            .max_games
            .saturating_sub(self.games.load(Ordering::SeqCst))
    }

    /// Counts a `computer_play` answered `busy` (no node had room).
    pub fn refused_busy(&self) {
        self.metrics.computer_busy.inc();
    }

    /// Runs `search` on a search thread once one is free ([`threads`]).
    async fn search<T: Send + 'static>(
        &self,
        search: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        self.searches.run(search).await
    }

    fn game_over(&self) {
        self.games.fetch_sub(1, Ordering::SeqCst);
        self.metrics.computer_games.dec();
    }
}

/// A game so far, as the engines want it: the position, the keys of the positions
/// before it (oldest first) and the plies since the last capture or man move.
#[derive(Clone, Debug)]
pub(crate) struct Replayed {
    pub pos: Position,
    pub history: Vec<u64>,
    pub law_plies: u16,
}

impl Replayed {
    pub(crate) fn start(pos: Position) -> Replayed {
        Replayed {
            pos,
            history: Vec::new(),
            law_plies: 0,
        }
    }

    /// Plays the move written `text`.
    pub(crate) fn play(&mut self, text: &str) -> Result<(), String> {
        let mv = self.pos.parse_move(text).map_err(|e| e.to_string())?;
        self.law_plies = match (&self.pos, &mv) {
            (Position::Draughts(p), Move::Draughts(m)) => {
                let king = p.kings() & (1u64 << m.from()) != 0;
                if m.is_capture() || !king {
                    0
                } else {
                    self.law_plies.saturating_add(1)
                }
            }
            _ => 0,
        };
        self.history.push(self.pos.key());
        self.pos.play(&mv).map_err(|e| e.to_string())
    }
}
