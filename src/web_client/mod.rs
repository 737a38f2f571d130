//! The reference web client (`GET /play`): plain JavaScript modules, a style sheet and a page,
//! built into the binary so `cargo run` serves a table a person can sit at with nothing to
//! install or download. The client talks to the server only through the public API (the same
//! operations as any third-party client; `tests/play/run.py` lists every request it makes), so
//! it works as well from any other origin that serves these files.
//!
//! This module only holds the files; `http/play.rs` serves them.

use std::sync::LazyLock;

use sha2::{Digest, Sha256};

/// One file of the client.
#[derive(Debug)]
pub struct Asset {
    /// Its path under `/play/` (`app.js`).
    pub path: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub bytes: &'static [u8],
    /// A strong `ETag` of its bytes, quoted.
    pub etag: String,
}

/// `(path, content type, bytes)` of every file in `src/web_client/client` (a test keeps the list
/// complete).
macro_rules! assets {
    ($(($path:literal, $content_type:expr)),* $(,)?) => {
        [$(($path, $content_type, include_bytes!(concat!("client/", $path)) as &[u8])),*]
    };
}

const JAVASCRIPT: &str = "text/javascript; charset=utf-8";

const FILES: [(&str, &str, &[u8]); 41] = assets![
    ("index.html", "text/html; charset=utf-8"),
    ("style.css", "text/css; charset=utf-8"),
    ("favicon.svg", "image/svg+xml"),
    ("manifest.webmanifest", "application/manifest+json"),
    ("icon-192.png", "image/png"),
    ("icon-512.png", "image/png"),
    ("sw.js", JAVASCRIPT),
    ("account.js", JAVASCRIPT),
    ("api.js", JAVASCRIPT),
    ("app.js", JAVASCRIPT),
    ("board.js", JAVASCRIPT),
    ("book.js", JAVASCRIPT),
    ("cards.js", JAVASCRIPT),
    ("chatter.js", JAVASCRIPT),
    ("community.js", JAVASCRIPT),
    ("dialog.js", JAVASCRIPT),
    ("dom.js", JAVASCRIPT),
    ("drag.js", JAVASCRIPT),
    ("inbox.js", JAVASCRIPT),
    ("letters.js", JAVASCRIPT),
    ("live.js", JAVASCRIPT),
    ("lobby.js", JAVASCRIPT),
    ("mine.js", JAVASCRIPT),
    ("moves.js", JAVASCRIPT),
    ("pairing.js", JAVASCRIPT),
    ("player.js", JAVASCRIPT),
    ("reach.js", JAVASCRIPT),
    ("replay.js", JAVASCRIPT),
    ("results.js", JAVASCRIPT),
    ("ruleform.js", JAVASCRIPT),
    ("seats.js", JAVASCRIPT),
    ("session.js", JAVASCRIPT),
    ("settings.js", JAVASCRIPT),
    ("table.js", JAVASCRIPT),
    ("table_drawing.js", JAVASCRIPT),
    ("table_input.js", JAVASCRIPT),
    ("types.js", JAVASCRIPT),
    ("vacation.js", JAVASCRIPT),
    ("vocabulary.js", JAVASCRIPT),
    ("waiting.js", JAVASCRIPT),
    ("words.js", JAVASCRIPT),
];

static ASSETS: LazyLock<Vec<Asset>> = LazyLock::new(|| {
    FILES
        .iter()
        .map(|&(path, content_type, bytes)| Asset {
            path,
            content_type,
            bytes,
            etag: format!("\"{}\"", &hex::encode(Sha256::digest(bytes))[..32]),
        })
        .collect()
});

/// The file at `path` under `/play/` (`""` is the page itself).
pub fn asset(path: &str) -> Option<&'static Asset> {
    let path = if path.is_empty() { "index.html" } else { path };
    ASSETS.iter().find(|asset| asset.path == path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client_dir() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/web_client/client")
    }

    /// A file added to the client is served, and nothing listed is missing.
    #[test]
    fn every_file_of_the_client_is_served() {
        let mut on_disk: Vec<String> = std::fs::read_dir(client_dir())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        let mut listed: Vec<String> = FILES.iter().map(|(path, ..)| path.to_string()).collect();
        on_disk.sort();
        listed.sort();
        assert_eq!(listed, on_disk);
    }

    /// The service worker keeps every file of the client (and the page at `./`), and nothing
    /// else: a file it missed would be absent offline.
    #[test]
    fn the_service_worker_keeps_every_file() {
        let worker = std::str::from_utf8(asset("sw.js").unwrap().bytes).unwrap();
        let list = worker
            .split("const FILES = [")
            .nth(1)
            .and_then(|rest| rest.split("];").next())
            .expect("sw.js lists its FILES");
        let mut kept: Vec<&str> = list
            .split(',')
            .map(|name| name.trim().trim_matches('"'))
            .filter(|name| !name.is_empty())
            .collect();
        let mut served: Vec<&str> = FILES
            .iter()
            .map(|(path, ..)| *path)
            .filter(|path| *path != "sw.js")
            .chain(["./"])
            .collect();
        kept.sort();
        served.sort();
        assert_eq!(kept, served);
    }

    /// Every module a script imports is one of the served files.
    #[test]
    fn every_import_names_a_served_module() {
        let import = regex::Regex::new(r#"(?m)^\s*import\s[^;]*?from\s+"\./([^"]+)";"#).unwrap();
        for (path, _, bytes) in FILES.iter().filter(|(path, ..)| path.ends_with(".js")) {
            let text = std::str::from_utf8(bytes).unwrap();
            for found in import.captures_iter(text) {
                assert!(
                    asset(&found[1]).is_some(),
                    "{path} imports ./{}, which is not served",
                    &found[1]
                );
            }
        }
    }

    #[test]
    fn the_page_is_the_index() {
        assert_eq!(asset("").unwrap().path, "index.html");
        assert!(asset("../Cargo.toml").is_none());
        assert_ne!(asset("app.js").unwrap().etag, asset("api.js").unwrap().etag);
    }
}
