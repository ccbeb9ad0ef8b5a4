//! `damka-engine`: the engine as a program. `damka-engine hub` speaks the Hub protocol on
//! standard input and output (any Hub GUI or client drives it as it drives Scan);
//! `damka-engine bestmove` answers one position from the command line.

use std::io;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use engine::{Level, Limits, Score};
use shared::rules::{Position, Variant};

#[derive(Parser)]
#[command(name = "damka-engine", version, about = "damka's draughts engine")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Speak the Hub protocol (version 2, as Scan 3.1) on stdin/stdout.
    Hub {
        /// Offer only these variants (Hub names, comma separated: normal, frisian,
        /// russian, brazilian, pool, czech, portuguese, italian), as an engine that
        /// knows fewer would.
        #[arg(long, value_delimiter = ',')]
        variants: Option<Vec<String>>,
    },
    /// Print the move a level plays in a position, with its score, depth and line.
    Bestmove {
        /// A draughts variant: russian, brazilian, pool, czech, portuguese, italian,
        /// international, frisian.
        #[arg(long)]
        variant: Variant,
        /// The position as FEN; the start position if left out.
        #[arg(long)]
        fen: Option<String>,
        /// Level 1 to 8.
        #[arg(long, default_value_t = 8)]
        level: u8,
        /// Milliseconds to think.
        #[arg(long)]
        movetime: Option<u64>,
        /// Deepest iteration in plies.
        #[arg(long)]
        depth: Option<u8>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Hub { variants } => {
            let stdin = io::stdin();
            engine::hub::run(stdin.lock(), io::stdout(), variants.as_deref())
                .map_err(|e| e.to_string())
        }
        Command::Bestmove {
            variant,
            fen,
            level,
            movetime,
            depth,
        } => bestmove(variant, fen.as_deref(), level, movetime, depth),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("damka-engine: {e}");
            ExitCode::from(2)
        }
    }
}

fn bestmove(
    variant: Variant,
    fen: Option<&str>,
    level: u8,
    movetime: Option<u64>,
    depth: Option<u8>,
) -> Result<(), String> {
    let pos = match fen {
        Some(f) => Position::from_fen(variant, f).map_err(|e| e.to_string())?,
        None => Position::start(variant),
    };
    let level = Level::new(level).map_err(|e| e.to_string())?;
    let limits = Limits {
        movetime_ms: movetime,
        depth,
        ..Limits::default()
    };
    let t = engine::think(&pos, &[], level, &limits).map_err(|e| e.to_string())?;
    let score = match t.score {
        Score::Centi(c) => format!("{c} cp"),
        Score::WinIn(n) => format!("win in {n}"),
        Score::LossIn(n) => format!("loss in {n}"),
    };
    let mut line = Vec::new();
    let mut p = pos.clone();
    for mv in &t.pv {
        line.push(p.move_text(mv));
        if p.play(mv).is_err() {
            break;
        }
    }
    println!(
        "bestmove {} score {score} depth {} nodes {} time {} ms pv {}",
        pos.move_text(&t.best),
        t.depth,
        t.nodes,
        t.elapsed_ms,
        line.join(" ")
    );
    Ok(())
}
