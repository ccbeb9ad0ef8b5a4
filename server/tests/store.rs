//! The store against both real back ends: each test runs once on a fresh SQLite file and
//! once on a fresh PostgreSQL database (127.0.0.1:5432).

mod common;

use std::time::Duration;

use damka::db::{ArchivedGame, ArchivedMove, ArchivedPlayer, Db, DbError, GameFilter};
use damka::rating::Perf;
use futures_util::StreamExt;
use shared::protocol::{OutcomeReason, Speed};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Variant};

async fn open(url: &str) -> Db {
    Db::connect(url, 4, Duration::from_secs(5))
        .await
        .expect("database opens")
}

fn player(id: &str, guest: bool) -> ArchivedPlayer {
    ArchivedPlayer {
        id: id.into(),
        name: id.into(),
        guest,
        rating_before: None,
        rating_after: None,
    }
}

fn game(
    id: &str,
    white: &str,
    black: &str,
    winner: Option<Color>,
    rated: bool,
    ended: i64,
) -> ArchivedGame {
    ArchivedGame {
        id: id.into(),
        variant: "russian".into(),
        rules: "russian_idf".into(),
        perf: "russian-blitz".into(),
        rated,
        clock: "3+2".into(),
        white: player(white, white.starts_with("guest:")),
        black: player(black, black.starts_with("guest:")),
        start_fen: None,
        moves: vec![
            ArchivedMove {
                san: "c3-d4".into(),
                clock_ms: Some(179_000),
            },
            ArchivedMove {
                san: "f6-g5".into(),
                clock_ms: Some(178_000),
            },
        ],
        result: match winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
        .into(),
        winner,
        reason: if winner.is_some() {
            OutcomeReason::Resignation
        } else {
            OutcomeReason::Agreement
        },
        rule: None,
        started_at: ended - 60_000,
        ended_at: ended,
        arena: None,
        tournament: None,
        berserk: Vec::new(),
    }
}

const BLITZ: Perf = Perf {
    variant: Variant::Draughts(DraughtsVariant::Russian),
    speed: Speed::Blitz,
};

#[tokio::test]
async fn accounts_on_both_back_ends() {
    for (backend, url) in common::backends().await {
        let db = open(&url).await;
        let alice = db.register("Alice", "hash-a").await.unwrap();
        assert_eq!(alice.id, "alice", "{backend}");
        assert!(
            matches!(db.register("ALICE", "x").await, Err(DbError::Taken)),
            "{backend}"
        );
        assert!(
            matches!(db.register("alice", "x").await, Err(DbError::Taken)),
            "{backend}"
        );
        let (p, hash) = db.credentials("aLiCe").await.unwrap().unwrap();
        assert_eq!(
            (p.name.as_str(), hash.as_str()),
            ("Alice", "hash-a"),
            "{backend}"
        );
        assert!(db.credentials("nobody").await.unwrap().is_none());
        // SQL metacharacters are data.
        assert!(
            db.credentials("x' OR '1'='1").await.unwrap().is_none(),
            "{backend}"
        );
        assert!(
            db.player_by_name("'; DROP TABLE players; --")
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            db.player_by_name("alice").await.unwrap().is_some(),
            "{backend}"
        );
        // An external token's player: made on first sight, same row the second time,
        // a suffix when the name is taken.
        let ext = db.ensure_player("ext|123", "alice").await.unwrap();
        assert_eq!(ext.id, "ext|123");
        assert_ne!(ext.name.to_lowercase(), "alice", "{backend}");
        assert_eq!(db.ensure_player("ext|123", "other").await.unwrap(), ext);
        // No password: an external player cannot log in with one.
        assert!(
            db.credentials(&ext.name).await.unwrap().is_none(),
            "{backend}"
        );
        // The secret setting: made once, then read back.
        let s1 = db.setting_or_init("k", || "first".into()).await.unwrap();
        let s2 = db.setting_or_init("k", || "second".into()).await.unwrap();
        assert_eq!((s1.as_str(), s2.as_str()), ("first", "first"), "{backend}");
    }
}

