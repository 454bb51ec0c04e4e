//! `gdlground fmt`: print the normalised program, optionally in another syntax.

use super::{SyntaxArg, EXIT_USAGE};
use gdlground::write::{self, Format};
use std::io::Write;
use std::path::PathBuf;

/// Flags of `fmt`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game file.
    #[arg(value_name = "GAME")]
    game: PathBuf,
    /// Output syntax (default: the input's).
    #[arg(long, value_enum)]
    to: Option<ToArg>,
    /// Read the file in this syntax instead of guessing from extension and content.
    #[arg(long, value_enum)]
    syntax: Option<SyntaxArg>,
}

/// The `--to` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum ToArg {
    /// KIF S-expressions.
    Kif,
    /// Infix (classic for classic games, Stanford .hrf for operation games).
    Infix,
}

/// Runs `fmt`, returning the exit code.
pub fn run(args: &Args) -> i32 {
    let game = match super::load_game(&args.game, args.syntax) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let format = match args.to {
        Some(ToArg::Kif) => Format::Kif,
        Some(ToArg::Infix) => Format::Infix,
        None if game.syntax == gdlground::syntax::Syntax::Kif => Format::Kif,
        None => Format::Infix,
    };
    match write::program(&game.program, format) {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => 0,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
                Err(e) => {
                    eprintln!("error: cannot write the output: {e}");
                    EXIT_USAGE
                }
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_USAGE
        }
    }
}
