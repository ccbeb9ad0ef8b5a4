//! The computer's draughts through an external Hub engine (Hub protocol version 2, as
//! Scan 3.1 speaks it), for the variants `computer.hub_variants` names: the engine
//! (`computer.hub_engine`, a command line such as `/opt/scan/scan hub`) is started for
//! each search, told the variant, the position and the time, and asked for its move;
//! it quits after. An engine that fails, hangs past the time or answers an illegal move
//! is tried once more, then the built-in engine plays that move: a game never hangs.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use engine::hub::notation;
use shared::rules::draughts::{DraughtsVariant, Position};

/// Time an engine gets to introduce itself and initialise.
const INIT: Duration = Duration::from_secs(10);

/// The Hub name of a variant (Scan calls International `normal`).
pub(crate) fn hub_name(v: DraughtsVariant) -> &'static str {
    engine::hub::VARIANTS
        .iter()
        .find(|(_, x)| *x == v)
        .map_or("normal", |(n, _)| n)
}

/// A running engine process and its output, line by line.
struct Process {
    child: Child,
    lines: Receiver<String>,
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Some(input) = self.child.stdin.as_mut() {
            let _ = writeln!(input, "quit");
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Process {
    fn start(command: &str) -> Result<Process, String> {
        let mut words = command.split_whitespace();
        let program = words.next().ok_or("no hub engine configured")?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        let out = child.stdout.take().ok_or("no output pipe")?;
        let (tx, lines) = std::sync::mpsc::sync_channel(256);
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Ok(Process { child, lines })
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        let input = self.child.stdin.as_mut().ok_or("no input pipe")?;
        writeln!(input, "{line}")
            .and_then(|()| input.flush())
            .map_err(|e| format!("the engine stopped reading: {e}"))
    }

    /// Lines until one starting with `word`, by `deadline`.
    fn until(&mut self, word: &str, deadline: Instant) -> Result<Vec<String>, String> {
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let first = line.split_whitespace().next() == Some(word);
                    seen.push(line);
                    if first {
                        return Ok(seen);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(format!("no `{word}` in time")),
                Err(RecvTimeoutError::Disconnected) => return Err("the engine exited".into()),
            }
        }
    }

    /// `hub` ... `wait`: the variants the engine declares.
    fn introduce(&mut self) -> Result<Vec<String>, String> {
        self.send("hub")?;
        let lines = self.until("wait", Instant::now() + INIT)?;
        Ok(lines
            .iter()
            .filter(|l| l.starts_with("param") && l.contains("name=variant"))
            .filter_map(|l| l.split("values=\"").nth(1))
            .flat_map(|v| v.split('"').next().unwrap_or("").split_whitespace())
            .map(str::to_string)
            .collect())
    }
}

/// Does the engine of `command` play `variant`? Starts it and reads its declaration.
pub(crate) fn plays(command: &str, variant: DraughtsVariant) -> Result<bool, String> {
    let mut p = Process::start(command)?;
    let declared = p.introduce()?;
    Ok(declared.iter().any(|v| v == hub_name(variant)))
}

/// The engine's move in `pos` within `ms` milliseconds, as a legal move of `pos`.
pub(crate) fn best_move(
    command: &str,
    pos: &Position,
    ms: u64,
) -> Result<shared::rules::draughts::Move, String> {
    let mut p = Process::start(command)?;
    let declared = p.introduce()?;
    let name = hub_name(pos.variant());
    if !declared.iter().any(|v| v == name) {
        return Err(format!("the engine does not play {name}"));
    }
    p.send(&format!("set-param name=variant value={name}"))?;
    p.send("init")?;
    p.until("ready", Instant::now() + INIT)?;
    p.send(&format!("pos pos={}", notation::position_text(pos)))?;
    p.send(&format!("level move-time={:.3}", ms as f64 / 1000.0))?;
    p.send("go think")?;
    let deadline = Instant::now() + Duration::from_millis(ms) + Duration::from_secs(5);
    let lines = p.until("done", deadline)?;
    let done = lines.last().cloned().unwrap_or_default();
    let text = done
        .split_whitespace()
        .find_map(|w| w.strip_prefix("move="))
        .ok_or_else(|| format!("`{done}` names no move"))?;
    notation::parse_move(pos, text).map_err(|e| e.to_string())
}
