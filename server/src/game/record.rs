//! The seam to `shared::law`: the game record above a position (moves, takebacks, the
//! result when the rules end the game). Built on `shared::rules` alone until the law
//! lands; then this file wraps `law` instead, and draw offers, claims and N-move rules
//! come from there.

use shared::protocol::{Outcome, OutcomeReason};
use shared::rules::{Color, MoveInfo, Position, Variant};

/// Position, history and result of one game.
#[derive(Clone, Debug)]
pub struct Record {
    initial: Position,
    positions: Vec<Position>,
    moves: Vec<String>,
    outcome: Option<Outcome>,
}

impl Record {
    /// A game from the variant's start position.
    pub fn new(variant: Variant) -> Record {
        let initial = Position::start(variant);
        Record {
            positions: vec![initial.clone()],
            initial,
            moves: Vec::new(),
            outcome: None,
        }
    }

    fn position(&self) -> &Position {
        // `positions` always holds the initial position at least.
        self.positions.last().unwrap_or(&self.initial)
    }

    /// Plays a move typed by a client; on success, the move described, and the result
    /// if the rules end the game here.
    pub fn play(&mut self, text: &str) -> Result<MoveInfo, String> {
        let position = self.position();
        let mv = position.parse_move(text).map_err(|e| e.to_string())?;
        let info = position.move_info(&mv);
        let mut next = position.clone();
        next.play(&mv).map_err(|e| e.to_string())?;
        let mover = position.side_to_move();
        self.outcome = rules_outcome(&next, mover);
        self.positions.push(next);
        self.moves.push(info.text.clone());
        Ok(info)
    }

    /// Takes back `plies` moves (at most all of them).
    pub fn take_back(&mut self, plies: usize) {
        let plies = plies.min(self.moves.len());
        self.moves.truncate(self.moves.len() - plies);
        self.positions.truncate(self.moves.len() + 1);
    }

    /// Can `by` offer a draw now? (The law will forbid some offers; the seam allows all.)
    pub fn may_offer_draw(&self, _by: Color) -> Result<(), String> {
        Ok(())
    }

    /// Claims a draw by rule. The seam knows no draw rules yet, so every claim fails.
    pub fn claim_draw(&self, _by: Color) -> Result<Outcome, String> {
        Err("no draw rule applies".into())
    }

    /// The result when `loser`'s flag falls: a win for the opponent, or a draw if the
    /// opponent cannot possibly win (chess: insufficient mating material).
    pub fn flag_outcome(&self, loser: Color) -> Outcome {
        let winner = loser.opponent();
        let can_win = match self.position() {
            Position::Chess(p) => p.can_mate(winner),
            Position::Draughts(_) => true,
        };
        Outcome {
            winner: can_win.then_some(winner),
            reason: OutcomeReason::Timeout,
            detail: None,
        }
    }

    /// The result if the rules have ended the game.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Ends the game with a result from outside the rules (resignation, agreement...).
    pub fn finish(&mut self, outcome: Outcome) {
        self.outcome = Some(outcome);
    }

    /// Start position FEN.
    pub fn initial_fen(&self) -> String {
        self.initial.fen()
    }

    /// Current FEN.
    pub fn fen(&self) -> String {
        self.position().fen()
    }

    /// Every move so far.
    pub fn moves(&self) -> &[String] {
        &self.moves
    }

    /// Plies played.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// Side to move.
    pub fn turn(&self) -> Color {
        self.position().side_to_move()
    }
}

/// The rules' verdict after `mover` moved into `next`.
fn rules_outcome(next: &Position, mover: Color) -> Option<Outcome> {
    let done = |winner: Option<Color>, reason| {
        Some(Outcome {
            winner,
            reason,
            detail: None,
        })
    };
    match next {
        Position::Chess(p) if p.is_checkmate() => done(Some(mover), OutcomeReason::Checkmate),
        Position::Chess(p) if p.is_stalemate() => done(None, OutcomeReason::Stalemate),
        Position::Chess(p) if p.is_dead_position() => {
            done(None, OutcomeReason::InsufficientMaterial)
        }
        Position::Chess(_) => None,
        Position::Draughts(p) if p.pieces(mover.opponent()) == 0 => {
            done(Some(mover), OutcomeReason::NoPieces)
        }
        Position::Draughts(_) if next.legal_moves().is_empty() => {
            done(Some(mover), OutcomeReason::NoMoves)
        }
        Position::Draughts(_) => None,
    }
}
