//! Perft: the number of leaf positions of the legal-move tree to a given depth, the
//! standard check of a move generator against independent implementations. Moves are
//! counted one per (origin, destination, captured set), the convention of the published
//! draughts perft tables.

use super::moves::Move;
use super::position::Position;

impl Position {
    /// Counts the leaves of the legal-move tree `depth` plies deep.
    pub fn perft(&self, depth: u32) -> u64 {
        let mut buffers: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(64)).collect();
        perft_with(self, depth, &mut buffers)
    }

    /// Perft split by first move: each legal move with its subtree count.
    pub fn divide(&self, depth: u32) -> Vec<(Move, u64)> {
        let moves = self.legal_moves();
        moves
            .into_iter()
            .map(|m| {
                (
                    m,
                    if depth <= 1 {
                        1
                    } else {
                        self.after(&m).perft(depth - 1)
                    },
                )
            })
            .collect()
    }
}

fn perft_with(pos: &Position, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_moves() as u64;
    }
    let Some((moves, rest)) = buffers.split_first_mut() else {
        return 1;
    };
    pos.generate_into(moves);
    let mut nodes = 0;
    for mv in moves.iter() {
        nodes += perft_with(&pos.after(mv), depth - 1, rest);
    }
    nodes
}
