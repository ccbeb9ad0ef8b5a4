//! Cross-check against independent implementations: 213 positions (random play, crafted
//! cases and disagreements found by fuzzing) with their legal moves and perft 1-3 as
//! computed by pydraughts, py-draughts and dame-rs (tools/oracle, docs/rules.md). For
//! Frisian the reference is py-draughts: pydraughts misses some king captures and weighs
//! a king as 1.501 men, against FRI 11.

use std::collections::BTreeSet;

use shared::rules::{Position, SquareName, Variant};

#[derive(serde::Deserialize)]
struct Case {
    variant: String,
    fen: String,
    library: String,
    moves: Vec<OracleMove>,
    perft: std::collections::BTreeMap<String, u64>,
}

#[derive(serde::Deserialize, Clone, Debug)]
struct OracleMove {
    from: SquareName,
    to: SquareName,
    captures: Vec<SquareName>,
}

fn key(m: &OracleMove) -> (String, String, Vec<String>) {
    let mut caps: Vec<String> = m.captures.iter().map(|c| c.to_string()).collect();
    caps.sort();
    (m.from.to_string(), m.to.to_string(), caps)
}

#[test]
fn moves_and_perft_agree_with_the_python_implementations() {
    let data = include_str!("data/oracle_positions.jsonl");
    let mut checked = 0;
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let case: Case = serde_json::from_str(line).expect("oracle line");
        let variant: Variant = case.variant.parse().expect("variant");
        let p = Position::from_fen(variant, &case.fen)
            .unwrap_or_else(|e| panic!("{} {}: {e}", case.variant, case.fen));
        let ours: BTreeSet<_> = p
            .legal_moves()
            .iter()
            .map(|m| {
                let info = p.move_info(m);
                key(&OracleMove {
                    from: info.from,
                    to: info.to,
                    captures: info.captures,
                })
            })
            .collect();
        let theirs: BTreeSet<_> = case.moves.iter().map(key).collect();
        assert_eq!(
            ours, theirs,
            "{} {} ({})",
            case.variant, case.fen, case.library
        );
        for (depth, nodes) in &case.perft {
            let d: u32 = depth.parse().expect("depth");
            assert_eq!(
                p.perft(d),
                *nodes,
                "{} {} depth {d}",
                case.variant,
                case.fen
            );
        }
        checked += 1;
    }
    assert!(checked >= 200, "only {checked} positions");
}
