//! The rules of every game damka serves: draughts variants and chess, behind one
//! game-level interface.

pub mod draughts;

use std::fmt;

/// A side.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// White moves first.
    White,
    /// Black.
    Black,
}

impl Color {
    /// The other side.
    pub fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "white",
            Color::Black => "black",
        })
    }
}

/// Why a move typed by a client was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MoveParseError {
    /// Not a move in the variant's notation at all.
    #[error("malformed move: {0}")]
    Malformed(String),
    /// Well formed, but no legal move matches.
    #[error("no legal move matches `{0}`")]
    NoSuchMove(String),
    /// Several legal moves match; the candidates are listed with their full routes.
    #[error("`{input}` is ambiguous: {}", candidates.join(", "))]
    Ambiguous {
        /// What was typed.
        input: String,
        /// Every legal move it could mean.
        candidates: Vec<String>,
    },
}
