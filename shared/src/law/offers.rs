//! Draw offers: who has an offer standing, who may not offer again after a decline, and
//! the typed reasons an offer is refused (IDF s.2 9.2, 22.5; UA rule 1; FRI 21.2; FIDE
//! 9.1).

use serde::{Deserialize, Serialize};

use crate::rules::Color;

/// Why a draw offer (or its acceptance) is not allowed now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OfferRefusal {
    /// Each side must first have made `required` moves (IDF s.2 9.2, UA rule 1).
    #[error("a draw may be offered only once each side has made {required} moves")]
    TooEarly {
        /// Moves each side must have made.
        required: u32,
    },
    /// In an unrecorded game a draw may be agreed only with at most `max` pieces each
    /// (IDF s.2 22.5, UA rule 1).
    #[error("in an unrecorded game a draw may be agreed only with {max} or fewer pieces each")]
    TooManyPieces {
        /// Most pieces each side may have.
        max: u8,
    },
    /// A draw is offered together with one's own move, before the opponent replies.
    #[error("a draw is offered together with one's own move")]
    NotAfterOwnMove,
    /// This player's offer is already standing.
    #[error("your offer is already standing")]
    AlreadyOffered,
    /// The opponent's offer is standing: answer it.
    #[error("the opponent's offer is standing: accept or decline it")]
    OpponentOffered,
    /// After a declined offer, a player may not offer again until the opponent has.
    #[error("after a declined offer you may not offer again until your opponent has offered")]
    Barred,
    /// Frisian: agreement only in the endgame (FRI 21.2), read as: once a king is on the
    /// board.
    #[error("a draw may be agreed only in the endgame")]
    NotEndgame,
}

/// The offer state of a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Offers {
    /// The side whose offer stands.
    pub pending: Option<Color>,
    /// Sides barred from offering after a decline.
    pub barred: [bool; 2],
}

impl Offers {
    /// `by` offers: the opponent may offer again after that.
    pub fn make(&mut self, by: Color) {
        self.pending = Some(by);
        self.barred[by.opponent().index()] = false;
    }

    /// The offer of `by`'s opponent is declined (by word or by `by`'s move). Returns
    /// whether there was one.
    pub fn decline_by(&mut self, by: Color, bar: bool) -> bool {
        let offerer = by.opponent();
        if self.pending == Some(offerer) {
            self.pending = None;
            if bar {
                self.barred[offerer.index()] = true;
            }
            true
        } else {
            false
        }
    }
}
