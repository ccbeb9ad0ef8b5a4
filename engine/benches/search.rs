//! Search speed per variant: a fixed-depth search of the start position (and of one
//! middle-game position on 10x10), reported as nodes per second (criterion's
//! elements/s, the node count of one search being fixed for a fixed depth).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use engine::{Engine, Limits};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Position, Variant};

fn depth_of(v: DraughtsVariant) -> u8 {
    match v {
        DraughtsVariant::International | DraughtsVariant::Frisian => 8,
        _ => 10,
    }
}

fn search_speed(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for v in DraughtsVariant::ALL {
        let pos = Position::start(Variant::Draughts(v));
        let limits = Limits {
            depth: Some(depth_of(v)),
            ..Limits::default()
        };
        let nodes = {
            let mut e = Engine::new(16);
            e.analyse(&pos, &[], &limits).map(|t| t.nodes).unwrap_or(1)
        };
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(v.name(), |b| {
            b.iter(|| {
                let mut e = Engine::new(16);
                e.analyse(&pos, &[], &limits)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, search_speed);
criterion_main!(benches);
