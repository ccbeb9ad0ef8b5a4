//! The shape of the code, read from the source files: the top-level modules of `server/`
//! and of `shared/` form layers (a module may use only modules below it), and no files of
//! one folder use each other in a circle, in `server/`, `shared/` and `engine/`.
//!
//! The layer orders are the ones written in `docs/architecture.md` (the lines that start
//! with `Layers, lowest first:` and `Shared layers, lowest first:`), read from there so
//! that the document and the code cannot drift apart. Every `crate::`, `super::` and
//! `self::` path (and a path through a child module by its bare name) is resolved to the
//! file that defines it, following the `pub use` re-exports of a folder's `mod.rs`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the server crate sits in the workspace")
        .to_path_buf()
}

/// The layer order, lowest first, from the line of `docs/architecture.md` that starts
/// with `label`.
fn documented_order(label: &str) -> Vec<String> {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md"))
        .expect("docs/architecture.md is readable");
    let line = doc
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("docs/architecture.md has a line `{label}`"));
    line.trim_start_matches(label)
        .split('<')
        .map(|m| m.trim().trim_end_matches('.').trim_matches('`').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

/// A module's path inside its crate (`["protocol", "types"]`); the crate root is `[]`.
type ModPath = Vec<String>;

/// One source file: where it is, its module, and its code without comments.
struct Source {
    rel: String,
    module: ModPath,
    /// A `mod.rs`, `lib.rs` or `main.rs`: the file of a folder.
    folder_file: bool,
    code: String,
}

/// The code of `text` without comments (line comments and `/* */` blocks).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let line_c = rest.find("//");
        let block_c = rest.find("/*");
        match (line_c, block_c) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                rest = &rest[l..];
                rest = rest.find('\n').map_or("", |e| &rest[e..]);
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                rest = rest[b..].find("*/").map_or("", |e| &rest[b + e + 2..]);
            }
            _ => {
                out.push_str(rest);
                rest = "";
            }
        }
    }
    out
}

/// The module of a source file at `rel` (relative to the crate's `src`).
fn module_of(rel: &Path) -> (ModPath, bool) {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().expect("a file name");
    let stem = file.trim_end_matches(".rs");
    if matches!(stem, "mod" | "lib" | "main") {
        (parts, true)
    } else {
        parts.push(stem.to_string());
        (parts, false)
    }
}

fn sources_of(src: &Path) -> Vec<Source> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<Source>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("source folder is readable")
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, base, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(base).expect("under the base");
                let (module, folder_file) = module_of(rel);
                let text = std::fs::read_to_string(&path).expect("source is readable");
                out.push(Source {
                    rel: rel.display().to_string(),
                    module,
                    folder_file,
                    code: strip_comments(&text),
                });
            }
        }
    }
    let mut out = Vec::new();
    walk(src, src, &mut out);
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Parses a use tree at the start of `s` (after a path's first segment and its `::`),
/// pushing every full path under `prefix` into `out`.
fn use_tree(s: &str, prefix: &[String], out: &mut Vec<ModPath>) -> usize {
    let skip_ws = |s: &str, i: usize| i + (s[i..].len() - s[i..].trim_start().len());
    let mut i = skip_ws(s, 0);
    if s[i..].starts_with('{') {
        i += 1;
        loop {
            i = skip_ws(s, i);
            if i >= s.len() {
                return i;
            }
            if s[i..].starts_with('}') {
                return i + 1;
            }
            if s[i..].starts_with(',') {
                i += 1;
                continue;
            }
            let used = use_tree(&s[i..], prefix, out);
            i += used.max(1);
        }
    }
    let name: String = s[i..].chars().take_while(|c| is_ident(*c)).collect();
    if name.is_empty() {
        // `*` or anything else: the path up to here.
        out.push(prefix.to_vec());
        return i + s[i..].starts_with('*') as usize;
    }
    i += name.len();
    let mut path = prefix.to_vec();
    path.push(name);
    let after = skip_ws(s, i);
    if s[after..].starts_with("::") {
        return after + 2 + use_tree(&s[after + 2..], &path, out);
    }
    out.push(path);
    i
}

/// Every path in `code` that starts with `crate`, `super` or `self`, or with one of
/// `children` (the bare names of the file's own child modules).
fn paths(code: &str, children: &BTreeSet<String>) -> Vec<ModPath> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find("::") {
        let colons = at + found;
        at = colons + 2;
        let head_start = code[..colons]
            .rfind(|c: char| !is_ident(c))
            .map_or(0, |i| i + 1);
        let head = &code[head_start..colons];
        let before = code[..head_start].chars().next_back();
        if before.is_some_and(|c| c == ':' || is_ident(c)) {
            continue;
        }
        if head == "crate" || head == "super" || head == "self" || children.contains(head) {
            let consumed = use_tree(&code[at..], &[head.to_string()], &mut out);
            at += consumed;
        }
    }
    out
}

