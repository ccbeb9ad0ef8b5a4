//! The engine from outside: it beats a random mover in every variant from both sides,
//! finds a shot, honours its limits and its stop flag, refuses bad input with typed
//! errors, and `damka-engine hub` is driven through whole games by a Hub client written
//! from Scan's `protocol.txt` (this file's `Hub`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use engine::hub::notation;
use engine::{EngineError, Level, Limits, Score};
use shared::rules::draughts::{self, DraughtsVariant};
use shared::rules::{Color, Position, Variant};

fn start(v: DraughtsVariant) -> Position {
    Position::start(Variant::Draughts(v))
}

/// Plays the engine (depth 4, no noise) against a seeded random mover; the winner is the
/// side whose opponent has no move, `None` after 300 plies.
fn play_random(v: DraughtsVariant, engine_side: Color, seed: u64) -> Option<Color> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut pos = start(v);
    let mut history = Vec::new();
    let limits = Limits {
        depth: Some(4),
        ..Limits::default()
    };
    for _ in 0..300 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Some(pos.side_to_move().opponent());
        }
        let mv = if pos.side_to_move() == engine_side {
            match engine::think(&pos, &history, Level::full(), &limits) {
                Ok(t) => t.best,
                Err(e) => panic!("{v:?}: {e}"),
            }
        } else {
            moves[rng.usize(..moves.len())].clone()
        };
        history.push(pos.key());
        assert!(
            pos.play(&mv).is_ok(),
            "{v:?}: the engine played an illegal move"
        );
    }
    None
}

#[test]
fn beats_a_random_mover_in_every_variant_from_both_sides() {
    for v in DraughtsVariant::ALL {
        for side in [Color::White, Color::Black] {
            let winner = play_random(v, side, 7);
            assert_eq!(winner, Some(side), "{v:?} with the engine as {side}");
        }
    }
}

#[test]
fn finds_the_shot_in_every_variant_where_men_capture_backwards() {
    // c3-d4 gives a man so that b2 takes two and the rest falls: the quiet alternatives
    // lose a man or the game.
    for v in [
        DraughtsVariant::Russian,
        DraughtsVariant::Brazilian,
        DraughtsVariant::Pool,
    ] {
        let pos = match Position::from_fen(Variant::Draughts(v), "W:Wa1,b2,c3,e3:Be5,c5,g7,h8") {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        let t = engine::analyse(
            &pos,
            &[],
            &Limits {
                depth: Some(10),
                ..Limits::default()
            },
        );
        let t = match t {
            Ok(t) => t,
            Err(e) => panic!("{v:?}: {e}"),
        };
        assert_eq!(pos.move_text(&t.best), "c3-d4", "{v:?}: {:?}", t.score);
        assert!(t.score.as_centi() > 150, "{v:?}: {:?}", t.score);
    }
}

#[test]
fn move_time_and_the_stop_flag_end_the_search() {
    let pos = start(DraughtsVariant::International);
    let begun = Instant::now();
    let t = engine::analyse(
        &pos,
        &[],
        &Limits {
            movetime_ms: Some(200),
            ..Limits::default()
        },
    );
    assert!(t.is_ok());
    assert!(
        begun.elapsed() < Duration::from_secs(2),
        "{:?}",
        begun.elapsed()
    );

    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let searcher = std::thread::spawn(move || {
        engine::analyse(
            &pos,
            &[],
            &Limits {
                stop: Some(flag),
                ..Limits::default()
            },
        )
    });
    std::thread::sleep(Duration::from_millis(300));
    let stopped_at = Instant::now();
    stop.store(true, Ordering::Relaxed);
    let t = searcher.join().map_err(|_| "panicked");
    assert!(matches!(t, Ok(Ok(_))));
    assert!(stopped_at.elapsed() < Duration::from_secs(1));
}

#[test]
fn the_pace_hook_is_called_between_batches_of_nodes_and_changes_no_move() {
    let pos = start(DraughtsVariant::Russian);
    let calls = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counted = calls.clone();
    let paced = Limits {
        nodes: Some(100_000),
        pace: Some(engine::Pace::new(move || {
            counted.fetch_add(1, Ordering::Relaxed);
        })),
        ..Limits::default()
    };
    let with = engine::analyse(&pos, &[], &paced).expect("a move");
    let n = calls.load(Ordering::Relaxed);
    assert!(n >= with.nodes / 2048, "{n} calls for {} nodes", with.nodes);
    // The hook only gives time away: the same bounded search finds the same move.
    let plain = Limits {
        nodes: Some(100_000),
        ..Limits::default()
    };
    let without = engine::analyse(&pos, &[], &plain).expect("a move");
    assert_eq!((with.best, with.nodes), (without.best, without.nodes));
}

#[test]
fn bad_input_gets_typed_errors() {
    assert_eq!(Level::new(0), Err(EngineError::InvalidLevel(0)));
    assert_eq!(Level::new(9), Err(EngineError::InvalidLevel(9)));
    let limits = Limits::default();
    let chess = Position::start(Variant::Chess);
    assert_eq!(
        engine::think(&chess, &[], Level::full(), &limits).err(),
        Some(EngineError::NotDraughts)
    );
    let over = match Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), "W:W:Bc5") {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(
        engine::analyse(&over, &[], &limits).err(),
        Some(EngineError::GameOver)
    );
}

