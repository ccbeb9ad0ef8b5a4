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

use super::moves::Move;
use super::position::Position;
use super::squares::{parse_square, square_name};
use super::variant::Rules;
use crate::rules::MoveParseError;

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
