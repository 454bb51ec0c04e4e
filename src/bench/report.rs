//! `report.md`: where, when and how the benchmark ran, the summary, one table row per result,
//! and links to the plots.

use super::format::{ms, opt, ratio, yes_no};
use super::machine::Machine;
use super::row::Row;
use super::summary::summary;
use std::fmt::Write;
use std::time::Duration;

/// Where, when and how a benchmark ran.
#[derive(Clone, Debug)]
pub struct Context {
    /// The machine.
    pub machine: Machine,
    /// When, `YYYY-MM-DD HH:MM UTC`.
    pub date: String,
    /// gdlground's version (and commit, when known).
    pub ours: String,
    /// The gringo command used and its version line, if there was one.
    pub gringo: Option<(String, String)>,
    /// The command line that produced the report.
    pub command: String,
    /// Runs per measurement.
    pub runs: usize,
    /// The time limit of one run.
    pub timeout: Duration,
    /// The machine's load averages (1, 5, 15 min) when the run started and when it ended.
    pub load: (String, String),
}

/// The names of the plots written beside the report.
pub const PLOTS: [(&str, &str); 2] = [
    (
        "time_vs_gringo.svg",
        "our time against gringo's, per game (log–log; on the diagonal the two are equal)",
    ),
    (
        "time_vs_size.svg",
        "time against output size (ground statements), both tools (log–log)",
    ),
];

/// The Markdown report.
pub fn markdown(rows: &[Row], context: &Context) -> String {
    let mut out = String::from("# gdlground against gringo\n\n");
    let m = &context.machine;
    let _ = writeln!(out, "- date: {}", context.date);
    let _ = writeln!(
        out,
        "- machine: {}, {} cores, {:.1} GiB",
        m.cpu, m.cores, m.memory_gib
    );
    let _ = writeln!(
        out,
        "- load average (1, 5, 15 min): {} at the start, {} at the end",
        context.load.0, context.load.1
    );
    let _ = writeln!(out, "- gdlground: {}", context.ours);
    match &context.gringo {
        Some((command, version)) => {
            let _ = writeln!(out, "- gringo: `{command}` ({version})");
        }
        None => out.push_str("- gringo: not found (its columns say `not run`)\n"),
    }
    let _ = writeln!(out, "- command: `{}`", context.command);
    let _ = writeln!(
        out,
        "- method: each time is the median of {} runs, each a new process, wall time from \
         spawn to exit (so process start-up, about 10–20 ms, is included; gringo's includes \
         parsing its input from stdin); memory is the largest peak resident set size of those \
         processes (`wait4` ru_maxrss, taken by a small runner process so that the benchmark's \
         own memory does not count); a run is killed after {:.0} s. gringo grounds the ASP \
         translation of `gdlground export-asp` with `--text`; its rules are the printed \
         statements with a body. S is the set of facts gringo derives from the relaxed \
         translation, S* what `gdlground atoms` prints. Times on a machine with a load \
         average above its core count are noisy.",
        context.runs,
        context.timeout.as_secs_f64()
    );
    out.push_str("\n## Summary\n\n");
    out.push_str(&summary(rows));
    out.push_str("\n## Plots\n\n");
    for (file, caption) in PLOTS {
        let _ = writeln!(out, "- [{caption}]({file})\n\n  ![{caption}]({file})\n");
    }
    out.push_str("## Results\n\n");
    out.push_str(
        "Times in ms, memory in MiB. `ours` is `gdlground ground -o /dev/null`, `gringo` is \
         gringo on the full translation, `relaxed` on the relaxed one. All columns are in \
         results.csv.\n\n",
    );
    out.push_str(
        "| game | w | ours | ours ms | ours MiB | atoms | facts | rules | gringo | gringo ms | \
         gringo MiB | gringo rules | relaxed ms | \\|S\\| | \\|S*\\| | S* ⊆ S | \\|S*\\|/\\|S\\| | \
         time ours/gringo | memory ours/gringo |\n",
    );
    out.push_str(
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: \
         | ---: | ---: | --- | ---: | ---: | ---: |\n",
    );
    for row in rows {
        let counts = row.ours.counts;
        let full = row.full.run;
        let cells = [
            cell(&row.game),
            row.ours.workers.to_string(),
            cell(&row.ours.status.to_string()),
            ms(row.ours.wall, 1),
            mib(row.ours.peak_rss_kib),
            opt(counts.map(|c| c.atoms)),
            opt(counts.map(|c| c.facts)),
            opt(counts.map(|c| c.rules)),
            cell(&row.full.status.to_string()),
            ms(full.map(|r| r.wall), 1),
            mib(full.map(|r| r.peak_rss_kib)),
            opt(full.map(|r| r.rules)),
            ms(row.relaxed.run.map(|r| r.wall), 1),
            opt(row.s()),
            opt(row.s_star),
            yes_no(row.subset, "**no**"),
            ratio(row.s_ratio(), 2),
            ratio(row.time_ratio(), 2),
            ratio(row.rss_ratio(), 2),
        ];
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out
}

/// Text safe in a table cell: `|` escaped, line breaks flattened, cut at 80 characters.
fn cell(text: &str) -> String {
    let flat: String = text.replace('|', "\\|").replace(['\n', '\r'], " ");
    match flat.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

/// KiB as MiB, one decimal.
fn mib(kib: Option<u64>) -> String {
    kib.map_or(String::new(), |k| format!("{:.1}", k as f64 / 1024.0))
}
