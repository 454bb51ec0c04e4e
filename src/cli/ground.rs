//! `gdlground ground`: write the ground game and its counts.

use super::{output, SyntaxArg, EXIT_DEADLINE, EXIT_USAGE};
use gdlground::engine::{EngineError, Options};
use gdlground::syntax::Syntax;
use gdlground::write::{self, ground::AtomText, Notation};
use gdlground::{ground, GroundError};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Flags of `ground`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game file.
    #[arg(value_name = "GAME")]
    game: PathBuf,
    /// Where to write the ground game (`-` for stdout). The file appears only when complete.
    #[arg(short, long, value_name = "FILE", default_value = "-")]
    output: PathBuf,
    /// Output format (default: the input's syntax).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// Print the counts (bases, actions, atoms, facts, rules, ms) on stderr; `--stats=json`
    /// prints them as one JSON object.
    #[arg(long, value_name = "STYLE", num_args = 0..=1, default_missing_value = "line", value_parser = ["line", "json"])]
    stats: Option<String>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Read the file in this syntax instead of guessing from extension and content.
    #[arg(long, value_enum)]
    syntax: Option<SyntaxArg>,
}

/// Engine flags shared by the commands that ground.
#[derive(clap::Args, Debug, Clone)]
pub struct EngineArgs {
    /// Worker threads; every count gives the same output.
    #[arg(short, long, default_value_t = 1, value_name = "N")]
    workers: usize,
    /// Stop cleanly (exit code 3) after this many seconds: a player's start clock.
    #[arg(long, value_name = "SECONDS")]
    deadline: Option<f64>,
    /// Stop with an error when function terms nest deeper than this.
    #[arg(long, default_value_t = 12, value_name = "DEPTH")]
    max_depth: usize,
    /// Stop with an error when S* grows past this many atoms.
    #[arg(long, default_value_t = 50_000_000, value_name = "N")]
    max_atoms: usize,
}

impl EngineArgs {
    /// The engine options these flags ask for, the deadline counted from `start`.
    pub fn options(&self, start: Instant) -> Options {
        Options {
            workers: self.workers.max(1),
            max_depth: self.max_depth,
            max_atoms: self.max_atoms,
            deadline: self
                .deadline
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(|s| start + Duration::from_secs_f64(s)),
        }
    }
}

/// The `--format` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum FormatArg {
    /// KIF S-expressions.
    Kif,
    /// Classic infix.
    Infix,
    /// JSON: atoms by id, facts, rules, counts.
    Json,
}

/// Loads and grounds `path`, printing errors; the exit code on failure.
pub fn load_and_ground(
    path: &std::path::Path,
    syntax: Option<SyntaxArg>,
    engine: &EngineArgs,
    start: Instant,
) -> Result<(gdlground::Game, gdlground::Grounded), i32> {
    let game = super::load_game(path, syntax)?;
    for w in &game.warnings {
        eprint!("{}", w.render(&game.source));
    }
    match ground(&game.program, &engine.options(start)) {
        Ok(g) => Ok((game, g)),
        Err(e) => {
            let encoding = gdlground::program::encoding::Encoding::new(&game.program);
            eprint!(
                "{}{}",
                game.source.name.clone() + ": ",
                e.render(&game.program, &encoding)
            );
            Err(match e {
                GroundError::Engine(EngineError::Deadline) => EXIT_DEADLINE,
                _ => EXIT_USAGE,
            })
        }
    }
}

/// Runs `ground`, returning the exit code.
pub fn run(args: &Args) -> i32 {
    let start = Instant::now();
    let (game, grounded) = match load_and_ground(&args.game, args.syntax, &args.engine, start) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let counts = grounded.ground.counts(&game.program);
    let notation = match args.format {
        Some(FormatArg::Kif) => Notation::Kif,
        Some(FormatArg::Infix) => Notation::Infix,
        Some(FormatArg::Json) | None if game.syntax == Syntax::Kif => Notation::Kif,
        Some(FormatArg::Json) | None => Notation::Infix,
    };
    if notation == Notation::Kif {
        if let Err(e) = write::kif_names(&game.program) {
            eprintln!("error: {e} (`--format infix`)");
            return EXIT_USAGE;
        }
    }
    let atoms = AtomText::new(&game.program, &grounded.encoding, notation);
    let text = match args.format {
        Some(FormatArg::Json) => write::ground::json(
            &grounded.ground,
            &AtomText::new(&game.program, &grounded.encoding, Notation::Kif),
            &counts,
        ),
        _ => write::ground::text(&grounded.ground, &atoms),
    };
    if let Err(e) = output::write(&args.output, &text) {
        eprintln!("error: cannot write {}: {e}", args.output.display());
        return EXIT_USAGE;
    }
    let ms = start.elapsed().as_millis();
    match args.stats.as_deref() {
        Some("json") => eprintln!("{}", write::ground::stats_json(&counts, Some(ms))),
        Some(_) => eprintln!(
            "{}: {}",
            game.source.name,
            write::ground::stats_line(&counts, ms)
        ),
        None => {}
    }
    0
}
