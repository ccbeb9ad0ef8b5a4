//! Board geometry for the 8x8 and 10x10 draughts boards: playing squares, the eight
//! directions of travel and the precomputed rays along them.
//!
//! Internally every board is laid out the same way, seen from White: row 0 is the far
//! (Black's) edge, and square index 0 is the first playing square of row 0, counted from
//! White's left. On the 10x10 board index `i` is square number `i + 1`; on the 8x8 board
//! index 0 is b8 and index 28 is a1. The mirrored 8x8 boards of the Portuguese and
//! Italian rules (dark corner at each player's right) are handled by the notation layer,
//! which maps their squares through a left-right mirror onto this layout: the rules are
//! symmetric under that mirror, so move generation never needs to know.

/// One of the eight directions a piece may travel. Diagonal directions step to the
/// neighbouring diagonal square; orthogonal ones (Frisian captures only) step to the next
/// playing square along the same row or file, which is two columns or two rows away.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Towards Black's edge and White's left.
    NorthWest = 0,
    /// Towards Black's edge and White's right.
    NorthEast = 1,
    /// Towards White's edge and White's left.
    SouthWest = 2,
    /// Towards White's edge and White's right.
    SouthEast = 3,
    /// Straight up the file (two rows).
    North = 4,
    /// Straight down the file (two rows).
    South = 5,
    /// Along the row to White's left (two columns).
    West = 6,
    /// Along the row to White's right (two columns).
    East = 7,
}

impl Dir {
    /// The four diagonal directions.
    pub const DIAGONAL: [Dir; 4] = [
        Dir::NorthWest,
        Dir::NorthEast,
        Dir::SouthWest,
        Dir::SouthEast,
    ];
    /// All eight directions (diagonals, then rows and files).
    pub const ALL: [Dir; 8] = [
        Dir::NorthWest,
        Dir::NorthEast,
        Dir::SouthWest,
        Dir::SouthEast,
        Dir::North,
        Dir::South,
        Dir::West,
        Dir::East,
    ];
    /// The two forward diagonals of White's men.
    pub const WHITE_FORWARD: [Dir; 2] = [Dir::NorthWest, Dir::NorthEast];
    /// The two forward diagonals of Black's men.
    pub const BLACK_FORWARD: [Dir; 2] = [Dir::SouthWest, Dir::SouthEast];

    const fn delta(self) -> (i8, i8) {
        match self {
            Dir::NorthWest => (-1, -1),
            Dir::NorthEast => (-1, 1),
            Dir::SouthWest => (1, -1),
            Dir::SouthEast => (1, 1),
            Dir::North => (-2, 0),
            Dir::South => (2, 0),
            Dir::West => (0, -2),
            Dir::East => (0, 2),
        }
    }
}

/// Longest ray on any board: a 10x10 diagonal has 9 squares beyond its first.
pub const MAX_RAY: usize = 9;
/// Most playing squares on any board.
pub const MAX_SQUARES: usize = 50;

/// Which physical board a variant is played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardSize {
    /// 8x8, 32 playing squares.
    Eight,
    /// 10x10, 50 playing squares.
    Ten,
}

/// Precomputed geometry of one board size.
#[derive(Debug)]
pub struct Geometry {
    /// Squares along a side (8 or 10).
    pub side: u8,
    /// Number of playing squares (32 or 50).
    pub squares: u8,
    /// Every playing square, as a bitboard.
    pub all: u64,
    /// The row nearest Black (White's promotion row).
    pub top_row: u64,
    /// The row nearest White (Black's promotion row).
    pub bottom_row: u64,
    /// Squares on rows of even index (0 = Black's edge).
    pub even_rows: u64,
    /// Squares from which a short jump (neighbour, then the square beyond) stays on the
    /// board, per direction.
    pub can_jump: [u64; 8],
    /// Squares that have a neighbour in a direction.
    pub can_step: [u64; 8],
    /// Index difference to the neighbour in a direction, for even and odd rows.
    pub step: [[i8; 2]; 8],
    /// Index difference to the square beyond the neighbour (the same on every row).
    pub jump: [i8; 8],
    rays: [[[u8; MAX_RAY]; MAX_SQUARES]; 8],
    ray_len: [[u8; MAX_SQUARES]; 8],
}

impl Geometry {
    const fn build(side: u8) -> Geometry {
        let half = side / 2;
        let squares = side * half;
        let mut rays = [[[0u8; MAX_RAY]; MAX_SQUARES]; 8];
        let mut ray_len = [[0u8; MAX_SQUARES]; 8];
        let mut all = 0u64;
        let mut top_row = 0u64;
        let mut bottom_row = 0u64;
        let mut even_rows = 0u64;
        let mut can_jump = [0u64; 8];
        let mut can_step = [0u64; 8];
        let mut step = [[0i8; 2]; 8];
        let mut jump = [0i8; 8];
        let mut sq = 0u8;
        while sq < squares {
            all |= 1u64 << sq;
            let (row, col) = Self::coords_of(half, sq);
            if row == 0 {
                top_row |= 1u64 << sq;
            }
            if row % 2 == 0 {
                even_rows |= 1u64 << sq;
            }
            if row == side as i8 - 1 {
                bottom_row |= 1u64 << sq;
            }
            let mut d = 0;
            while d < 8 {
                let (dr, dc) = Dir::ALL[d].delta();
                let (mut r, mut c) = (row + dr, col + dc);
                let mut n = 0usize;
                while r >= 0 && r < side as i8 && c >= 0 && c < side as i8 {
                    rays[d][sq as usize][n] = (r as u8) * half + (c as u8) / 2;
                    n += 1;
                    r += dr;
                    c += dc;
                }
                ray_len[d][sq as usize] = n as u8;
                if n >= 1 {
                    can_step[d] |= 1u64 << sq;
                    step[d][(row % 2) as usize] = rays[d][sq as usize][0] as i8 - sq as i8;
                }
                if n >= 2 {
                    can_jump[d] |= 1u64 << sq;
                    jump[d] = rays[d][sq as usize][1] as i8 - sq as i8;
                }
                d += 1;
            }
            sq += 1;
        }
        Geometry {
            side,
            squares,
            all,
            top_row,
            bottom_row,
            even_rows,
            can_jump,
            can_step,
            step,
            jump,
            rays,
            ray_len,
        }
    }

