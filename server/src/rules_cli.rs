//! `damka rules`: the rules engines on the command line, for checking them against other
//! implementations and for scripting. Owns argument handling and output format only; all
//! rules come from `shared::rules`.

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use shared::rules::{Position, Variant};

/// Rules commands.
#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// Count the leaves of the legal-move tree; the last line is `nodes <count>`.
    Perft {
        #[command(flatten)]
        pos: PositionArgs,
        /// Depth in plies.
        #[arg(long)]
        depth: u32,
        /// Also print the count under each first move.
        #[arg(long)]
        divide: bool,
    },
    /// List every legal move with its full route.
    Moves {
        #[command(flatten)]
        pos: PositionArgs,
        /// Print a JSON array of {"move", "from", "to", "path", "captures"}.
        #[arg(long)]
        json: bool,
    },
}

/// Which position to look at.
#[derive(Debug, Args)]
pub struct PositionArgs {
    /// russian, brazilian, pool, czech, portuguese, italian, international, frisian,
    /// chess or chess960.
    #[arg(long)]
    variant: Variant,
    /// The position (PDN-style FEN for draughts, FEN for chess); the start position if
    /// omitted.
    #[arg(long)]
    fen: Option<String>,
}

impl PositionArgs {
    fn position(&self) -> Result<Position> {
        match &self.fen {
            Some(fen) => Position::from_fen(self.variant, fen)
                .with_context(|| format!("cannot read the {} FEN `{fen}`", self.variant)),
            None => Ok(Position::start(self.variant)),
        }
    }
}

/// Runs a rules command, writing to `out`.
pub fn run(cmd: &RulesCommand, out: &mut impl std::io::Write) -> Result<()> {
    match cmd {
        RulesCommand::Perft { pos, depth, divide } => {
            let position = pos.position()?;
            if *depth > 12 {
                bail!("depth {depth} is too deep for this command (at most 12)");
            }
            let mut total = 0;
            if *divide && *depth > 0 {
                for mv in position.legal_moves() {
                    let mut next = position.clone();
                    next.play(&mv)?;
                    let n = next.perft(depth - 1);
                    total += n;
                    writeln!(out, "{} {n}", position.move_text(&mv))?;
                }
            } else {
                total = position.perft(*depth);
            }
            writeln!(out, "nodes {total}")?;
        }
        RulesCommand::Moves { pos, json } => {
            let position = pos.position()?;
            let infos: Vec<_> = position
                .legal_moves()
                .iter()
                .map(|m| position.move_info(m))
                .collect();
            if *json {
                writeln!(out, "{}", serde_json::to_string(&infos)?)?;
            } else {
                for info in infos {
                    writeln!(out, "{}", info.text)?;
                }
            }
        }
    }
    Ok(())
}
