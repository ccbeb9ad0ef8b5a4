//! Perft from the start position of every variant against published tables, and from
//! harder positions against independent implementations run on this machine (see
//! docs/rules.md for where each number comes from).

use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Position, Variant};

/// Start-position perft, depths 1..=8, one move per (origin, destination, captured set).
/// Depths 6-8 are the published tables (rhalbersma/dctl, damforum "Perft for all
/// recognized draughts variants"); depths 1-5 agree with pydraughts / py-draughts where
/// those implement the variant (docs/rules.md).
const START: &[(Variant, &[u64])] = &[
    (
        Variant::Draughts(DraughtsVariant::Russian),
        &[7, 49, 302, 1469, 7482, 37986, 190146, 929899],
    ),
    (
        Variant::Draughts(DraughtsVariant::Brazilian),
        &[7, 49, 302, 1469, 7473, 37628, 187302, 907830],
    ),
    (
        Variant::Draughts(DraughtsVariant::Pool),
        &[7, 49, 302, 1469, 7482, 37986, 190146, 929896],
    ),
    (
        Variant::Draughts(DraughtsVariant::Czech),
        &[7, 49, 302, 1469, 7361, 36768, 179740, 845931],
    ),
    (
        Variant::Draughts(DraughtsVariant::Portuguese),
        &[7, 49, 302, 1469, 7361, 36473, 177532, 828783],
    ),
    (
        Variant::Draughts(DraughtsVariant::Italian),
        &[7, 49, 302, 1469, 7361, 36473, 177532, 828783],
    ),
    (
        Variant::Draughts(DraughtsVariant::International),
        &[9, 81, 658, 4265, 27117, 167140, 1049442],
    ),
    (
        Variant::Draughts(DraughtsVariant::Frisian),
        &[9, 81, 658, 3874, 21265, 102431, 540126],
    ),
];

#[test]
fn start_position_perft_matches_the_published_tables() {
    for (variant, counts) in START {
        let p = Position::start(*variant);
        for (i, &expected) in counts.iter().enumerate() {
            let depth = i as u32 + 1;
            assert_eq!(p.perft(depth), expected, "{variant} depth {depth}");
        }
    }
}

#[test]
fn chess_perft_matches_the_chess_programming_wiki() {
    let start = Position::start(Variant::Chess);
    assert_eq!(start.perft(4), 197_281);
    let kiwipete = Position::from_fen(
        Variant::Chess,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    )
    .unwrap();
    assert_eq!(kiwipete.perft(3), 97_862);
    // The standard array as Chess960 position 518 plays like chess.
    assert_eq!(Position::start(Variant::Chess960).perft(4), 197_281);
}

#[test]
fn chess960_perft_matches_python_chess() {
    // Scharnagl 0 (bbqnnrkr) and 314, depths 1-4, computed with python-chess 1.11.2.
    let cases: [(u32, [u64; 4]); 2] = [
        (0, [20, 400, 9006, 201_143]),
        (314, [19, 361, 7729, 164_721]),
    ];
    for (index, counts) in cases {
        let p = Position::start960(index).unwrap();
        for (i, &expected) in counts.iter().enumerate() {
            assert_eq!(
                p.perft(i as u32 + 1),
                expected,
                "960 #{index} depth {}",
                i + 1
            );
        }
    }
}