    const fn coords_of(half: u8, sq: u8) -> (i8, i8) {
        let row = sq / half;
        let col = 2 * (sq % half) + if row.is_multiple_of(2) { 1 } else { 0 };
        (row as i8, col as i8)
    }

    /// The geometry of a board size.
    pub fn of(size: BoardSize) -> &'static Geometry {
        match size {
            BoardSize::Eight => &EIGHT,
            BoardSize::Ten => &TEN,
        }
    }

    /// Row (0 = Black's edge) and column (0 = White's left) of a square index.
    pub fn coords(&self, sq: u8) -> (u8, u8) {
        let (r, c) = Self::coords_of(self.side / 2, sq);
        (r as u8, c as u8)
    }

    /// The square at a row and column, if it is a playing square.
    pub fn square_at(&self, row: u8, col: u8) -> Option<u8> {
        (row < self.side && col < self.side && (row + col) % 2 == 1)
            .then(|| row * (self.side / 2) + col / 2)
    }

    /// The squares met walking from `sq` in direction `dir`, nearest first.
    #[inline]
    pub fn ray(&self, sq: u8, dir: Dir) -> &[u8] {
        let d = dir as usize;
        let s = sq as usize;
        &self.rays[d][s][..self.ray_len[d][s] as usize]
    }

    /// The squares `sq` whose neighbour in `dir` is in `targets` and whose square beyond
    /// it is in `landings`: every short jump from anywhere at once, with bit shifts.
    #[inline]
    pub fn jumps(&self, dir: Dir, targets: u64, landings: u64) -> u64 {
        let d = dir as usize;
        let land = back(landings, self.jump[d]) & self.can_jump[d];
        let even = back(targets, self.step[d][0]) & self.even_rows;
        let odd = back(targets, self.step[d][1]) & !self.even_rows;
        land & (even | odd)
    }

    /// The squares `sq` whose neighbour in `dir` is in `targets`.
    #[inline]
    pub fn steps(&self, dir: Dir, targets: u64) -> u64 {
        let d = dir as usize;
        let even = back(targets, self.step[d][0]) & self.even_rows;
        let odd = back(targets, self.step[d][1]) & !self.even_rows;
        (even | odd) & self.can_step[d]
    }

    /// The neighbour of `sq` in `dir`, which must exist.
    #[inline]
    pub fn neighbour(&self, sq: u8, dir: Dir) -> u8 {
        let parity = ((1u64 << sq) & self.even_rows == 0) as usize;
        (sq as i8 + self.step[dir as usize][parity]) as u8
    }

    /// The promotion row of a side.
    pub fn promotion_row(&self, white: bool) -> u64 {
        if white { self.top_row } else { self.bottom_row }
    }
}

/// The bitboard whose bit `sq` is bit `sq + k` of `b`.
#[inline]
fn back(b: u64, k: i8) -> u64 {
    if k >= 0 { b >> k } else { b << (-k) }
}

static EIGHT: Geometry = Geometry::build(8);
static TEN: Geometry = Geometry::build(10);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_by_ten_numbering_matches_the_rule_texts() {
        let g = Geometry::of(BoardSize::Ten);
        assert_eq!(g.squares, 50);
        // Square 46 (index 45) is White's left corner, square 5 (index 4) the far corner:
        // the long diagonal ("big road", INT 3.1) joins them.
        assert_eq!(g.coords(45), (9, 0));
        assert_eq!(g.coords(4), (0, 9));
        let road: Vec<u8> = g.ray(45, Dir::NorthEast).iter().map(|s| s + 1).collect();
        assert_eq!(road, vec![41, 37, 32, 28, 23, 19, 14, 10, 5]);
        // Along a row the next playing square is two columns away (Frisian art. 7).
        let row: Vec<u8> = g.ray(45, Dir::East).iter().map(|s| s + 1).collect();
        assert_eq!(row, vec![47, 48, 49, 50]);
        let file: Vec<u8> = g.ray(45, Dir::North).iter().map(|s| s + 1).collect();
        assert_eq!(file, vec![36, 26, 16, 6]);
    }

    #[test]
    fn eight_by_eight_has_a_dark_corner_at_whites_left() {
        let g = Geometry::of(BoardSize::Eight);
        assert_eq!(g.squares, 32);
        assert_eq!(g.coords(28), (7, 0)); // a1
        assert_eq!(g.coords(3), (0, 7)); // h8
        assert_eq!(g.ray(28, Dir::NorthEast).len(), 7); // the main road a1-h8
        assert_eq!(g.square_at(7, 0), Some(28));
        assert_eq!(g.square_at(7, 1), None);
    }
}
