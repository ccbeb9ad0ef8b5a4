//! The store's throughput on both back ends: games archived per second (a rated game
//! between two registered players: the game row, two list rows, two rating updates, one
//! transaction), and exporting one player's 10,000 games as NDJSON through the paged
//! stream `GET /api/users/{name}/games` uses.
//!
//! PostgreSQL: `POSTGRES_BENCH_URL` (default `postgres://postgres@127.0.0.1:5432/test`);
//! a database of its own is made for the run.

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use damka::db::{ArchivedGame, ArchivedMove, ArchivedPlayer, Db, GameFilter};
use futures_util::StreamExt;
use shared::protocol::OutcomeReason;
use shared::rules::Color;
use sqlx::Connection;

fn game(id: u64, white: &str, black: &str, rated: bool) -> ArchivedGame {
    let player = |name: &str| ArchivedPlayer {
        id: name.into(),
        name: name.into(),
        guest: false,
        rating_before: None,
        rating_after: None,
    };
    ArchivedGame {
        id: format!("b{id:010}"),
        variant: "russian".into(),
        rules: "russian_idf".into(),
        perf: "russian-blitz".into(),
        rated,
        clock: "3+2".into(),
        white: player(white),
        black: player(black),
        start_fen: None,
        // A typical game: 60 plies.
        moves: (0..60)
            .map(|i| ArchivedMove {
                san: if i % 2 == 0 {
                    "c3-d4".into()
                } else {
                    "f6-g5".into()
                },
                clock_ms: Some(180_000 - i * 1000),
            })
            .collect(),
        result: "1-0".into(),
        winner: Some(Color::White),
        reason: OutcomeReason::Resignation,
        rule: None,
        started_at: 1_795_000_000_000 + id as i64 * 1000,
        ended_at: 1_795_000_000_500 + id as i64 * 1000,
        arena: None,
        tournament: None,
        berserk: Vec::new(),
    }
}

async fn postgres() -> String {
    let admin = std::env::var("POSTGRES_BENCH_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let mut conn = sqlx::PgConnection::connect(&admin)
        .await
        .expect("PostgreSQL");
    let name = format!("damka_bench_{}", std::process::id());
    let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {name}"))
        .execute(&mut conn)
        .await;
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .unwrap();
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
    format!("{base}/{name}")
}

fn sqlite() -> String {
    let path = std::env::temp_dir().join(format!("damka-bench-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&path);
    format!("sqlite://{}", path.display())
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let backends =
        rt.block_on(async { vec![("sqlite", sqlite()), ("postgres", postgres().await)] });
    let mut group = c.benchmark_group("archive");
    group.throughput(Throughput::Elements(1));
    group.measurement_time(Duration::from_secs(8));
    for (name, url) in &backends {
        let db = rt.block_on(async {
            let db = Db::connect(url, 8, Duration::from_secs(5)).await.unwrap();
            db.register("alice", "h").await.unwrap();
            db.register("bob", "h").await.unwrap();
            db
        });
        let mut next = 0u64;
        group.bench_function(format!("rated_game/{name}"), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        next += 1;
                        db.archive(&game(next, "alice", "bob", true)).await.unwrap();
                    }
                    start.elapsed()
                })
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("export_10k_ndjson");
    group.throughput(Throughput::Elements(10_000));
    group.sample_size(10);
    for (name, url) in &backends {
        let db = rt.block_on(async {
            let db = Db::connect(url, 8, Duration::from_secs(5)).await.unwrap();
            db.register("carol", "h").await.unwrap();
            db.register("dave", "h").await.unwrap();
            for i in 0..10_000u64 {
                db.archive(&game(1_000_000 + i, "carol", "dave", false))
                    .await
                    .unwrap();
            }
            db
        });
        group.bench_function(*name, |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        let filter = GameFilter {
                            max: 10_000,
                            ..GameFilter::default()
                        };
                        let bytes = db
                            .games_of("carol".into(), filter)
                            .fold(0usize, |n, g| async move {
                                n + serde_json::to_string(&g.unwrap()).unwrap().len() + 1
                            })
                            .await;
                        assert!(bytes > 10_000 * 500);
                    }
                    start.elapsed()
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
