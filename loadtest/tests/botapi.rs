//! The Bot API scenario against a real damka node started in-process (through the
//! `damka` library, with a SQLite database of the test's own): two games of chess over
//! the HTTP Bot API (accounts registered, tokens made, bots upgraded, challenges
//! accepted, game streams read, moves posted), then the same two games over the
//! WebSocket; both sides must have measured moves, legally and without errors.

use std::time::Duration;

use loadtest::plan::{
    Common, PairingMode, PlayPlan, Spread, SystemUnderTest, Think, parse_mix_entry,
};
use loadtest::report::{Comparison, RunReport};
use loadtest::target::Target;
use loadtest::{botapi, run};

fn plan() -> PlayPlan {
    PlayPlan {
        games: 2,
        spectators: 0,
        think: Think {
            base_ms: 30,
            jitter_ms: 10,
        },
        mix: vec![parse_mix_entry("chess 3+2").unwrap()],
        pairing: PairingMode::Seek,
        ramp: Duration::from_millis(200),
        duration: Duration::from_secs(6),
        max_plies: 40,
        games_per_pair: None,
        spread: Spread::Bot,
        computer_games: 0,
        computer: None,
    }
}

fn check(r: &RunReport) {
    // A connection refused now and then on a loaded box (seen once in five runs, cause
    // not found) costs its game, not the measurement: what is asserted is that both
    // sides measured legal moves without errors.
    assert!(r.connections_opened >= 2, "{r:#?}");
    assert_eq!(r.rule_mismatches, 0, "{r:#?}");
    assert_eq!(r.server_errors, 0, "{r:#?}");
    assert!(r.games_started >= 1, "{r:#?}");
    assert_eq!(r.games_finished + r.games_cut, r.games_started, "{r:#?}");
    assert!(r.moves_received > 20, "{r:#?}");
    assert!(r.moves_received <= r.moves_sent, "{r:#?}");
    let m = r.move_rtt;
    assert!(m.count > 20, "{r:#?}");
    assert!(m.p50_ms > 0.0 && m.p50_ms <= m.p99_ms && m.p99_ms <= m.max_ms);
    assert!(m.max_ms < 2000.0, "{r:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bot_api_and_websocket_moves_are_measured() {
    let data = std::env::temp_dir().join(format!("damka-lt-botapi-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data).unwrap();
    let db = format!("sqlite://{}", data.join("damka.sqlite").display());
    let config = damka::Config::load(
        None,
        [
            ("DAMKA_LISTEN", "127.0.0.1:0"),
            ("DAMKA_AUTH__SECRET", "loadtest-integration-secret"),
            ("DAMKA_DATABASE__URL", db.as_str()),
            ("DAMKA_ACCOUNTS__REGISTER_PER_ADDRESS_PER_HOUR", "1000"),
            ("DAMKA_API__REQUESTS_PER_MIN", "1000000"),
            ("DAMKA_API__REQUESTS_BURST", "100000"),
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
    let plan = plan();
    let common = Common {
        connect_parallel: 4,
        sources: 2,
        seed: 7,
        reserve_ports: false,
    };
    let http = botapi::play(&backend, &plan, &common).await.unwrap();
    let ws = run::play(&backend, &plan, &common, "steady").await.unwrap();
    server.shutdown();
    let _ = std::fs::remove_dir_all(&data);

    check(&http);
    check(&ws);
    // The Bot API side's bots made their accounts, tokens and upgrades.
    assert!(http.setup.count >= 2, "{http:#?}");
    let c = Comparison::new("botapi", serde_json::Value::Null, Some(http), Some(ws));
    let rtt = c.ratios["move_rtt_p50"];
    assert!(rtt.is_finite() && rtt > 0.0, "{:?}", c.ratios);
}

#[tokio::test]
async fn draughts_is_refused_before_anything_is_made() {
    let mut plan = plan();
    plan.mix = vec![parse_mix_entry("russian 3+2").unwrap()];
    let backend = SystemUnderTest::Damka {
        nodes: vec![Target::parse("127.0.0.1:9").unwrap()],
        pids: vec![],
        fresh: false,
    };
    let common = Common {
        connect_parallel: 1,
        sources: 1,
        seed: 1,
        reserve_ports: false,
    };
    let err = botapi::play(&backend, &plan, &common).await.unwrap_err();
    assert!(err.to_string().contains("plays chess"), "{err}");
}
