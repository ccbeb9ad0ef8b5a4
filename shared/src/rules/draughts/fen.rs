//! FEN for draughts positions, in the PDN style `W:W31,32,K45:B1,2`.
//!
//! Fields are separated by `:`. The first names the side to move (`W` or `B`); a field
//! starting with `W` or `B` lists that side's pieces, kings prefixed with `K`, in the
//! variant's own square names (algebraic for the IDF 8x8 variants, numbers for the
//! others); numeric lists may use ranges (`31-50`). `H` and `F` fields (half-move clock
//! and move number, written by some programs) are read and ignored: damka keeps those
//! counts in the game record. Frisian adds one field per side with a king-move run under
//! way (FRI 17): `MW45/2` says White's king on 45 has made two consecutive non-capturing
//! moves. Writing always lists squares in notation order and round-trips exactly.

use super::geometry::Geometry;
use super::position::{KingRun, Position, PositionError};
use super::squares::{parse_square, push_square_name, square_name, square_number};
use super::variant::{DraughtsVariant, Numbering, Rules};
use crate::rules::Color;

/// Why a FEN was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DraughtsFenError {
    /// The text does not follow the FEN grammar.
    #[error("malformed FEN: {0}")]
    Malformed(String),
    /// The FEN is well formed but describes an illegal position.
    #[error("illegal position: {0}")]
    Illegal(#[from] PositionError),
}

fn malformed(msg: impl Into<String>) -> DraughtsFenError {
    DraughtsFenError::Malformed(msg.into())
}

impl Position {
    /// Parses a FEN of a variant.
    pub fn from_fen(variant: DraughtsVariant, fen: &str) -> Result<Position, DraughtsFenError> {
        let rules = variant.rules();
        let mut fields = fen.trim().split(':');
        let side = match fields.next().map(str::trim) {
            Some("W") | Some("w") => Color::White,
            Some("B") | Some("b") => Color::Black,
            other => {
                return Err(malformed(format!(
                    "the first field must be `W` or `B`, not `{}`",
                    other.unwrap_or("")
                )));
            }
        };
        let mut pieces = [0u64; 2];
        let mut kings = 0u64;
        let mut seen = [false; 2];
        let mut runs = [None, None];
        for field in fields {
            let field = field.trim();
            let mut chars = field.chars();
            match chars.next() {
                Some(c @ ('W' | 'B')) => {
                    let color = if c == 'W' { Color::White } else { Color::Black };
                    if std::mem::replace(&mut seen[color.index()], true) {
                        return Err(malformed(format!("{color}'s pieces are listed twice")));
                    }
                    let (own, own_kings) = parse_list(rules, chars.as_str())?;
                    if pieces[0] & own != 0 || pieces[1] & own != 0 {
                        let sq = ((pieces[0] | pieces[1]) & own).trailing_zeros() as u8;
                        return Err(PositionError::Overlap(square_name(rules, sq)).into());
                    }
                    pieces[color.index()] = own;
                    kings |= own_kings;
                }
                Some('M') if rules.king_move_limit.is_some() => {
                    let rest = chars.as_str();
                    let color = match rest.chars().next() {
                        Some('W') => Color::White,
                        Some('B') => Color::Black,
                        _ => return Err(malformed(format!("bad king-move field `{field}`"))),
                    };
                    let (sq, count) = rest[1..]
                        .split_once('/')
                        .ok_or_else(|| malformed(format!("bad king-move field `{field}`")))?;
                    let square = parse_square(rules, sq)
                        .ok_or_else(|| malformed(format!("`{sq}` is not a square")))?;
                    let count: u8 = count
                        .parse()
                        .map_err(|_| malformed(format!("`{count}` is not a count")))?;
                    runs[color.index()] = Some(KingRun { square, count });
                }
                Some('H' | 'F') if chars.as_str().bytes().all(|b| b.is_ascii_digit()) => {}
                _ => return Err(malformed(format!("unknown field `{field}`"))),
            }
        }
        if !seen[0] || !seen[1] {
            return Err(malformed("both a `W` and a `B` piece list are required"));
        }
        Ok(Position::new(
            variant, pieces[0], pieces[1], kings, side, runs,
        )?)
    }

    /// Writes the position as FEN.
    pub fn fen(&self) -> String {
        let rules = self.rules();
        // At most 50 pieces on the board: "W:W" + "K50," per piece + run fields.
        let mut out = String::with_capacity(8 + 4 * self.occupied().count_ones() as usize);
        out.push(match self.side_to_move() {
            Color::White => 'W',
            Color::Black => 'B',
        });
        // Squares sorted in notation order without a heap allocation: at most 50.
        let mut squares = [(0u16, 0u8); 64];
        for color in [Color::White, Color::Black] {
            out.push(':');
            out.push(if color == Color::White { 'W' } else { 'B' });
            let mut n = 0;
            for sq in bits(self.pieces(color)) {
                squares[n] = (notation_order(rules, sq), sq);
                n += 1;
            }
            let listed = &mut squares[..n];
            listed.sort_unstable();
            for (i, &(_, sq)) in listed.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if self.kings() & (1u64 << sq) != 0 {
                    out.push('K');
                }
                push_square_name(&mut out, rules, sq);
            }
        }
        for color in [Color::White, Color::Black] {
            if let Some(run) = self.king_run(color) {
                out.push_str(if color == Color::White { ":MW" } else { ":MB" });
                push_square_name(&mut out, rules, run.square);
                out.push('/');
                out.push_str(&run.count.to_string());
            }
        }
        out
    }
}

/// Sort key putting squares in the order a reader expects: by number, or for algebraic
/// names rank by rank from White's side, files a to h.
fn notation_order(rules: &Rules, sq: u8) -> u16 {
    match rules.numbering {
        Numbering::Algebraic => {
            let (row, col) = Geometry::of(rules.board).coords(sq);
            (7 - row as u16) * 8 + col as u16
        }
        _ => square_number(rules, sq) as u16,
    }
}

fn bits(mut b: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let sq = b.trailing_zeros() as u8;
            b &= b - 1;
            sq
        })
    })
}

/// Parses a comma-separated piece list: `31,32,K45`, `a1,Kc3`, ranges `31-35`.
fn parse_list(rules: &Rules, list: &str) -> Result<(u64, u64), DraughtsFenError> {
    let mut all = 0u64;
    let mut kings = 0u64;
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (king, name) = match item.strip_prefix('K') {
            Some(rest) => (true, rest),
            None => (false, item),
        };
        let squares: Vec<u8> = match name.split_once('-') {
            Some((a, b)) if rules.numbering != Numbering::Algebraic => {
                let lo: u8 = a
                    .parse()
                    .map_err(|_| malformed(format!("bad range `{item}`")))?;
                let hi: u8 = b
                    .parse()
                    .map_err(|_| malformed(format!("bad range `{item}`")))?;
                if lo > hi {
                    return Err(malformed(format!("bad range `{item}`")));
                }
                (lo..=hi)
                    .map(|n| {
                        parse_square(rules, &n.to_string())
                            .ok_or_else(|| malformed(format!("`{n}` is not a square")))
                    })
                    .collect::<Result<_, _>>()?
            }
            _ => vec![
                parse_square(rules, name)
                    .ok_or_else(|| malformed(format!("`{name}` is not a square")))?,
            ],
        };
        for sq in squares {
            let bit = 1u64 << sq;
            if all & bit != 0 {
                return Err(PositionError::Overlap(square_name(rules, sq)).into());
            }
            all |= bit;
            if king {
                kings |= bit;
            }
        }
    }
    Ok((all, kings))
}
