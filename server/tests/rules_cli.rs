//! `damka rules`: the command-line front of the rules engines, run as a real process.

use std::process::Command;

fn damka(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_damka"))
        .args(args)
        .output()
        .expect("run damka");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn perft_prints_nodes_last() {
    let (ok, out, _) = damka(&[
        "rules",
        "perft",
        "--variant",
        "international",
        "--depth",
        "4",
    ]);
    assert!(ok);
    assert_eq!(out.lines().last(), Some("nodes 4265"));
    let (ok, out, _) = damka(&[
        "rules",
        "perft",
        "--variant",
        "russian",
        "--fen",
        "W:WKd2:Bf4,f6,g7,d6,b6",
        "--depth",
        "1",
        "--divide",
    ]);
    assert!(ok);
    assert_eq!(out.lines().last(), Some("nodes 3"));
    assert!(out.contains("d2:g5:d8:a5 1"));
}

#[test]
fn moves_lists_full_routes_and_json() {
    let (ok, out, _) = damka(&[
        "rules",
        "moves",
        "--variant",
        "frisian",
        "--fen",
        "W:W28:B29",
    ]);
    assert!(ok);
    assert_eq!(out.trim(), "28x30");
    let (ok, out, _) = damka(&["rules", "moves", "--variant", "portuguese", "--json"]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 7);
    assert_eq!(v[0]["path"].as_array().unwrap().len(), 2);
    let (ok, out, _) = damka(&["rules", "moves", "--variant", "chess960", "--json"]);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 20);
}

#[test]
fn bad_input_is_a_clear_error() {
    let (ok, _, err) = damka(&["rules", "moves", "--variant", "checkers"]);
    assert!(!ok && err.contains("unknown variant"), "{err}");
    let (ok, _, err) = damka(&[
        "rules",
        "moves",
        "--variant",
        "russian",
        "--fen",
        "W:Wz9:B1",
    ]);
    assert!(!ok && err.contains("FEN"), "{err}");
}
