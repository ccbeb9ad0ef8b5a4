//! Computer analysis of finished games: asked over HTTP (`api::analysis`), queued on the
//! node (one analysis a game, one a user per `computer.analysis_interval_secs`), run ply
//! by ply on the computer's search threads at full strength, stored with the archived
//! game (`analyses` table). Each ply gets the evaluation after it (White's point of
//! view, hundredths of a man or of a pawn), the engine's best move in the position
//! before it, and a mark by how much the move lost for its player against the best:
//! 50 an inaccuracy, 100 a mistake, 300 a blunder (lichess's first thresholds).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use engine::Limits;
use serde::Serialize;
use shared::rules::{Position, Variant};
use tokio::sync::mpsc;

use super::{Computer, Replayed, chess};
use crate::db::{ArchivedGame, Db};

/// The evaluation of a won (lost) position: ±10,000 minus the moves to the end.
const MATE: i32 = 10_000;
/// Loss thresholds of the marks, in hundredths of a man (draughts) or pawn (chess).
pub const INACCURACY: i32 = 50;
/// See [`INACCURACY`].
pub const MISTAKE: i32 = 100;
/// See [`INACCURACY`].
pub const BLUNDER: i32 = 300;

/// One ply of an analysis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ply {
    /// 1 for the first move.
    pub ply: usize,
    /// Who played it.
    pub by: shared::rules::Color,
    /// The move played.
    #[serde(rename = "move")]
    pub played: String,
    /// The evaluation after it, from White's point of view.
    pub eval: i32,
    /// Moves to a forced end after it (positive: White wins), when the engine sees one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    /// The engine's move in the position before it.
    pub best: String,
    /// `inaccuracy`, `mistake` or `blunder`; `null` for a good move.
    pub mark: Option<&'static str>,
}

/// Why an analysis was not queued.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisRefusal {
    /// The user asked for another one too recently.
    #[error("one analysis every {0} s: try again later")]
    TooSoon(u64),
    /// The queue is full.
    #[error("the analysis queue is full: try again shortly")]
    Busy,
    /// The database failed.
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
}

/// The node's analysis queue and its per-user limit.
pub(super) struct Analyses {
    queue: mpsc::Sender<String>,
    last_asked: Mutex<HashMap<String, Instant>>,
}

impl Analyses {
    pub(super) fn new(capacity: usize) -> (Analyses, mpsc::Receiver<String>) {
        let (queue, rx) = mpsc::channel(capacity.max(1));
        let analyses = Analyses {
            queue,
            last_asked: Mutex::new(HashMap::new()),
        };
        (analyses, rx)
    }
}

impl Computer {
    /// Queues the analysis of the archived game `game` for `user`. `Ok(false)`: the game
    /// has an analysis already (queued, running or done).
    pub async fn request_analysis(
        &self,
        db: &Db,
        game: &str,
        user: &str,
    ) -> Result<bool, AnalysisRefusal> {
        let interval = Duration::from_secs(self.config.analysis_interval_secs);
        {
            let mut last = self
                .analyses
                .last_asked
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let now = Instant::now();
            last.retain(|_, at| now.duration_since(*at) < interval);
            if last.contains_key(user) {
                return Err(AnalysisRefusal::TooSoon(interval.as_secs()));
            }
            last.insert(user.to_string(), now);
        }
        if !db
            .queue_analysis(game, user, crate::cluster::redis::wall_ms() as i64)
            .await?
        {
            return Ok(false);
        }
        if self.analyses.queue.try_send(game.to_string()).is_err() {
            db.drop_analysis(game).await?;
            return Err(AnalysisRefusal::Busy);
        }
        Ok(true)
    }

