//! The command line: turns flags into library calls once; the library never sees clap.
//!
//! Exit codes: 0 success (warnings allowed), 1 input rejected, 2 usage, I/O or resource limit.

mod check;
mod files;
mod fmt;

use clap::{Parser, Subcommand, ValueEnum};
use gdlground::syntax::Syntax;

/// Exit code: the input is not a valid game.
pub const EXIT_REJECTED: i32 = 1;
/// Exit code: bad usage, an I/O error, or a resource limit.
pub const EXIT_USAGE: i32 = 2;

/// gdlground: ground GDL game descriptions (KIF, classic infix, Stanford .hrf).
///
/// Reads a game, checks it (syntax, safety, stratification, arities, GDL keyword use) and
/// reports every problem with file:line:column, the source line, and a hint.
#[derive(Parser, Debug)]
#[command(name = "gdlground", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check games: parse and validate, print one line per file and every problem found.
    ///
    /// Directories are searched recursively for .kif, .gdl, .hrf, .pl and .epilog files.
    /// Exits 1 if any game is rejected.
    ///
    /// Example: gdlground check examples/tictactoe.kif
    Check(check::Args),
    /// Print a game's normalised program (negation pushed inward, disjunctions split).
    ///
    /// Converts classic GDL between KIF and infix; operation games (.hrf) print as .hrf.
    ///
    /// Example: gdlground fmt examples/tictactoe.kif --to infix
    Fmt(fmt::Args),
}

/// The `--syntax` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SyntaxArg {
    /// KIF S-expressions (.kif, .gdl).
    Kif,
    /// Classic infix: `head :- a & ~b` (.pl, .epilog).
    Infix,
    /// Stanford infix with operation rules `a :: c ==> e` (.hrf).
    Hrf,
}

impl From<SyntaxArg> for Syntax {
    fn from(s: SyntaxArg) -> Syntax {
        match s {
            SyntaxArg::Kif => Syntax::Kif,
            SyntaxArg::Infix => Syntax::Infix,
            SyntaxArg::Hrf => Syntax::Hrf,
        }
    }
}

/// Parses the command line and runs it, returning the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { 0 };
        }
    };
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Fmt(args) => fmt::run(&args),
    }
}
