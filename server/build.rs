//! Embeds the browser client (`web/app/` at the top of the workspace) in the binary: a
//! generated table of every file with its content type, a content hash for its ETag, and
//! a gzip copy made once here, so the server compresses nothing at run time and fetches
//! nothing. `index.html` gets the build's id in place of `{{BUILD}}`, so that every other
//! file is served under `/assets/<build>/` and can be cached for good.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let root = manifest.join("../web/app");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    if root.is_dir() {
        walk(&root, &root, &mut files);
    }
    files.sort();
    let mut all = Fnv::new();
    let mut contents = Vec::new();
    for rel in &files {
        let bytes = std::fs::read(root.join(rel)).expect("readable web file");
        all.write(rel.as_bytes());
        all.write(&bytes);
        contents.push(bytes);
    }
    let build = format!("{:012x}", all.finish() & 0xffff_ffff_ffff);
    let gz_dir = out.join("web");
    std::fs::create_dir_all(&gz_dir).expect("OUT_DIR writable");
    let mut table = String::new();
    writeln!(
        table,
        "/// The build's id: the hash of every embedded file."
    )
    .ok();
    writeln!(table, "pub const BUILD: &str = \"{build}\";").ok();
    writeln!(table, "/// Every embedded file.").ok();
    writeln!(table, "pub static ASSETS: &[Asset] = &[").ok();
    for (i, (rel, mut bytes)) in files.iter().zip(contents).enumerate() {
        if rel == "index.html" {
            bytes = String::from_utf8_lossy(&bytes)
                .replace("{{BUILD}}", &build)
                .into_bytes();
        }
        let raw_path = gz_dir.join(format!("{i}.raw"));
        std::fs::write(&raw_path, &bytes).expect("OUT_DIR writable");
        let mime = mime_of(rel);
        let mut hash = Fnv::new();
        hash.write(&bytes);
        let etag = format!("\\\"{:016x}\\\"", hash.finish());
        let gzip = if compressible(mime) {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            enc.write_all(&bytes).expect("in memory");
            let gz = enc.finish().expect("in memory");
            if gz.len() < bytes.len() {
                let gz_path = gz_dir.join(format!("{i}.gz"));
                std::fs::write(&gz_path, gz).expect("OUT_DIR writable");
                format!("Some(include_bytes!({:?}))", gz_path.display().to_string())
            } else {
                "None".to_string()
            }
        } else {
            "None".to_string()
        };
        writeln!(
            table,
            "    Asset {{ path: {rel:?}, mime: {mime:?}, etag: \"{etag}\", body: include_bytes!({:?}), gzip: {gzip} }},",
            raw_path.display().to_string()
        )
        .ok();
    }
    writeln!(table, "];").ok();
    std::fs::write(out.join("web_assets.rs"), table).expect("OUT_DIR writable");
}

fn walk(root: &Path, dir: &Path, files: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, files);
        } else if let Ok(rel) = path.strip_prefix(root) {
            files.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

fn mime_of(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "json" | "webmanifest" => "application/json",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn compressible(mime: &str) -> bool {
    mime.starts_with("text/") || mime.contains("json") || mime.contains("svg")
}

/// FNV-1a, 64 bits: enough to tell one version of a file from another.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
