//! The Redis lobby and presence against a real Redis Cluster: three cluster-mode
//! `redis-server` processes started by the test on free ports, joined with
//! `redis-cli --cluster create`. Every Lua script touches keys under one hash tag, so
//! the same scenarios as on a single Redis must pass unchanged.

mod redis_scenarios;

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use damka::cluster::redis::Redis;
use damka::config::RedisConfig;
use damka::metrics::Metrics;

/// Three cluster nodes; killed and their directory removed when dropped.
struct RedisCluster {
    nodes: Vec<Child>,
    ports: Vec<u16>,
    dir: PathBuf,
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        for n in &mut self.nodes {
            let _ = n.kill();
            let _ = n.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A port that is free, and whose cluster bus port (+10000) is free too.
fn free_port(taken: &[u16]) -> u16 {
    loop {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        if port < 55_000
            && !taken.contains(&port)
            && TcpListener::bind(("127.0.0.1", port + 10_000)).is_ok()
        {
            return port;
        }
    }
}

fn redis_cli(args: &[&str]) -> String {
    let out = Command::new("redis-cli")
        .args(args)
        .output()
        .expect("redis-cli");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn start_cluster() -> RedisCluster {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = std::env::temp_dir().join(format!(
        "damka-redis-cluster-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let mut ports = Vec::new();
    let mut nodes = Vec::new();
    for _ in 0..3 {
        let port = free_port(&ports);
        ports.push(port);
        let p = port.to_string();
        let conf = format!("nodes-{port}.conf");
        nodes.push(
            Command::new("redis-server")
                .args([
                    "--port",
                    &p,
                    "--bind",
                    "127.0.0.1",
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    &conf,
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ])
                .arg("--dir")
                .arg(&dir)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("redis-server starts"),
        );
    }
    let cluster = RedisCluster { nodes, ports, dir };
    for port in &cluster.ports {
        let deadline = Instant::now() + Duration::from_secs(10);
        while redis_cli(&["-p", &port.to_string(), "ping"]).trim() != "PONG" {
            assert!(Instant::now() < deadline, "redis on {port} did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let addrs: Vec<String> = cluster
        .ports
        .iter()
        .map(|p| format!("127.0.0.1:{p}"))
        .collect();
    let mut args = vec!["--cluster", "create"];
    args.extend(addrs.iter().map(String::as_str));
    args.extend(["--cluster-replicas", "0", "--cluster-yes"]);
    redis_cli(&args);
    let deadline = Instant::now() + Duration::from_secs(20);
    for port in &cluster.ports {
        while !redis_cli(&["-p", &port.to_string(), "cluster", "info"]).contains("cluster_state:ok")
        {
            assert!(Instant::now() < deadline, "the cluster did not form");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    cluster
}

async fn connect(cluster: &RedisCluster, test: &str) -> Redis {
    let url = cluster
        .ports
        .iter()
        .map(|p| format!("redis://127.0.0.1:{p}"))
        .collect::<Vec<_>>()
        .join(",");
    let config = RedisConfig {
        url,
        cluster: true,
        prefix: format!("test:{test}:"),
        timeout_ms: 2000,
    };
    Redis::connect(&config, Arc::new(Metrics::default()))
        .await
        .expect("the cluster")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lobby_and_presence_work_unchanged_on_a_redis_cluster() {
    let cluster = start_cluster();
    let r = connect(&cluster, "cluster").await;
    redis_scenarios::seeks_are_taken_once(&r).await;
    redis_scenarios::pool_pairs_each_player_once(&r).await;

    redis_scenarios::presence_across_nodes(&r).await;
    drop(cluster);
}
