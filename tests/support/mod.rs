//! Helpers shared by the integration tests, included with `mod support;`.

// Each test binary uses its own part of the helpers.
#![allow(dead_code)]

pub mod oracle;

use std::io::Write;
use std::path::{Path, PathBuf};

/// The corpus of real games, beside the crate.
pub const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/games");

/// Whether the tests run in CI, where nothing may be skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Says on stderr (not captured by the harness) that a test skips.
pub fn skip(why: &str) {
    let _ = std::io::stderr().write_all(format!("SKIPPED: {why}\n").as_bytes());
}

/// The corpus folder, or `None` after a skip note (a failure under `CI=true`).
pub fn corpus() -> Option<PathBuf> {
    let root = Path::new(CORPUS);
    if root.is_dir() {
        return Some(root.to_path_buf());
    }
    assert!(!in_ci(), "the game corpus {CORPUS} is missing; CI needs it");
    skip(&format!("the game corpus {CORPUS} is missing"));
    None
}

/// Every `.kif` and `.hrf` game under `root`, sorted.
pub fn game_files(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", folder.display()));
        for entry in entries {
            let path = entry.expect("cannot read a folder entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("kif" | "hrf")
            ) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A small deterministic random generator (xorshift): the same choices on every run.
pub struct Random(pub u64);

impl Random {
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Runs the gdlground binary with `args`.
pub fn gdlground(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gdlground"))
        .args(args)
        .output()
        .expect("the gdlground binary runs")
}

/// A game whose one join makes `values`⁴ atoms at once: dynamic (it reads `true on`), so that
/// no estimate before the run sees it and only the memory limit stops it.
pub fn huge_step_game(values: usize) -> String {
    let mut game = String::from("(role r)\n");
    for i in 0..values {
        game.push_str(&format!("(n c{i})\n"));
    }
    game.push_str(
        "(<= (big ?a ?b ?c ?d) (true on) (n ?a) (n ?b) (n ?c) (n ?d))
         (<= (legal r (go ?a)) (true (big ?a ?a ?a ?a)))
         (init on) (init (big c0 c0 c0 c0))
         (<= (next (big ?a ?b ?c ?d)) (big ?a ?b ?c ?d))
         (<= terminal (true (big c1 c1 c1 c1)))
         (<= (goal r 100) terminal)\n",
    );
    game
}
