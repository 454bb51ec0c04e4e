//! gdlground measured as a user runs it: each run a fresh process of our own executable, so that
//! its peak memory is its own.
//!
//! Each run goes through the runner ([`process::through_runner`]), so that the bench's own
//! memory does not leak into the children's peak.
//! `EXE ground GAME -o /dev/null --stats=json -w W` gives the wall time, the peak RSS (from
//! `wait4`) and the counts (the JSON line on stderr); `EXE atoms GAME` gives S*.

use super::row::{Ours, Status};
use super::stats::median;
use crate::ground::Counts;
use crate::oracle::process::{self, Finished};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::Duration;

/// One `ground` process that finished.
#[derive(Clone, Copy, Debug)]
struct Run {
    wall: Duration,
    peak_rss_kib: u64,
    internal_ms: u64,
    counts: Counts,
}

/// Grounds `game` `runs` times with `workers` threads, each run in a new process of `exe`
/// killed after `timeout`; stops at the first failure, whose status the result carries.
pub fn measure(exe: &Path, game: &Path, workers: usize, runs: usize, timeout: Duration) -> Ours {
    let mut done = Vec::new();
    let mut status = Status::Ok;
    for _ in 0..runs.max(1) {
        match ground_once(exe, game, workers, timeout) {
            Ok(run) => done.push(run),
            Err(s) => {
                status = s;
                break;
            }
        }
    }
    if !status.is_ok() {
        done.clear();
    }
    let walls: Vec<Duration> = done.iter().map(|r| r.wall).collect();
    let internal: Vec<Duration> = done
        .iter()
        .map(|r| Duration::from_millis(r.internal_ms))
        .collect();
    Ours {
        status,
        workers,
        wall: median(&walls),
        internal_ms: median(&internal).map(|d| d.as_millis() as u64),
        peak_rss_kib: done.iter().map(|r| r.peak_rss_kib).max(),
        counts: done.first().map(|r| r.counts),
    }
}

/// S*, from `exe atoms game`, as the sorted KIF lines it prints.
pub fn atoms(exe: &Path, game: &Path, timeout: Duration) -> Result<BTreeSet<String>, Status> {
    let argv = vec![
        exe.display().to_string(),
        "atoms".into(),
        game.display().to_string(),
    ];
    let done = process::run(&argv, None, timeout, |stdout| {
        BufReader::new(stdout)
            .lines()
            .collect::<std::io::Result<BTreeSet<String>>>()
    })
    .map_err(|e| Status::Error(format!("cannot run {}: {e}", exe.display())))?;
    check(&done)?;
    done.output
        .map_err(|e| Status::Error(format!("cannot read the atoms: {e}")))
}

/// One `ground` process.
fn ground_once(exe: &Path, game: &Path, workers: usize, timeout: Duration) -> Result<Run, Status> {
    let command: Vec<String> = [
        exe.display().to_string(),
        "ground".into(),
        game.display().to_string(),
        "-o".into(),
        "/dev/null".into(),
        "--stats=json".into(),
        "-w".into(),
        workers.to_string(),
    ]
    .into();
    let argv = process::through_runner(exe, &command);
    let done = process::run(&argv, None, timeout, |mut stdout| {
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
    })
    .map_err(|e| Status::Error(format!("cannot run {}: {e}", exe.display())))?;
    check(&done)?;
    let (counts, internal_ms) = stats(&done.stderr).ok_or_else(|| {
        Status::Error("`ground --stats=json` printed no JSON counts on stderr".into())
    })?;
    Ok(Run {
        wall: done.wall,
        peak_rss_kib: done.peak_rss_kib,
        internal_ms,
        counts,
    })
}

/// The status of a finished process of ours: `Ok` on success, else why it failed.
fn check<T>(done: &Finished<T>) -> Result<(), Status> {
    let Some(status) = done.status else {
        return Err(Status::Timeout);
    };
    if status.success() {
        return Ok(());
    }
    Err(failure(status.code(), &done.stderr))
}

/// Why a process of ours failed, from its exit code and its error messages.
fn failure(code: Option<i32>, stderr: &str) -> Status {
    if code == Some(1) {
        Status::Rejected
    } else if stderr.contains("nest deeper than the limit") {
        Status::DepthLimit
    } else if stderr.contains("--max-atoms") {
        Status::AtomLimit
    } else {
        let line = stderr
            .lines()
            .find(|l| l.contains("error"))
            .or_else(|| stderr.lines().next())
            .unwrap_or("no message");
        let code = code.map_or("a signal".to_string(), |c| format!("exit code {c}"));
        Status::Error(format!("{code}: {}", line.trim()))
    }
}

/// The counts and `ms` of the last JSON line of `--stats=json` output.
fn stats(stderr: &str) -> Option<(Counts, u64)> {
    let line = stderr.lines().rev().find(|l| l.starts_with('{'))?;
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let field = |name: &str| value.get(name)?.as_u64();
    let count = |name: &str| field(name).and_then(|v| usize::try_from(v).ok());
    let counts = Counts {
        bases: count("bases")?,
        actions: count("actions")?,
        atoms: count("atoms")?,
        facts: count("facts")?,
        rules: count("rules")?,
        relevant: value.get("relevant").and_then(|v| v.as_bool()) == Some(true),
    };
    let ms = value.get("ms")?.as_f64()?;
    Some((counts, ms.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counts_come_from_the_last_json_line() {
        let stderr = "warning: x\n{\"bases\": 29, \"actions\": 20, \"atoms\": 197, \
                      \"facts\": 67, \"rules\": 267, \"ms\": 13.6}\n";
        let (counts, ms) = stats(stderr).expect("counts");
        assert_eq!((counts.bases, counts.rules, ms), (29, 267, 14));
        assert_eq!(stats("no json"), None);
    }

    #[test]
    fn failures_are_named() {
        assert_eq!(failure(Some(1), "a.kif:1:1: error[E001]"), Status::Rejected);
        let deep = "error: ... function terms nest deeper than the limit, as in";
        assert_eq!(failure(Some(2), deep), Status::DepthLimit);
        assert!(matches!(failure(None, ""), Status::Error(_)));
    }
}
