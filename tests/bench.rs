//! `gdlground bench` end to end: two small games (tic-tac-toe and a generated 3×3 hex), one run
//! each, against gringo; the output directory must hold the CSV, the report and both plots, and
//! every row must say S* ⊆ S. Skipped (visibly) without gringo, failed under CI=true.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::oracle;

/// A fresh directory under the system's temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("gdlground-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the gdlground executable `exe` with `args`; its stdout and stderr, or a panic with
/// its stderr.
fn gdlground_with_log(exe: &Path, args: &[&str]) -> (String, String) {
    let out = Command::new(exe)
        .args(args)
        .output()
        .expect("gdlground runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "gdlground {args:?} failed:\n{stderr}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

/// Runs gdlground with `args`; its stdout, or a panic with its stderr.
fn gdlground(args: &[&str]) -> String {
    gdlground_with_log(Path::new(env!("CARGO_BIN_EXE_gdlground")), args).0
}

fn text(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

#[test]
fn bench_writes_the_report_and_finds_s_star_within_s() {
    if oracle::gringo_or_skip().is_none() {
        return;
    }
    let temp = TempDir::new("bench-test");
    let hex = temp.0.join("hex_3.kif");
    std::fs::write(&hex, gdlground(&["generate", "hex", "3"])).expect("write the hex game");
    let out = temp.0.join("out");
    // A copy outside the checkout, as a benchmark machine runs it: the report must still
    // name the commit it was built from.
    let exe = temp.0.join("gdlground");
    std::fs::copy(env!("CARGO_BIN_EXE_gdlground"), &exe).expect("copy the executable");
    let (summary, log) = gdlground_with_log(
        &exe,
        &[
            "bench",
            "examples/tictactoe.kif",
            text(&hex),
            "--runs",
            "1",
            "--out",
            text(&out),
        ],
    );
    assert!(summary.contains("S* ⊆ S: 2 of 2"), "{summary}");
    // Not on a terminal: one line per game instead of a progress bar.
    assert!(
        log.contains("[1/2] examples/tictactoe.kif: ours -w 1 ") && log.contains("[2/2] "),
        "{log}"
    );
    for file in [
        "results.csv",
        "report.md",
        "time_vs_gringo.svg",
        "time_vs_size.svg",
    ] {
        let path = out.join(file);
        let meta = std::fs::metadata(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(meta.len() > 0, "{file} is empty");
    }
    let csv = std::fs::read_to_string(out.join("results.csv")).expect("results.csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|c| *c == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let (subset, status, gringo) = (
        column("subset"),
        column("ours_status"),
        column("gringo_status"),
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "{csv}");
    for row in rows {
        assert_eq!(row[status], "ok", "{csv}");
        assert_eq!(row[gringo], "ok", "{csv}");
        assert_eq!(row[subset], "yes", "{csv}");
    }
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(
        report.contains("gringo version") || report.contains("gringo: `"),
        "{report}"
    );
    // The commit the executable was built from, when it was built in a git checkout.
    let head = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(head) = head {
        let head = String::from_utf8_lossy(&head.stdout).trim().to_owned();
        assert!(report.contains(&format!("(commit {head}")), "{report}");
    }
}
