//! The vocabulary of endgame situations the draughts draw rules speak of: the material of
//! the stronger and the weaker side ("three kings, or two kings and a man, or a king and
//! two men against a lone king on the main road"), men on fixed squares, kings on the
//! main road or the double diagonals. Owns matching a situation against a position.
//!
//! Squares are written as the rule texts write them, for White as the stronger side, in
//! algebraic names of the internal 8x8 board (where the main road is a1-h8 and the double
//! diagonals are g1-a7 and h2-b8 in every 8x8 variant, the mirrored Portuguese and Italian
//! boards included). The same situation with Black as the stronger side is the 180-degree
//! rotation with colours swapped, as every bracket of IDF 8.2.9-8.2.23 shows: the matcher
//! rotates the position instead of the squares.

use crate::rules::Color;
use crate::rules::draughts::{BoardSize, DraughtsVariant, Geometry, Position, parse_square};

/// The piece count of one side: kings and men.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Force {
    /// Kings.
    pub kings: u8,
    /// Men.
    pub men: u8,
}

/// `kings` kings and `men` men.
pub const fn force(kings: u8, men: u8) -> Force {
    Force { kings, men }
}

/// The piece counts a side may have in a situation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forces {
    /// Exactly one of these counts.
    OneOf(&'static [Force]),
    /// Only kings, at least this many (IDF 8.2.15 "three kings (and more)").
    KingsOnlyAtLeast(u8),
}

/// Where a side's kings must stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KingsOn {
    /// Anywhere.
    Anywhere,
    /// At least one king on the main road a1-h8 (IDF 8.2.4, 8.2.9-8.2.13).
    MainRoad,
    /// One king on the main road, or one king on each double diagonal g1-a7 and h2-b8
    /// (IDF 8.2.7, "обе дамки находятся на двух линиях двойника").
    MainRoadOrBothDoubles,
    /// A king on the main road and a king on a double diagonal, possibly the same one on
    /// d4 or e5 where they cross (IDF 8.2.24 "при владении большой дорогой и хотя бы одной
    /// из линий двойника").
    MainRoadAndDouble,
}

/// Where the men of a side not pinned to squares may stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// Anywhere.
    Anywhere,
    /// Right of the main road seen from White: below the a1-h8 diagonal (IDF 8.2.13).
    RightOfMainRoad,
}

/// One side's part of a situation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    /// Its piece counts.
    pub forces: Forces,
    /// Where its kings stand.
    pub kings_on: KingsOn,
    /// Squares that each hold one of its men (named for White as the stronger side).
    pub men_on: &'static [&'static str],
    /// Where its other men stand.
    pub other_men: Region,
}

impl Side {
    /// A side with these counts, pieces anywhere.
    pub const fn of(forces: Forces) -> Side {
        Side {
            forces,
            kings_on: KingsOn::Anywhere,
            men_on: &[],
            other_men: Region::Anywhere,
        }
    }

    /// The same side with its kings placed.
    pub const fn kings_on(self, kings_on: KingsOn) -> Side {
        Side { kings_on, ..self }
    }

    /// The same side with men on these squares.
    pub const fn men_on(self, men_on: &'static [&'static str]) -> Side {
        Side { men_on, ..self }
    }

    /// The same side with its other men in a region.
    pub const fn other_men(self, other_men: Region) -> Side {
        Side { other_men, ..self }
    }
}

/// A situation on the board that a count rule speaks of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Situation {
    /// Any position.
    Any,
    /// One side (the stronger) matches `strong`, the other `weak`.
    Versus {
        /// The stronger side.
        strong: Side,
        /// The weaker side.
        weak: Side,
    },
    /// Both sides have kings, and the pieces on the board number `min..=max` (IDF 8.2.25,
    /// UA rule 6: "4- and 5-piece endings").
    KingsOnBothSides {
        /// Fewest pieces, both sides together.
        min: u8,
        /// Most pieces, both sides together.
        max: u8,
    },
}

/// The pieces of a position seen with `strong` as White: Black's view is rotated by 180
/// degrees so that patterns written for White apply.
struct View {
    strong_kings: u64,
    strong_men: u64,
    weak_kings: u64,
    weak_men: u64,
    board: BoardSize,
}

impl View {
    fn of(pos: &Position, strong: Color) -> View {
        let board = pos.rules().board;
        let rot = |b: u64| match (strong, board) {
            (Color::White, _) => b,
            (Color::Black, BoardSize::Eight) => u64::from((b as u32).reverse_bits()),
            (Color::Black, BoardSize::Ten) => b.reverse_bits() >> 14,
        };
        let weak = strong.opponent();
        View {
            strong_kings: rot(pos.kings_of(strong)),
            strong_men: rot(pos.men_of(strong)),
            weak_kings: rot(pos.kings_of(weak)),
            weak_men: rot(pos.men_of(weak)),
            board,
        }
    }
}

/// Bitboard of the 8x8 squares on which `f(row, col)` holds (row 0 is Black's edge,
/// column 0 White's left).
fn squares_where(f: impl Fn(u8, u8) -> bool) -> u64 {
    let geo = Geometry::of(BoardSize::Eight);
    (0..geo.squares)
        .filter(|&sq| {
            let (r, c) = geo.coords(sq);
            f(r, c)
        })
        .fold(0, |b, sq| b | 1u64 << sq)
}

