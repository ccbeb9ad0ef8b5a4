//! The Hub protocol, version 2, as Scan 3.1 speaks it (Scan's `protocol.txt`): the
//! engine side. `hub` is answered with `id`, one `param` line per parameter and `wait`;
//! `set-param` changes a parameter (before `init` and between games); `init` answers
//! `ready`; a search is `pos`, `level` and `go think|ponder|analyze`, answered by `info`
//! and `done move=... ponder=...`; `stop`, `ponder-hit` and `ping` are read during a
//! search; `new-game` clears the table; `quit` or the end of input ends the session.
//! Anything not understood is answered with `error message="..."` and changes nothing.
//!
//! Parameters: `variant` (Scan's names `normal` for International and `frisian`, and
//! `russian`, `brazilian`, `pool`, `czech`, `portuguese`, `italian`), `level` (1-8; 8
//! is full strength, lower levels play with their deliberate error on `go think`) and
//! `hash` (MiB of transposition table).

pub mod notation;

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use shared::rules::Position as AnyPosition;
use shared::rules::draughts::{DraughtsVariant, Position};

use crate::{ClockLimits, Engine, Level, Limits, Score, Thought};

/// The variant names the `variant` parameter takes, in the order they are declared.
pub const VARIANTS: [(&str, DraughtsVariant); 8] = [
    ("normal", DraughtsVariant::International),
    ("frisian", DraughtsVariant::Frisian),
    ("russian", DraughtsVariant::Russian),
    ("brazilian", DraughtsVariant::Brazilian),
    ("pool", DraughtsVariant::Pool),
    ("czech", DraughtsVariant::Czech),
    ("portuguese", DraughtsVariant::Portuguese),
    ("italian", DraughtsVariant::Italian),
];

const DEFAULT_HASH_MB: usize = 64;

/// Lines of one answer leave this far apart: a client that polls the pipe with
/// `select()` before each read of one line (py-draughts' `HubEngine` does) would
/// otherwise find the second line already in its buffer and wait for it forever.
const LINE_GAP: Duration = Duration::from_millis(15);

type Out = Arc<Mutex<Box<dyn Write + Send>>>;

fn say(out: &Out, line: &str) {
    let mut w = out.lock().unwrap_or_else(PoisonError::into_inner);
    // The GUI has gone if this fails; the read side sees the end of input and quits.
    let _ = writeln!(w, "{line}").and_then(|()| w.flush());
}

/// One line: its command and its `name=value` arguments (a flag has an empty value).
fn parse_line(line: &str) -> (String, Vec<(String, String)>) {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.trim().chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    let mut it = words.into_iter();
    let command = it.next().unwrap_or_default();
    let args = it
        .map(|w| match w.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (w, String::new()),
        })
        .collect();
    (command, args)
}

fn arg<'a>(args: &'a [(String, String)], name: &str) -> Option<&'a str> {
    args.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn seconds_ms(v: &str) -> Option<u64> {
    v.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| (s * 1000.0) as u64)
}

/// How the next search is bounded (`level`).
#[derive(Clone, Debug, Default)]
struct Bounds {
    depth: Option<u8>,
    nodes: Option<u64>,
    movetime_ms: Option<u64>,
    clock: Option<ClockLimits>,
    infinite: bool,
}

struct Running {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
    /// A ponder search's budget, started by `ponder-hit`.
    ponder_budget_ms: Option<u64>,
}

/// One Hub session.
struct Session {
    out: Out,
    offered: Vec<(&'static str, DraughtsVariant)>,
    variant: DraughtsVariant,
    level: Level,
    hash_mb: usize,
    engine: Arc<Mutex<Engine>>,
    position: Option<Position>,
    history: Vec<u64>,
    law_plies: u16,
    bounds: Bounds,
    running: Option<Running>,
}

/// Runs a Hub session on `input` and `output` until `quit` or the end of input,
/// offering the variants named in `offered` (Hub names; all eight if `None`, as an
/// engine that knows fewer, like Scan, would declare them).
pub fn run(
    input: impl BufRead,
    output: impl Write + Send + 'static,
    offered: Option<&[String]>,
) -> io::Result<()> {
    let offered: Vec<(&'static str, DraughtsVariant)> = VARIANTS
        .iter()
        .filter(|(name, _)| offered.is_none_or(|o| o.iter().any(|n| n == name)))
        .copied()
        .collect();
    let Some(&(_, first)) = offered.first() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "no known variant offered",
        ));
    };
    let mut s = Session {
        out: Arc::new(Mutex::new(Box::new(output))),
        offered,
        variant: first,
        level: Level::full(),
        hash_mb: DEFAULT_HASH_MB,
        engine: Arc::new(Mutex::new(Engine::new(1))),
        position: None,
        history: Vec::new(),
        law_plies: 0,
        bounds: Bounds::default(),
        running: None,
    };
    for line in input.lines() {
        let line = line?;
        let (command, args) = parse_line(&line);
        if !s.command(&command, &args) {
            break;
        }
    }
    s.finish_search();
    Ok(())
}