#[tokio::test]
async fn archive_rates_once_and_lists_newest_first() {
    for (backend, url) in common::backends().await {
        let db = open(&url).await;
        db.register("alice", "h").await.unwrap();
        db.register("bob", "h").await.unwrap();
        let g1 = game("g1", "alice", "bob", Some(Color::White), true, 1_000_000);
        let r1 = db.archive(&g1).await.unwrap();
        let (w, b) = (r1.white.unwrap(), r1.black.unwrap());
        assert_eq!((w.before, b.before), (1500, 1500), "{backend}");
        assert!(w.after > 1500 && b.after < 1500, "{backend}: {r1:?}");
        // The same game again: nothing changes, the stored changes come back.
        assert_eq!(db.archive(&g1).await.unwrap(), r1, "{backend}");
        let alice = db.rating("alice", BLITZ).await.unwrap();
        assert_eq!(alice.rounded() as i32, w.after, "{backend}");
        let profile = db.profile("ALICE").await.unwrap().unwrap();
        assert_eq!(profile.perfs["russian-blitz"].games, 1, "{backend}");
        assert!(profile.perfs["russian-blitz"].provisional);
        assert_eq!(
            (profile.count.all, profile.count.win, profile.count.loss),
            (1, 1, 0)
        );
        // A casual game and a guest game move no rating.
        let g2 = game("g2", "bob", "alice", None, false, 2_000_000);
        assert_eq!(
            db.archive(&g2).await.unwrap(),
            Default::default(),
            "{backend}"
        );
        let g3 = game(
            "g3",
            "alice",
            "guest:ab12",
            Some(Color::Black),
            true,
            3_000_000,
        );
        assert_eq!(
            db.archive(&g3).await.unwrap(),
            Default::default(),
            "{backend}"
        );
        assert_eq!(db.rating("alice", BLITZ).await.unwrap(), alice, "{backend}");
        // Newest first, filtered, bounded, paged by `before`.
        let ids = |filter: GameFilter| {
            let db = db.clone();
            async move {
                db.games_of("alice".into(), filter)
                    .map(|g| g.unwrap().id)
                    .collect::<Vec<_>>()
                    .await
            }
        };
        let all = GameFilter {
            max: 100,
            ..GameFilter::default()
        };
        assert_eq!(ids(all.clone()).await, ["g3", "g2", "g1"], "{backend}");
        assert_eq!(
            ids(GameFilter {
                max: 2,
                ..all.clone()
            })
            .await,
            ["g3", "g2"]
        );
        assert_eq!(
            ids(GameFilter {
                before: Some(3_000_000),
                ..all.clone()
            })
            .await,
            ["g2", "g1"]
        );
        assert_eq!(
            ids(GameFilter {
                perf: Some("chess-blitz".into()),
                ..all.clone()
            })
            .await,
            Vec::<String>::new()
        );
        let back = db.game("g1").await.unwrap().unwrap();
        assert_eq!(back.moves, g1.moves, "{backend}");
        assert_eq!(
            back.white.rating_after.map(|r| r.round() as i32),
            Some(w.after)
        );
        let history = db.rating_history("alice", BLITZ).await.unwrap();
        assert_eq!(history.len(), 1, "{backend}");
        // A rated player the database never saw (their row could not be made when
        // they connected) still gets rated: the archive makes the row.
        let g4 = game("g4", "ghost|7", "bob", None, true, 4_000_000);
        let r4 = db.archive(&g4).await.unwrap();
        assert!(
            r4.white.is_some() && r4.black.is_some(),
            "{backend}: {r4:?}"
        );
        assert!(db.player_by_id("ghost|7").await.unwrap().is_some());
    }
}

#[tokio::test]
async fn many_games_stream_in_pages() {
    for (backend, url) in common::backends().await {
        let db = open(&url).await;
        db.register("carol", "h").await.unwrap();
        db.register("dave", "h").await.unwrap();
        // 450 games, some ending in the same millisecond: pages must neither skip
        // nor repeat a game.
        for i in 0..450i64 {
            let g = game(
                &format!("c{i:04}"),
                "carol",
                "dave",
                None,
                false,
                10_000 + i / 3,
            );
            db.archive(&g).await.unwrap();
        }
        let listed: Vec<String> = db
            .games_of(
                "carol".into(),
                GameFilter {
                    max: 10_000,
                    ..GameFilter::default()
                },
            )
            .map(|g| g.unwrap().id)
            .collect()
            .await;
        assert_eq!(listed.len(), 450, "{backend}");
        let mut sorted = listed.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 450, "{backend}: repeats");
        assert_eq!(
            listed.first().map(String::as_str),
            Some("c0449"),
            "{backend}"
        );
    }
}

