//! A draughts position: where the pieces stand, who moves, and the Frisian king-move
//! counters that legality depends on. Owns position validation and move application.

use super::geometry::Geometry;
use super::moves::Move;
use super::variant::{DraughtsVariant, Rules};
use crate::rules::Color;

/// A run of consecutive non-capturing moves made by one king (FRI 17): the square the
/// king now stands on and how many such moves it has made in a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KingRun {
    /// The king's square (internal index).
    pub square: u8,
    /// Consecutive quiet moves it has made, at least 1.
    pub count: u8,
}

/// Why a set of pieces is not a legal draughts position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Two pieces on one square.
    #[error("two pieces on square {0}")]
    Overlap(String),
    /// A man standing on its own promotion row would have been crowned.
    #[error("a man on {0} stands on its promotion row and would have been crowned")]
    ManOnPromotionRow(String),
    /// More pieces than a side starts with.
    #[error("{color} has {count} pieces; at most {max} fit")]
    TooManyPieces {
        /// The side.
        color: Color,
        /// Its piece count.
        count: u32,
        /// The start count.
        max: u32,
    },
    /// A king-move counter that does not describe a king of that side, or a counter for
    /// a side with only kings (for whom the limit has lapsed).
    #[error(
        "the king-move counter of {color} names {square}, which holds no {color} king, or {color} has no men"
    )]
    BadKingRun {
        /// The side.
        color: Color,
        /// The square named.
        square: String,
    },
    /// A king-move counter outside 1..=limit, or in a variant without the rule.
    #[error("king-move counter {count} is out of range for this variant")]
    BadKingRunCount {
        /// The count given.
        count: u8,
    },
}

/// A draughts position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    variant: DraughtsVariant,
    /// Pieces by colour (index 0 White, 1 Black), kings and men together.
    pieces: [u64; 2],
    /// Kings of both colours.
    kings: u64,
    side: Color,
    /// Frisian king-move runs by colour; always `None` in other variants.
    runs: [Option<KingRun>; 2],
}

impl Position {
    /// The start position of a variant: each side's men on its first three (8x8) or four
    /// (10x10) rows, White to move (IDF 2.3, 3.1; INT 3.2; FRI 4, 6).
    pub fn start(variant: DraughtsVariant) -> Position {
        let rules = variant.rules();
        let geo = Geometry::of(rules.board);
        let n = rules.men_per_side();
        let black = (1u64 << n) - 1;
        let white = black << (geo.squares as u32 - n);
        Position {
            variant,
            pieces: [white, black],
            kings: 0,
            side: Color::White,
            runs: [None, None],
        }
    }

    /// Builds a position from bitboards and checks that it is legal.
    pub fn new(
        variant: DraughtsVariant,
        white: u64,
        black: u64,
        kings: u64,
        side: Color,
        runs: [Option<KingRun>; 2],
    ) -> Result<Position, PositionError> {
        let pos = Position {
            variant,
            pieces: [white, black],
            kings,
            side,
            runs,
        };
        pos.validate()?;
        Ok(pos)
    }

    fn validate(&self) -> Result<(), PositionError> {
        let rules = self.rules();
        let geo = self.geometry();
        let name = |sq: u8| super::squares::square_name(rules, sq);
        let overlap = self.pieces[0] & self.pieces[1];
        if overlap != 0 {
            return Err(PositionError::Overlap(name(overlap.trailing_zeros() as u8)));
        }
        for color in [Color::White, Color::Black] {
            let own = self.pieces[color.index()];
            let men_on_last = own & !self.kings & geo.promotion_row(color == Color::White);
            if men_on_last != 0 {
                return Err(PositionError::ManOnPromotionRow(name(
                    men_on_last.trailing_zeros() as u8,
                )));
            }
            let count = own.count_ones();
            if count > rules.men_per_side() {
                return Err(PositionError::TooManyPieces {
                    color,
                    count,
                    max: rules.men_per_side(),
                });
            }
            if let Some(run) = self.runs[color.index()] {
                let limit = rules.king_move_limit.unwrap_or(0);
                if run.count == 0 || run.count > limit {
                    return Err(PositionError::BadKingRunCount { count: run.count });
                }
                // A run is only kept while the side also has men (FRI 17).
                if own & self.kings & (1u64 << run.square) == 0 || own & !self.kings == 0 {
                    return Err(PositionError::BadKingRun {
                        color,
                        square: name(run.square),
                    });
                }
            }
        }
        debug_assert_eq!((self.pieces[0] | self.pieces[1] | self.kings) & !geo.all, 0);
        Ok(())
    }

