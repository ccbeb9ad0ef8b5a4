//! The `damka` binary: the game server (`damka` or `damka serve`), and the rules
//! engines on the command line (`damka rules`).

mod rules_cli;

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use damka::{Config, Server};
use tracing_subscriber::EnvFilter;

/// mimalloc rather than the system allocator: a move allocates and frees many small
/// buffers across the runtime's threads, and glibc's per-thread arenas kept growing and
/// trimming their heaps under that churn (`docs/performance.md`). Its version 2 (the
/// workspace's `v2` feature): version 3 keeps freed pages for a second before giving
/// them back (`purge_delay` 1,000 ms against 10), 8-13 KiB more resident per live game
/// in steady play.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// damka: an authoritative game server for draughts and chess.
#[derive(Debug, Parser)]
#[command(name = "damka", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve players and spectators (the default).
    Serve(ServeArgs),
    /// The rules engines: perft and legal moves for any variant and position.
    #[command(subcommand)]
    Rules(rules_cli::RulesCommand),
}

#[derive(Debug, Default, clap::Args)]
struct ServeArgs {
    /// Configuration file; else $DAMKA_CONFIG, else config/damka.toml if present, else
    /// the embedded defaults.
    #[arg(long)]
    config: Option<PathBuf>,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Rules(cmd)) => rules_cli::run(&cmd, &mut std::io::stdout().lock()),
        Some(Command::Serve(args)) => serve(args),
        None => serve(ServeArgs::default()),
    }
}

fn serve(args: ServeArgs) -> Result<()> {
    let file = args
        .config
        .or_else(|| std::env::var_os(damka::config::ENV_CONFIG_FILE).map(PathBuf::from))
        .or_else(|| {
            let default = PathBuf::from("config/damka.toml");
            default.exists().then_some(default)
        });
    let config =
        Config::load(file.as_deref(), std::env::vars()).context("cannot load the configuration")?;
    init_tracing(&config);
    no_huge_pages();
    if let Some(file) = &file {
        tracing::info!(file = %file.display(), "configuration loaded");
    }
    let runtime = tokio::runtime::Runtime::new().context("cannot start the runtime")?;
    runtime.block_on(async {
        let server = Server::start(config)
            .await
            .context("cannot start the server")?;
        // The bound address on stdout, for scripts and tests that listen on port 0.
        println!("damka listening on {}", server.local_addr());
        let app = server.app().clone();
        tokio::spawn(async move {
            shutdown_signal().await;
            tracing::info!("shutdown signal received");
            app.draining.cancel();
        });
        server.wait().await.context("server failed")
    })
}

/// Transparent huge pages off for this process, as Redis does for itself: mimalloc
/// asks the kernel for huge pages on its arenas, and a fault on one zeroes 2 MiB where a
/// new game or connection touches a few KiB; in a wave of game starts that zeroing was
/// most of the node's CPU (`docs/performance.md`, "Huge pages off").
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    if let Err(e) = nix::sys::prctl::set_thp_disable(true) {
        tracing::warn!(error = %e, "cannot turn transparent huge pages off");
    }
}

fn init_tracing(config: &Config) {
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(&config.log.filter))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    if config.log.json {
        builder.json().init();
    } else {
        builder.init();
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}
