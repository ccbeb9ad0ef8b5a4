//! A draughts move as the generator finds it and the position applies it.

/// The most pieces one capture can take (a side has at most 20).
pub const MAX_CAPTURES: usize = 20;

/// A legal draughts move: a quiet step or slide, or a complete capture sequence.
///
/// Two moves are equal when they have the same origin, destination and set of captured
/// pieces, whatever route they recorded.
#[derive(Clone, Copy, Debug)]
pub struct Move {
    pub(super) from: u8,
    pub(super) to: u8,
    pub(super) crowns: bool,
    pub(super) len: u8,
    pub(super) captures: u64,
    /// Square landed on after each capture (the last is `to`).
    pub(super) landings: [u8; MAX_CAPTURES],
    /// Square of each captured piece, in capture order.
    pub(super) taken: [u8; MAX_CAPTURES],
}

impl PartialEq for Move {
    fn eq(&self, other: &Move) -> bool {
        self.from == other.from && self.to == other.to && self.captures == other.captures
    }
}

impl Eq for Move {}

impl std::hash::Hash for Move {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.from, self.to, self.captures).hash(state);
    }
}

impl Move {
    pub(super) fn quiet(from: u8, to: u8, crowns: bool) -> Move {
        Move {
            from,
            to,
            crowns,
            len: 0,
            captures: 0,
            landings: [0; MAX_CAPTURES],
            taken: [0; MAX_CAPTURES],
        }
    }

    /// Origin square (internal index).
    pub fn from(&self) -> u8 {
        self.from
    }

    /// Destination square (internal index).
    pub fn to(&self) -> u8 {
        self.to
    }

    /// Bitboard of the captured pieces.
    pub fn captures(&self) -> u64 {
        self.captures
    }

    /// Is this a capture?
    pub fn is_capture(&self) -> bool {
        self.len > 0
    }

    /// Does the moving man become a king?
    pub fn crowns(&self) -> bool {
        self.crowns
    }

    /// Squares landed on after each capture, in order (empty for a quiet move).
    pub fn landings(&self) -> &[u8] {
        &self.landings[..self.len as usize]
    }

    /// Squares of the captured pieces in the order the recorded route takes them.
    pub fn taken(&self) -> &[u8] {
        &self.taken[..self.len as usize]
    }

    /// The full route: origin, every landing square, destination.
    pub fn route(&self) -> Vec<u8> {
        let mut r = vec![self.from];
        if self.len == 0 {
            r.push(self.to);
        } else {
            r.extend_from_slice(self.landings());
        }
        r
    }
}
