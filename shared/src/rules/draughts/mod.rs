//! Draughts: one small core for every variant of the rule texts. Geometry and bitboards
//! are shared; each variant is a [`Rules`] value that move generation reads.

mod fen;
mod geometry;
mod movegen;
mod notation;
mod perft;
mod position;
mod variant;

pub use fen::DraughtsFenError;
pub use geometry::{BoardSize, Dir, Geometry};
pub use movegen::{MAX_CAPTURES, Move};
pub use notation::{move_text, parse_square, square_name, square_number};
pub use position::{KingRun, Position, PositionError};
pub use variant::{Crowning, DraughtsVariant, KingRange, Numbering, Priority, Rules};
