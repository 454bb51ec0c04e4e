//! `gdlground bench`: gdlground against gringo, game by game, written up as CSV, Markdown and
//! SVG plots; and the generators of the scaling series.
//!
//! Input: game files, [`game::Options`] (our executable, runs, worker counts, time limit, the
//! gringo tool). Output: [`Row`]s, then `results.csv`, `report.md`, `time_vs_gringo.svg` and
//! `time_vs_size.svg` in a directory ([`write_results`]).
//!
//! Invariant: every measurement runs in a child process of its own, one at a time, so that
//! times and peak memory are each process's own.

pub mod csv;
pub mod format;
pub mod game;
pub mod generate;
pub mod machine;
pub mod ours;
pub mod plot;
pub mod report;
pub mod row;
pub mod stats;
pub mod summary;
pub mod theirs;

pub use row::{Row, Status};

use std::path::{Path, PathBuf};

/// Writes `results.csv`, `report.md` and the plots of `rows` into `dir` (created if needed);
/// returns the paths written.
pub fn write_results(
    dir: &Path,
    rows: &[Row],
    context: &report::Context,
) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("{}: cannot create the directory: {e}", dir.display()))?;
    let [(time_vs_gringo, _), (time_vs_size, _)] = report::PLOTS;
    let files = [
        ("results.csv", csv::csv(rows)),
        ("report.md", report::markdown(rows, context)),
        (time_vs_gringo, plot::time_vs_gringo(rows)?),
        (time_vs_size, plot::time_vs_size(rows)?),
    ];
    let mut written = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
