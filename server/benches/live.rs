//! What storing live games costs a node without Redis: moves stored per second on
//! SQLite (WAL, `synchronous = FULL`) through the live-game writer, which commits every
//! write queued at that moment in one transaction (group commit), against the same
//! writes committed one transaction per move, in the same run. Each round, 256 games
//! play one move each at once: the move's tail, its event and the law's action.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use damka::db::Db;
use damka::db::live::{LiveGroup, LiveWrite};
use damka::game::store::LiveStore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

const GAMES: usize = 256;

fn write(game: usize, version: u64, snapshot: bool) -> LiveWrite {
    LiveWrite {
        id: format!("g{game:07}"),
        snapshot: snapshot.then(|| "{\"a\":\"snapshot of a few hundred bytes\"}".repeat(8)),
        tail: "{\"version\":1,\"clock\":{\"white\":300000,\"black\":300000}}".repeat(4),
        events: vec![(
            version,
            format!(
                "{{\"type\":\"game_event\",\"version\":{version},\"event\":{{\"kind\":\"move\",\"played\":{{\"move\":\"c3-d4\"}}}}}}"
            ),
        )],
        acts: if snapshot {
            Vec::new()
        } else {
            vec![(version, "{\"Move\":\"c3-d4\"}".into())]
        },
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("damka-bench-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("live.sqlite").display());
    let db = rt
        .block_on(Db::connect(&url, 4, Duration::from_secs(5)))
        .unwrap();
    let tracker = TaskTracker::new();
    let stop = CancellationToken::new();
    let store = {
        let _enter = rt.enter();
        Arc::new(LiveStore::start(
            db.clone(),
            Arc::new(damka::metrics::Metrics::default()),
            &tracker,
            stop.clone(),
        ))
    };
    // A writer of its own, one commit per call: the first snapshots, then the baseline.
    let mut direct = db.live_writer();
    let mut one = LiveGroup::default();
    rt.block_on(async {
        one.writes = (0..GAMES).map(|g| write(g, 1, true)).collect();
        direct.write(&mut one, Some(0)).await.unwrap();
    });
    let mut version = 1u64;
    let mut group = c.benchmark_group("live_store_sqlite");
    group.throughput(Throughput::Elements(GAMES as u64));
    group.sample_size(10);
    group.bench_function("group_commit_256_games_one_move_each", |b| {
        b.iter_custom(|rounds| {
            let started = Instant::now();
            for _ in 0..rounds {
                version += 1;
                let v = version;
                rt.block_on(async {
                    let mut all = tokio::task::JoinSet::new();
                    for g in 0..GAMES {
                        let store = store.clone();
                        all.spawn(async move { store.write(write(g, v, false)).await });
                    }
                    while let Some(done) = all.join_next().await {
                        done.unwrap().unwrap();
                    }
                });
            }
            started.elapsed()
        })
    });
    group.bench_function("one_commit_per_move_256_games", |b| {
        b.iter_custom(|rounds| {
            let started = Instant::now();
            for _ in 0..rounds {
                version += 1;
                let v = version;
                rt.block_on(async {
                    for g in 0..GAMES {
                        one.writes.push(write(g, v, false));
                        direct.write(&mut one, Some(0)).await.unwrap();
                    }
                });
            }
            started.elapsed()
        })
    });
    group.finish();
    stop.cancel();
    rt.block_on(async {
        tracker.close();
        tracker.wait().await;
        db.close().await;
    });
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
