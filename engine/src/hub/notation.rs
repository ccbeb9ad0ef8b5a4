//! Positions and moves as the Hub protocol writes them: squares by number in each
//! variant's standard order (1..50 on 10x10; 1..32 on 8x8: the official numbering of
//! Portuguese and Italian, and for the other 8x8 variants the 10x10 scheme, square 1
//! being the top-left playing square as White sees the board: b8 = 1 ... g1 = 32);
//! a position is the side to move (`W`/`B`) and one of `w b W B e` per square; a quiet
//! move is `from-to`, a capture `fromxto` followed by `x` and every captured square in
//! any order ("28x19x23").

use shared::rules::Color;
use shared::rules::draughts::{DraughtsVariant, Move, Position, square_number};

/// Why a Hub position or move was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    #[error("position `{0}`: expected the side (W or B) and {1} squares of w, b, W, B or e")]
    BadPosition(String, usize),
    #[error("position `{0}` is not legal: {1}")]
    IllegalPosition(String, String),
    #[error("move `{0}` is not written as from-to or fromxto(xcaptured)*")]
    BadMove(String),
    #[error("move `{0}` is not legal in this position")]
    IllegalMove(String),
}

fn index_of(variant: DraughtsVariant, n: u8) -> Option<u8> {
    let rules = variant.rules();
    let squares = Position::start(variant).geometry().squares;
    (0..squares).find(|&sq| square_number(rules, sq) == n)
}

/// Reads a Hub position of `variant`.
pub fn parse_position(variant: DraughtsVariant, text: &str) -> Result<Position, NotationError> {
    let squares = usize::from(Position::start(variant).geometry().squares);
    let bad = || NotationError::BadPosition(text.to_string(), squares);
    let bytes = text.as_bytes();
    if bytes.len() != squares + 1 {
        return Err(bad());
    }
    let side = match bytes[0] {
        b'W' => Color::White,
        b'B' => Color::Black,
        _ => return Err(bad()),
    };
    let (mut white, mut black, mut kings) = (0u64, 0u64, 0u64);
    for (i, &c) in bytes[1..].iter().enumerate() {
        let sq = index_of(variant, (i + 1) as u8).ok_or_else(bad)?;
        let bit = 1u64 << sq;
        match c {
            b'w' => white |= bit,
            b'b' => black |= bit,
            b'W' => {
                white |= bit;
                kings |= bit;
            }
            b'B' => {
                black |= bit;
                kings |= bit;
            }
            b'e' => {}
            _ => return Err(bad()),
        }
    }
    Position::new(variant, white, black, kings, side, [None, None])
        .map_err(|e| NotationError::IllegalPosition(text.to_string(), e.to_string()))
}

/// Writes a position as the Hub protocol does.
pub fn position_text(p: &Position) -> String {
    let rules = p.rules();
    let squares = p.geometry().squares;
    let mut cells = vec![b'e'; usize::from(squares)];
    for sq in 0..squares {
        let bit = 1u64 << sq;
        let king = p.kings() & bit != 0;
        let c = if p.pieces(Color::White) & bit != 0 {
            if king { b'W' } else { b'w' }
        } else if p.pieces(Color::Black) & bit != 0 {
            if king { b'B' } else { b'b' }
        } else {
            continue;
        };
        cells[usize::from(square_number(rules, sq) - 1)] = c;
    }
    let side = if p.side_to_move() == Color::White {
        'W'
    } else {
        'B'
    };
    let mut text = String::with_capacity(cells.len() + 1);
    text.push(side);
    text.extend(cells.into_iter().map(char::from));
    text
}

/// Writes a legal move of `p` as the Hub protocol does.
pub fn move_text(p: &Position, mv: &Move) -> String {
    let rules = p.rules();
    let n = |sq: u8| square_number(rules, sq).to_string();
    if !mv.is_capture() {
        return format!("{}-{}", n(mv.from()), n(mv.to()));
    }
    let mut text = format!("{}x{}", n(mv.from()), n(mv.to()));
    for &sq in mv.taken() {
        text.push('x');
        text.push_str(&n(sq));
    }
    text
}

/// Reads a Hub move and finds the legal move of `p` it names.
pub fn parse_move(p: &Position, text: &str) -> Result<Move, NotationError> {
    let bad = || NotationError::BadMove(text.to_string());
    let capture = text.contains('x');
    let parts: Vec<&str> = if capture {
        text.split('x').collect()
    } else {
        text.split('-').collect()
    };
    if parts.len() < 2 || (!capture && parts.len() != 2) {
        return Err(bad());
    }
    let mut squares = Vec::with_capacity(parts.len());
    for part in parts {
        let n: u8 = part.trim().parse().map_err(|_| bad())?;
        squares.push(index_of(p.variant(), n).ok_or_else(bad)?);
    }
    let captures = squares[2..].iter().fold(0u64, |acc, &sq| acc | 1u64 << sq);
    p.legal_moves()
        .into_iter()
        .find(|m| {
            m.from() == squares[0]
                && m.to() == squares[1]
                && m.is_capture() == capture
                && (captures == 0 || m.captures() == captures)
        })
        .ok_or_else(|| NotationError::IllegalMove(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_positions_read_back_in_every_variant() {
        for v in DraughtsVariant::ALL {
            let start = Position::start(v);
            let text = position_text(&start);
            assert_eq!(text.len(), usize::from(start.geometry().squares) + 1);
            assert_eq!(parse_position(v, &text), Ok(start), "{v:?}");
        }
        let intl = position_text(&Position::start(DraughtsVariant::International));
        assert_eq!(
            intl,
            format!("W{}{}{}", "b".repeat(20), "e".repeat(10), "w".repeat(20))
        );
    }

    #[test]
    fn moves_read_back_and_bad_ones_are_refused() {
        let p = Position::start(DraughtsVariant::International);
        for mv in p.legal_moves() {
            assert_eq!(parse_move(&p, &move_text(&p, &mv)), Ok(mv));
        }
        assert!(parse_move(&p, "32-27").is_ok());
        assert!(matches!(
            parse_move(&p, "32-23"),
            Err(NotationError::IllegalMove(_))
        ));
        assert!(matches!(
            parse_move(&p, "3a-27"),
            Err(NotationError::BadMove(_))
        ));
        assert!(matches!(
            parse_move(&p, "99-27"),
            Err(NotationError::BadMove(_))
        ));
    }
}
