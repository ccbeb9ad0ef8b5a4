//! Chess and Chess960 (FIDE Laws, Appendix F), wrapping the `shakmaty` crate rather than
//! writing chess move generation again. Owns the translation between shakmaty's types
//! and damka's game-level interface: FEN, SAN and UCI text, perft, the repetition key,
//! and the facts the game law asks of a chess position (mate, stalemate, dead position,
//! whether a side can still mate).

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Board, CastlingMode, EnPassantMode, FromSetup, Position as _, Setup, Square};

use crate::rules::{Color, MoveParseError};

/// A chess move (SAN and UCI are ways of writing it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChessMove(pub shakmaty::Move);

/// Why a chess FEN or start index was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChessFenError {
    /// Not FEN.
    #[error("malformed FEN: {0}")]
    Malformed(String),
    /// FEN of an illegal position.
    #[error("illegal position: {0}")]
    Illegal(String),
    /// A Chess960 start index outside 0..960.
    #[error("Chess960 start positions are numbered 0 to 959, not {0}")]
    BadIndex(u32),
}

/// A chess or Chess960 position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChessPosition {
    pos: shakmaty::Chess,
    mode: CastlingMode,
}

/// The Chess960 index of the standard start position in Scharnagl's numbering.
pub const STANDARD_960_INDEX: u32 = 518;

impl ChessPosition {
    /// The standard start position.
    pub fn start() -> ChessPosition {
        ChessPosition {
            pos: shakmaty::Chess::default(),
            mode: CastlingMode::Standard,
        }
    }

    /// Chess960 start position number `index` (0..960, Scharnagl's numbering; 518 is
    /// the standard array). FIDE Appendix F: the king stands between the rooks, the
    /// bishops on squares of opposite colours, Black mirrors White.
    pub fn start960(index: u32) -> Result<ChessPosition, ChessFenError> {
        if index >= 960 {
            return Err(ChessFenError::BadIndex(index));
        }
        let board = Board::chess960(index);
        let setup = Setup {
            castling_rights: board.rooks(),
            board,
            ..Setup::empty()
        };
        let pos = shakmaty::Chess::from_setup(setup, CastlingMode::Chess960)
            .map_err(|e| ChessFenError::Illegal(e.to_string()))?;
        Ok(ChessPosition {
            pos,
            mode: CastlingMode::Chess960,
        })
    }

    /// Parses FEN (Shredder or X-FEN castling for Chess960).
    pub fn from_fen(fen: &str, chess960: bool) -> Result<ChessPosition, ChessFenError> {
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let parsed: Fen = fen
            .trim()
            .parse()
            .map_err(|e: shakmaty::fen::ParseFenError| ChessFenError::Malformed(e.to_string()))?;
        let pos = parsed
            .into_position(mode)
            .map_err(|e| ChessFenError::Illegal(e.to_string()))?;
        Ok(ChessPosition { pos, mode })
    }

    /// The position as FEN.
    pub fn fen(&self) -> String {
        Fen::from_position(&self.pos, EnPassantMode::Legal).to_string()
    }

    /// Is this a Chess960 game?
    pub fn is_chess960(&self) -> bool {
        self.mode == CastlingMode::Chess960
    }

