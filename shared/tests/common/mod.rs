//! Helpers shared by the rules tests.
#![allow(dead_code)]

use shared::rules::{Position, Variant};

/// A position from a FEN, panicking with the error if it is refused.
pub fn pos(variant: Variant, fen: &str) -> Position {
    Position::from_fen(variant, fen).unwrap_or_else(|e| panic!("{variant} FEN {fen}: {e}"))
}

/// Every legal move's full-route text, sorted.
pub fn moves(variant: Variant, fen: &str) -> Vec<String> {
    let p = pos(variant, fen);
    let mut v: Vec<String> = p.legal_moves().iter().map(|m| p.move_text(m)).collect();
    v.sort();
    v
}

/// Sorted list of owned strings from literals.
pub fn list(items: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = items.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// The number of a square on the mirrored Italian board (IDF app. 5, diagram P5) from
/// its physical algebraic name seen from White (dark squares have file+rank even).
pub fn italian(sq: &str) -> u8 {
    let b = sq.as_bytes();
    let (file, rank) = (b[0] - b'a', b[1] - b'0');
    assert_eq!(
        (file + rank) % 2,
        0,
        "{sq} is not a dark square of the Italian board"
    );
    let row = 8 - rank; // from Black's side
    row * 4 + file / 2 + 1
}

/// The number of a square on the mirrored Portuguese board (IDF app. 4, diagram P4).
pub fn portuguese(sq: &str) -> u8 {
    let b = sq.as_bytes();
    let (file, rank) = (b[0] - b'a', b[1] - b'0');
    assert_eq!(
        (file + rank) % 2,
        0,
        "{sq} is not a dark square of the Portuguese board"
    );
    (rank - 1) * 4 + (7 - file) / 2 + 1
}