/// The main road a1-h8 (IDF 2.2.3) on the internal 8x8 board.
pub fn main_road() -> u64 {
    squares_where(|r, c| r + c == 7)
}

/// The double diagonal g1-a7.
pub fn double_g1_a7() -> u64 {
    squares_where(|r, c| c + 1 == r)
}

/// The double diagonal h2-b8.
pub fn double_h2_b8() -> u64 {
    squares_where(|r, c| r + 1 == c)
}

/// Squares right of the main road seen from White (below the a1-h8 diagonal).
pub fn right_of_main_road() -> u64 {
    squares_where(|r, c| r + c > 7)
}

/// Bitboard of algebraic square names on the internal 8x8 board; `None` if one is not a
/// playing square.
pub fn named_squares(names: &[&str]) -> Option<u64> {
    let rules = DraughtsVariant::Russian.rules();
    names.iter().try_fold(0u64, |b, name| {
        parse_square(rules, name).map(|sq| b | 1u64 << sq)
    })
}

impl Side {
    fn matches(&self, kings: u64, men: u64, board: BoardSize) -> bool {
        let (k, m) = (kings.count_ones() as u8, men.count_ones() as u8);
        let counts_ok = match self.forces {
            Forces::OneOf(list) => list.contains(&force(k, m)),
            Forces::KingsOnlyAtLeast(n) => m == 0 && k >= n,
        };
        if !counts_ok {
            return false;
        }
        let squares_needed = !self.men_on.is_empty()
            || self.other_men != Region::Anywhere
            || self.kings_on != KingsOn::Anywhere;
        if squares_needed && board != BoardSize::Eight {
            return false;
        }
        let Some(pinned) = named_squares(self.men_on) else {
            return false;
        };
        if men & pinned != pinned {
            return false;
        }
        let others = men & !pinned;
        let region_ok = match self.other_men {
            Region::Anywhere => true,
            Region::RightOfMainRoad => others & !right_of_main_road() == 0,
        };
        let road = kings & main_road() != 0;
        let kings_ok = match self.kings_on {
            KingsOn::Anywhere => true,
            KingsOn::MainRoad => road,
            KingsOn::MainRoadOrBothDoubles => {
                let (a, b) = (kings & double_g1_a7(), kings & double_h2_b8());
                // Two distinct kings, one on each line.
                road || (a != 0 && b != 0 && (a | b).count_ones() >= 2)
            }
            KingsOn::MainRoadAndDouble => road && kings & (double_g1_a7() | double_h2_b8()) != 0,
        };
        region_ok && kings_ok
    }
}

impl Situation {
    /// Does the situation hold in `pos` with `strong` as the stronger side? Situations
    /// without sides ignore `strong`.
    pub fn holds(&self, pos: &Position, strong: Color) -> bool {
        match self {
            Situation::Any => true,
            Situation::Versus { strong: s, weak: w } => {
                let v = View::of(pos, strong);
                s.matches(v.strong_kings, v.strong_men, v.board)
                    && w.matches(v.weak_kings, v.weak_men, v.board)
            }
            Situation::KingsOnBothSides { min, max } => {
                let total = pos.occupied().count_ones() as u8;
                pos.kings_of(Color::White) != 0
                    && pos.kings_of(Color::Black) != 0
                    && (*min..=*max).contains(&total)
            }
        }
    }

    /// Does it hold with either side as the stronger?
    pub fn holds_either(&self, pos: &Position) -> bool {
        self.holds(pos, Color::White) || self.holds(pos, Color::Black)
    }

    /// Does the situation distinguish a stronger side?
    pub fn has_sides(&self) -> bool {
        matches!(self, Situation::Versus { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonals_are_where_the_texts_put_them() {
        assert_eq!(
            Some(main_road()),
            named_squares(&["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"])
        );
        assert_eq!(
            Some(double_g1_a7()),
            named_squares(&["g1", "f2", "e3", "d4", "c5", "b6", "a7"])
        );
        assert_eq!(
            Some(double_h2_b8()),
            named_squares(&["h2", "g3", "f4", "e5", "d6", "c7", "b8"])
        );
        assert_eq!(right_of_main_road().count_ones(), 12);
        assert!(named_squares(&["c1", "h4", "h6"]).is_some_and(|b| b & !right_of_main_road() == 0));
    }

    #[test]
    fn rotation_maps_every_bracket_of_idf_8_2() {
        // (square for White, square the text gives in brackets for Black)
        let pairs = [
            ("g5", "b4"),
            ("h4", "a5"),
            ("h6", "a3"),
            ("a7", "h2"),
            ("b8", "g1"),
            ("g1", "b8"),
            ("h2", "a7"),
            ("f8", "c1"),
            ("c1", "f8"),
            ("a1", "h8"),
            ("a3", "h6"),
            ("a5", "h4"),
            ("e1", "d8"),
        ];
        for (w, b) in pairs {
            let wb = named_squares(&[w]).unwrap_or(0) as u32;
            let bb = named_squares(&[b]).unwrap_or(0) as u32;
            assert_eq!(wb.reverse_bits(), bb, "{w} -> {b}");
        }
    }
}
