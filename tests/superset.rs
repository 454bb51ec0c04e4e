//! Soundness of the engine against gringo (GDL.md §2, §5): S* ⊆ S, with S the least model of
//! the relaxed ASP translation as gringo grounds it.
//!
//! A representative sample runs by default. `GDLGROUND_CORPUS=all` checks every classic game of
//! ../shared/games that both tools finish (`GDLGROUND_GRINGO_TIMEOUT`, default 60 s) and prints
//! one line per game with |S*| and |S|:
//! `GDLGROUND_CORPUS=all cargo test --release --test superset -- --nocapture`.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::oracle;

/// Games across the corpus directories and kinds of rules (recursion, arithmetic tables,
/// function terms, stratified negation over static relations, disjunctions), relative to the
/// crate.
const SAMPLE: [&str; 16] = [
    "examples/tictactoe.kif",
    "examples/nim.pl",
    "examples/blocksworld.pl",
    "../shared/games/base/connectFour.kif",
    "../shared/games/base/connectFourLarger.kif",
    "../shared/games/base/breakthrough.kif",
    "../shared/games/base/hanoi.kif",
    "../shared/games/base/knightsTour.kif",
    "../shared/games/base/pentago.kif",
    "../shared/games/ggpbase/test__test_clean_not_distinct.kif",
    "../shared/games/ggpbase/test__test_case_5a.kif",
    "../shared/games/stanford2014/3puzzle.kif",
    "../shared/games/stanford2014/horseshoe.kif",
    "../shared/games/gresley/maze.kif",
    "../shared/games/chiaras/bandl7.kif",
    "../shared/games/libgdl/checkers.kif",
];

/// Runs the binary; its stdout if it succeeded.
fn gdlground(args: &[&str]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_gdlground"))
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Compares S* with S for `game`: `Ok(Some((|S*|, |S|)))` when S* ⊆ S, `Ok(None)` when a tool
/// did not finish, `Err` with the atoms of S* missing from S otherwise.
fn compare(game: &Path) -> Result<Option<(usize, usize)>, String> {
    let path = game.to_str().unwrap_or_default();
    let ours: BTreeSet<String> = match gdlground(&["atoms", path, "--deadline", "60"]) {
        Ok(text) => text.lines().map(str::to_string).collect(),
        Err(e) if e.contains("deadline") => return Ok(None),
        Err(e) => return Err(format!("gdlground atoms failed: {e}")),
    };
    let asp = gdlground(&["export-asp", "--relaxed", path])?;
    let theirs = match oracle::relaxed_atoms(&asp) {
        Ok(s) => s,
        Err(e) if e.contains("timed out") || e.contains("timeout") => return Ok(None),
        Err(e) => return Err(e),
    };
    let missing: Vec<&String> = ours.difference(&theirs).take(5).collect();
    if missing.is_empty() {
        Ok(Some((ours.len(), theirs.len())))
    } else {
        Err(format!("atoms of S* not in S: {missing:?}"))
    }
}

/// Checks every game, reporting all failures at once.
fn check_all(games: &[PathBuf], verbose: bool) {
    let mut failures = Vec::new();
    let (mut checked, mut tighter) = (0, 0);
    for game in games {
        match compare(game) {
            Ok(Some((ours, theirs))) => {
                checked += 1;
                if ours < theirs {
                    tighter += 1;
                }
                if verbose || ours < theirs {
                    eprintln!("{}: |S*| = {ours}, |S| = {theirs}", game.display());
                }
            }
            Ok(None) => eprintln!("{}: a tool did not finish in time", game.display()),
            Err(e) => failures.push(format!("{}: {e}", game.display())),
        }
    }
    eprintln!("S* ⊆ S on {checked} games, strictly tighter on {tighter}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_reachable_superset_is_within_gringos() {
    if oracle::gringo_or_skip().is_none() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if std::env::var("GDLGROUND_CORPUS").as_deref() == Ok("all") {
        let mut games: Vec<PathBuf> = Vec::new();
        let dir = root.join("../shared/games");
        for sub in std::fs::read_dir(&dir).expect("../shared/games") {
            let sub = sub.expect("entry").path();
            if let Ok(entries) = std::fs::read_dir(&sub) {
                games.extend(
                    entries
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| {
                            p.extension().is_some_and(|e| e == "kif")
                                && gdlground(&["check", "-q", p.to_str().unwrap_or_default()])
                                    .is_ok()
                        }),
                );
            }
        }
        games.sort();
        return check_all(&games, true);
    }
    let games: Vec<PathBuf> = SAMPLE
        .iter()
        .map(|g| root.join(g))
        .filter(|p| p.exists() || !g_is_corpus(p))
        .collect();
    if games.len() < SAMPLE.len() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "../shared/games is missing"
        );
        eprintln!("skipping the corpus part of the sample: ../shared/games is missing");
    }
    check_all(&games, false);
}

/// Whether `p` is a corpus game (as opposed to a bundled example).
fn g_is_corpus(p: &Path) -> bool {
    p.to_string_lossy().contains("shared/games")
}