    /// The wrapped shakmaty position.
    pub fn inner(&self) -> &shakmaty::Chess {
        &self.pos
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        color_of(self.pos.turn())
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> Vec<ChessMove> {
        self.pos.legal_moves().into_iter().map(ChessMove).collect()
    }

    /// Reads a move in UCI (`e2e4`, `e7e8q`; in Chess960 castling is king-takes-rook,
    /// `e1h1`) or SAN (`Nf3`, `exd5`, `O-O`, with or without `+`/`#`).
    pub fn parse_move(&self, text: &str) -> Result<ChessMove, MoveParseError> {
        let text = text.trim();
        if let Ok(uci) = text.parse::<UciMove>() {
            return uci
                .to_move(&self.pos)
                .map(ChessMove)
                .map_err(|_| MoveParseError::NoSuchMove(text.to_string()));
        }
        let san_text = text.trim_end_matches(['+', '#', '!', '?']);
        let san: San = san_text
            .parse()
            .map_err(|_| MoveParseError::Malformed(format!("`{text}` is neither UCI nor SAN")))?;
        match san.to_move(&self.pos) {
            Ok(m) => Ok(ChessMove(m)),
            Err(SanError::IllegalSan) => Err(MoveParseError::NoSuchMove(text.to_string())),
            Err(SanError::AmbiguousSan) => Err(MoveParseError::Ambiguous {
                input: text.to_string(),
                candidates: self
                    .pos
                    .legal_moves()
                    .into_iter()
                    .filter(|m| san.matches(*m))
                    .map(|m| self.san(&ChessMove(m)))
                    .collect(),
            }),
        }
    }

    /// The move in SAN with its check or mate suffix (FIDE Appendix C).
    pub fn san(&self, mv: &ChessMove) -> String {
        shakmaty::san::SanPlus::from_move(self.pos.clone(), mv.0).to_string()
    }

    /// The move in UCI.
    pub fn uci(&self, mv: &ChessMove) -> String {
        mv.0.to_uci(self.mode).to_string()
    }

    /// Origin, destination and the square of the captured piece, as UCI square names.
    pub fn move_squares(&self, mv: &ChessMove) -> (String, String, Option<String>) {
        let m = &mv.0;
        let from = m.from().map(|s| s.to_string()).unwrap_or_default();
        let captured = match m {
            shakmaty::Move::EnPassant { from, to } => {
                Some(Square::from_coords(to.file(), from.rank()).to_string())
            }
            shakmaty::Move::Normal {
                capture: Some(_),
                to,
                ..
            } => Some(to.to_string()),
            _ => None,
        };
        let to = match m {
            shakmaty::Move::Castle { .. } => {
                // Write castling as the king's two-square move in standard chess and as
                // king-takes-rook in Chess960, like the UCI text.
                let uci = self.uci(mv);
                uci.get(2..4).unwrap_or_default().to_string()
            }
            _ => m.to().to_string(),
        };
        (from, to, captured)
    }

    /// Plays a legal move.
    pub fn play_unchecked(&mut self, mv: &ChessMove) {
        self.pos.play_unchecked(mv.0);
    }

    /// The position after a legal move.
    pub fn after(&self, mv: &ChessMove) -> ChessPosition {
        let mut next = self.clone();
        next.play_unchecked(mv);
        next
    }

    /// Leaf count of the legal-move tree.
    pub fn perft(&self, depth: u32) -> u64 {
        shakmaty::perft(&self.pos, depth)
    }

    /// The repetition key (FIDE 9.2.3: same pieces on the same squares, same side to
    /// move, same castling and en passant possibilities).
    pub fn key(&self) -> u64 {
        let z: Zobrist64 = self.pos.zobrist_hash(EnPassantMode::Legal);
        z.0
    }

    /// Is the side to move in check?
    pub fn is_check(&self) -> bool {
        self.pos.is_check()
    }

    /// Is the side to move checkmated (FIDE 5.1.1)?
    pub fn is_checkmate(&self) -> bool {
        self.pos.is_checkmate()
    }

    /// Is the side to move stalemated (FIDE 5.2.1)?
    pub fn is_stalemate(&self) -> bool {
        self.pos.is_stalemate()
    }

    /// A dead position (FIDE 5.2.2) recognised by material: neither side can mate by any
    /// series of legal moves. Blocked-pawn fortresses are not detected.
    pub fn is_dead_position(&self) -> bool {
        self.pos.is_insufficient_material()
    }

    /// Could `color` still mate by some series of legal moves? (FIDE 6.9: a flag falls
    /// to a draw when the opponent cannot.)
    pub fn can_mate(&self, color: Color) -> bool {
        !self.pos.has_insufficient_material(shakmaty_color(color))
    }

    /// Half-moves since the last capture or pawn move (FIDE 9.3).
    pub fn halfmove_clock(&self) -> u32 {
        self.pos.halfmoves()
    }

    /// Does the move capture or move a pawn (resetting the 50-move count)?
    pub fn is_zeroing(&self, mv: &ChessMove) -> bool {
        mv.0.is_zeroing()
    }
}

fn color_of(c: shakmaty::Color) -> Color {
    match c {
        shakmaty::Color::White => Color::White,
        shakmaty::Color::Black => Color::Black,
    }
}

fn shakmaty_color(c: Color) -> shakmaty::Color {
    match c {
        Color::White => shakmaty::Color::White,
        Color::Black => shakmaty::Color::Black,
    }
}