    /// Runs the queued analyses one after another until shutdown.
    pub(super) async fn run_analyses(self: Arc<Self>, db: Db, mut queue: mpsc::Receiver<String>) {
        loop {
            let game = tokio::select! {
                () = self.shutdown.cancelled() => return,
                next = queue.recv() => match next {
                    Some(g) => g,
                    None => return,
                },
            };
            let outcome = self.analyse_game(&db, &game).await;
            let stored = match outcome {
                Ok(plies) => match serde_json::to_string(&plies) {
                    Ok(json) => db.set_analysis(&game, "done", Some(&json)).await,
                    Err(e) => {
                        tracing::error!(game, error = %e, "analysis not serialisable");
                        db.set_analysis(&game, "failed", None).await
                    }
                },
                Err(e) => {
                    tracing::warn!(game, error = %e, "analysis failed");
                    db.set_analysis(&game, "failed", None).await
                }
            };
            if let Err(e) = stored {
                tracing::error!(game, error = %e, "cannot store an analysis");
            }
        }
    }

    async fn analyse_game(&self, db: &Db, id: &str) -> Result<Vec<Ply>, String> {
        db.set_analysis(id, "running", None)
            .await
            .map_err(|e| e.to_string())?;
        let game = db
            .game(id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the game is not archived")?;
        let positions = replay(&game)?;
        let mut scores = Vec::with_capacity(positions.len());
        for (i, at) in positions.iter().enumerate() {
            let (pos, history, law) = (at.pos.clone(), at.history.clone(), at.law_plies);
            let (ms, uci) = (self.config.analysis_ply_ms, self.config.uci_engine.clone());
            let found = self
                .search(move || evaluate(&pos, &history, law, ms, &uci))
                .await
                .ok_or("the search failed")?;
            tracing::debug!(game = id, ply = i, "analysed");
            scores.push(found);
        }
        Ok(plies(&game, &positions, &scores))
    }
}

/// Every position of the game, with the keys before it and its kings-only count.
fn replay(game: &ArchivedGame) -> Result<Vec<Replayed>, String> {
    let variant: Variant = game.variant.parse().map_err(|e| format!("{e}"))?;
    let start = match &game.start_fen {
        Some(fen) => Position::from_fen(variant, fen).map_err(|e| e.to_string())?,
        None => Position::start(variant),
    };
    let mut now = Replayed::start(start);
    let mut out = vec![now.clone()];
    for m in &game.moves {
        now.play(&m.san)?;
        out.push(now.clone());
    }
    Ok(out)
}

/// The best move (empty at the end of the game) and the score for the side to move.
fn evaluate(pos: &Position, history: &[u64], law: u16, ms: u64, uci: &str) -> (String, i32) {
    if pos.legal_moves().is_empty() {
        return match pos {
            Position::Chess(p) if !p.is_check() => (String::new(), 0),
            _ => (String::new(), -MATE),
        };
    }
    match pos {
        Position::Chess(p) => {
            let (text, score) = chess::analyse(uci, p, ms);
            (text, score)
        }
        Position::Draughts(_) => {
            let limits = Limits {
                movetime_ms: Some(ms),
                law_plies: law,
                ..Limits::default()
            };
            match engine::analyse(pos, history, &limits) {
                Ok(t) => (pos.move_text(&t.best), t.score.as_centi()),
                Err(_) => (String::new(), 0),
            }
        }
    }
}

fn plies(game: &ArchivedGame, positions: &[Replayed], scores: &[(String, i32)]) -> Vec<Ply> {
    let mut out = Vec::with_capacity(game.moves.len());
    for (i, m) in game.moves.iter().enumerate() {
        let by = positions[i].pos.side_to_move();
        let white_moved = by == shared::rules::Color::White;
        let before = scores[i].1;
        let after = -scores[i + 1].1;
        let lost = before - after;
        let mark = if lost >= BLUNDER {
            Some("blunder")
        } else if lost >= MISTAKE {
            Some("mistake")
        } else if lost >= INACCURACY {
            Some("inaccuracy")
        } else {
            None
        };
        let eval = if white_moved { after } else { -after };
        let mate = (eval.abs() >= MATE - 1_000).then(|| {
            let n = MATE - eval.abs();
            if eval > 0 { n } else { -n }
        });
        out.push(Ply {
            ply: i + 1,
            by,
            played: m.san.clone(),
            eval: eval.clamp(-MATE, MATE),
            mate,
            best: scores[i].0.clone(),
            mark,
        });
    }
    out
}
