//! `gdlground export-asp`: print a classic game's ASP translation, the input gringo checks
//! us against (GDL.md §5).

use super::{SyntaxArg, EXIT_USAGE};
use gdlground::write;
use std::io::Write;
use std::path::PathBuf;

/// Flags of `export-asp`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game file.
    #[arg(value_name = "GAME")]
    game: PathBuf,
    /// Drop negative literals: gringo's least model of the result is the reachable superset S.
    ///
    /// Without this flag negation is kept, and gringo grounds the whole game (the speed anchor).
    #[arg(long)]
    relaxed: bool,
    /// Read the file in this syntax instead of guessing from extension and content.
    #[arg(long, value_enum)]
    syntax: Option<SyntaxArg>,
}

/// Runs `export-asp`, returning the exit code.
pub fn run(args: &Args) -> i32 {
    let game = match super::load_game(&args.game, args.syntax) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let text = match write::asp(&game.program, args.relaxed) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
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
