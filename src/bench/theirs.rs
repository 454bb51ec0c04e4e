//! gringo measured on a game's two ASP translations: the full one (negation kept, the speed
//! anchor) and the relaxed one (its facts are S).

use super::row::{Status, Theirs};
use super::stats::median;
use crate::load::{read_game, LoadError};
use crate::oracle::{self, GringoRun, OracleError, Tool};
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// The full and relaxed ASP translations of `game`, or the status to report for gringo.
pub fn translations(game: &Path) -> Result<(String, String), Status> {
    let loaded = read_game(game, None).map_err(|e| match e {
        LoadError::Io(_, e) => Status::Error(format!("cannot read the file: {e}")),
        LoadError::Rejected(..) => Status::Rejected,
    })?;
    let translate = |relaxed| {
        crate::write::asp(&loaded.program, relaxed)
            .map_err(|_| Status::NotRun("operation games have no ASP translation yet".into()))
    };
    Ok((translate(false)?, translate(true)?))
}

/// gringo on the full translation, `runs` times: median wall time, largest peak memory.
pub fn full(tool: &Tool, asp: &str, runs: usize, timeout: Duration) -> Theirs {
    repeat(runs, || oracle::full_ground(tool, asp, timeout))
}

/// gringo on the relaxed translation, `runs` times, and S (from the first run).
pub fn relaxed(
    tool: &Tool,
    asp: &str,
    runs: usize,
    timeout: Duration,
) -> (Theirs, Option<BTreeSet<String>>) {
    let mut s = None;
    let theirs = repeat(runs, || {
        let (atoms, run) = oracle::relaxed_atoms(tool, asp, timeout)?;
        s.get_or_insert(atoms);
        Ok(run)
    });
    if !theirs.status.is_ok() {
        s = None;
    }
    (theirs, s)
}

/// Runs `once` `runs` times or up to the first failure, and sums up.
fn repeat(runs: usize, mut once: impl FnMut() -> Result<GringoRun, OracleError>) -> Theirs {
    let mut done: Vec<GringoRun> = Vec::new();
    for _ in 0..runs.max(1) {
        match once() {
            Ok(run) => done.push(run),
            Err(e) => {
                let status = match e {
                    OracleError::Timeout(_) => Status::Timeout,
                    e => Status::Error(e.to_string().lines().next().unwrap_or("").to_owned()),
                };
                return Theirs { status, run: None };
            }
        }
    }
    let walls: Vec<Duration> = done.iter().map(|r| r.wall).collect();
    let run = done.first().map(|first| GringoRun {
        wall: median(&walls).unwrap_or(first.wall),
        peak_rss_kib: done.iter().map(|r| r.peak_rss_kib).max().unwrap_or(0),
        ..*first
    });
    Theirs {
        status: Status::Ok,
        run,
    }
}
