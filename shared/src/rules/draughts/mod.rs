//! Draughts: one small core for every variant of the rule texts. Geometry and bitboards
//! are shared; each variant is a [`Rules`] value that move generation reads.

mod fen;
mod geometry;
mod movegen;
mod moves;
mod notation;
mod perft;
mod position;
mod squares;
mod variant;

pub use fen::DraughtsFenError;
pub use geometry::{BoardSize, Dir, Geometry};
pub use moves::{MAX_CAPTURES, Move};
pub use notation::move_text;
pub use position::{KingRun, Position, PositionError};
pub use squares::{parse_square, square_name, square_number};
pub use variant::{Crowning, DraughtsVariant, KingRange, Numbering, Priority, Rules};
