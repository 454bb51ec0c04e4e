//! `gdlground bench`: time gdlground against gringo game by game, and write the report.

use super::{files, progress, EXIT_REJECTED, EXIT_USAGE};
use gdlground::bench::generate::{self, Family};
use gdlground::bench::report::Context;
use gdlground::bench::{game, machine, summary, write_results, Row};
use gdlground::oracle::Tool;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Flags of `bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Game files or directories (searched for game files).
    #[arg(value_name = "GAMES_OR_DIRS", required_unless_present = "series")]
    games: Vec<PathBuf>,
    /// Runs per measurement; the report gives the median time.
    #[arg(long, default_value_t = 3, value_name = "N")]
    runs: usize,
    /// Worker counts for gdlground, comma-separated: one result row per count.
    #[arg(
        short,
        long,
        default_value = "1",
        value_delimiter = ',',
        value_name = "LIST"
    )]
    workers: Vec<usize>,
    /// Where to write results.csv, report.md and the SVG plots (created if needed).
    #[arg(long, default_value = "bench-results", value_name = "DIR")]
    out: PathBuf,
    /// The grounder to compare with (default: `gringo`, `clingo --mode=gringo` or
    /// `python3 -m clingo --mode=gringo`, the first that runs).
    ///
    /// A program whose name starts with `clingo` is run with `--mode=gringo`.
    #[arg(long, value_name = "PATH")]
    gringo: Option<PathBuf>,
    /// Stop a tool's run after this many seconds; the game's row then says `timeout`.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS", value_parser = super::ranges::seconds)]
    timeout: f64,
    /// Also generate the scaling series (hex 11×11 to 19×19, a counter to 100…1600, connect
    /// four 7 to 112 columns wide) into DIR/series and benchmark them.
    #[arg(long)]
    series: bool,
}

/// Runs `bench`, returning the exit code: 0 when the report is written, 1 if S* ⊄ S on some
/// game (a soundness bug), 2 on usage or I/O errors.
pub fn run(args: &Args) -> i32 {
    match bench(args) {
        Ok(rows) if rows.iter().any(|r| r.subset == Some(false)) => EXIT_REJECTED,
        Ok(_) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_USAGE
        }
    }
}

/// Measures every game, writes the results and prints the summary.
fn bench(args: &Args) -> Result<Vec<Row>, String> {
    if args.workers.contains(&0) {
        return Err("--workers: a worker count must be at least 1".into());
    }
    let mut games =
        files::expand(&args.games).map_err(|e| format!("cannot list the games: {e}"))?;
    if let Some(missing) = games.iter().find(|g| !g.is_file()) {
        return Err(format!(
            "{}: no such game file\n  hint: give game files or directories",
            missing.display()
        ));
    }
    if args.series {
        games.extend(write_series(&args.out.join("series"))?);
    }
    if games.is_empty() {
        return Err(
            "no game files found\n  hint: give .kif, .gdl, .hrf, .pl or .epilog files, \
                    or directories holding them"
                .into(),
        );
    }
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find gdlground's own executable: {e}"))?;
    let gringo = find_gringo(args.gringo.as_deref())?;
    match &gringo {
        Some((tool, version)) => eprintln!("gringo: {tool} ({version})"),
        None => eprintln!(
            "warning: gringo/clingo not found: only gdlground is measured\n  \
             hint: apt-get install gringo, pip install clingo==5.8.3, or --gringo PATH"
        ),
    }
    let options = game::Options {
        exe: exe.clone(),
        runs: args.runs.max(1),
        workers: args.workers.clone(),
        timeout: Duration::from_secs_f64(args.timeout),
        gringo: gringo.as_ref().map(|(tool, _)| tool.clone()),
    };
    let load_at_start = machine::load_average();
    let rows = measure_all(&games, &options);
    let context = Context {
        machine: machine::Machine::this(),
        date: machine::utc_now(),
        ours: our_version(),
        gringo: gringo.map(|(tool, version)| (tool.to_string(), version)),
        command: command_line(),
        runs: options.runs,
        timeout: options.timeout,
        load: (load_at_start, machine::load_average()),
    };
    let written = write_results(&args.out, &rows, &context)?;
    print!("{}", summary::summary(&rows));
    for path in written {
        eprintln!("wrote {}", path.display());
    }
    Ok(rows)
}

/// Measures `games` one after the other, with a progress bar on a terminal, else (a log, a
/// CI job) one line per game once it is measured.
fn measure_all(games: &[PathBuf], options: &game::Options) -> Vec<Row> {
    let plain = !std::io::stderr().is_terminal();
    let bar = progress::bar(games.len() as u64);
    let mut rows = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let name = game.display().to_string();
        let mut step = |what: &str| bar.set_message(format!("{name}: {what}"));
        let measured = game::measure(game, options, &mut step);
        if plain {
            eprintln!(
                "[{}/{}] {}",
                i + 1,
                games.len(),
                measured_line(&name, &measured)
            );
        }
        rows.extend(measured);
        bar.inc(1);
    }
    bar.finish_and_clear();
    rows
}

/// A game's rows in one line: our median time at each worker count, gringo's.
fn measured_line(name: &str, rows: &[Row]) -> String {
    let time = |status: &dyn std::fmt::Display, wall: Option<Duration>| match wall {
        Some(wall) => format!("{} ms", wall.as_millis()),
        None => status.to_string(),
    };
    let ours: Vec<String> = (rows.iter())
        .map(|r| {
            format!(
                "-w {} {}",
                r.ours.workers,
                time(&r.ours.status, r.ours.wall)
            )
        })
        .collect();
    let gringo = (rows.first()).map_or_else(String::new, |r| {
        format!(
            "; gringo {}",
            time(&r.full.status, r.full.run.map(|run| run.wall))
        )
    });
    format!("{name}: ours {}{gringo}", ours.join(", "))
}

/// The grounder and its version line: `path` if given (it must run), else the first found.
fn find_gringo(path: Option<&Path>) -> Result<Option<(Tool, String)>, String> {
    let Some(path) = path else {
        return Ok(Tool::find_gringo().map(|t| {
            let version = t.version().unwrap_or_else(|| "version unknown".into());
            (t, version)
        }));
    };
    let tool = Tool::gringo_at(path);
    match tool.version() {
        Some(version) => Ok(Some((tool, version))),
        None => Err(format!(
            "{}: `{tool} --version` does not run\n  hint: --gringo takes the path of gringo \
             or clingo",
            path.display()
        )),
    }
}

/// Writes the standard scaling series into `dir`; their paths.
fn write_series(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut paths = Vec::new();
    for family in Family::ALL {
        paths.extend(generate::write_games(dir, family, family.series())?);
    }
    Ok(paths)
}

/// gdlground's version, with `git describe` of the commit it was built from when it was built
/// in a git checkout (`-dirty` if the sources had uncommitted changes).
fn our_version() -> String {
    let version = format!("gdlground {}", env!("CARGO_PKG_VERSION"));
    match env!("GDLGROUND_COMMIT") {
        "" => version,
        commit => format!("{version} (commit {commit})"),
    }
}

/// The command line, with the program called `gdlground`.
fn command_line() -> String {
    let mut words = vec!["gdlground".to_string()];
    words.extend(std::env::args().skip(1));
    words.join(" ")
}
