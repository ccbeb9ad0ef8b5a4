//! `damka` processes for the multi-node tests: the binary started with `DAMKA_*`
//! settings on the real Redis under a key prefix, with the cluster's short test
//! intervals; its address read from its first line, its output drained (named after
//! the node) so it never blocks on a full pipe, and SIGKILL when the handle is dropped.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use super::SECRET;

/// A `damka` process; killed (SIGKILL) when dropped.
pub struct Node {
    child: Child,
    pub addr: SocketAddr,
}

impl Node {
    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the process at once (SIGKILL), as a crash or a power cut would.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Asks the process to stop (SIGTERM) and waits until it has.
    pub fn terminate(&mut self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "SIGTERM sent");
        let exit = self.child.wait().expect("the node exits");
        assert!(exit.success(), "a clean exit after SIGTERM: {exit}");
    }
}

/// Asks every process of `nodes` to stop (SIGTERM) at once, then waits until each has,
/// as a whole cluster stopped for an upgrade would.
pub fn terminate_all(nodes: &mut [&mut Node]) {
    for node in nodes.iter() {
        let status = Command::new("kill")
            .args(["-TERM", &node.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "SIGTERM sent");
    }
    for node in nodes.iter_mut() {
        let exit = node.child.wait().expect("the node exits");
        assert!(exit.success(), "a clean exit after SIGTERM: {exit}");
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A node named `name` on the real Redis under `prefix`, on the database `db`, with
/// lease 2 s, renewal 0.5 s, sweep 0.2 s, heartbeat 0.3 s and node TTL 1 s; `env` adds
/// or overrides `DAMKA_*` settings (without `DAMKA_CONFIG`, no configuration file).
/// `MULTINODE_LOG` sets the node's log filter (default `warn`).
pub fn spawn_node(name: &str, prefix: &str, db: &str, env: &[(&str, &str)]) -> Node {
    let mut all = vec![
        ("DAMKA_REDIS__URL", "redis://127.0.0.1:6379"),
        ("DAMKA_REDIS__PREFIX", prefix),
    ];
    all.extend_from_slice(env);
    spawn_single(name, db, &all)
}

/// A node named `name` without Redis (the embedded default) on the database `db`;
/// `env` adds or overrides `DAMKA_*` settings as for [`spawn_node`].
pub fn spawn_single(name: &str, db: &str, env: &[(&str, &str)]) -> Node {
    let mut command = Command::new(env!("CARGO_BIN_EXE_damka"));
    command
        .env_remove("RUST_LOG")
        .env_remove("DAMKA_CONFIG")
        .env("DAMKA_DATABASE__URL", db)
        .env("DAMKA_LISTEN", "127.0.0.1:0")
        .env("DAMKA_NODE_ID", name)
        .env("DAMKA_AUTH__SECRET", SECRET)
        // Tests poll faster than any client should; `api_limits` tests the budgets.
        .env("DAMKA_API__REQUESTS_PER_MIN", "100000000")
        .env("DAMKA_API__REQUESTS_BURST", "1000000")
        .env("DAMKA_API__MOVES_PER_MIN", "100000000")
        .env("DAMKA_API__MOVES_BURST", "1000000")
        .env(
            "DAMKA_LOG__FILTER",
            std::env::var("MULTINODE_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .env("DAMKA_CLUSTER__LEASE_MS", "2000")
        .env("DAMKA_CLUSTER__RENEW_MS", "500")
        .env("DAMKA_CLUSTER__SWEEP_MS", "200")
        .env("DAMKA_CLUSTER__HEARTBEAT_MS", "300")
        .env("DAMKA_CLUSTER__NODE_TTL_MS", "1000");
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command
        .current_dir(std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("damka starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("damka prints its address")
            .expect("a line");
        if let Some(addr) = line.strip_prefix("damka listening on ") {
            break addr.trim().parse().expect("an address");
        }
    };
    // Keep draining stdout so the process never blocks on a full pipe.
    let name = name.to_string();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            eprintln!("[{name}] {line}");
        }
    });
    Node { child, addr }
}
