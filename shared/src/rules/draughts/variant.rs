//! The draughts variants and the rules that shape their move generation, stated as data.
//!
//! Every variant is one [`Rules`] value; the move generator reads nothing else. Article
//! numbers refer to the rule texts in `../shared/seeds/` (IDF = the IDF 2016 rules of
//! draughts-64 with their appendices, INT = the 100-square rules, FRI = the Frisian rules).

use super::geometry::BoardSize;

/// A draughts variant of the rule texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DraughtsVariant {
    /// Russian draughts, the IDF "international version of draughts-64" (IDF section 1).
    Russian,
    /// Brazilian draughts (IDF appendix 1).
    Brazilian,
    /// Pool checkers (IDF appendix 2).
    Pool,
    /// Czech draughts (IDF appendix 3).
    Czech,
    /// Portuguese draughts (IDF appendix 4), mirrored board.
    Portuguese,
    /// Italian draughts (IDF appendix 5), mirrored board.
    Italian,
    /// International (100-square) draughts (INT).
    International,
    /// Frisian draughts (FRI).
    Frisian,
}

/// How squares are named in a variant's notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbering {
    /// Algebraic a1..h8 from White's side, a1 dark (IDF 6.4-6.5).
    Algebraic,
    /// 1..32 from White's side, right to left, on the mirrored board (IDF app. 4, 6.4).
    Portuguese,
    /// 1..32 from Black's side, left to right, on the mirrored board (IDF app. 5, 6.4).
    Italian,
    /// 1..50, square 1 at the top left seen from White (INT 3.3, FRI 3).
    Hundred,
}

/// How far a king travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KingRange {
    /// Any distance along a free line, landing on any free square beyond a captured piece.
    Flying,
    /// One square; captures only an adjacent piece, landing just beyond it (Italian).
    Short,
}

/// When a man that reaches its last row during a capture becomes a king.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crowning {
    /// At once: it goes on capturing as a king in the same move (Russian, IDF 5.13).
    MidCapture,
    /// Only if the move ends there; a man passing the last row mid-capture stays a man.
    EndOfMove,
}

/// One criterion a capture must maximise, applied in order: the capture moves that are
/// legal are those that are best by the first criterion, among them best by the second...
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// Most pieces taken, kings and men alike.
    MostPieces,
    /// Most kings taken.
    MostKings,
    /// A capture made by a king rather than by a man.
    ByKing,
    /// The route that meets the captured kings earliest (Italian federation rule).
    EarliestKings,
    /// Greatest weighted value, a man 32 and a king 63 (FRI 11): n kings are worth less
    /// than 2n men and more than 2n-1 men for every count that fits on the board.
    MostValue,
}

/// The rules that shape move generation in one variant.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// The variant these rules belong to.
    pub variant: DraughtsVariant,
    /// The board.
    pub board: BoardSize,
    /// Square names.
    pub numbering: Numbering,
    /// Men capture backwards as well as forwards.
    pub men_capture_backwards: bool,
    /// Men and kings also capture along rows and files (Frisian).
    pub orthogonal_captures: bool,
    /// A man may capture a king.
    pub man_captures_king: bool,
    /// King range for moving and capturing.
    pub king_range: KingRange,
    /// Crowning of a man that reaches the last row during a capture.
    pub crowning: Crowning,
    /// Capture choice: criteria to maximise, in order. Empty means free choice.
    pub priorities: &'static [Priority],
    /// While the player also has men, a king may make at most this many consecutive
    /// non-capturing moves (FRI 17).
    pub king_move_limit: Option<u8>,
    /// Separator written between the squares of a capture.
    pub capture_separator: char,
}

impl Rules {
    /// Men per side in the start position (and the most a side may have).
    pub fn men_per_side(&self) -> u32 {
        match self.board {
            BoardSize::Eight => 12,
            BoardSize::Ten => 20,
        }
    }
}

const RUSSIAN: Rules = Rules {
    variant: DraughtsVariant::Russian,
    board: BoardSize::Eight,
    numbering: Numbering::Algebraic,
    // IDF 5.3: captures forwards and backwards.
    men_capture_backwards: true,
    orthogonal_captures: false,
    man_captures_king: true,
    // IDF 3.8, 5.2: the king flies.
    king_range: KingRange::Flying,
    // IDF 5.13: a man reaching the last row mid-capture goes on as a king.
    crowning: Crowning::MidCapture,
    // IDF 5.12: free choice, whatever the count or quality.
    priorities: &[],
    king_move_limit: None,
    capture_separator: ':',
};

impl DraughtsVariant {
    /// Every draughts variant.
    pub const ALL: [DraughtsVariant; 8] = [
        DraughtsVariant::Russian,
        DraughtsVariant::Brazilian,
        DraughtsVariant::Pool,
        DraughtsVariant::Czech,
        DraughtsVariant::Portuguese,
        DraughtsVariant::Italian,
        DraughtsVariant::International,
        DraughtsVariant::Frisian,
    ];