impl Session {
    fn error(&self, message: &str) {
        say(
            &self.out,
            &format!("error message=\"{}\"", message.replace('"', "'")),
        );
    }

    /// Handles one command; `false` ends the session.
    fn command(&mut self, command: &str, args: &[(String, String)]) -> bool {
        match command {
            "" => {}
            "ping" => say(&self.out, "pong"),
            "stop" => self.finish_search(),
            "ponder-hit" => self.ponder_hit(),
            "quit" => return false,
            _ => {
                // Only ping, stop and ponder-hit belong in a search; anything else ends it.
                self.finish_search();
                self.between_searches(command, args);
            }
        }
        true
    }

    fn between_searches(&mut self, command: &str, args: &[(String, String)]) {
        match command {
            "hub" => self.identify(),
            "set-param" => self.set_param(args),
            "init" => {
                self.engine = Arc::new(Mutex::new(Engine::new(self.hash_mb)));
                say(&self.out, "ready");
            }
            "new-game" => self.lock_engine().clear(),
            "pos" => self.set_position(args),
            "level" => self.set_level(args),
            "go" => self.go(args),
            other => self.error(&format!("unknown command {other}")),
        }
    }

    fn lock_engine(&self) -> std::sync::MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn identify(&self) {
        let say = |out: &Out, line: &str| {
            say(out, line);
            std::thread::sleep(LINE_GAP);
        };
        say(
            &self.out,
            &format!(
                "id name=damka-engine version={} author=\"the damka developers\" country=Europe",
                env!("CARGO_PKG_VERSION")
            ),
        );
        let names: Vec<&str> = self.offered.iter().map(|(n, _)| *n).collect();
        let current = self
            .offered
            .iter()
            .find(|(_, v)| *v == self.variant)
            .map_or("normal", |(n, _)| n);
        say(
            &self.out,
            &format!(
                "param name=variant value={current} type=enum values=\"{}\"",
                names.join(" ")
            ),
        );
        say(
            &self.out,
            &format!(
                "param name=level value={} type=int min=1 max=8",
                self.level.get()
            ),
        );
        say(
            &self.out,
            &format!(
                "param name=hash value={} type=int min=1 max=4096",
                self.hash_mb
            ),
        );
        say(&self.out, "wait");
    }

    fn set_param(&mut self, args: &[(String, String)]) {
        let (Some(name), Some(value)) = (arg(args, "name"), arg(args, "value")) else {
            return self.error("set-param needs name= and value=");
        };
        match name {
            "variant" => match self.offered.iter().find(|(n, _)| *n == value) {
                Some((_, v)) => {
                    self.variant = *v;
                    self.position = None;
                }
                None => self.error(&format!("unknown variant {value}")),
            },
            "level" => match value.parse::<u8>().ok().and_then(|n| Level::new(n).ok()) {
                Some(level) => self.level = level,
                None => self.error(&format!("level {value} is not 1 to 8")),
            },
            "hash" => match value.parse::<usize>() {
                Ok(mb) if (1..=4096).contains(&mb) => self.hash_mb = mb,
                _ => self.error(&format!("hash {value} is not 1 to 4096")),
            },
            other => self.error(&format!("unknown parameter {other}")),
        }
    }

    fn set_position(&mut self, args: &[(String, String)]) {
        let Some(text) = arg(args, "pos") else {
            return self.error("pos needs pos=");
        };
        let mut pos = match notation::parse_position(self.variant, text) {
            Ok(p) => p,
            Err(e) => return self.error(&e.to_string()),
        };
        let mut history = Vec::new();
        let mut law = 0u16;
        for mv in arg(args, "moves").unwrap_or("").split_whitespace() {
            match notation::parse_move(&pos, mv) {
                Ok(m) => {
                    let king = pos.kings() & (1u64 << m.from()) != 0;
                    law = if m.is_capture() || !king { 0 } else { law + 1 };
                    history.push(pos.key());
                    pos = pos.after(&m);
                }
                Err(e) => return self.error(&e.to_string()),
            }
        }
        self.position = Some(pos);
        self.history = history;
        self.law_plies = law;
    }

