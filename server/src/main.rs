//! The `damka` binary: the game server, and the rules engines on the command line.

mod rules_cli;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// damka: an authoritative game server for draughts and chess.
#[derive(Debug, Parser)]
#[command(name = "damka", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The rules engines: perft and legal moves for any variant and position.
    #[command(subcommand)]
    Rules(rules_cli::RulesCommand),
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match &cli.command {
        Command::Rules(cmd) => rules_cli::run(cmd, &mut std::io::stdout().lock()),
    }
}
