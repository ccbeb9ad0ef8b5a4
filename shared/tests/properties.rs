//! Property tests over random legal games and random positions of every variant: every
//! generated move replays legally, its text reads back as the same move, FEN round-trips,
//! material only changes as the move says, and nothing panics.

use proptest::prelude::*;
use shared::rules::draughts::{self, DraughtsVariant, Geometry};
use shared::rules::{Color, Move, Position, Variant};

/// A small deterministic generator so that a failing seed replays exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn check_position(p: &Position) {
    let fen = p.fen();
    let back = Position::from_fen(p.variant(), &fen).expect("own FEN reads back");
    assert_eq!(&back, p, "FEN round trip of {fen}");
    let moves = p.legal_moves();
    for m in &moves {
        let text = p.move_text(m);
        let parsed = p
            .parse_move(&text)
            .unwrap_or_else(|e| panic!("{fen}: `{text}`: {e}"));
        assert_eq!(&parsed, m, "{fen}: `{text}` read back as another move");
        assert_eq!(p.move_text(&parsed), text);
        let info = p.move_info(m);
        assert_eq!(info.path.first(), Some(&info.from));
        assert_eq!(info.path.last(), Some(&info.to));
        let mut next = p.clone();
        next.play(m).expect("generated move is legal");
        assert_eq!(next.side_to_move(), p.side_to_move().opponent());
        if let (Position::Draughts(before), Position::Draughts(after), Move::Draughts(d)) =
            (p, &next, m)
        {
            check_draughts_move(before, after, d);
        }
    }
}

fn check_draughts_move(
    before: &draughts::Position,
    after: &draughts::Position,
    m: &draughts::Move,
) {
    let us = before.side_to_move();
    let them = us.opponent();
    assert_eq!(
        m.captures() & !before.pieces(them),
        0,
        "captures only enemy pieces"
    );
    assert_eq!(
        m.taken().len() as u32,
        m.captures().count_ones(),
        "no piece taken twice"
    );
    assert_eq!(
        after.pieces(us).count_ones(),
        before.pieces(us).count_ones()
    );
    assert_eq!(
        after.pieces(them).count_ones(),
        before.pieces(them).count_ones() - m.captures().count_ones()
    );
    assert!(after.kings_of(us).count_ones() >= before.kings_of(us).count_ones());
    if before.legal_moves().iter().any(|x| x.is_capture()) {
        assert!(m.is_capture(), "capturing is compulsory");
    }
}

fn random_game(variant: Variant, seed: u64, plies: usize) {
    let mut rng = Rng(seed);
    let mut p = if variant == Variant::Chess960 {
        Position::start960((seed % 960) as u32).expect("index below 960")
    } else {
        Position::start(variant)
    };
    for _ in 0..plies {
        check_position(&p);
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = &moves[rng.below(moves.len())];
        p.play(m).expect("legal");
    }
}

/// A random legal-looking draughts position: pieces scattered, kings anywhere, men off
/// their promotion rows.
fn random_draughts_position(v: DraughtsVariant, seed: u64) -> Option<draughts::Position> {
    let mut rng = Rng(seed);
    let rules = v.rules();
    let geo = Geometry::of(rules.board);
    let (mut white, mut black, mut kings) = (0u64, 0u64, 0u64);
    let n = 2 + rng.below(14);
    for _ in 0..n {
        let sq = rng.below(geo.squares as usize) as u8;
        let bit = 1u64 << sq;
        if (white | black) & bit != 0 {
            continue;
        }
        let is_white = rng.below(2) == 0;
        let king = rng.below(3) == 0 || geo.promotion_row(is_white) & bit != 0;
        if is_white {
            white |= bit
        } else {
            black |= bit
        }
        if king {
            kings |= bit;
        }
    }
    let side = if rng.below(2) == 0 {
        Color::White
    } else {
        Color::Black
    };
    draughts::Position::new(v, white, black, kings, side, [None, None]).ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_games_of_every_variant_stay_consistent(seed in any::<u64>(), v in 0usize..10) {
        random_game(Variant::ALL[v], seed, 150);
    }

    #[test]
    fn random_draughts_positions_stay_consistent(seed in any::<u64>(), v in 0usize..8) {
        if let Some(p) = random_draughts_position(DraughtsVariant::ALL[v], seed) {
            check_position(&Position::Draughts(p));
        }
    }
}
