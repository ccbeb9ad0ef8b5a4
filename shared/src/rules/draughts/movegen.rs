//! Legal move generation for every draughts variant, driven by the variant's [`Rules`].
//!
//! Captures are found by a depth-first search over capture sequences in which captured
//! pieces stay on the board, blocking, until the sequence ends (IDF 5.7, FRI 14), no
//! piece is jumped twice (IDF 5.9, FRI 13) and empty squares may be crossed again. A
//! sequence ends only where no further capture is possible: a king that may land on
//! several squares beyond a captured piece must take one from which it can go on, if
//! there is one (IDF 5.6). Capturing is compulsory (IDF 5.3, FRI 10), so quiet moves are
//! generated only when no capture exists. The capture-choice criteria of the variant are
//! then applied as a lexicographic key. Routes that take the same pieces to the same
//! square are one move; the first route found is kept as its recorded route.

use super::geometry::{Dir, Geometry, MAX_RAY};
use super::moves::{MAX_CAPTURES, Move};
use super::position::Position;
use super::variant::{Crowning, KingRange, Priority, Rules};
use crate::rules::Color;

/// Which moves to return.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Routes {
    /// One move per (origin, destination, captured set).
    Distinct,
    /// Every legal route, even several for one move (used to match a typed route).
    All,
}

impl Position {
    /// Every legal move, one per (origin, destination, captured set).
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(32);
        self.generate_into(&mut out);
        out
    }

    /// Writes every legal move into `out` (cleared first).
    pub fn generate_into(&self, out: &mut Vec<Move>) {
        self.generate(out, Routes::Distinct);
    }

    /// Every legal route, including several routes of one move.
    pub fn legal_routes(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(32);
        self.generate(&mut out, Routes::All);
        out
    }

    /// The pieces that may start a capture: men with a short jump (found all at once
    /// with bit shifts) and every king.
    fn capturers(&self) -> u64 {
        let rules = self.rules();
        let geo = self.geometry();
        let us = self.side_to_move();
        let empty = geo.all & !self.occupied();
        let enemy = self.pieces(us.opponent());
        let men = self.men_of(us);
        let targets = if rules.man_captures_king {
            enemy
        } else {
            enemy & !self.kings()
        };
        let g = Generator::new(self);
        let mut from = 0;
        for &d in g.man_dirs {
            from |= geo.jumps(d, targets, empty) & men;
        }
        from | self.kings_of(us)
    }

    /// Does the side to move have a capture? Men are checked all at once with bit
    /// shifts; kings one by one along their rays.
    pub fn has_capture(&self) -> bool {
        let rules = self.rules();
        let geo = self.geometry();
        let us = self.side_to_move();
        let occ = self.occupied();
        let empty = geo.all & !occ;
        let enemy = self.pieces(us.opponent());
        let men = self.men_of(us);
        let g = Generator::new(self);
        if men != 0 {
            let targets = if rules.man_captures_king {
                enemy
            } else {
                enemy & !self.kings()
            };
            if g.man_dirs
                .iter()
                .any(|&d| geo.jumps(d, targets, empty) & men != 0)
            {
                return true;
            }
        }
        let mut kings = self.kings_of(us);
        if rules.king_range == KingRange::Short {
            return g
                .king_dirs
                .iter()
                .any(|&d| geo.jumps(d, enemy, empty) & kings != 0);
        }
        let mut g = g;
        while kings != 0 {
            let sq = kings.trailing_zeros() as u8;
            kings &= kings - 1;
            g.occ = occ & !(1u64 << sq);
            if g.continues(sq, true, 0) {
                return true;
            }
        }
        false
    }

    fn generate(&self, out: &mut Vec<Move>, routes: Routes) {
        out.clear();
        if !self.has_capture() {
            self.quiet_moves(out);
            return;
        }
        let mut g = Generator::new(self);
        let occ = self.occupied();
        let mut bits = self.capturers();
        while bits != 0 {
            let sq = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            let king = self.kings() & (1u64 << sq) != 0;
            g.from = sq;
            g.by_king = king;
            g.occ = occ & !(1u64 << sq);
            g.search(out, routes, sq, king, 0, 0);
        }
    }

    fn quiet_moves(&self, out: &mut Vec<Move>) {
        self.each_quiet(|from, to, crowns| out.push(Move::quiet(from, to, crowns)));
    }

    /// The number of legal moves, without building them when there is no capture (the
    /// common case at the leaves of a perft tree).
    pub fn count_moves(&self) -> usize {
        if self.has_capture() {
            let mut out = Vec::with_capacity(16);
            self.generate(&mut out, Routes::Distinct);
            return out.len();
        }
        let geo = self.geometry();
        let us = self.side_to_move();
        let empty = geo.all & !self.occupied();
        let forward = match us {
            Color::White => Dir::WHITE_FORWARD,
            Color::Black => Dir::BLACK_FORWARD,
        };
        let men = self.men_of(us);
        let mut n: usize = forward
            .iter()
            .map(|&d| (geo.steps(d, empty) & men).count_ones() as usize)
            .sum();
        if self.kings_of(us) != 0 {
            self.each_king_quiet(|_, _, _| n += 1);
        }
        n
    }

    /// Calls `f(from, to, crowns)` for every non-capturing move.
    #[inline]
    fn each_quiet(&self, mut f: impl FnMut(u8, u8, bool)) {
        let geo = self.geometry();
        let us = self.side_to_move();
        let occ = self.occupied();
        let promo = geo.promotion_row(us == Color::White);
        let forward = match us {
            Color::White => Dir::WHITE_FORWARD,
            Color::Black => Dir::BLACK_FORWARD,
        };
        let men = self.men_of(us);
        let empty = geo.all & !occ;
        for dir in forward {
            let mut movers = geo.steps(dir, empty) & men;
            while movers != 0 {
                let sq = movers.trailing_zeros() as u8;
                movers &= movers - 1;
                let to = geo.neighbour(sq, dir);
                f(sq, to, promo & (1u64 << to) != 0);
            }
        }
        self.each_king_quiet(f);
    }

    /// Calls `f(from, to, false)` for every non-capturing king move.
    #[inline]
    fn each_king_quiet(&self, mut f: impl FnMut(u8, u8, bool)) {
        let rules = self.rules();
        let geo = self.geometry();
        let us = self.side_to_move();
        let occ = self.occupied();
        let resting = self.resting_king(rules);
        let mut kings = self.kings_of(us);
        while kings != 0 {
            let sq = kings.trailing_zeros() as u8;
            kings &= kings - 1;
            if Some(sq) == resting {
                continue;
            }
            for dir in Dir::DIAGONAL {
                for &to in geo.ray(sq, dir) {
                    if occ & (1u64 << to) != 0 {
                        break;
                    }
                    f(sq, to, false);
                    if rules.king_range == KingRange::Short {
                        break;
                    }
                }
            }
        }
    }

    /// The king that has used up its consecutive quiet moves (FRI 17), if any. The limit
    /// lapses once the player has only kings.
    fn resting_king(&self, rules: &Rules) -> Option<u8> {
        let limit = rules.king_move_limit?;
        let us = self.side_to_move();
        let run = self.king_run(us)?;
        (run.count >= limit && self.men_of(us) != 0).then_some(run.square)
    }
}

