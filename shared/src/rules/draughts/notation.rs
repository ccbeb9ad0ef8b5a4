//! Square names and move text for every draughts variant: writing a move with its full
//! route, and reading what a client typed (short or full route) into exactly one legal
//! move or a typed error.
//!
//! - IDF 8x8 variants: algebraic squares, `c3-d4`, captures `c3:e5:g3` (IDF 6.7-6.9).
//! - Portuguese and Italian: their own 1..32 numbering, `31-17`, `31:17` (app. 4 and 5, 6.5).
//! - International: `32-28`, `47:24:8:17:6` (INT 3.3).
//! - Frisian: `46-41`, `46x37` (FRI 22).
//!
//! The server always writes the full route (every landing square). When reading, any of
//! `-`, `:` and `x` separates squares, the intermediate squares given must be landing
//! squares of the route in order (turning squares are enough, IDF 6.9), and a move that
//! is still ambiguous is refused with the candidates listed.

use super::geometry::Geometry;
use super::movegen::Move;
use super::position::Position;
use super::variant::{Numbering, Rules};
use crate::rules::MoveParseError;

/// The name of an internal square index in a variant's notation.
pub fn square_name(rules: &Rules, sq: u8) -> String {
    match rules.numbering {
        Numbering::Algebraic => {
            let (row, col) = Geometry::of(rules.board).coords(sq);
            format!("{}{}", (b'a' + col) as char, 8 - row)
        }
        _ => square_number(rules, sq).to_string(),
    }
}

/// The number of a square in a numeric notation (Portuguese, Italian, 10x10). For the
/// algebraic variants this is the internal index plus one (b8 = 1 ... g1 = 32).
pub fn square_number(rules: &Rules, sq: u8) -> u8 {
    match rules.numbering {
        // Portuguese n: rank (n-1)/4 + 1 from White, counted right to left on the
        // mirrored board, which is left to right on ours.
        Numbering::Portuguese => {
            let row = sq / 4;
            (7 - row) * 4 + sq % 4 + 1
        }
        // Italian n: row (n-1)/4 from Black, left to right on the mirrored board, which
        // is right to left on ours.
        Numbering::Italian => (sq / 4) * 4 + (3 - sq % 4) + 1,
        Numbering::Algebraic | Numbering::Hundred => sq + 1,
    }
}

/// Parses a square name of a variant into an internal index.
pub fn parse_square(rules: &Rules, text: &str) -> Option<u8> {
    let geo = Geometry::of(rules.board);
    match rules.numbering {
        Numbering::Algebraic => {
            let b = text.as_bytes();
            if b.len() != 2 {
                return None;
            }
            let col = b[0].to_ascii_lowercase().checked_sub(b'a')?;
            let rank = b[1].checked_sub(b'0')?;
            if !(1..=8).contains(&rank) {
                return None;
            }
            geo.square_at(8 - rank, col)
        }
        _ => {
            if text.is_empty() || text.len() > 2 || !text.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let n: u8 = text.parse().ok()?;
            if !(1..=geo.squares).contains(&n) {
                return None;
            }
            let (row, k) = ((n - 1) / 4, (n - 1) % 4);
            Some(match rules.numbering {
                Numbering::Portuguese => (7 - row) * 4 + k,
                Numbering::Italian => row * 4 + 3 - k,
                Numbering::Algebraic | Numbering::Hundred => n - 1,
            })
        }
    }
}

/// Writes a move with its full route: `c3-d4`, `c3:e5:g3`, `46x37x28`.
pub fn move_text(rules: &Rules, mv: &Move) -> String {
    let sep = if mv.is_capture() {
        rules.capture_separator
    } else {
        '-'
    };
    let mut text = String::new();
    for (i, sq) in mv.route().into_iter().enumerate() {
        if i > 0 {
            text.push(sep);
        }
        text.push_str(&square_name(rules, sq));
    }
    text
}

impl Position {
    /// Reads a move typed by a client, short or with (part of) its route.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveParseError> {
        let rules = self.rules();
        let trimmed = text.trim();
        let parts: Vec<&str> = trimmed.split(['-', ':', 'x', 'X']).collect();
        if parts.len() < 2 {
            return Err(MoveParseError::Malformed(format!(
                "`{trimmed}`: a move names at least two squares separated by `-`, `:` or `x`"
            )));
        }
        let mut squares = Vec::with_capacity(parts.len());
        for part in &parts {
            match parse_square(rules, part) {
                Some(sq) => squares.push(sq),
                None => {
                    return Err(MoveParseError::Malformed(format!(
                        "`{part}` is not a square of {}",
                        rules.variant.name()
                    )));
                }
            }
        }
        let (from, to) = (squares[0], squares[squares.len() - 1]);
        let via = &squares[1..squares.len() - 1];
        let routes = self.legal_routes();
        // A full route names one move exactly: within one capture segment the landing
        // squares fix the piece taken. Only when no route matches in full are the given
        // squares read as some of the landing squares (turning squares, IDF 6.9).
        if let Some(exact) = routes.iter().find(|r| r.route() == squares) {
            return Ok(self.canonical(exact));
        }
        let mut found: Vec<Move> = Vec::new();
        for route in routes {
            if route.from() != from || route.to() != to {
                continue;
            }
            if !via.is_empty() && !is_subsequence(via, route.landings()) {
                continue;
            }
            if !found.contains(&route) {
                found.push(route);
            }
        }
        match found.len() {
            0 => Err(MoveParseError::NoSuchMove(trimmed.to_string())),
            1 => Ok(self.canonical(&found[0])),
            _ => Err(MoveParseError::Ambiguous {
                input: trimmed.to_string(),
                candidates: found.iter().map(|m| move_text(rules, m)).collect(),
            }),
        }
    }

    /// The move as the generator records it (its canonical route).
    fn canonical(&self, route: &Move) -> Move {
        self.legal_moves()
            .into_iter()
            .find(|m| m == route)
            .unwrap_or(*route)
    }

    /// The move's text in the variant's notation, with the full route.
    pub fn move_text(&self, mv: &Move) -> String {
        move_text(self.rules(), mv)
    }
}

fn is_subsequence(needle: &[u8], hay: &[u8]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}