/// The known modules of one crate, and what each folder's file re-exports from where.
struct Crate {
    sources: Vec<Source>,
    modules: BTreeSet<ModPath>,
    /// (folder module, item name) -> the module it is re-exported from.
    reexports: HashMap<(ModPath, String), ModPath>,
}

impl Crate {
    fn read(src: &Path) -> Crate {
        Crate::from_sources(sources_of(src))
    }

    fn from_sources(sources: Vec<Source>) -> Crate {
        let modules: BTreeSet<ModPath> = sources.iter().map(|s| s.module.clone()).collect();
        let mut krate = Crate {
            sources,
            modules,
            reexports: HashMap::new(),
        };
        let mut reexports = HashMap::new();
        for source in &krate.sources {
            for stmt in source.code.split(';') {
                let stmt = stmt.trim();
                let Some(tree) = stmt
                    .strip_prefix("pub use ")
                    .or_else(|| stmt.strip_prefix("pub(crate) use "))
                else {
                    continue;
                };
                let mut found = Vec::new();
                use_tree(tree, &[], &mut found);
                for path in found {
                    let Some(name) = path.last() else { continue };
                    let full = krate.absolute(&source.module, &path);
                    let target = krate.file_of(&full, 0);
                    if target != source.module {
                        reexports.insert((source.module.clone(), name.clone()), target);
                    }
                }
            }
        }
        krate.reexports = reexports;
        krate
    }

    fn children(&self, module: &ModPath) -> BTreeSet<String> {
        self.modules
            .iter()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| m[module.len()].clone())
            .collect()
    }

    /// `path` as seen from a file of `module`, made absolute (`super`/`self` resolved).
    fn absolute(&self, module: &ModPath, path: &ModPath) -> ModPath {
        let mut out: ModPath = module.clone();
        let mut segments = path.iter().peekable();
        match segments.peek().map(|s| s.as_str()) {
            Some("crate") => {
                out.clear();
                segments.next();
            }
            Some("self") => {
                segments.next();
            }
            _ => {}
        }
        for segment in segments {
            if segment == "super" {
                out.pop();
            } else {
                out.push(segment.clone());
            }
        }
        out
    }

    /// The module (file) that defines the item at the absolute `path`: its longest known
    /// module prefix, followed through that module's re-exports.
    fn file_of(&self, path: &ModPath, depth: usize) -> ModPath {
        let known = (0..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| self.modules.contains(p))
            .unwrap_or_default();
        if depth < 8 && known.len() < path.len() {
            let item = &path[known.len()];
            if let Some(target) = self.reexports.get(&(known.clone(), item.clone())) {
                // The item again under the module it comes from, which may re-export
                // it in turn.
                let mut next = target.clone();
                next.extend(path[known.len()..].iter().cloned());
                return self.file_of(&next, depth + 1);
            }
        }
        known
    }

    /// Every (source index, module it uses), other than itself.
    fn uses(&self) -> Vec<(usize, ModPath)> {
        let mut out = Vec::new();
        for (i, source) in self.sources.iter().enumerate() {
            let children = self.children(&source.module);
            let mut code = source.code.clone();
            if source.folder_file {
                // A folder's re-exports are its facade, not a use.
                code = code
                    .split(';')
                    .filter(|s| {
                        let s = s.trim();
                        !s.starts_with("pub use ") && !s.starts_with("pub(crate) use ")
                    })
                    .collect::<Vec<_>>()
                    .join(";");
            }
            let mut seen = BTreeSet::new();
            for path in paths(&code, &children) {
                let full = self.absolute(&source.module, &path);
                let target = self.file_of(&full, 0);
                if target != source.module && seen.insert(target.clone()) {
                    out.push((i, target));
                }
            }
        }
        out
    }
}

