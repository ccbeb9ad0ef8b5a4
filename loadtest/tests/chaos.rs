//! A tiny chaos scenario: three `damka` processes (the workspace's built binary) and a
//! `redis-server` of the test's own; a node is killed with SIGKILL and Redis restarted
//! during play. The players reconnect and resume, and the scenario reports what was
//! lost, checked against the archive. (The goal, 0 games and 0 moves lost, is not met
//! by the server yet after a Redis restart: `docs/performance.md`, section Chaos; this
//! test keeps the scenario working, it does not assert the goal.)

use std::path::PathBuf;
use std::time::Duration;

use loadtest::chaos::{ChaosPlan, chaos};
use loadtest::plan::{Common, Think, parse_mix_entry};

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
async fn chaos_runs_and_accounts_for_every_game() {
    let (variant, time_control) = parse_mix_entry("russian 10+5").unwrap();
    let plan = ChaosPlan {
        games: 6,
        variant,
        time_control,
        think: Think {
            base_ms: 100,
            jitter_ms: 100,
        },
        ramp: Duration::from_millis(500),
        duration: Duration::from_secs(14),
        kill_at: Duration::from_secs(4),
        redis_at: Duration::from_secs(9),
        max_plies: 400,
    };
    let common = Common {
        connect_parallel: 8,
        sources: 2,
        seed: 11,
        reserve_ports: false,
    };
    let r = chaos(&damka_bin(), &plan, &common).await.unwrap();
    let x = &r.extra;
    assert_eq!(r.connections_opened, 12, "{r:#?}");
    assert_eq!(r.games_started, 6, "{r:#?}");
    assert_eq!(x["games"], 6.0, "{r:#?}");
    // The killed node held a third of the connections: its players came back elsewhere.
    assert!(x["reconnects"] >= 1.0, "{r:#?}");
    // Every game is accounted for: read back from the archive or counted lost.
    assert!(x["games lost"] <= x["games"], "{r:#?}");
    assert!(x["games never ended"] <= x["games"], "{r:#?}");
    assert!(x["moves acked checked"] > 20.0, "{r:#?}");
    assert!(x["moves lost"] <= x["moves acked checked"], "{r:#?}");
    assert!(x["redis restarted at s"] >= 9.0, "{r:#?}");
    assert!(x["node killed at s"] >= 4.0, "{r:#?}");
    // Acknowledgements were timed, stalls included.
    assert!(r.stall.count > 20 && r.stall.max_ms > 0.0, "{r:#?}");
    assert_eq!(r.rule_mismatches, 0, "{r:#?}");
    assert_eq!(r.events_out_of_order, 0, "{r:#?}");
}