#[test]
fn draws_and_resignation_follow_the_score() {
    let lv = |n| match Level::new(n) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    };
    assert!(engine::should_resign(lv(8), Score::LossIn(3)));
    assert!(engine::should_resign(lv(6), Score::Centi(-700)));
    assert!(!engine::should_resign(lv(3), Score::LossIn(3)));
    assert!(!engine::should_resign(lv(8), Score::Centi(-100)));
    // One king each: a dead draw (IDF 8.2.5) is accepted; a man up is not given away.
    let dead = Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), "W:WKc3:BKf8");
    assert!(matches!(dead, Ok(ref p) if engine::accepts_draw(p, &[], lv(8))));
    let ahead = Position::from_fen(
        Variant::Draughts(DraughtsVariant::Russian),
        "W:Wc3,e3,g3,a1:Bf6,h6,b6",
    );
    assert!(matches!(ahead, Ok(ref p) if !engine::accepts_draw(p, &[], lv(8))));
}

/// A Hub client, written from the protocol text: it speaks to a `damka-engine hub`
/// process and reads its answers line by line.
struct Hub {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

impl Hub {
    fn start() -> Hub {
        let mut child = match Command::new(env!("CARGO_BIN_EXE_damka-engine"))
            .arg("hub")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => panic!("spawn damka-engine: {e}"),
        };
        let (Some(to), Some(from)) = (child.stdin.take(), child.stdout.take()) else {
            panic!("no pipes");
        };
        Hub {
            child,
            to,
            from: BufReader::new(from),
        }
    }

    fn send(&mut self, line: &str) {
        assert!(writeln!(self.to, "{line}").is_ok(), "send {line}");
        assert!(self.to.flush().is_ok());
    }

    fn read(&mut self) -> String {
        let mut line = String::new();
        match self.from.read_line(&mut line) {
            Ok(n) if n > 0 => line.trim().to_string(),
            other => panic!("the engine closed its output: {other:?}"),
        }
    }