/// Every use in `krate` of a top-level module at or above its own rank in `order`.
fn layer_violations(order: &[String], krate: &Crate) -> Vec<String> {
    let rank: HashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, m)| (m.as_str(), i))
        .collect();
    let mut bad = BTreeSet::new();
    for source in &krate.sources {
        let Some(top) = source.module.first() else {
            continue;
        };
        if !rank.contains_key(top.as_str()) {
            bad.insert(format!(
                "{}: module `{top}` is not in the documented layers",
                source.rel
            ));
        }
    }
    for (i, used) in krate.uses() {
        let source = &krate.sources[i];
        let (Some(own), Some(target)) = (source.module.first(), used.first()) else {
            continue;
        };
        if own == target {
            continue;
        }
        let (Some(&a), Some(&b)) = (rank.get(own.as_str()), rank.get(target.as_str())) else {
            if rank.contains_key(own.as_str()) {
                bad.insert(format!(
                    "{}: `{own}` uses `{target}`, which the layers do not place",
                    source.rel
                ));
            }
            continue;
        };
        if b >= a {
            bad.insert(format!(
                "{}: `{own}` uses `{target}`, which is not below it",
                source.rel
            ));
        }
    }
    bad.into_iter().collect()
}

/// The circles among the entries (files and sub-folders) of each folder of `krate`: the
/// edge `a -> b` when a file in entry `a` uses one in entry `b` of the same folder (the
/// crate root is a folder too). Each circle is given as its
/// folder and its entries, e.g. `protocol: tournament <-> types`, then each use in it and
/// the files that make it.
fn circles(krate: &Crate) -> Vec<String> {
    let mut edges: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut why: BTreeMap<(ModPath, String, String), BTreeSet<String>> = BTreeMap::new();
    for (i, used) in krate.uses() {
        let from = &krate.sources[i].module;
        let common = from
            .iter()
            .zip(used.iter())
            .take_while(|(a, b)| a == b)
            .count();
        let folder = from[..common].to_vec();
        let entry = |m: &ModPath| m.get(common).cloned().unwrap_or_else(|| "mod".into());
        let (a, b) = (entry(from), entry(&used));
        // A folder's `mod.rs` is the folder itself: its children may use what it
        // defines, and it names them; only its entries among themselves may not circle.
        if a != b && a != "mod" && b != "mod" {
            edges
                .entry(folder.clone())
                .or_default()
                .entry(a.clone())
                .or_default()
                .insert(b.clone());
            why.entry((folder, a, b))
                .or_default()
                .insert(krate.sources[i].rel.clone());
        }
    }
    let mut found = Vec::new();
    for (folder, graph) in &edges {
        for component in strongly_connected(graph) {
            if component.len() > 1 {
                let mut uses = Vec::new();
                for a in &component {
                    for b in graph[a].iter().filter(|b| component.contains(b)) {
                        let files = &why[&(folder.clone(), a.clone(), b.clone())];
                        let files: Vec<&str> = files.iter().map(String::as_str).collect();
                        uses.push(format!("{a} -> {b} ({})", files.join(", ")));
                    }
                }
                found.push(format!(
                    "{}: {} [{}]",
                    folder.join("::"),
                    component.join(" <-> "),
                    uses.join("; ")
                ));
            }
        }
    }
    found
}

