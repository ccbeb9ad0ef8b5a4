//! A tiny arena scenario against a real damka server started in-process: eight bots join
//! one arena before it starts, the first wave pairs them all, they play their games
//! legally to the end of the arena, every finished game reaches their standings, and
//! the server's wave histogram is read from `/metrics`.

use std::time::Duration;

use loadtest::arena::{ArenaPlan, arena};
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
