//! `gdlground atoms`: print S* (or, with `--relevant`, R*), one atom per line in KIF text,
//! sorted.

use super::ground::{load_and_ground, EngineArgs};
use super::{output, SyntaxArg, EXIT_USAGE};
use gdlground::write::{ground::AtomText, Notation};
use std::path::PathBuf;
use std::time::Instant;

/// Flags of `atoms`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game file.
    #[arg(value_name = "GAME")]
    game: PathBuf,
    #[command(flatten)]
    engine: EngineArgs,
    /// Read the file in this syntax instead of guessing from extension and content.
    #[arg(long, value_enum)]
    syntax: Option<SyntaxArg>,
    /// Print R* instead of S*: for the relations that demand restricts, only the atoms the
    /// game can call and derive (the atoms the ground program of `ground` holds). For games
    /// whose S* is itself the blow-up (chess's `threatened_with_capture`).
    #[arg(long)]
    relevant: bool,
}

/// Runs `atoms`, returning the exit code.
pub fn run(args: &Args) -> i32 {
    let mut engine = args.engine.clone();
    engine.no_demand = !args.relevant;
    let (game, grounded) =
        match load_and_ground(&args.game, args.syntax, &engine, None, Instant::now()) {
            Ok(x) => x,
            Err(code) => return code,
        };
    let text = AtomText::new(
        grounded.program(&game.program),
        &grounded.encoding,
        Notation::Kif,
    );
    let program = grounded.program(&game.program);
    let lowering = program.lowering.as_ref();
    let mut lines: Vec<String> = grounded
        .ground
        .atoms
        .iter()
        .filter(|(rel, _)| lowering.is_none_or(|l| l.operation(*rel).is_none()))
        .filter(|(rel, _)| !program.is_auxiliary(*rel))
        .map(|(rel, args)| {
            let mut s = String::new();
            text.atom(*rel, args, &mut s);
            s
        })
        .collect();
    lines.sort_unstable();
    let mut out = lines.join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    match output::write(std::path::Path::new("-"), &out) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: cannot write the atoms: {e}");
            EXIT_USAGE
        }
    }
}
