//! `gdlground check`: validate games and summarise.

use super::{files, SyntaxArg, EXIT_REJECTED, EXIT_USAGE};
use gdlground::{read_game, LoadError};
use std::collections::BTreeMap;
use std::path::PathBuf;
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
    let mut ok = 0;
    let mut rejected: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let mut io_failed = false;
    for path in &paths {
        match read_game(path, args.syntax.map(Into::into)) {
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