    fn set_level(&mut self, args: &[(String, String)]) {
        let mut b = Bounds::default();
        let num = |name: &str| arg(args, name).and_then(|v| v.parse::<u64>().ok());
        b.depth = num("depth").map(|d| d.clamp(1, 64) as u8);
        b.nodes = num("nodes");
        b.movetime_ms = arg(args, "move-time").and_then(seconds_ms);
        b.infinite = arg(args, "infinite").is_some();
        if let Some(remaining_ms) = arg(args, "time").and_then(seconds_ms) {
            b.clock = Some(ClockLimits {
                remaining_ms,
                increment_ms: arg(args, "inc").and_then(seconds_ms).unwrap_or(0),
                moves_to_go: num("moves").map(|m| m.min(1000) as u32),
                delay_ms: 0,
            });
        }
        if args.is_empty() {
            return self.error("level needs depth=, nodes=, move-time=, time= or infinite");
        }
        self.bounds = b;
    }

    fn limits(&self, stop: &Arc<AtomicBool>, timed: bool) -> Limits {
        let b = &self.bounds;
        Limits {
            depth: b.depth,
            nodes: b.nodes,
            movetime_ms: if timed { b.movetime_ms } else { None },
            clock: if timed { b.clock } else { None },
            stop: Some(stop.clone()),
            law_plies: self.law_plies,
            pace: None,
        }
    }

    fn go(&mut self, args: &[(String, String)]) {
        let Some(pos) = self.position else {
            return self.error("go before pos");
        };
        if pos.legal_moves().is_empty() {
            return self.error("the position has no legal move");
        }
        let mode = ["think", "ponder", "analyze"]
            .into_iter()
            .find(|m| arg(args, m).is_some());
        let Some(mode) = mode else {
            return self.error("go needs think, ponder or analyze");
        };
        let stop = Arc::new(AtomicBool::new(false));
        let pondering = mode == "ponder";
        let limits = self.limits(&stop, !pondering);
        let ponder_budget_ms = pondering.then(|| {
            let clock = self.bounds.clock;
            self.bounds
                .movetime_ms
                .or_else(|| clock.map(|c| crate::time::budget(&c).soft_ms))
                .unwrap_or(1_000)
        });
        let job = Job {
            engine: self.engine.clone(),
            out: self.out.clone(),
            position: pos,
            history: self.history.clone(),
            level: (mode == "think" && !self.bounds.infinite).then_some(self.level),
            limits,
        };
        let thread = std::thread::spawn(move || job.run());
        self.running = Some(Running {
            stop,
            thread,
            ponder_budget_ms,
        });
    }

    fn ponder_hit(&mut self) {
        let Some(running) = self.running.as_mut() else {
            return;
        };
        if let Some(ms) = running.ponder_budget_ms.take() {
            let stop = running.stop.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(ms));
                stop.store(true, Ordering::Relaxed);
            });
        }
    }

    /// Stops the running search, if any, and waits for its `done`.
    fn finish_search(&mut self) {
        if let Some(running) = self.running.take() {
            running.stop.store(true, Ordering::Relaxed);
            if running.thread.join().is_err() {
                self.error("the search failed");
            }
        }
    }
}

/// One search, run on its own thread.
struct Job {
    engine: Arc<Mutex<Engine>>,
    out: Out,
    position: Position,
    history: Vec<u64>,
    /// A level's move (`go think`), or full-strength analysis.
    level: Option<Level>,
    limits: Limits,
}

impl Job {
    fn run(self) {
        let any = AnyPosition::Draughts(self.position);
        let result = {
            let mut engine = self.engine.lock().unwrap_or_else(PoisonError::into_inner);
            match self.level {
                Some(level) => engine.think(&any, &self.history, level, &self.limits),
                None => engine.analyse(&any, &self.history, &self.limits),
            }
        };
        match result {
            Ok(t) => self.report(&t),
            Err(e) => say(&self.out, &format!("error message=\"{e}\"")),
        }
    }

    fn report(&self, t: &Thought) {
        let mut pos = self.position;
        let mut pv = Vec::new();
        for mv in &t.pv {
            let shared::rules::Move::Draughts(m) = mv else {
                break;
            };
            pv.push(notation::move_text(&pos, m));
            pos = pos.after(m);
        }
        let score = match t.score {
            Score::Centi(c) => format!("{:.2}", f64::from(c) / 100.0),
            other => format!("{:.2}", f64::from(other.as_centi()) / 100.0),
        };
        let secs = t.elapsed_ms as f64 / 1000.0;
        let mnps = if t.elapsed_ms > 0 {
            t.nodes as f64 / secs / 1e6
        } else {
            0.0
        };
        say(
            &self.out,
            &format!(
                "info depth={} score={score} nodes={} time={secs:.3} nps={mnps:.1} pv=\"{}\"",
                t.depth,
                t.nodes,
                pv.join(" ")
            ),
        );
        std::thread::sleep(LINE_GAP);
        let mut done = format!("done move={}", pv.first().cloned().unwrap_or_default());
        if let Some(ponder) = pv.get(1) {
            done.push_str(&format!(" ponder={ponder}"));
        }
        say(&self.out, &done);
    }
}
