//! A tiny steady scenario against a real damka server started in-process (through the
//! `damka` library) and against the bare relay: games of two variants at fast think
//! times, checked to be played legally, with no event dropped or reordered, and with a
//! report whose numbers make sense. And the same on the relay split in two, linked
//! through the real Redis on 127.0.0.1:6379 (the multinode baseline): every player's
//! opponent and half its spectators on the other relay.

use std::time::Duration;

use loadtest::plan::{
    Common, PairingMode, PlayPlan, Spread, SystemUnderTest, Think, parse_mix_entry,
};
use loadtest::report::{Comparison, RunReport};
use loadtest::target::Target;
use loadtest::{relay, run};

fn plan() -> PlayPlan {
    PlayPlan {
        games: 4,
        spectators: 1,
        think: Think {
            base_ms: 25,
            jitter_ms: 10,
        },
        mix: vec![
            parse_mix_entry("russian 3+2").unwrap(),
            parse_mix_entry("chess 3+2").unwrap(),
        ],
        pairing: PairingMode::Mix,
        ramp: Duration::from_millis(200),
        duration: Duration::from_secs(6),
        max_plies: 40,
        games_per_pair: None,
        spread: Spread::Bot,
        computer_games: 0,
        computer: None,
    }
}

fn common() -> Common {
    Common {
        connect_parallel: 8,
        sources: 2,
        seed: 42,
        reserve_ports: false,
    }
}

fn check(r: &RunReport, plan: &PlayPlan) {
    let bots = (plan.games * (2 + plan.spectators)) as u64;
    assert_eq!(r.connections_opened, bots, "{r:#?}");
    assert_eq!(r.connections_failed, 0, "{r:#?}");
    assert_eq!(r.connections_lost, 0, "{r:#?}");
    assert_eq!(r.events_dropped, 0, "{r:#?}");
    assert_eq!(r.events_out_of_order, 0, "{r:#?}");
    assert_eq!(r.rule_mismatches, 0, "{r:#?}");
    assert_eq!(r.server_errors, 0, "{r:#?}");
    // Every game started ended by the rules or the ply cap, or was cut at the end.
    assert!(r.games_started >= plan.games as u64, "{r:#?}");
    assert!(r.games_finished >= 1, "{r:#?}");
    assert_eq!(r.games_finished + r.games_cut, r.games_started, "{r:#?}");
    // Every move sent reached the opponent, but for the last of each game at the cut.
    assert!(r.moves_received > 200, "{r:#?}");
    assert!(
        r.moves_received + plan.games as u64 >= r.moves_sent,
        "{r:#?}"
    );
    assert!(r.moves_received <= r.moves_sent, "{r:#?}");
    assert!(r.spectator_moves > 0, "{r:#?}");
    let m = r.move_rtt;
    assert_eq!(m.count, r.moves_received, "{r:#?}");
    assert!(m.p50_ms > 0.0 && m.p50_ms <= m.p99_ms && m.p99_ms <= m.max_ms);
    assert!(m.max_ms < 2000.0, "{r:#?}");
    assert!(r.fanout.count > 0 && r.fanout.max_ms < 2000.0, "{r:#?}");
    assert!(r.moves_per_sec > 10.0, "{r:#?}");
    assert_eq!(r.setup.count, bots, "{r:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn steady_on_damka_and_relay() {
    let config = damka::Config::load(
        None,
        [
            ("DAMKA_LISTEN", "127.0.0.1:0"),
            ("DAMKA_AUTH__SECRET", "loadtest-integration-secret"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string())),
    )
    .unwrap();
    let server = damka::Server::start(config).await.unwrap();
    let damka_backend = SystemUnderTest::Damka {
        nodes: vec![Target::from_addr(server.local_addr()).unwrap()],
        pids: vec![],
        fresh: false,
    };
    let plan = plan();
    let damka = run::play(&damka_backend, &plan, &common(), "steady")
        .await
        .unwrap();
    server.shutdown();

    let relay = relay::Relay::spawn(2, None, None).unwrap();
    let relay_backend = SystemUnderTest::Relay {
        targets: vec![Target::from_addr(relay.addr()).unwrap()],
        pids: vec![],
    };
    let baseline = run::play(&relay_backend, &plan, &common(), "steady")
        .await
        .unwrap();
    tokio::task::spawn_blocking(move || drop(relay))
        .await
        .unwrap();

    check(&damka, &plan);
    check(&baseline, &plan);
    assert!(damka.pairing.count >= plan.games as u64 * 2);
    let c = Comparison::new(
        "steady",
        serde_json::Value::Null,
        Some(damka),
        Some(baseline),
    );
    let rtt = c.ratios["move_rtt_p50"];
    assert!(rtt.is_finite() && rtt > 0.0, "{:?}", c.ratios);
    assert!(c.table().contains("move rtt p99 ms"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn steady_on_two_relays_linked_through_redis() {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let link = relay::LinkConfig {
        url: "redis://127.0.0.1:6379".into(),
        prefix: format!("test:relaylink:{}:{nanos}", std::process::id()),
    };
    let a = relay::Relay::spawn(1, None, Some(link.clone())).unwrap();
    let b = relay::Relay::spawn(1, None, Some(link)).unwrap();
    let backend = SystemUnderTest::Relay {
        targets: vec![
            Target::from_addr(a.addr()).unwrap(),
            Target::from_addr(b.addr()).unwrap(),
        ],
        pids: vec![],
    };
    // Spread by bot: white on one relay, black and the spectator on the other.
    let plan = plan();
    let report = run::play(&backend, &plan, &common(), "multinode")
        .await
        .unwrap();
    tokio::task::spawn_blocking(move || {
        drop(a);
        drop(b);
    })
    .await
    .unwrap();
    check(&report, &plan);
}