    /// The rules of this variant.
    pub fn rules(self) -> &'static Rules {
        match self {
            DraughtsVariant::Russian => &RUSSIAN,
            DraughtsVariant::Brazilian => &BRAZILIAN,
            DraughtsVariant::Pool => &POOL,
            DraughtsVariant::Czech => &CZECH,
            DraughtsVariant::Portuguese => &PORTUGUESE,
            DraughtsVariant::Italian => &ITALIAN,
            DraughtsVariant::International => &INTERNATIONAL,
            DraughtsVariant::Frisian => &FRISIAN,
        }
    }

    /// The variant's name on the command line and the wire.
    pub const fn name(self) -> &'static str {
        match self {
            DraughtsVariant::Russian => "russian",
            DraughtsVariant::Brazilian => "brazilian",
            DraughtsVariant::Pool => "pool",
            DraughtsVariant::Czech => "czech",
            DraughtsVariant::Portuguese => "portuguese",
            DraughtsVariant::Italian => "italian",
            DraughtsVariant::International => "international",
            DraughtsVariant::Frisian => "frisian",
        }
    }
}

/// Brazilian (IDF app. 1): Russian moves, majority capture (5.12), a man passing the last
/// row mid-capture goes on as a man and is crowned only where its move ends (5.13-5.14).
const BRAZILIAN: Rules = Rules {
    variant: DraughtsVariant::Brazilian,
    crowning: Crowning::EndOfMove,
    priorities: &[Priority::MostPieces],
    ..RUSSIAN
};

/// Pool checkers (IDF app. 2): free choice as in Russian (5.1-5.12), crowning as in
/// Brazilian (5.13-5.15).
const POOL: Rules = Rules {
    variant: DraughtsVariant::Pool,
    crowning: Crowning::EndOfMove,
    ..RUSSIAN
};

/// Czech (IDF app. 3): men capture forwards only (5.3), kings both ways (5.4); where a
/// king can capture, a king must, whatever the count (5.13); crowned only at the end of a
/// move (5.14).
const CZECH: Rules = Rules {
    variant: DraughtsVariant::Czech,
    men_capture_backwards: false,
    crowning: Crowning::EndOfMove,
    priorities: &[Priority::ByKing],
    ..RUSSIAN
};

/// Portuguese (IDF app. 4): mirrored board (2.1.2) numbered from White's side right to
/// left (6.4); men capture forwards only (5.3); most pieces, then most kings (5.13-5.14);
/// crowned at the end of the move (5.15).
const PORTUGUESE: Rules = Rules {
    variant: DraughtsVariant::Portuguese,
    numbering: Numbering::Portuguese,
    men_capture_backwards: false,
    crowning: Crowning::EndOfMove,
    priorities: &[Priority::MostPieces, Priority::MostKings],
    ..RUSSIAN
};

/// Italian (IDF app. 5): mirrored board numbered from Black's side (6.4); kings move and
/// capture one square (3.8, 5.2, 5.8); men capture forwards only (5.3) and never a king
/// (5.4); most pieces, then most kings (5.14-5.15); crowned at the end of the move (5.16).
/// The Italian federation's further tie-breaks, a king's capture before a man's and then
/// the route meeting kings earliest, follow as the last two criteria. Because a man may
/// never take a king, putting "by king" after "most kings" orders captures exactly as the
/// federation's order (pieces, by king, kings, earliest) does.
const ITALIAN: Rules = Rules {
    variant: DraughtsVariant::Italian,
    numbering: Numbering::Italian,
    men_capture_backwards: false,
    man_captures_king: false,
    king_range: KingRange::Short,
    crowning: Crowning::EndOfMove,
    priorities: &[
        Priority::MostPieces,
        Priority::MostKings,
        Priority::ByKing,
        Priority::EarliestKings,
    ],
    ..RUSSIAN
};

/// International (INT 3.4): 10x10, majority capture with no privilege for kings (3.4.1),
/// a man passing the last row mid-capture stays a man (3.4.2).
const INTERNATIONAL: Rules = Rules {
    variant: DraughtsVariant::International,
    board: BoardSize::Ten,
    numbering: Numbering::Hundred,
    crowning: Crowning::EndOfMove,
    priorities: &[Priority::MostPieces],
    ..RUSSIAN
};

/// Frisian (FRI): captures along diagonals, rows and files (7, 9); the capture of
/// greatest value (11), a king's before a man's at equal value (12); crowning only at the
/// end of a move (8); at most three consecutive quiet moves with one king while the
/// player has men (17); captures written with `x` (22).
const FRISIAN: Rules = Rules {
    variant: DraughtsVariant::Frisian,
    board: BoardSize::Ten,
    numbering: Numbering::Hundred,
    orthogonal_captures: true,
    crowning: Crowning::EndOfMove,
    priorities: &[Priority::MostValue, Priority::ByKing],
    king_move_limit: Some(3),
    capture_separator: 'x',
    ..RUSSIAN
};
