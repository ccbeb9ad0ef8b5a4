//! The transposition table: one slot per key bucket, always replaced by a deeper or a
//! newer search. A move is kept as its origin, destination and captured set, which name
//! exactly one legal move of the position (the move generator's own equality).

use shared::rules::draughts::Move;

/// What a stored score bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    Exact,
    /// The true score is at least this (a cut-off).
    Lower,
    /// The true score is at most this (no move raised alpha).
    Upper,
}

/// A move as stored: enough to find it again among the legal moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct MoveKey {
    pub from: u8,
    pub to: u8,
    pub captures: u64,
}

impl MoveKey {
    pub fn of(mv: &Move) -> MoveKey {
        MoveKey {
            from: mv.from(),
            to: mv.to(),
            captures: mv.captures(),
        }
    }

    pub fn matches(&self, mv: &Move) -> bool {
        self.from == mv.from() && self.to == mv.to() && self.captures == mv.captures()
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub key: u64,
    pub mv: Option<MoveKey>,
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
    generation: u8,
}

pub(crate) struct Table {
    slots: Vec<Option<Entry>>,
    mask: usize,
    generation: u8,
}

impl Table {
    pub fn with_megabytes(mb: usize) -> Table {
        let per = std::mem::size_of::<Option<Entry>>().max(1);
        let wanted = (mb.max(1) << 20) / per;
        let size = wanted.next_power_of_two() / 2;
        let size = size.max(1024);
        Table {
            slots: vec![None; size],
            mask: size - 1,
            generation: 0,
        }
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
        self.generation = 0;
    }

    /// A new search begins: older entries give way first.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[(key as usize) & self.mask].filter(|e| e.key == key)
    }

    pub fn store(&mut self, key: u64, mv: Option<MoveKey>, score: i32, depth: i16, bound: Bound) {
        let slot = &mut self.slots[(key as usize) & self.mask];
        let replace = match slot {
            None => true,
            Some(e) => e.key == key || e.generation != self.generation || depth >= e.depth,
        };
        if replace {
            let mv = mv.or_else(|| slot.filter(|e| e.key == key).and_then(|e| e.mv));
            *slot = Some(Entry {
                key,
                mv,
                score,
                depth,
                bound,
                generation: self.generation,
            });
        }
    }
}
