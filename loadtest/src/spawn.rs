//! Child processes the load test starts and stops itself: damka nodes (from a built
//! `damka` binary, configured through `DAMKA_*` variables for a load test: a free
//! loopback port, no connection cap, quiet logs, one shared secret) and the relay
//! alone in a process (this binary's `relay` subcommand, or several linked through
//! Redis) so its memory can be read,
//! and a Redis of the run's own (`redis-server` on a free port, no persistence) that
//! the chaos scenario may kill and restart without touching anyone else's.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::relay::LinkConfig;
use crate::target::Target;

/// Why a child could not be started.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// Starting or talking to it failed.
    #[error("cannot start {what}: {source}")]
    Io {
        /// Which child.
        what: String,
        /// Why.
        source: std::io::Error,
    },
    /// It did not become ready in time.
    #[error("{0} did not become ready")]
    NotReady(String),
}

/// A child process we started; killed when dropped.
pub struct Spawned {
    child: Child,
    /// Where it listens.
    pub target: Target,
    /// Its process id.
    pub pid: u32,
}

impl Spawned {
    /// Stops it (SIGKILL; these children hold no state worth a graceful stop).
    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

/// A directory of the run's own (the spawned nodes' SQLite database and its WAL files);
/// removed when dropped, however the run ends.
pub struct ScratchDir(pub std::path::PathBuf);

impl ScratchDir {
    /// Creates `dir` (empty).
    pub fn new(dir: std::path::PathBuf) -> Result<ScratchDir, SpawnError> {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(io("a scratch directory"))?;
        Ok(ScratchDir(dir))
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn io(what: &str) -> impl Fn(std::io::Error) -> SpawnError + '_ {
    move |source| SpawnError::Io {
        what: what.to_string(),
        source,
    }
}

/// A free port on 127.0.0.1 (bound and released; a race with other programs is
/// possible but harmless on a test box).
pub fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// A second handle on this process's stderr, for a child's output.
fn stderr_copy() -> std::io::Result<Stdio> {
    use std::os::fd::AsFd;
    Ok(Stdio::from(std::io::stderr().as_fd().try_clone_to_owned()?))
}

/// Starts a damka node from `bin` with load-test settings, plus `extra` variables
/// (which win), and waits until it accepts connections.
pub async fn damka(
    bin: &Path,
    secret: &str,
    extra: &[(String, String)],
) -> Result<Spawned, SpawnError> {
    let what = format!("damka ({})", bin.display());
    let port = free_port().map_err(io(&what))?;
    let listen = format!("127.0.0.1:{port}");
    let mut cmd = Command::new(bin);
    cmd.arg("serve")
        .env("DAMKA_LISTEN", &listen)
        .env("DAMKA_MAX_CONNECTIONS", "1000000")
        .env("DAMKA_LOG__FILTER", "warn")
        .env("DAMKA_AUTH__SECRET", secret)
        // Thousands of bots take their guest tokens from a few source addresses.
        .env("DAMKA_API__REQUESTS_PER_MIN", "100000000")
        .env("DAMKA_API__REQUESTS_BURST", "1000000")
        .env_remove("DAMKA_CONFIG")
        .stdin(Stdio::null())
        // The node logs to stdout: its warnings go to the load test's stderr (the
        // report owns stdout), so a failing run shows why.
        .stdout(stderr_copy().map_err(io(&what))?)
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let child = cmd.spawn().map_err(io(&what))?;
    let pid = child
        .id()
        .ok_or_else(|| SpawnError::NotReady(what.clone()))?;
    let target = Target::parse(&listen).map_err(|_| SpawnError::NotReady(what.clone()))?;
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(std::net::SocketAddr::V4(target.addr))
            .await
            .is_ok()
        {
            return Ok(Spawned { child, target, pid });
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(SpawnError::NotReady(what))
}

/// Starts this binary's `relay` subcommand (linked to the other relay processes on
/// `link`'s Redis and prefix, if given) and reads the address it prints.
pub async fn relay(
    workers: usize,
    read_buffer: Option<usize>,
    link: Option<&LinkConfig>,
) -> Result<Spawned, SpawnError> {
    let what = "relay process";
    let exe = std::env::current_exe().map_err(io(what))?;
    let mut cmd = Command::new(exe);
    cmd.args(["relay", "--workers", &workers.to_string()]);
    if let Some(bytes) = read_buffer {
        cmd.args(["--read-buffer", &bytes.to_string()]);
    }
    if let Some(link) = link {
        cmd.args(["--redis", &link.url, "--prefix", &link.prefix]);
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(io(what))?;
    let pid = child
        .id()
        .ok_or_else(|| SpawnError::NotReady(what.into()))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| SpawnError::NotReady(what.into()))?;
    let mut line = String::new();
    tokio::time::timeout(
        Duration::from_secs(10),
        BufReader::new(stdout).read_line(&mut line),
    )
    .await
    .map_err(|_| SpawnError::NotReady(what.into()))?
    .map_err(io(what))?;
    let addr = line
        .trim()
        .strip_prefix("relay listening on ")
        .ok_or_else(|| SpawnError::NotReady(what.into()))?;
    let target = Target::parse(addr).map_err(|_| SpawnError::NotReady(what.into()))?;
    Ok(Spawned { child, target, pid })
}

/// Starts `redis-server` on `port` (no snapshot, no append-only file: a restart starts
/// empty) and waits until it accepts connections.
pub async fn redis(port: u16) -> Result<Spawned, SpawnError> {
    let what = format!("redis-server on port {port}");
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(io(&what))?;
    let pid = child
        .id()
        .ok_or_else(|| SpawnError::NotReady(what.clone()))?;
    let target = Target::parse(&format!("127.0.0.1:{port}"))
        .map_err(|_| SpawnError::NotReady(what.clone()))?;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(std::net::SocketAddr::V4(target.addr))
            .await
            .is_ok()
        {
            return Ok(Spawned { child, target, pid });
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(SpawnError::NotReady(what))
}
