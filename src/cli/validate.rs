//! `gdlground validate`: random playouts comparing the ground program with the original rules.

use super::ground::EngineArgs;
use super::{progress, SyntaxArg, EXIT_REJECTED, EXIT_USAGE};
use gdlground::reason::playout::{self, Options, Progress};
use gdlground::{ground_with, read_game, LoadError};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Off a terminal, a validation running longer than this prints a line per playout.
const QUIET_FOR: Duration = Duration::from_secs(5);

/// Flags of `validate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game file.
    #[arg(value_name = "GAME")]
    game: PathBuf,
    /// The number of random playouts.
    #[arg(long, default_value_t = 20, value_name = "N")]
    playouts: usize,
    /// The seed of the random move choices: the same seed replays the same playouts.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Stop a playout after this many joint moves.
    #[arg(long, default_value_t = 200, value_name = "K")]
    max_steps: usize,
    #[command(flatten)]
    engine: EngineArgs,
    /// Read the file in this syntax instead of guessing from extension and content.
    #[arg(long, value_enum)]
    syntax: Option<SyntaxArg>,
}

/// Runs `validate`, returning the exit code: 0 if the reasoners agree, 1 on the first
/// disagreement or soundness failure (printed on stdout).
pub fn run(args: &Args) -> i32 {
    let start = Instant::now();
    let game = match read_game(&args.game, args.syntax.map(Into::into)) {
        Ok(game) => game,
        Err(e) => {
            eprint!("{}", e.render());
            return match e {
                LoadError::Io(..) => EXIT_USAGE,
                LoadError::Rejected(..) => EXIT_REJECTED,
            };
        }
    };
    for w in &game.warnings {
        eprint!("{}", w.render(&game.source));
    }
    let name = game.source.name.clone();
    let superset = args.engine.superset();
    let grounded = match ground_with(&game.program, &args.engine.options(start), &superset) {
        Ok(g) => {
            args.engine.report(&g);
            g
        }
        Err(e) => return super::ground::report(&game, &e),
    };
    let options = Options {
        playouts: args.playouts,
        seed: args.seed,
        max_steps: args.max_steps,
    };
    let (source, program) = (
        grounded.source(&game.program),
        grounded.program(&game.program),
    );
    let bar = progress::bar(args.playouts as u64);
    let plain = !std::io::stderr().is_terminal();
    let mut playout_start = Instant::now();
    let mut shown = |p: Progress| {
        bar.set_message(format!("playout {}: step {}", p.playout, p.step));
        if p.last {
            bar.inc(1);
            if plain && start.elapsed() > QUIET_FOR {
                eprintln!(
                    "{name}: playout {}/{}: {} steps, {} ms",
                    p.playout,
                    args.playouts,
                    p.step,
                    playout_start.elapsed().as_millis()
                );
            }
            playout_start = Instant::now();
        }
    };
    let result = playout::validate(
        source,
        program,
        &grounded.encoding,
        &grounded.ground,
        &options,
        &mut shown,
    );
    bar.finish_and_clear();
    match result {
        Ok(s) => {
            println!(
                "{name}: ok: {} playouts, {} steps, {} states, {} stuck, {} cut at --max-steps, {} ms",
                s.playouts,
                s.steps,
                s.states,
                s.stuck,
                s.cut,
                start.elapsed().as_millis()
            );
            0
        }
        Err(failure) => {
            print!("{name}: {}", failure.render(program, &grounded.encoding));
            EXIT_REJECTED
        }
    }
}
