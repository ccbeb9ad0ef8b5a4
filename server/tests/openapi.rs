//! The OpenAPI document (`GET /api/openapi.json`) against the router and against a live
//! server. `every_route_is_documented` reads every `.route(...)` of `server/src` and
//! fails when one (path and method) is missing from the served document, or when the
//! document names an operation no route serves: a route added without its
//! `#[utoipa::path]` breaks it. `schemathesis_finds_nothing` runs Schemathesis (PyPI;
//! `SCHEMATHESIS` names its executable, `tools/test-all.sh` makes one) over every
//! operation of a live node, signed in, with the checks the contract promises: no 5xx,
//! every status code and content type documented, every body as its schema says.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{config, get_json, register, start};
use serde_json::Value;

const METHODS: [&str; 5] = ["get", "post", "put", "delete", "patch"];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text of a call from just after its `(` to its matching `)`.
fn call_text(rest: &str) -> &str {
    let mut depth = 1;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &rest[..i];
                }
            }
            _ => {}
        }
    }
    rest
}

/// Every (method, path) a `.route("path", method(handler)...)` of `text` registers.
fn routes_in(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(".route(") {
        rest = &rest[i + ".route(".len()..];
        let call = call_text(rest);
        let Some(open) = call.find('"') else { continue };
        let Some(len) = call[open + 1..].find('"') else {
            continue;
        };
        let path = &call[open + 1..open + 1 + len];
        let handlers = &call[open + 1 + len..];
        for method in METHODS {
            // `get(h)`, `routing::get(h)` or a chained `...).get(h)`; not `x.get(`.
            let called = handlers
                .match_indices(&format!("{method}("))
                .any(|(at, _)| {
                    let before = &handlers[..at];
                    match before.strip_suffix('.') {
                        Some(chain) => chain.trim_end().ends_with(')'),
                        None => !before
                            .chars()
                            .last()
                            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'),
                    }
                });
            if called {
                found.push((method.to_string(), path.to_string()));
            }
        }
    }
    found
}

/// The router's operations: every route of `server/src`, except the browser client's
/// pages and files (`web.rs` outside `/api/`), which are HTML, not the API.
fn router_operations() -> BTreeSet<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut all = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let client = file.file_name().is_some_and(|n| n == "web.rs");
        for (method, path) in routes_in(&text) {
            if client && !path.starts_with("/api/") {
                continue;
            }
            all.insert((method, path));
        }
    }
    all
}

fn documented_operations(doc: &Value) -> BTreeSet<(String, String)> {
    let mut all = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in METHODS {
            if item.get(method).is_some() {
                all.insert((method.to_string(), path.clone()));
            }
        }
    }
    all
}

#[test]
fn routes_are_read_from_the_source() {
    let text = r#"
        Router::new()
            .route("/a", get(x).post(y))
            .route(
                "/b/{id}",
                axum::routing::delete(tokens::revoke),
            )
            .route("/c", get(|h: HeaderMap| async move { h.get("x") }))"#;
    let found = routes_in(text);
    let want = [
        ("get", "/a"),
        ("post", "/a"),
        ("delete", "/b/{id}"),
        ("get", "/c"),
    ];
    assert_eq!(
        found,
        want.map(|(m, p)| (m.to_string(), p.to_string())).to_vec()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_is_documented() {
    let server = start(config()).await;
    let (status, doc) = get_json(server.addr, "/api/openapi.json").await;
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    let routes = router_operations();
    assert!(routes.len() > 40, "the routes were not found: {routes:?}");
    let documented = documented_operations(&doc);
    let missing: Vec<_> = routes.difference(&documented).collect();
    assert!(
        missing.is_empty(),
        "routes missing from the OpenAPI document (add #[utoipa::path] to their handlers \
         and list them in api::openapi::ApiDoc, net::NetDoc or web::WebDoc): {missing:?}"
    );
    let stale: Vec<_> = documented.difference(&routes).collect();
    assert!(stale.is_empty(), "documented but not routed: {stale:?}");
    // Every refusal an API operation documents is the one error schema.
    for (path, item) in doc["paths"].as_object().unwrap() {
        if !path.starts_with("/api/") {
            continue;
        }
        for (method, op) in item.as_object().unwrap() {
            for (code, response) in op["responses"].as_object().unwrap() {
                let Some(json) = response.pointer("/content/application~1json/schema") else {
                    continue;
                };
                if code.starts_with('4') || code.starts_with('5') {
                    assert_eq!(
                        json["$ref"], "#/components/schemas/ErrorBody",
                        "{method} {path} {code}"
                    );
                }
            }
        }
    }
}

/// Runs Schemathesis over the operations `filter` selects; its output if it failed.
fn schemathesis(
    program: &str,
    dir: &Path,
    schema: &str,
    token: Option<&str>,
    filter: &[&str],
) -> Result<(), String> {
    let mut command = Command::new(program);
    command
        .current_dir(dir)
        .args(["run", schema])
        .args([
            "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,\
             response_headers_conformance,response_schema_conformance",
            "--max-examples",
            "10",
            "--workers",
            "1",
            "--request-timeout",
            "10",
            "--warnings",
            "off",
            "--seed",
            "20",
        ])
        .args(filter);
    if let Some(token) = token {
        command.args(["-H", &format!("Authorization: Bearer {token}")]);
    }
    let out = command.output().map_err(|e| format!("{program}: {e}"))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        println!("{text}");
        Ok(())
    } else {
        Err(text)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_nothing() {
    let Ok(program) = std::env::var("SCHEMATHESIS") else {
        eprintln!("SCHEMATHESIS unset: Schemathesis is not run (tools/test-all.sh sets it)");
        return;
    };
    let server = start(config()).await;
    let (token, _) = register(server.addr, "Fuzzer", "correct horse").await;
    let schema = format!("http://{}/api/openapi.json", server.addr);
    let dir = common::scratch::scratch_dir("schemathesis");
    // Signed in: everything but the streams (they last as long as a game, a seek until
    // it is accepted) and the operations that end the session the run signs in with.
    let endless_or_ending =
        "(/stream/|/board/seek$|/api/token$|/logout-everywhere$|/logout$|/account/password$)";
    let (dir2, schema2, token2) = (dir.clone(), schema.clone(), token.clone());
    let program2 = program.clone();
    let signed_in = tokio::task::spawn_blocking(move || {
        schemathesis(
            &program2,
            &dir2,
            &schema2,
            Some(&token2),
            &["--exclude-path-regex", endless_or_ending],
        )
    })
    .await
    .unwrap();
    if let Err(out) = signed_in {
        panic!("Schemathesis, signed in, found failures:\n{out}");
    }
    // Those, without a token (refused at once); last, signed in, those that end the
    // session.
    let anonymous = tokio::task::spawn_blocking(move || {
        schemathesis(
            &program,
            &dir,
            &schema,
            None,
            &["--include-path-regex", endless_or_ending],
        )?;
        schemathesis(
            &program,
            &dir,
            &schema,
            Some(&token),
            &[
                "--include-path-regex",
                "(/api/token$|/logout-everywhere$|/logout$|/account/password$)",
            ],
        )
    })
    .await
    .unwrap();
    if let Err(out) = anonymous {
        panic!("Schemathesis found failures on the streams and the session's end:\n{out}");
    }
}
