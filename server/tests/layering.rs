//! The server's folders form layers: a module may use only modules below it. The order
//! is the one written in `docs/architecture.md` (section "Layers"), read from there so
//! that the document and the code cannot drift apart; this test reads every source
//! file under `server/src` and fails on any `crate::<module>` path that reaches up.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The layer order, lowest first, from the line of `docs/architecture.md` that starts
/// with `Layers, lowest first:`.
fn documented_order() -> Vec<String> {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md"))
        .expect("docs/architecture.md is readable");
    let line = doc
        .lines()
        .find(|l| l.starts_with("Layers, lowest first:"))
        .expect("docs/architecture.md states the layers");
    line.trim_start_matches("Layers, lowest first:")
        .split('<')
        .map(|m| m.trim().trim_end_matches('.').trim_matches('`').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the server crate sits in the workspace")
        .to_path_buf()
}

/// The top-level module a source file belongs to: its folder, or its own name.
fn module_of(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    Some(first.trim_end_matches(".rs").to_string())
}

/// Every `crate::<module>` a source text uses, outside comments.
fn uses(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let code = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    if let Some(name) = ident(item.trim()) {
                        found.push(name);
                    }
                }
            } else if let Some(name) = ident(rest) {
                found.push(name);
            }
        }
    }
    found
}

fn ident(s: &str) -> Option<String> {
    let name: String = s
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Every violation in `files` (module, text) against `order`: a module using one at or
/// above its own rank (other than itself), or a module the order does not place.
fn violations(order: &[String], files: &[(String, String, String)]) -> Vec<String> {
    let rank: HashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    let mut bad = Vec::new();
    for (path, module, text) in files {
        let Some(&own) = rank.get(module.as_str()) else {
            bad.push(format!(
                "{path}: module `{module}` is not in the documented layers"
            ));
            continue;
        };
        for used in uses(text) {
            if used == *module {
                continue;
            }
            match rank.get(used.as_str()) {
                Some(&r) if r < own => {}
                Some(_) => bad.push(format!(
                    "{path}: `{module}` uses `{used}`, which is not below it"
                )),
                None => bad.push(format!(
                    "{path}: `{module}` uses `{used}`, which the layers do not place"
                )),
            }
        }
    }
    bad
}

fn sources(dir: &Path, base: &Path, out: &mut Vec<(String, String, String)>) {
    for entry in std::fs::read_dir(dir).expect("source folder is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            sources(&path, base, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path
                .strip_prefix(base)
                .expect("under the base")
                .to_path_buf();
            let module = module_of(&rel).expect("a module name");
            // The crate root and the binary name every module; they sit above all.
            if module == "lib" || module == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source is readable");
            out.push((rel.display().to_string(), module, text));
        }
    }
}

#[test]
fn no_module_uses_one_above_it() {
    let order = documented_order();
    assert!(
        order.len() > 10,
        "the documented layers look incomplete: {order:?}"
    );
    let src = root().join("server/src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let bad = violations(&order, &files);
    assert!(bad.is_empty(), "layering violations:\n{}", bad.join("\n"));
}

#[test]
fn the_check_catches_an_upward_use() {
    let order: Vec<String> = ["cluster", "game", "app"].map(String::from).to_vec();
    let file = |m: &str, t: &str| (format!("{m}/x.rs"), m.to_string(), t.to_string());
    let upward = [file("cluster", "use crate::app::App;\n")];
    assert_eq!(violations(&order, &upward).len(), 1);
    let grouped = [file(
        "cluster",
        "use crate::{game::GameHandle, app::App};\n",
    )];
    assert_eq!(violations(&order, &grouped).len(), 2);
    let path = [file("game", "let n = crate::app::count();\n")];
    assert_eq!(violations(&order, &path).len(), 1);
    let downward = [file("app", "use crate::cluster::Cluster; // crate::app\n")];
    assert!(violations(&order, &downward).is_empty());
    let commented = [file("cluster", "/// See [`crate::app::App`].\n")];
    assert!(violations(&order, &commented).is_empty());
}