/// The state of one capture search.
struct Generator<'a> {
    pos: &'a Position,
    rules: &'static Rules,
    geo: &'static Geometry,
    enemy: u64,
    promo: u64,
    man_dirs: &'static [Dir],
    king_dirs: &'static [Dir],
    /// Occupied squares with the moving piece lifted from its origin.
    occ: u64,
    from: u8,
    by_king: bool,
    best: u64,
    landings: [u8; MAX_CAPTURES],
    taken: [u8; MAX_CAPTURES],
}

const DIAGONAL_AND_ORTHOGONAL: [Dir; 8] = Dir::ALL;
const DIAGONAL: [Dir; 4] = Dir::DIAGONAL;
const WHITE_FORWARD: [Dir; 2] = Dir::WHITE_FORWARD;
const BLACK_FORWARD: [Dir; 2] = Dir::BLACK_FORWARD;

impl<'a> Generator<'a> {
    fn new(pos: &'a Position) -> Generator<'a> {
        let rules = pos.rules();
        let geo = pos.geometry();
        let us = pos.side_to_move();
        let king_dirs: &'static [Dir] = if rules.orthogonal_captures {
            &DIAGONAL_AND_ORTHOGONAL
        } else {
            &DIAGONAL
        };
        let man_dirs: &'static [Dir] = if rules.men_capture_backwards {
            king_dirs
        } else if us == Color::White {
            &WHITE_FORWARD
        } else {
            &BLACK_FORWARD
        };
        Generator {
            pos,
            rules,
            geo,
            enemy: pos.pieces(us.opponent()),
            promo: geo.promotion_row(us == Color::White),
            man_dirs,
            king_dirs,
            occ: pos.occupied(),
            from: 0,
            by_king: false,
            best: 0,
            landings: [0; MAX_CAPTURES],
            taken: [0; MAX_CAPTURES],
        }
    }

    /// Finds the piece a capture from `sq` along `dir` would take, and the first landing
    /// square beyond it: `(victim, index of the landing in the ray)`.
    #[inline]
    fn victim(&self, sq: u8, king: bool, dir: Dir, captured: u64) -> Option<(u8, usize)> {
        let ray = self.geo.ray(sq, dir);
        let mut i = 0;
        if king && self.rules.king_range == KingRange::Flying {
            while i < ray.len() && self.occ & (1u64 << ray[i]) == 0 {
                i += 1;
            }
        }
        let victim = *ray.get(i)?;
        let bit = 1u64 << victim;
        if self.enemy & bit == 0 || captured & bit != 0 {
            return None;
        }
        if !king && !self.rules.man_captures_king && self.pos.kings() & bit != 0 {
            return None;
        }
        let land = *ray.get(i + 1)?;
        (self.occ & (1u64 << land) == 0).then_some((victim, i + 1))
    }

    fn dirs(&self, king: bool) -> &'static [Dir] {
        if king { self.king_dirs } else { self.man_dirs }
    }

    /// Does a piece on `sq` have a capture from here (used to choose landing squares)?
    #[inline]
    fn continues(&self, sq: u8, king: bool, captured: u64) -> bool {
        self.dirs(king)
            .iter()
            .any(|&d| self.victim(sq, king, d, captured).is_some())
    }

    /// Explores every capture from `sq` after `depth` captures taking `captured`.
    fn search(
        &mut self,
        out: &mut Vec<Move>,
        routes: Routes,
        sq: u8,
        king: bool,
        depth: usize,
        captured: u64,
    ) {
        for &dir in self.dirs(king) {
            let Some((victim, first_land)) = self.victim(sq, king, dir, captured) else {
                continue;
            };
            let now_captured = captured | (1u64 << victim);
            self.taken[depth] = victim;
            let ray = self.geo.ray(sq, dir);
            let last_land = if king && self.rules.king_range == KingRange::Flying {
                let mut j = first_land;
                while j + 1 < ray.len() && self.occ & (1u64 << ray[j + 1]) == 0 {
                    j += 1;
                }
                j
            } else {
                first_land
            };
            let mut goes_on = [false; MAX_RAY];
            let mut any_goes_on = false;
            for j in first_land..=last_land {
                let land = ray[j];
                let next_king = king || self.crowned_at(land);
                goes_on[j] = self.continues(land, next_king, now_captured);
                any_goes_on |= goes_on[j];
            }
            for j in first_land..=last_land {
                let land = ray[j];
                self.landings[depth] = land;
                let next_king = king || self.crowned_at(land);
                if goes_on[j] {
                    self.search(out, routes, land, next_king, depth + 1, now_captured);
                } else if !any_goes_on {
                    self.emit(out, routes, depth + 1, now_captured, next_king);
                }
            }
        }
    }

    /// Does a man landing on `sq` mid-capture become a king at once?
    #[inline]
    fn crowned_at(&self, sq: u8) -> bool {
        self.rules.crowning == Crowning::MidCapture && self.promo & (1u64 << sq) != 0
    }

    fn priority_key(&self, len: usize, captured: u64) -> u64 {
        let kings = captured & self.pos.kings();
        let n_kings = kings.count_ones() as u64;
        let mut key = 0u64;
        for p in self.rules.priorities {
            key = match p {
                Priority::MostPieces => (key << 6) | len as u64,
                Priority::MostKings => (key << 6) | n_kings,
                Priority::ByKing => (key << 1) | self.by_king as u64,
                Priority::EarliestKings => {
                    let mut mask = 0u64;
                    for (i, &t) in self.taken[..len].iter().enumerate() {
                        if kings & (1u64 << t) != 0 {
                            mask |= 1 << (MAX_CAPTURES - 1 - i);
                        }
                    }
                    (key << MAX_CAPTURES) | mask
                }
                Priority::MostValue => {
                    let men = len as u64 - n_kings;
                    (key << 11) | (32 * men + 63 * n_kings)
                }
            };
        }
        key
    }

    fn emit(&mut self, out: &mut Vec<Move>, routes: Routes, len: usize, captured: u64, king: bool) {
        let key = self.priority_key(len, captured);
        if !out.is_empty() {
            if key < self.best {
                return;
            }
            if key > self.best {
                out.clear();
            }
        }
        self.best = key;
        let to = self.landings[len - 1];
        if routes == Routes::Distinct
            && out
                .iter()
                .any(|m| m.from == self.from && m.to == to && m.captures == captured)
        {
            return;
        }
        let crowns = !self.by_king && (king || self.promo & (1u64 << to) != 0);
        out.push(Move {
            from: self.from,
            to,
            crowns,
            len: len as u8,
            captures: captured,
            landings: self.landings,
            taken: self.taken,
        });
    }
}
