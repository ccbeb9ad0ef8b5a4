//! A tiny arena scenario against a real damka server started in-process: eight bots join
//! one arena before it starts, the first wave pairs them all, they play their games
//! legally to the end of the arena, every finished game reaches their standings, and
//! the server's wave histogram is read from `/metrics`. And the same on three `damka`
//! processes (the workspace's built binary) sharing a Redis of the test's own, the
//! organiser's node killed with SIGKILL in the middle: nothing is lost.

use std::time::Duration;

use std::path::PathBuf;

use loadtest::arena::{ArenaPlan, arena};
use loadtest::arena_kill::arena_kill;
use loadtest::plan::{Common, SystemUnderTest, Think, parse_mix_entry};
use loadtest::target::Target;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn arena_runs_to_its_end() {
    let data = std::env::temp_dir().join(format!("damka-lt-arena-{}", std::process::id()));
    let config = damka::Config::load(
        None,
        [
            ("DAMKA_LISTEN", "127.0.0.1:0"),
            ("DAMKA_AUTH__SECRET", "loadtest-integration-secret"),
            ("DAMKA_DATABASE__DATA_DIR", data.to_str().unwrap()),
            ("DAMKA_ARENA__WAVE_MS", "300"),
            ("DAMKA_ARENA__STANDINGS_MS", "150"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string())),
    )
    .unwrap();
    let server = damka::Server::start(config).await.unwrap();
    let backend = SystemUnderTest::Damka {
        nodes: vec![Target::from_addr(server.local_addr()).unwrap()],
        pids: vec![],
        fresh: false,
    };
    let (variant, time_control) = parse_mix_entry("russian 0.1+0").unwrap();
    let plan = ArenaPlan {
        players: 8,
        variant,
        time_control,
        think: Think {
            base_ms: 20,
            jitter_ms: 10,
        },
        lead: Duration::from_secs(1),
        length: Duration::from_secs(10),
        max_plies: 30,
    };
    let common = Common {
        connect_parallel: 8,
        sources: 2,
        seed: 7,
        reserve_ports: false,
    };
    let r = arena(&backend, &plan, &common).await.unwrap();
    server.shutdown();
    let _ = std::fs::remove_dir_all(&data);

    assert_eq!(r.connections_opened, 8, "{r:#?}");
    assert_eq!(r.connections_failed + r.connections_lost, 0, "{r:#?}");
    assert_eq!(r.events_dropped + r.events_out_of_order, 0, "{r:#?}");
    assert_eq!(r.rule_mismatches + r.server_errors, 0, "{r:#?}");
    // The first wave paired all eight at once; later waves paired them again.
    assert_eq!(r.wave.count, 8, "{r:#?}");
    assert!(r.wave.max_ms < 2000.0, "{r:#?}");
    assert!(r.games_started > 4, "{r:#?}");
    // Every game ended (the bots left on the final standings, before the window's end)
    // and both players saw each one on their sheet.
    assert_eq!(r.games_finished, r.games_started, "{r:#?}");
    assert_eq!(r.games_cut, 0, "{r:#?}");
    assert_eq!(r.leaderboard.count, 2 * r.games_finished, "{r:#?}");
    assert!(r.move_rtt.count > 50, "{r:#?}");
    assert!(r.extra["server waves"] >= 2.0, "{r:#?}");
    assert!(r.extra["server wave mean ms"] >= 0.0, "{r:#?}");
}

/// The `damka` binary next to this test's directory (`cargo test --workspace` builds it
/// for the server's own tests).
fn damka_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|dir| dir.join("damka"))
        .unwrap();
    assert!(
        bin.exists(),
        "{} is missing: build it first (cargo build -p damka)",
        bin.display()
    );
    bin
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_arena_loses_nothing_when_its_organisers_node_is_killed() {
    let (variant, time_control) = parse_mix_entry("russian 0.2+0").unwrap();
    let plan = ArenaPlan {
        players: 12,
        variant,
        time_control,
        think: Think {
            base_ms: 100,
            jitter_ms: 100,
        },
        lead: Duration::from_secs(2),
        length: Duration::from_secs(30),
        max_plies: 30,
    };
    let common = Common {
        connect_parallel: 8,
        sources: 2,
        seed: 9,
        reserve_ports: false,
    };
    let extra = [
        ("DAMKA_ARENA__WAVE_MS", "300"),
        ("DAMKA_ARENA__STANDINGS_MS", "150"),
        ("DAMKA_WS__RATE_PER_SEC", "500"),
        ("DAMKA_WS__RATE_BURST", "1000"),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()));
    let r = arena_kill(
        &damka_bin(),
        &plan,
        Duration::from_secs(10),
        &common,
        &extra,
    )
    .await
    .unwrap();
    let x = &r.extra;
    assert_eq!(r.connections_opened, 12, "{r:#?}");
    // The players sat on the nodes that lived: none of them was cut off.
    assert_eq!(r.connections_failed + r.connections_lost, 0, "{r:#?}");
    assert_eq!(r.rule_mismatches, 0, "{r:#?}");
    assert_eq!(r.wave.count, 12, "{r:#?}");
    // Node 1 organised the arena, was killed in the middle, and another node took the
    // arena over.
    assert_eq!(x["killed node held the lease"], 1.0, "{r:#?}");
    assert_eq!(x["lease taken by another node"], 1.0, "{r:#?}");
    assert!(x["organiser killed at s"] >= 10.0, "{r:#?}");
    // Nothing lost: every player on the final standings, every game given to a player
    // on both sheets and archived, every sheet as the archive scores it.
    assert_eq!(x["players joined"], 12.0, "{r:#?}");
    assert_eq!(x["players on final standings"], 12.0, "{r:#?}");
    assert_eq!(x["players lost"], 0.0, "{r:#?}");
    assert!(x["games given"] >= 12.0, "{r:#?}");
    assert_eq!(x["games given not on the sheet"], 0.0, "{r:#?}");
    assert_eq!(x["games on sheets not archived"], 0.0, "{r:#?}");
    assert_eq!(x["games on one sheet only"], 0.0, "{r:#?}");
    assert_eq!(x["sheets disagreeing with the archive"], 0.0, "{r:#?}");
    assert!(x["games on sheets"] >= x["games given"], "{r:#?}");
    // Colours followed the colour balance, across the takeover too.
    assert_eq!(x["games against the colour balance"], 0.0, "{r:#?}");
    // The arena went on under its new organiser.
    assert!(x["games started after the kill"] > 0.0, "{r:#?}");
}