#[tokio::test]
async fn concurrent_games_of_one_player_lose_no_rating_update() {
    for (backend, url) in common::backends().await {
        let db = open(&url).await;
        for name in ["erin", "f1", "f2", "f3", "f4", "f5", "f6"] {
            db.register(name, "h").await.unwrap();
        }
        let mut tasks = Vec::new();
        for (i, opp) in ["f1", "f2", "f3", "f4", "f5", "f6"].into_iter().enumerate() {
            let db = db.clone();
            let g = game(
                &format!("e{i}"),
                "erin",
                opp,
                Some(Color::White),
                true,
                5_000 + i as i64,
            );
            tasks.push(tokio::spawn(async move {
                // A transient write conflict (SQLite's single writer) is retried, as the
                // game actor retries.
                for _ in 0..50 {
                    if db.archive(&g).await.is_ok() {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                panic!("archive never succeeded");
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let profile = db.profile("erin").await.unwrap().unwrap();
        assert_eq!(profile.perfs["russian-blitz"].games, 6, "{backend}");
        assert_eq!(profile.count.win, 6, "{backend}");
    }
}

#[tokio::test]
async fn tournament_records_keep_the_highest_fence_and_revision_and_list_the_unfinished() {
    use damka::tournament::record::{System, TournamentRecord, TournamentSpec};
    use damka::tournament::store::{DbStore, TournamentStore};
    use shared::protocol::{TimeControl, TournamentStatus};
    for (backend, url) in common::backends().await {
        let store = DbStore::new(open(&url).await);
        let players: Vec<serde_json::Value> = (1..=4)
            .map(|i| serde_json::json!({"id": format!("p{i}"), "name": format!("P{i}"), "guest": true}))
            .collect();
        let spec: TournamentSpec = serde_json::from_value(serde_json::json!({
            "name": "stored",
            "variant": "russian",
            "time_control": "1+1",
            "system": {"kind": "round_robin", "cycles": 1},
            "players": players,
        }))
        .unwrap();
        assert_eq!(spec.system, System::RoundRobin { cycles: 1 });
        let _: TimeControl = spec.time_control;
        let mut a = TournamentRecord::new("t1".into(), spec.clone());
        a.revision = 2;
        a.pair_next().unwrap();
        store.save(&a).await.unwrap();
        // An older save arriving late changes nothing.
        let mut old = TournamentRecord::new("t1".into(), spec.clone());
        old.revision = 1;
        store.save(&old).await.unwrap();
        assert_eq!(
            store.load("t1").await.unwrap(),
            Some(a.clone()),
            "{backend}"
        );
        let mut done = TournamentRecord::new("t2".into(), spec);
        done.status = TournamentStatus::Finished;
        done.revision = 1;
        store.save(&done).await.unwrap();
        let unfinished = store.unfinished().await.unwrap();
        assert_eq!(unfinished, vec![a.clone()], "{backend}");
        let mut list = store.list().await.unwrap();
        list.sort_by(|x, y| x.id.cmp(&y.id));
        assert_eq!(list, vec![a.summary(), done.summary()], "{backend}");
        assert_eq!(store.load("t3").await.unwrap(), None);
        // A newer revision replaces.
        a.revision = 3;
        a.end_round();
        store.save(&a).await.unwrap();
        assert_eq!(
            store.load("t1").await.unwrap(),
            Some(a.clone()),
            "{backend}"
        );
        // A node that took the organiser lease over (higher fence) wins even with a
        // lower revision; the old organiser's later saves are refused.
        let mut successor = a.clone();
        successor.fence = 5;
        successor.revision = 1;
        store.save(&successor).await.unwrap();
        a.revision = 9;
        store.save(&a).await.unwrap();
        assert_eq!(
            store.load("t1").await.unwrap(),
            Some(successor),
            "{backend}"
        );
    }
}

/// A live game as the tests compare it: snapshot, tail, actions, events, fence, node.
type Live = (
    String,
    Option<String>,
    Vec<String>,
    Vec<(u64, String)>,
    u64,
    String,
);

/// Writes one group of `writes`, then forgets `forget`.
async fn write_group(
    writer: &mut damka::db::live::LiveWriter,
    writes: Vec<damka::db::live::LiveWrite>,
    forget: Vec<String>,
) {
    let mut group = damka::db::live::LiveGroup { writes, forget };
    writer.write(&mut group, Some(1)).await.unwrap();
}

/// A connection of its own to the SQLite file at `url`.
fn sqlite_file(url: &str) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(url.trim_start_matches("sqlite://")).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn
}

/// Every stored live game by id.
async fn live_rows(db: &Db) -> std::collections::BTreeMap<String, Live> {
    db.live_games()
        .await
        .unwrap()
        .into_iter()
        .map(|r| {
            (
                r.id,
                (r.snapshot, r.tail, r.acts, r.events, r.fence, r.node),
            )
        })
        .collect()
}

/// A game's write: events `versions`, actions `acts` (place and JSON).
fn live_write(
    id: &str,
    snapshot: Option<&str>,
    tail: &str,
    versions: std::ops::RangeInclusive<u64>,
    acts: &[(u64, &str)],
) -> damka::db::live::LiveWrite {
    damka::db::live::LiveWrite {
        id: id.into(),
        snapshot: snapshot.map(Into::into),
        tail: tail.into(),
        events: versions
            .map(|v| (v, format!(r#"{{"g":"{id}","v":{v}}}"#)))
            .collect(),
        acts: acts.iter().map(|(s, j)| (*s, (*j).to_string())).collect(),
    }
}

fn events(id: &str, versions: std::ops::RangeInclusive<u64>) -> Vec<(u64, String)> {
    versions
        .map(|v| (v, format!(r#"{{"g":"{id}","v":{v}}}"#)))
        .collect()
}

fn strings(s: &[&str]) -> Vec<String> {
    s.iter().map(|s| (*s).to_string()).collect()
}

/// The live games' writes go as multi-row statements of at most `ROWS_PER_STATEMENT`
/// rows: 600 games of 5 events (3,000 event rows, several statements) round-trip
/// exactly, on both back ends, for a node without Redis and for the cluster's mirror,
/// with the mirror's rules kept in one batch (a lower fence leaves the row alone but
/// adds missing events; no row, no events; a new snapshot drops the earlier actions;
/// forgotten games lose every row).
#[tokio::test]
async fn many_live_games_round_trip_in_multi_row_writes() {
    use damka::db::live::{LiveGroup, MirrorWrite, ROWS_PER_STATEMENT};
    const GAMES: usize = 600;
    const {
        assert!(
            GAMES * 5 > 2 * ROWS_PER_STATEMENT,
            "several statements per table"
        )
    };
    for (backend, url) in common::backends().await {
        let db = open(&url).await;
        let ids: Vec<String> = (0..GAMES).map(|i| format!("g{i:04}")).collect();
        // A node without Redis: the first write, then tails, actions and events on top,
        // a new snapshot for every other game.
        let first: Vec<_> = ids
            .iter()
            .map(|id| live_write(id, Some("s1"), "t1", 1..=5, &[(0, "a0"), (1, "a1")]))
            .collect();
        let mut first = LiveGroup {
            writes: first,
            ..LiveGroup::default()
        };
        db.live_writer().write(&mut first, Some(7)).await.unwrap();
        let second: Vec<_> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                if i % 2 == 0 {
                    live_write(id, Some("s2"), "t2", 6..=7, &[(0, "b0")])
                } else {
                    live_write(id, None, "t2", 6..=7, &[(2, "a2")])
                }
            })
            .collect();
        let mut second = LiveGroup {
            writes: second,
            ..LiveGroup::default()
        };
        db.live_writer().write(&mut second, Some(8)).await.unwrap();
        let rows = live_rows(&db).await;
        assert_eq!(rows.len(), GAMES, "{backend}");
        for (i, id) in ids.iter().enumerate() {
            let (snapshot, acts) = if i % 2 == 0 {
                ("s2", strings(&["b0"]))
            } else {
                ("s1", strings(&["a0", "a1", "a2"]))
            };
            let want: Live = (
                snapshot.into(),
                Some("t2".into()),
                acts,
                events(id, 1..=7),
                0,
                String::new(),
            );
            assert_eq!(rows[id], want, "{backend} {id}");
        }
        assert_eq!(db.live_alive_ms().await.unwrap(), Some(8), "{backend}");
        let mut forget = LiveGroup {
            forget: ids.clone(),
            ..LiveGroup::default()
        };
        db.live_writer().write(&mut forget, Some(9)).await.unwrap();
        assert!(live_rows(&db).await.is_empty(), "{backend}: forgotten");

        // The mirror (other games: an id is never used twice, and a game the node
        // forgot stays forgotten): node a writes every game under fence 5.
        let ids: Vec<String> = ids.iter().map(|id| format!("m{id}")).collect();
        let mirror = |w, fence| MirrorWrite { write: w, fence };
        let first: Vec<_> = ids
            .iter()
            .map(|id| mirror(live_write(id, Some("s1"), "t1", 1..=5, &[(0, "a0")]), 5))
            .collect();
        db.mirror_write(&first, &[], "a", 10).await.unwrap();
        // Then node b: a lower fence on a third of the games (late: only its missing
        // events count), a higher one with a snapshot on another third, a higher one
        // without on the last; a game with no row; and a third of the games forgotten.
        let mut second: Vec<_> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| match i % 3 {
                0 => mirror(live_write(id, Some("late"), "late", 5..=6, &[(0, "x")]), 4),
                1 => mirror(live_write(id, Some("s2"), "t2", 6..=6, &[(0, "b0")]), 6),
                _ => mirror(
                    live_write(id, None, "t2", 6..=6, &[(1, "a1"), (1, "a1'")]),
                    6,
                ),
            })
            .collect();
        second.push(mirror(live_write("ghost", None, "t", 1..=3, &[]), 9));
        let forget: Vec<String> = ids.iter().step_by(5).cloned().collect();
        db.mirror_write(&second, &forget, "b", 11).await.unwrap();
        let rows = live_rows(&db).await;
        for (i, id) in ids.iter().enumerate() {
            let want: Option<Live> = (i % 5 != 0)
                .then(|| match i % 3 {
                    0 => (
                        "s1".into(),
                        Some("t1".into()),
                        strings(&["a0"]),
                        5,
                        "a".into(),
                    ),
                    1 => (
                        "s2".into(),
                        Some("t2".into()),
                        strings(&["b0"]),
                        6,
                        "b".into(),
                    ),
                    _ => (
                        "s1".into(),
                        Some("t2".into()),
                        strings(&["a0", "a1'"]),
                        6,
                        "b".into(),
                    ),
                })
                .map(|(s, t, a, fence, node)| (s, t, a, events(id, 1..=6), fence, node));
            assert_eq!(rows.get(id), want.as_ref(), "{backend} {id}");
        }
        assert_eq!(rows.len(), GAMES - forget.len(), "{backend}: no ghost");
        let alive = db.live_alive_all().await.unwrap();
        assert_eq!(
            (alive.get("a"), alive.get("b")),
            (Some(&10), Some(&11)),
            "{backend}"
        );
    }
}

/// SQLite: the live writer's log is copied into the database file by its checkpoint
/// thread, not by a commit (whose moves would wait for the copy): rows the writer
/// committed reach the database file itself while nothing else writes, with far fewer
/// pages in the log than SQLite's automatic checkpoint (the writer's backstop) waits for.
#[tokio::test]
async fn the_live_writers_log_is_checkpointed_by_a_thread_of_its_own() {
    use damka::db::live::LiveGroup;
    let url = common::sqlite_url();
    let file = std::path::PathBuf::from(url.trim_start_matches("sqlite://"));
    let db = open(&url).await;
    let mut writer = db.live_writer();
    // The writer's connection opens (and its sign of life is committed) first.
    writer
        .write(&mut LiveGroup::default(), Some(1))
        .await
        .unwrap();
    let before = std::fs::metadata(&file).unwrap().len();
    let text = "x".repeat(2000);
    let mut group = LiveGroup::default();
    for g in 0..300 {
        let id = format!("c{g}");
        let mut w = live_write(&id, Some(&text), &text, 1..=1, &[]);
        w.events = vec![(1, text.clone())];
        group.writes.push(w);
    }
    writer.write(&mut group, Some(2)).await.unwrap();
    let wal = file.with_extension("sqlite-wal");
    let logged = std::fs::metadata(&wal).unwrap().len();
    assert!(
        logged > 300 * 4000,
        "the group is in the log: {logged} bytes"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let now = std::fs::metadata(&file).unwrap().len();
        if now >= before + 300 * 4000 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the database file holds {now} bytes ({before} before the group): not checkpointed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(live_rows(&db).await.len(), 300);
}

/// The live store records the node's sign of life (from which a restart gives the side
/// to move its downtime back) with a write at most every 50 ms while games write, not
/// with every commit (a page of its own each time), and at its stop the time it stopped.
#[tokio::test]
async fn the_live_store_records_its_sign_of_life_every_50_ms_at_most_and_at_its_stop() {
    use damka::game::store::LiveStore;
    use tokio_util::sync::CancellationToken;
    use tokio_util::task::TaskTracker;
    let wall = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64
    };
    let db = open(&common::sqlite_url()).await;
    let tracker = TaskTracker::new();
    let stopping = CancellationToken::new();
    let metrics = std::sync::Arc::new(damka::metrics::Metrics::default());
    let store = LiveStore::start(db.clone(), metrics, &tracker, stopping.clone());
    let start = wall();
    store
        .write(live_write("s1", Some("{}"), "{}", 1..=1, &[]))
        .await
        .unwrap();
    let first = db.live_alive_ms().await.unwrap().expect("recorded");
    assert!((start..=wall()).contains(&first), "{start} {first}");
    let mut recorded = vec![first];
    let mut writes = 1;
    let until = std::time::Instant::now() + Duration::from_millis(400);
    while std::time::Instant::now() < until {
        writes += 1;
        store
            .write(live_write("s1", None, "{}", writes..=writes, &[]))
            .await
            .unwrap();
        let now = db.live_alive_ms().await.unwrap().expect("recorded");
        if recorded.last() != Some(&now) {
            recorded.push(now);
        }
    }
    assert!(
        recorded.len() >= 4 && writes > 2 * recorded.len() as u64,
        "{writes} writes in 400 ms, recorded {recorded:?}"
    );
    for pair in recorded.windows(2) {
        assert!(pair[1] >= pair[0] + 50, "recorded {recorded:?}");
    }
    // Read before the stop is asked for: the writer reads its stop's time on its own
    // thread, and may do so before this thread reads the clock after `cancel`.
    let stop = wall();
    stopping.cancel();
    tracker.close();
    tracker.wait().await;
    let last = db.live_alive_ms().await.unwrap().expect("recorded");
    assert!(
        (stop..=wall()).contains(&last),
        "stopped at {stop}, recorded {last}"
    );
}

/// A node's live-game writer (SQLite's on a thread and connection of its own) stores
/// text exactly as written (quotes, a would-be comment or statement, newlines,
/// backslashes, other scripts, placeholders), on both back ends. A write that fails
/// part-way (an action stored twice) leaves nothing of itself (its tail, written before
/// the failing statement, is not), and the writer and every pooled connection write on
/// after it.
#[tokio::test]
async fn a_live_write_keeps_its_text_exactly_and_a_failed_one_leaves_nothing() {
    use damka::db::live::LiveGroup;
    for (backend, url) in common::backends().await {
        let db = open(&url).await;
        let id = format!("q{}", std::process::id());
        let nasty = "O'Brien's ''move''; DROP TABLE live_games; --\n\\ \"q\" Дамка 🁢 ?1 $1 ?";
        let mut first = live_write(&id, Some(nasty), nasty, 1..=1, &[(0, nasty)]);
        first.events = vec![(1, nasty.into())];
        let mut group = LiveGroup::default();
        group.writes.push(first);
        db.live_writer().write(&mut group, Some(10)).await.unwrap();
        let row = live_rows(&db).await.remove(&id).expect("stored");
        assert_eq!(row.0, nasty, "{backend}: snapshot");
        assert_eq!(row.1.as_deref(), Some(nasty), "{backend}: tail");
        assert_eq!(row.2, strings(&[nasty]), "{backend}: actions");
        assert_eq!(row.3, vec![(1, nasty.to_string())], "{backend}: events");

        // The live store's writer, on a connection of its own: after its failed write
        // it writes on. PostgreSQL refuses an action stored twice at one place; SQLite's
        // ordered log takes any row, so a trigger refuses this one.
        let mut writer = db.live_writer();
        if backend == "sqlite" {
            sqlite_file(&url)
                .execute_batch(
                    "CREATE TRIGGER refuse BEFORE INSERT ON live_log WHEN NEW.json = 'again' \
                     BEGIN SELECT RAISE(ABORT, 'refused'); END",
                )
                .unwrap();
        }
        let twice = live_write(&id, None, "t2", 2..=2, &[(0, "again")]);
        group.writes.push(twice);
        assert!(
            writer.write(&mut group, Some(11)).await.is_err(),
            "{backend}"
        );
        assert!(
            group.writes.is_empty(),
            "{backend}: the group is emptied either way"
        );
        for _ in 0..4 {
            // Every connection of the pool, in turn: none is left inside a transaction.
            let row = live_rows(&db).await.remove(&id).expect("stored");
            assert_eq!(
                row.3.len(),
                1,
                "{backend}: the failed writes' events are not there"
            );
            assert_eq!(row.1.as_deref(), Some(nasty), "{backend}");
        }
        let next = live_write(&id, None, "t3", 2..=2, &[(1, "a1")]);
        group.writes.push(next);
        writer.write(&mut group, Some(12)).await.unwrap();
        let row = live_rows(&db).await.remove(&id).expect("stored");
        assert_eq!(row.1.as_deref(), Some("t3"), "{backend}");
        assert_eq!(row.2, strings(&[nasty, "a1"]), "{backend}");
        assert_eq!(row.3.len(), 2, "{backend}");
        assert_eq!(db.live_alive_ms().await.unwrap(), Some(12), "{backend}");
        let mut forget = LiveGroup {
            forget: vec![id.clone()],
            ..LiveGroup::default()
        };
        writer.write(&mut forget, Some(13)).await.unwrap();
        assert!(
            !live_rows(&db).await.contains_key(&id),
            "{backend}: forgotten"
        );
    }
}

/// SQLite: the live games' rows are appended to an ordered log of two tables used in
/// turn, the older emptied whole once no live game needs it. A game that lives on while
/// hundreds come and go would keep the older table; its rows are compacted (folded and
/// appended again) instead, and the log stays near what its live games need, not what
/// was ever written. Read back after
/// the writer is gone (a restart), the long game is exact: the snapshot it last wrote,
/// the actions after it, every event, its last tail; the forgotten games are gone.
#[tokio::test]
async fn the_sqlite_log_keeps_what_live_games_need_through_compaction() {
    const ROUNDS: u64 = 240;
    let url = common::sqlite_url();
    let db = open(&url).await;
    let file = sqlite_file(&url);
    let mut writer = db.live_writer_compacting_past(50);
    let long = live_write("long", Some("s0"), "t0", 1..=1, &[(0, "a0")]);
    write_group(&mut writer, vec![long], Vec::new()).await;
    let mut counts = Vec::new();
    let mut tables = Vec::new();
    for round in 1..=ROUNDS {
        let id = format!("short{round}");
        // The long game: a tail every round, an action and an event every 40, a new
        // snapshot at round 120 (the actions before it dropped).
        let snapshot = (round == 120).then_some("s1");
        let mut long = live_write("long", snapshot, &format!("t{round}"), 1..=1, &[]);
        long.events.clear();
        if round % 40 == 0 {
            let place = if round >= 120 {
                round / 40 - 3
            } else {
                round / 40
            };
            long.acts = vec![(place, format!("a{round}"))];
            long.events = vec![(round / 40 + 1, format!("e{round}"))];
        }
        // A short game: five events, forgotten at the next round.
        let short = live_write(&id, Some("s"), "t", 1..=5, &[]);
        let forget = vec![format!("short{}", round - 1)];
        write_group(&mut writer, vec![long, short], forget).await;
        if round % 8 == 0 {
            // The compaction runs on the checkpoint thread, every 20 ms: give it a turn.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let (a, b): (i64, i64) = file
            .query_row(
                "SELECT (SELECT COUNT(*) FROM live_log), (SELECT COUNT(*) FROM live_log_b)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        counts.push(a + b);
        tables.push((a, b));
    }
    drop(writer);
    // The writer turned from one table to the other and back, each emptied whole in
    // between (an older table emptied while the newer one holds rows).
    let turns = tables
        .windows(2)
        .filter(|w| (w[0].0 > 0) != (w[1].0 > 0) || (w[0].1 > 0) != (w[1].1 > 0))
        .count();
    assert!(
        turns >= 4 && tables.iter().any(|t| t.0 == 0 && t.1 > 0),
        "the log's tables: {tables:?}"
    );
    // Without compaction the long game's first row holds every row after it: about
    // nine a round.
    let most = *counts.iter().max().unwrap();
    assert!(
        most < 8 * ROUNDS as i64 / 3,
        "the log grew to {most} rows over {ROUNDS} rounds: {counts:?}"
    );
    let rows = live_rows(&db).await;
    assert_eq!(
        rows.keys().collect::<Vec<_>>(),
        vec!["long", &format!("short{ROUNDS}")],
        "the forgotten games are gone"
    );
    let mut want_events = vec![(1, r#"{"g":"long","v":1}"#.to_string())];
    want_events.extend((1..=ROUNDS / 40).map(|k| (k + 1, format!("e{}", k * 40))));
    let want: Live = (
        "s1".into(),
        Some(format!("t{ROUNDS}")),
        strings(&["a120", "a160", "a200", "a240"]),
        want_events,
        0,
        String::new(),
    );
    assert_eq!(rows["long"], want);
    // A writer started again reads where the games start and writes on.
    let mut writer = db.live_writer_compacting_past(50);
    let mut next = live_write("long", None, "t-next", 1..=1, &[(4, "a-next")]);
    next.events.clear();
    write_group(&mut writer, vec![next], Vec::new()).await;
    let long = live_rows(&db).await.remove("long").unwrap();
    assert_eq!(long.1.as_deref(), Some("t-next"));
    assert_eq!(long.2.last().map(String::as_str), Some("a-next"));
    assert_eq!(long.3.len(), 1 + ROUNDS as usize / 40);
}

/// SQLite: a compaction whose copies outgrow one commit lands over several, with the
/// groups' own rows between them, and every game reads back exact. Four games of 300
/// events each live while short games come and go.
#[tokio::test]
async fn a_compaction_larger_than_a_commit_lands_over_several() {
    const WIDE: u64 = 4;
    let url = common::sqlite_url();
    let db = open(&url).await;
    let file = sqlite_file(&url);
    let mut writer = db.live_writer_compacting_past(50);
    let wide: Vec<_> = (0..WIDE)
        .map(|k| live_write(&format!("wide{k}"), Some("s"), "t0", 1..=300, &[]))
        .collect();
    write_group(&mut writer, wide, Vec::new()).await;
    let copied = |file: &rusqlite::Connection| -> (i64, i64, i64) {
        file.query_row(
            "SELECT COUNT(*), COALESCE(MIN(seq), 0), COALESCE(MAX(seq), 0) \
             FROM live_log_both WHERE at IS NOT NULL",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
    };
    let mut spread = None;
    for round in 1..=400u64 {
        let mut writes: Vec<_> = (0..WIDE)
            .map(|k| {
                let mut w = live_write(&format!("wide{k}"), None, &format!("t{round}"), 1..=1, &[]);
                w.events.clear();
                w
            })
            .collect();
        writes.push(live_write(
            &format!("short{round}"),
            Some("s"),
            "t",
            1..=5,
            &[],
        ));
        let forget = vec![format!("short{}", round - 1)];
        write_group(&mut writer, writes, forget).await;
        if round % 4 == 0 {
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
        let (copies, first, last) = copied(&file);
        if copies >= (WIDE * 300) as i64 {
            // Rows of the groups (not copies) between the first copy and the last.
            let between: i64 = file
                .query_row(
                    "SELECT COUNT(*) FROM live_log_both WHERE at IS NULL AND seq > ?1 AND seq < ?2",
                    [first, last],
                    |r| r.get(0),
                )
                .unwrap();
            spread = Some(between);
            break;
        }
    }
    let between = spread.expect("the wide games were compacted");
    assert!(
        between > 0,
        "the copies of {WIDE} games of 300 rows went in one commit"
    );
    drop(writer);
    let rows = live_rows(&db).await;
    for k in 0..WIDE {
        let game = &rows[&format!("wide{k}")];
        assert_eq!(game.3, events(&format!("wide{k}"), 1..=300), "wide{k}");
        assert_eq!(game.0, "s");
    }
}
