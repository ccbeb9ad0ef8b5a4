//! The static evaluation, in hundredths of a man from the side to move's point of view.
//! Each variant family is a row of [`Weights`] (data, not code): material with the
//! family's king value, advancement by row, centre, flank balance, the back-rank guard,
//! men one step from crowning with a free square ahead, and king mobility. The standard
//! draw endings that the rules declare drawn (IDF 8.2.4-8.2.5, INT 3.5, FRI 18) score 0.

use std::sync::OnceLock;

use shared::rules::Color;
use shared::rules::draughts::{BoardSize, Dir, DraughtsVariant, Geometry, Position};

/// One variant family's evaluation terms.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Weights {
    pub man: i32,
    pub king: i32,
    /// By rows advanced from the man's own back row (index 0 = not moved).
    pub advance: [i32; 10],
    pub centre: i32,
    /// Per man of difference between the two halves of the board.
    pub flank_imbalance: i32,
    /// Per man still on its own back row while the opponent has men to crown.
    pub back_guard: i32,
    /// A man one step from crowning with a free crowning square ahead.
    pub runaway: i32,
    /// Per free square next to a king.
    pub king_mobility: i32,
}

/// 8x8 boards with flying kings (Russian, Brazilian, Pool, Czech, Portuguese): a king
/// is worth about three men.
const EIGHT_FLYING: Weights = Weights {
    man: 100,
    king: 300,
    advance: [0, 2, 5, 9, 14, 22, 40, 0, 0, 0],
    centre: 6,
    flank_imbalance: 3,
    back_guard: 8,
    runaway: 90,
    king_mobility: 2,
};

/// Italian: kings move one square and men cannot take them; a king is worth a man and
/// a half.
const ITALIAN: Weights = Weights {
    man: 100,
    king: 150,
    advance: [0, 2, 4, 7, 11, 16, 30, 0, 0, 0],
    centre: 5,
    flank_imbalance: 3,
    back_guard: 10,
    runaway: 45,
    king_mobility: 4,
};

/// International: flying kings on 10x10, a king worth a little over three men.
const INTERNATIONAL: Weights = Weights {
    man: 100,
    king: 330,
    advance: [0, 1, 3, 5, 8, 12, 17, 24, 40, 0],
    centre: 5,
    flank_imbalance: 2,
    back_guard: 5,
    runaway: 100,
    king_mobility: 1,
};

/// Frisian: a king is worth between one and two men (FRI's own advice), captures go
/// orthogonally too, and kings are bound by the king-move limit.
const FRISIAN: Weights = Weights {
    man: 100,
    king: 160,
    advance: [0, 1, 3, 5, 8, 12, 17, 24, 35, 0],
    centre: 5,
    flank_imbalance: 2,
    back_guard: 6,
    runaway: 50,
    king_mobility: 2,
};

pub(crate) fn weights(variant: DraughtsVariant) -> &'static Weights {
    match variant {
        DraughtsVariant::International => &INTERNATIONAL,
        DraughtsVariant::Frisian => &FRISIAN,
        DraughtsVariant::Italian => &ITALIAN,
        DraughtsVariant::Russian
        | DraughtsVariant::Brazilian
        | DraughtsVariant::Pool
        | DraughtsVariant::Czech
        | DraughtsVariant::Portuguese => &EIGHT_FLYING,
    }
}

/// Square sets of one board size.
struct Masks {
    /// Squares of each row, row 0 at Black's edge.
    rows: [u64; 10],
    centre: u64,
    /// The left half, from White's side.
    left: u64,
    /// The long diagonal of the 8x8 board (the main road, IDF 2.2.4).
    main_road: u64,
}

fn masks(size: BoardSize) -> &'static Masks {
    static EIGHT: OnceLock<Masks> = OnceLock::new();
    static TEN: OnceLock<Masks> = OnceLock::new();
    let cell = match size {
        BoardSize::Eight => &EIGHT,
        BoardSize::Ten => &TEN,
    };
    cell.get_or_init(|| build_masks(Geometry::of(size)))
}

fn build_masks(geo: &Geometry) -> Masks {
    let side = geo.side;
    let mut m = Masks {
        rows: [0; 10],
        centre: 0,
        left: 0,
        main_road: 0,
    };
    for sq in 0..geo.squares {
        let bit = 1u64 << sq;
        let (row, col) = geo.coords(sq);
        m.rows[usize::from(row)] |= bit;
        if (2..side - 2).contains(&row) && (2..side - 2).contains(&col) {
            m.centre |= bit;
        }
        if col < side / 2 {
            m.left |= bit;
        }
        if row + col == side - 1 {
            m.main_road |= bit;
        }
    }
    m
}

/// The position's score for the side to move.
pub(crate) fn evaluate(p: &Position) -> i32 {
    if is_standard_draw(p) {
        return 0;
    }
    let w = weights(p.variant());
    let white = side_score(p, Color::White, w);
    let black = side_score(p, Color::Black, w);
    let score = white - black;
    if p.side_to_move() == Color::White {
        score
    } else {
        -score
    }
}

