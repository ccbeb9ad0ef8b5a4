//! Perft throughput of the draughts move generator: International and Russian draughts
//! from the start position and from a middle-game position with kings. The comparison
//! with other implementations is in docs/performance.md (tools/perft-compare.sh). Also
//! writing a position's FEN, which every move event and every game state carries.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Position, Variant};

/// The position a case names: `fen`, or the variant's start.
fn position(variant: Variant, fen: Option<&str>) -> Position {
    match fen {
        Some(f) => Position::from_fen(variant, f).expect("benchmark FEN"),
        None => Position::start(variant),
    }
}

fn perft(c: &mut Criterion) {
    let cases = [
        (
            "international/start",
            Variant::Draughts(DraughtsVariant::International),
            None,
            6,
        ),
        (
            "international/kings",
            Variant::Draughts(DraughtsVariant::International),
            Some("W:WK9,34,36,39,41,K42,46,48,49:B5,11,16"),
            6,
        ),
        (
            "russian/start",
            Variant::Draughts(DraughtsVariant::Russian),
            None,
            8,
        ),
        (
            "russian/kings",
            Variant::Draughts(DraughtsVariant::Russian),
            Some("W:Wa1,c1,e1,b2,c3,Ke3,g3,f4:Bd6,f6,h6,c7,e7,g7,Kb8,d8"),
            7,
        ),
    ];
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, variant, fen, depth) in cases {
        let pos = position(variant, fen);
        let nodes = pos.perft(depth);
        group.throughput(Throughput::Elements(nodes));
        group.bench_with_input(BenchmarkId::new(name, depth), &pos, |b, p| {
            b.iter(|| p.perft(depth))
        });
    }
    group.finish();
}

fn fen(c: &mut Criterion) {
    let cases = [
        (
            "international/start",
            Variant::Draughts(DraughtsVariant::International),
            None,
        ),
        (
            "russian/start",
            Variant::Draughts(DraughtsVariant::Russian),
            None,
        ),
        (
            "frisian/run",
            Variant::Draughts(DraughtsVariant::Frisian),
            Some("W:WK46,31:B5,K10:MW46/2"),
        ),
        ("chess/start", Variant::Chess, None),
    ];
    let mut group = c.benchmark_group("fen");
    for (name, variant, fen) in cases {
        group.bench_with_input(name, &position(variant, fen), |b, p| b.iter(|| p.fen()));
    }
    group.finish();
}

criterion_group!(benches, perft, fen);
criterion_main!(benches);
