//! The summary of a benchmark: how each tool fared, S* against S, the ratios ours/gringo, and
//! the exponents of time against output size. Printed at the end of a run and in the report.

use super::row::{Row, Status};
use super::stats::{fit_power_law, geometric_mean, PowerLaw};
use std::collections::BTreeMap;
use std::fmt::Write;

/// A fitted exponent of time (ms) against output size (ground statements).
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// The family of games (or `all games`).
    pub family: String,
    /// Which tool: `gdlground -w N` or `gringo`.
    pub tool: String,
    /// The fitted law.
    pub law: PowerLaw,
}

/// The fits of time against output size: per family with at least three games measured,
/// then over all games; for gdlground at each worker count and for gringo.
pub fn fits(rows: &[Row]) -> Vec<Fit> {
    let mut families: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for row in rows {
        families.entry(&row.family).or_default().push(row);
    }
    let mut groups: Vec<(String, Vec<&Row>)> = families
        .into_iter()
        .map(|(f, rows)| (f.to_owned(), rows))
        .collect();
    groups.push(("all games".into(), rows.iter().collect()));
    let mut fits = Vec::new();
    for (family, group) in groups {
        for workers in worker_counts(rows) {
            let points: Vec<(f64, f64)> = group
                .iter()
                .filter(|r| r.ours.workers == workers)
                .filter_map(|r| Some((r.our_size()? as f64, r.ours.wall?.as_secs_f64() * 1e3)))
                .collect();
            push_fit(
                &mut fits,
                &family,
                format!("gdlground -w {workers}"),
                &points,
            );
        }
        let first = worker_counts(rows).first().copied().unwrap_or(1);
        let points: Vec<(f64, f64)> = group
            .iter()
            .filter(|r| r.ours.workers == first)
            .filter_map(|r| Some((r.their_size()? as f64, r.full.run?.wall.as_secs_f64() * 1e3)))
            .collect();
        push_fit(&mut fits, &family, "gringo".into(), &points);
    }
    fits
}

/// Adds the fit of `points` when there are at least three.
fn push_fit(fits: &mut Vec<Fit>, family: &str, tool: String, points: &[(f64, f64)]) {
    if points.len() < 3 {
        return;
    }
    if let Some(law) = fit_power_law(points) {
        fits.push(Fit {
            family: family.to_owned(),
            tool,
            law,
        });
    }
}

/// The worker counts of `rows`, in first-seen order.
pub fn worker_counts(rows: &[Row]) -> Vec<usize> {
    let mut counts = Vec::new();
    for row in rows {
        if !counts.contains(&row.ours.workers) {
            counts.push(row.ours.workers);
        }
    }
    counts
}

/// How many rows have each status, `ok` first (`error: …` counted as `error`).
fn tally<'r>(statuses: impl Iterator<Item = &'r Status>) -> String {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for s in statuses {
        let name = match s {
            Status::Error(_) => "error".to_string(),
            Status::NotRun(_) => "not run".to_string(),
            s => s.to_string(),
        };
        *counts.entry(name).or_default() += 1;
    }
    let ok = counts.remove("ok").unwrap_or(0);
    let mut text = format!("{ok} ok");
    for (name, n) in counts {
        let _ = write!(text, ", {n} {name}");
    }
    text
}

/// The summary text, Markdown-friendly (one `- ` line per fact).
pub fn summary(rows: &[Row]) -> String {
    let mut out = String::new();
    let workers = worker_counts(rows);
    let first = workers.first().copied().unwrap_or(1);
    let per_game: Vec<&Row> = rows.iter().filter(|r| r.ours.workers == first).collect();
    let _ = writeln!(out, "- games: {}", per_game.len());
    for &w in &workers {
        let statuses = rows
            .iter()
            .filter(|r| r.ours.workers == w)
            .map(|r| &r.ours.status);
        let _ = writeln!(out, "- gdlground -w {w}: {}", tally(statuses));
    }
    let _ = writeln!(
        out,
        "- gringo, full translation: {}",
        tally(per_game.iter().map(|r| &r.full.status))
    );
    let _ = writeln!(
        out,
        "- gringo, relaxed translation: {}",
        tally(per_game.iter().map(|r| &r.relaxed.status))
    );
    let compared: Vec<&&Row> = per_game.iter().filter(|r| r.subset.is_some()).collect();
    let within = compared.iter().filter(|r| r.subset == Some(true)).count();
    let _ = writeln!(
        out,
        "- S* ⊆ S: {within} of {} games compared",
        compared.len()
    );
    for row in compared.iter().filter(|r| r.subset == Some(false)) {
        let _ = writeln!(out, "  - NOT within S: {}", row.game);
    }
    let s_ratios: Vec<f64> = per_game.iter().filter_map(|r| r.s_ratio()).collect();
    if let Some(g) = geometric_mean(&s_ratios) {
        let tighter = s_ratios.iter().filter(|r| **r < 1.0).count();
        let _ = writeln!(
            out,
            "- |S*|/|S|: geometric mean {g:.3}; S* strictly smaller on {tighter} games"
        );
    }
    for &w in &workers {
        let at_w: Vec<&Row> = rows.iter().filter(|r| r.ours.workers == w).collect();
        let times: Vec<f64> = at_w.iter().filter_map(|r| r.time_ratio()).collect();
        let memory: Vec<f64> = at_w.iter().filter_map(|r| r.rss_ratio()).collect();
        if let (Some(t), Some(m)) = (geometric_mean(&times), geometric_mean(&memory)) {
            let faster = times.iter().filter(|r| **r < 1.0).count();
            let _ = writeln!(
                out,
                "- time ours/gringo at -w {w}: geometric mean {t:.2} over {} games \
                 (faster on {faster}); peak memory ours/gringo: geometric mean {m:.2}",
                times.len()
            );
        }
    }
    for fit in fits(rows) {
        let _ = writeln!(
            out,
            "- {}, {}: time ∝ size^{:.2} ({} points)",
            fit.family, fit.tool, fit.law.exponent, fit.law.points
        );
    }
    out
}