/// The strongly connected components of `graph` (Tarjan), each sorted.
fn strongly_connected(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let graph = s.graph;
        for w in graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let lw = s.low[w.as_str()];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w.as_str()) {
                let iw = s.index[w.as_str()];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            component.sort();
            s.out.push(component);
        }
    }
    let mut s = State {
        graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    let nodes: BTreeSet<&str> = graph
        .iter()
        .flat_map(|(a, bs)| std::iter::once(a.as_str()).chain(bs.iter().map(|b| b.as_str())))
        .collect();
    for v in nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

#[test]
fn no_server_module_uses_one_above_it() {
    let order = documented_order("Layers, lowest first:");
    assert!(
        order.len() > 10,
        "the documented layers look incomplete: {order:?}"
    );
    // The crate root and the binary (module `[]`) name every module; they sit above all.
    let krate = Crate::read(&root().join("server/src"));
    let bad = layer_violations(&order, &krate);
    assert!(bad.is_empty(), "layering violations:\n{}", bad.join("\n"));
}

#[test]
fn no_shared_module_uses_one_above_it() {
    let order = documented_order("Shared layers, lowest first:");
    assert!(
        order.len() >= 6,
        "the documented shared layers look incomplete: {order:?}"
    );
    let krate = Crate::read(&root().join("shared/src"));
    let bad = layer_violations(&order, &krate);
    assert!(bad.is_empty(), "layering violations:\n{}", bad.join("\n"));
}

/// Circles known today and not yet broken, as `circles` names them. The test fails when
/// one of them is gone, so that its entry is removed with it and it cannot come back.
/// None is left: the last, `game: actor <-> registry <-> remote`, went when actors and
/// proxies came to report to the registry through `game::exits::GameExits`.
const KNOWN_CIRCLES: &[&str] = &[];

#[test]
fn no_files_of_a_folder_use_each_other_in_a_circle() {
    let mut found = Vec::new();
    for dir in ["server/src", "shared/src", "engine/src"] {
        let krate = Crate::read(&root().join(dir));
        found.extend(circles(&krate).into_iter().map(|c| format!("{dir}: {c}")));
    }
    let name = |c: &str| c.split(" [").next().unwrap_or(c).to_string();
    let new: Vec<&String> = found
        .iter()
        .filter(|c| !KNOWN_CIRCLES.contains(&name(c).as_str()))
        .collect();
    let names: Vec<String> = found.iter().map(|c| name(c)).collect();
    let gone: Vec<&&str> = KNOWN_CIRCLES
        .iter()
        .filter(|k| !names.iter().any(|n| n == *k))
        .collect();
    assert!(
        new.is_empty(),
        "import circles:\n{}",
        new.iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        gone.is_empty(),
        "known circles that are gone: remove them from KNOWN_CIRCLES: {gone:?}"
    );
}

#[test]
fn the_checks_catch_what_they_should() {
    let krate = |files: &[(&str, &str)]| {
        let sources: Vec<Source> = files
            .iter()
            .map(|(rel, text)| {
                let (module, folder_file) = module_of(Path::new(rel));
                Source {
                    rel: rel.to_string(),
                    module,
                    folder_file,
                    code: strip_comments(text),
                }
            })
            .collect();
        Crate::from_sources(sources)
    };
    // An upward use, grouped over several lines, and one in a path expression.
    let order: Vec<String> = ["cluster", "game", "app"].map(String::from).to_vec();
    let up = krate(&[
        ("lib.rs", "pub mod cluster; pub mod game; pub mod app;"),
        ("app.rs", "pub struct App;"),
        ("game/mod.rs", "pub fn start() {}"),
        (
            "cluster/mod.rs",
            "use crate::{\n    game::start,\n    app::App,\n};",
        ),
    ]);
    assert_eq!(layer_violations(&order, &up).len(), 2);
    let path = krate(&[
        ("game/mod.rs", "let n = crate::app::count();"),
        ("app.rs", ""),
    ]);
    assert_eq!(layer_violations(&order, &path).len(), 1);
    let down = krate(&[
        (
            "app.rs",
            "use crate::cluster::Bus; // crate::app\n/// [`crate::app::X`]",
        ),
        ("cluster/mod.rs", "pub struct Bus;"),
    ]);
    assert!(layer_violations(&order, &down).is_empty());
    // A circle through a folder's re-export, and a longer one by `super::` paths.
    let circle = krate(&[
        ("p/mod.rs", "mod a; mod b; mod c;\npub use a::Side;"),
        ("p/a.rs", "pub enum Side {}\nuse super::b::Thing;"),
        ("p/b.rs", "pub fn f(s: super::Side) {}"),
        ("p/c.rs", "use super::a::Side;"),
    ]);
    assert_eq!(circles(&circle).len(), 1, "{:?}", circles(&circle));
    let longer = krate(&[
        ("q/mod.rs", "mod a; mod b; mod c;"),
        ("q/a.rs", "use super::b::X;"),
        ("q/b.rs", "use super::c::Y;"),
        ("q/c.rs", "use crate::q::a::Z;"),
    ]);
    assert!(circles(&longer)[0].starts_with("q: a <-> b <-> c"));
    // A child using its folder's own items, and the folder using it, is no circle.
    let parent = krate(&[
        ("r/mod.rs", "mod a; pub struct Player; fn f() { a::g() }"),
        ("r/a.rs", "use super::Player; pub fn g() {}"),
    ]);
    assert!(circles(&parent).is_empty());
}