fn side_score(p: &Position, color: Color, w: &Weights) -> i32 {
    let geo = p.geometry();
    let m = masks(p.rules().board);
    let men = p.men_of(color);
    let kings = p.kings_of(color);
    let mut s = w.man * men.count_ones() as i32 + w.king * kings.count_ones() as i32;
    let last = usize::from(geo.side - 1);
    for (row, &mask) in m.rows[..=last].iter().enumerate() {
        let n = (men & mask).count_ones() as i32;
        if n != 0 {
            let advanced = if color == Color::White {
                last - row
            } else {
                row
            };
            s += n * w.advance[advanced];
        }
    }
    s += w.centre * (men & m.centre).count_ones() as i32;
    let left = (men & m.left).count_ones() as i32;
    let right = (men & !m.left).count_ones() as i32;
    s -= w.flank_imbalance * (left - right).abs();
    let own_back = if color == Color::White {
        m.rows[last]
    } else {
        m.rows[0]
    };
    if p.men_of(color.opponent()) != 0 {
        s += w.back_guard * (men & own_back).count_ones() as i32;
    }
    s += w.runaway * runaways(p, color, m, last) as i32;
    if kings != 0 {
        let empty = geo.all & !p.occupied();
        let mobility: u32 = Dir::DIAGONAL
            .iter()
            .map(|&d| (geo.steps(d, empty) & kings).count_ones())
            .sum();
        s += w.king_mobility * mobility as i32;
    }
    s
}

/// Men one step from crowning with a free crowning square ahead of them.
fn runaways(p: &Position, color: Color, m: &Masks, last: usize) -> u32 {
    let geo = p.geometry();
    let (row, dirs) = if color == Color::White {
        (m.rows[1], Dir::WHITE_FORWARD)
    } else {
        (m.rows[last - 1], Dir::BLACK_FORWARD)
    };
    let men = p.men_of(color) & row;
    if men == 0 {
        return 0;
    }
    let empty = geo.all & !p.occupied();
    dirs.iter()
        .fold(0, |acc, &d| acc | (geo.steps(d, empty) & men))
        .count_ones()
}

/// Is this one of the endings the rules declare drawn however it is played on (the
/// stronger side's few moves to win are not enough in practice): one king each; a lone
/// king against two pieces on 8x8 with flying kings (IDF 8.2.5) or against three when
/// it holds the main road (8.2.4); a lone king against three in International (INT
/// 3.5); a lone king against two in Frisian (FRI 18)?
pub(crate) fn is_standard_draw(p: &Position) -> bool {
    let count = |c: Color| {
        (
            p.men_of(c).count_ones(),
            p.kings_of(c).count_ones(),
            p.pieces(c).count_ones(),
        )
    };
    let (w, b) = (count(Color::White), count(Color::Black));
    let (weak, strong, weak_color) = if w.2 <= b.2 {
        (w, b, Color::White)
    } else {
        (b, w, Color::Black)
    };
    let lone_king = weak == (0, 1, 1);
    if !lone_king || strong.1 == 0 {
        return false;
    }
    let pieces = strong.2;
    match p.variant() {
        DraughtsVariant::Italian => pieces == 1 && strong.0 == 0,
        DraughtsVariant::International => pieces <= 3,
        DraughtsVariant::Frisian => pieces <= 2 && strong.0 == 0,
        _ => {
            let on_road = p.kings_of(weak_color) & masks(BoardSize::Eight).main_road != 0;
            pieces <= 2 || (pieces == 3 && on_road)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::rules::draughts::Position;

    fn pos(variant: DraughtsVariant, fen: &str) -> Position {
        match Position::from_fen(variant, fen) {
            Ok(p) => p,
            Err(e) => panic!("{fen}: {e}"),
        }
    }

    #[test]
    fn the_start_is_level_and_a_man_up_is_better() {
        for v in DraughtsVariant::ALL {
            let start = Position::start(v);
            assert_eq!(evaluate(&start), 0, "{v:?}");
        }
        let up = pos(DraughtsVariant::Russian, "W:Wc3,e3:Bf6");
        assert!(evaluate(&up) > 50);
    }

    #[test]
    fn standard_draws_are_recognised() {
        let road = pos(DraughtsVariant::Russian, "W:WKc3,Kd2,Ke1:BKa1");
        assert!(is_standard_draw(&road));
        let off_road = pos(DraughtsVariant::Russian, "W:WKc3,Kd2,Ke1:BKa3");
        assert!(!is_standard_draw(&off_road));
        let two = pos(DraughtsVariant::Russian, "W:WKc3,Kd2:BKa3");
        assert!(is_standard_draw(&two));
        assert_eq!(evaluate(&two), 0);
    }
}
