//! Measuring one game: gringo on both translations, S* against S, and gdlground at every
//! worker count asked for. Every step that fails becomes a status in the rows.

use super::row::{family, Row, Status, Theirs};
use super::{ours, theirs};
use crate::oracle::{process, Tool};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to measure, and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// gdlground's own executable, run as a child for each measurement.
    pub exe: PathBuf,
    /// Runs per measurement (the median time is reported).
    pub runs: usize,
    /// Worker counts: one row per count.
    pub workers: Vec<usize>,
    /// The time limit of one run of a tool.
    pub timeout: Duration,
    /// The grounder; `None` if there is none (gringo's columns then say `not run`). Its runs
    /// go through the runner ([`crate::oracle::process::through_runner`]) like ours.
    pub gringo: Option<Tool>,
}

/// The rows of `game`, one per worker count; `step` is told the name of each step as it starts.
pub fn measure(game: &Path, options: &Options, step: &mut dyn FnMut(&str)) -> Vec<Row> {
    let not_run = |why: &str| Theirs {
        status: Status::NotRun(why.into()),
        run: None,
    };
    let (mut full, mut relaxed, mut s) = (not_run("no gringo"), not_run("no gringo"), None);
    if let Some(gringo) = &options.gringo {
        let tool = &Tool {
            argv: process::through_runner(&options.exe, &gringo.argv),
        };
        step("translating");
        match theirs::translations(game) {
            Ok((full_asp, relaxed_asp)) => {
                step("gringo, full translation");
                full = theirs::full(tool, &full_asp, options.runs, options.timeout);
                step("gringo, relaxed translation");
                (relaxed, s) = theirs::relaxed(tool, &relaxed_asp, options.runs, options.timeout);
            }
            Err(status) => {
                full = Theirs {
                    status: status.clone(),
                    run: None,
                };
                relaxed = Theirs { status, run: None };
            }
        }
    }
    step("gdlground atoms");
    let s_star = ours::atoms(&options.exe, game, options.timeout).ok();
    let subset = match (&s_star, &s) {
        (Some(ours), Some(theirs)) => Some(ours.is_subset(theirs)),
        _ => None,
    };
    let mut rows = Vec::new();
    for &workers in &options.workers {
        step(&format!("gdlground ground -w {workers}"));
        let ours = ours::measure(&options.exe, game, workers, options.runs, options.timeout);
        rows.push(Row {
            game: game.display().to_string(),
            family: family(game),
            ours,
            full: full.clone(),
            relaxed: relaxed.clone(),
            s_star: s_star.as_ref().map(|s| s.len()),
            subset,
        });
    }
    rows
}
