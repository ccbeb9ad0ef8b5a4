//! What damka exports, read back by independent parsers: games of every variant played
//! by random legal moves (from the start, from a Black-to-move position, Chess960) are
//! written as PDN/PGN by `damka::export`, then `tools/oracle/exports.py` reads them
//! with pydraughts and python-chess and replays every move. The Python side runs when
//! `EXPORT_ORACLE_PYTHON` names an interpreter with both libraries (`.ci/run` sets one
//! up); without it the files are still written and their shape checked here.

use std::path::PathBuf;

use damka::db::{ArchivedGame, ArchivedMove, ArchivedPlayer};
use damka::export;
use shared::protocol::OutcomeReason;
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Position, Variant};

fn player(name: &str) -> ArchivedPlayer {
    ArchivedPlayer {
        id: name.to_lowercase(),
        name: name.into(),
        guest: false,
        rating_before: Some(1500.0),
        rating_after: Some(1510.0),
    }
}

/// A game of `plies` pseudo-random legal moves from `start`.
fn random_game(variant: Variant, start: Position, seed: u64, plies: usize) -> ArchivedGame {
    let start_fen = start.fen();
    let mut pos = start;
    let mut rng = seed;
    let mut moves = Vec::new();
    for ply in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mv = &legal[(rng >> 33) as usize % legal.len()];
        moves.push(ArchivedMove {
            san: pos.move_text(mv),
            clock_ms: Some(180_000 - ply as u64 * 900),
        });
        pos.play(mv).unwrap();
    }
    let name = serde_json::to_value(variant)
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    ArchivedGame {
        id: format!("{name}{seed}"),
        variant: name.clone(),
        rules: name.clone(),
        perf: format!("{name}-blitz"),
        rated: true,
        clock: "3+2".into(),
        white: player("Alice"),
        black: player("Bob"),
        start_fen: (start_fen != Position::start(variant).fen()).then_some(start_fen),
        moves,
        result: "1/2-1/2".into(),
        winner: None,
        reason: OutcomeReason::Agreement,
        rule: None,
        started_at: 1_795_000_000_000,
        ended_at: 1_795_000_100_000,
        arena: None,
        tournament: None,
        berserk: Vec::new(),
    }
}

#[test]
fn exports_read_back_by_independent_parsers() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("export-oracle");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut manifest = Vec::new();
    let mut games = Vec::new();
    for variant in Variant::ALL {
        for seed in 1..=3 {
            let start = if variant == Variant::Chess960 {
                Position::start960((seed * 137) as u32 % 960).unwrap()
            } else {
                Position::start(variant)
            };
            games.push(random_game(variant, start, seed, 80));
        }
    }
    // Games from a position where Black moves first.
    games.push(random_game(
        Variant::Draughts(DraughtsVariant::Russian),
        Position::from_fen(
            Variant::Draughts(DraughtsVariant::Russian),
            "B:Wc3,e3,g3,a1:Bb6,d6,f6,h8",
        )
        .unwrap(),
        9,
        20,
    ));
    games.push(random_game(
        Variant::Draughts(DraughtsVariant::International),
        Position::from_fen(
            Variant::Draughts(DraughtsVariant::International),
            "B:W31,32,33,34,35:B16,17,18,19,20",
        )
        .unwrap(),
        9,
        20,
    ));
    for g in &games {
        let text = export::export(g);
        let ext = if export::is_chess(g) { "pgn" } else { "pdn" };
        assert!(text.starts_with("[Event "), "{text}");
        assert!(text.contains(&format!("[GameId \"{}\"]", g.id)));
        if g.start_fen.is_some() {
            assert!(text.contains("[FEN "), "{text}");
        }
        let file = format!("{}.{ext}", g.id);
        std::fs::write(dir.join(&file), &text).unwrap();
        manifest
            .push(serde_json::json!({"file": file, "variant": g.variant, "moves": g.moves.len()}));
    }
    std::fs::write(
        dir.join("manifest.json"),
        serde_json::to_string(&manifest).unwrap(),
    )
    .unwrap();
    let Ok(python) = std::env::var("EXPORT_ORACLE_PYTHON") else {
        eprintln!(
            "EXPORT_ORACLE_PYTHON unset: {} exports written to {}, not read back",
            games.len(),
            dir.display()
        );
        return;
    };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/oracle/exports.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(&dir)
        .output()
        .expect("the oracle script runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "independent parsers refused damka's exports:\n{stdout}"
    );
}