    /// Reads until a line starting with `word`, returning every line read.
    fn until(&mut self, word: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.read();
            let done = line.split_whitespace().next() == Some(word);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    fn value(line: &str, name: &str) -> Option<String> {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")).map(str::to_string))
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Drives a whole game of `variant` (the Hub name `hub_name`) between the engine and
/// itself through the protocol, checking each `done` move against the rules.
fn hub_game(hub_name: &str, variant: DraughtsVariant) {
    let mut hub = Hub::start();
    hub.send("hub");
    let intro = hub.until("wait");
    assert!(intro[0].starts_with("id name=damka-engine"), "{intro:?}");
    assert!(
        intro
            .iter()
            .any(|l| l.starts_with("param name=variant") && l.contains(hub_name)),
        "{intro:?}"
    );
    hub.send(&format!("set-param name=variant value={hub_name}"));
    hub.send("set-param name=hash value=16");
    hub.send("init");
    assert_eq!(hub.until("ready").last().map(String::as_str), Some("ready"));
    hub.send("new-game");
    let begin = draughts::Position::start(variant);
    let mut pos = begin;
    let mut played: Vec<String> = Vec::new();
    for _ in 0..400 {
        if pos.legal_moves().is_empty() {
            break;
        }
        hub.send(&format!(
            "pos pos={} moves=\"{}\"",
            notation::position_text(&begin),
            played.join(" ")
        ));
        hub.send("level move-time=0.02");
        hub.send("go think");
        let lines = hub.until("done");
        assert!(lines.iter().any(|l| l.starts_with("info ")), "{lines:?}");
        let done = lines.last().cloned().unwrap_or_default();
        let Some(text) = Hub::value(&done, "move") else {
            panic!("no move in {done}");
        };
        let mv = match notation::parse_move(&pos, &text) {
            Ok(m) => m,
            Err(e) => panic!("{variant:?}: {e} after {played:?}"),
        };
        pos = pos.after(&mv);
        played.push(text);
    }
    assert!(played.len() >= 10, "{variant:?}: {played:?}");
    hub.send("quit");
    assert!(matches!(hub.child.wait(), Ok(s) if s.success()));
}

#[test]
fn a_hub_client_drives_whole_games() {
    hub_game("normal", DraughtsVariant::International);
    hub_game("russian", DraughtsVariant::Russian);
}

#[test]
fn hub_analysis_runs_until_stopped_and_answers_pings() {
    let mut hub = Hub::start();
    hub.send("hub");
    hub.until("wait");
    hub.send("set-param name=variant value=russian");
    hub.send("init");
    hub.until("ready");
    let start = notation::position_text(&draughts::Position::start(DraughtsVariant::Russian));
    hub.send(&format!("pos pos={start}"));
    hub.send("level infinite");
    hub.send("go analyze");
    std::thread::sleep(Duration::from_millis(200));
    hub.send("ping");
    assert_eq!(hub.read(), "pong");
    hub.send("stop");
    let lines = hub.until("done");
    assert!(lines[0].starts_with("info depth="), "{lines:?}");
    assert!(Hub::value(lines.last().map_or("", String::as_str), "move").is_some());
    // Pondering: the search waits for ponder-hit, then ends by itself within its time.
    hub.send(&format!("pos pos={start}"));
    hub.send("level move-time=0.1");
    hub.send("go ponder");
    hub.send("ponder-hit");
    let lines = hub.until("done");
    assert!(Hub::value(lines.last().map_or("", String::as_str), "move").is_some());
}

#[test]
fn hub_bad_input_is_an_error_and_changes_nothing() {
    let mut hub = Hub::start();
    hub.send("hub");
    hub.until("wait");
    hub.send("set-param name=variant value=checkers");
    assert!(hub.read().starts_with("error message="));
    hub.send("set-param name=level value=12");
    assert!(hub.read().starts_with("error message="));
    hub.send("init");
    hub.until("ready");
    hub.send("pos pos=Wxyz");
    assert!(hub.read().starts_with("error message="));
    hub.send("go think");
    assert!(hub.read().contains("go before pos"));
    let start = notation::position_text(&draughts::Position::start(DraughtsVariant::International));
    hub.send(&format!("pos pos={start} moves=\"32-23\""));
    assert!(hub.read().starts_with("error message="));
    hub.send("frobnicate now");
    assert!(hub.read().starts_with("error message="));
    hub.send("ping");
    assert_eq!(hub.read(), "pong");
    // The variant is still International: a game goes on from its start.
    hub.send(&format!("pos pos={start}"));
    hub.send("level depth=2");
    hub.send("go think");
    let lines = hub.until("done");
    assert!(lines.last().is_some_and(|l| l.starts_with("done move=")));
}

/// py-draughts' `HubEngine`, a Hub client we did not write, drives a whole game
/// (`tools/hub/py_draughts_client.py`); it runs when `HUB_CLIENT_PYTHON` names an
/// interpreter with py-draughts, as `tools/test-all.sh` sets up.
#[test]
fn py_draughts_hub_engine_drives_a_game() {
    let Ok(python) = std::env::var("HUB_CLIENT_PYTHON") else {
        eprintln!("HUB_CLIENT_PYTHON unset: py-draughts' HubEngine not run");
        return;
    };
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/hub/py_draughts_client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_damka-engine"))
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => panic!("python: {e}"),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.starts_with("ok:"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
