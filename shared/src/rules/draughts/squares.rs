//! Square names in every draughts variant's notation: algebraic (IDF 8x8), the
//! Portuguese and Italian 1..32 numberings, and 1..50 on the 10x10 board.

use super::geometry::Geometry;
use super::variant::{Numbering, Rules};

/// The name of an internal square index in a variant's notation.
pub fn square_name(rules: &Rules, sq: u8) -> String {
    let mut out = String::with_capacity(2);
    push_square_name(&mut out, rules, sq);
    out
}

/// Appends the name of an internal square index in a variant's notation to `out`
/// without allocating a string of its own (a FEN names up to 40 squares, a move text
/// several).
pub fn push_square_name(out: &mut String, rules: &Rules, sq: u8) {
    match rules.numbering {
        Numbering::Algebraic => {
            let (row, col) = Geometry::of(rules.board).coords(sq);
            out.push(char::from(b'a' + col));
            out.push(char::from(b'0' + (8 - row)));
        }
        _ => {
            let n = square_number(rules, sq);
            if n >= 10 {
                out.push(char::from(b'0' + n / 10));
            }
            out.push(char::from(b'0' + n % 10));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::draughts::DraughtsVariant;

    /// Every square of every variant is named as its notation writes it: a numeric
    /// name is the square's number, an algebraic one a file and a rank; each parses back.
    #[test]
    fn every_square_is_named_in_its_notation_and_parses_back() {
        for v in DraughtsVariant::ALL {
            let rules = v.rules();
            for sq in 0..Geometry::of(rules.board).squares {
                let name = square_name(rules, sq);
                match rules.numbering {
                    Numbering::Algebraic => {
                        let (row, col) = Geometry::of(rules.board).coords(sq);
                        assert_eq!(name, format!("{}{}", (b'a' + col) as char, 8 - row));
                    }
                    _ => assert_eq!(name, square_number(rules, sq).to_string()),
                }
                assert_eq!(parse_square(rules, &name), Some(sq), "{v:?} {name}");
            }
        }
    }
}
