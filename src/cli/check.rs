//! `gdlground check`: validate games and summarise.

use super::{files, SyntaxArg, EXIT_REJECTED, EXIT_USAGE};
use gdlground::syntax::Syntax;
use gdlground::{read_game, Game, LoadError};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// Flags of `check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Game files or directories.
    #[arg(required = true, value_name = "GAME")]
    games: Vec<PathBuf>,
    /// Read every file in this syntax instead of guessing from extension and content.
    #[arg(long, value_enum)]
    syntax: Option<SyntaxArg>,
    /// Print only errors and the summary (no warnings, no per-file lines).
    #[arg(short, long)]
    quiet: bool,
}

/// Reads and checks every game, on as many threads as the machine has, keeping the order.
fn read_all(paths: &[PathBuf], syntax: Option<Syntax>) -> Vec<Result<Game, LoadError>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len().max(1));
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<Result<Game, LoadError>>> = Vec::new();
    slots.resize_with(paths.len(), || None);
    let slots = Mutex::new(slots);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = paths.get(i) else { break };
                let result = read_game(path, syntax);
                if let Ok(mut slots) = slots.lock() {
                    slots[i] = Some(result);
                }
            });
        }
    });
    slots
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .zip(paths)
        .map(|(slot, path)| slot.unwrap_or_else(|| read_game(path, syntax)))
        .collect()
}

/// Runs `check`, returning the exit code.
pub fn run(args: &Args) -> i32 {
    let paths = match files::expand(&args.games) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot list the games: {e}");
            return EXIT_USAGE;
        }
    };
    let start = Instant::now();
    let syntax = args.syntax.map(Into::into);
    let results = read_all(&paths, syntax);
    let mut ok = 0;
    let mut rejected: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let mut io_failed = false;
    for (path, result) in paths.iter().zip(results) {
        match result {
            Ok(game) => {
                ok += 1;
                if !args.quiet {
                    for w in &game.warnings {
                        eprint!("{}", w.render(&game.source));
                    }
                    println!(
                        "{}: ok ({} rules, {} operation rules, {} relations)",
                        path.display(),
                        game.program.rules.len(),
                        game.program.operations.len(),
                        game.program.relations.len()
                    );
                }
            }
            Err(e) => {
                let shown: Vec<_> = match &e {
                    LoadError::Rejected(_, ds) => ds
                        .iter()
                        .filter(|d| !args.quiet || d.is_error())
                        .cloned()
                        .collect(),
                    LoadError::Io(..) => Vec::new(),
                };
                match &e {
                    LoadError::Io(..) => {
                        io_failed = true;
                        eprint!("{}", e.render());
                    }
                    LoadError::Rejected(source, _) => {
                        shown.iter().for_each(|d| eprint!("{}", d.render(source)));
                    }
                }
                let cause = shown
                    .iter()
                    .find(|d| d.is_error())
                    .map_or("io", |d| d.code.name());
                rejected
                    .entry(cause)
                    .or_default()
                    .push(path.display().to_string());
                if !args.quiet {
                    println!("{}: rejected ({cause})", path.display());
                }
            }
        }
    }
    let total: usize = rejected.values().map(Vec::len).sum();
    let causes: Vec<String> = rejected
        .iter()
        .map(|(c, v)| format!("{c} {}", v.len()))
        .collect();
    println!(
        "{} files: {ok} ok, {total} rejected{} in {:.0} ms",
        paths.len(),
        if causes.is_empty() {
            String::new()
        } else {
            format!(" ({})", causes.join(", "))
        },
        start.elapsed().as_secs_f64() * 1000.0
    );
    if io_failed {
        EXIT_USAGE
    } else if total > 0 {
        EXIT_REJECTED
    } else {
        0
    }
}