    /// The variant.
    pub fn variant(&self) -> DraughtsVariant {
        self.variant
    }

    /// The variant's rules.
    pub fn rules(&self) -> &'static Rules {
        self.variant.rules()
    }

    /// The board geometry.
    pub fn geometry(&self) -> &'static Geometry {
        Geometry::of(self.rules().board)
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// All pieces of a colour, as a bitboard of internal square indices.
    pub fn pieces(&self, color: Color) -> u64 {
        self.pieces[color.index()]
    }

    /// All kings, both colours.
    pub fn kings(&self) -> u64 {
        self.kings
    }

    /// Kings of a colour.
    pub fn kings_of(&self, color: Color) -> u64 {
        self.pieces[color.index()] & self.kings
    }

    /// Men of a colour.
    pub fn men_of(&self, color: Color) -> u64 {
        self.pieces[color.index()] & !self.kings
    }

    /// Every occupied square.
    pub fn occupied(&self) -> u64 {
        self.pieces[0] | self.pieces[1]
    }

    /// The Frisian king-move run of a side, if one is under way.
    pub fn king_run(&self, color: Color) -> Option<KingRun> {
        self.runs[color.index()]
    }

    /// A 64-bit key identifying the position for repetition: pieces, kings, side to move
    /// and the Frisian king-move runs (which change the legal moves). Equal positions give
    /// equal keys; different ones collide with probability about 2^-64.
    pub fn key(&self) -> u64 {
        let run =
            |r: Option<KingRun>| r.map_or(0, |r| 1 + ((r.square as u64) << 8) + r.count as u64);
        let mut h = mix(self.pieces[0] ^ 0x9e37_79b9_7f4a_7c15);
        h = mix(h ^ self.pieces[1]);
        h = mix(h ^ self.kings.rotate_left(17));
        h = mix(h ^ run(self.runs[0]) ^ (run(self.runs[1]) << 32));
        h ^ if self.side == Color::White {
            0
        } else {
            0x5bd1_e995_7c1f_3a2b
        }
    }

    /// Plays a move known to be legal in this position (as returned by the move
    /// generator). Playing anything else leaves an unspecified, but memory-safe, position.
    pub fn play_unchecked(&mut self, mv: &Move) {
        let us = self.side.index();
        let them = 1 - us;
        let from = 1u64 << mv.from();
        let to = 1u64 << mv.to();
        let was_king = self.kings & from != 0;
        let captures = mv.captures();

        self.pieces[them] &= !captures;
        self.kings &= !captures;
        self.pieces[us] = (self.pieces[us] & !from) | to;
        self.kings &= !from;
        if was_king || mv.crowns() {
            self.kings |= to;
        }

        if self.rules().king_move_limit.is_some() {
            // The limit lapses for good once the mover has only kings (men never come
            // back), so no run is kept then.
            let only_kings = self.pieces[us] & !self.kings == 0;
            self.runs[us] = match self.runs[us] {
                _ if !was_king || captures != 0 || only_kings => None,
                Some(run) if run.square == mv.from() => Some(KingRun {
                    square: mv.to(),
                    count: run.count + 1,
                }),
                _ => Some(KingRun {
                    square: mv.to(),
                    count: 1,
                }),
            };
            // The opponent's run ends with its king, or with its last man.
            if let Some(run) = self.runs[them]
                && (captures & (1u64 << run.square) != 0 || self.pieces[them] & !self.kings == 0)
            {
                self.runs[them] = None;
            }
        }
        self.side = self.side.opponent();
    }

    /// The position after a legal move.
    pub fn after(&self, mv: &Move) -> Position {
        let mut next = *self;
        next.play_unchecked(mv);
        next
    }
}

/// A bijective 64-bit mixer (the splitmix64 finaliser).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
