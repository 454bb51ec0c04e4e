//! The command line: turns flags into library calls once; the library never sees clap.
//!
//! Exit codes: 0 success (warnings allowed), 1 input rejected, 2 usage, I/O or resource limit.

mod atoms;
mod bench;
mod check;
mod domains;
mod export_asp;
mod files;
mod fmt;
mod generate;
mod ground;
mod interrupt;
mod live;
mod measure_child;
mod output;
mod processes;
mod progress;
mod ranges;
mod saves;
mod validate;
mod watch;
mod watchdog;

use clap::{Parser, Subcommand, ValueEnum};
use gdlground::syntax::Syntax;

/// Exit code: the input is not a valid game.
pub const EXIT_REJECTED: i32 = 1;
/// Exit code: bad usage, an I/O error, or a resource limit.
pub const EXIT_USAGE: i32 = 2;
/// Exit code: `--deadline` passed before the work was done.
pub const EXIT_DEADLINE: i32 = 3;

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
    /// Ground a game: write the ground game (itself a valid game) and its counts.
    ///
    /// Computes the reachable superset S* of the relaxed program (GDL.md §2) on
    /// differential-dataflow, instantiates every rule over it, evaluates static literals,
    /// drops impossible negations (GDL.md §3) and rules whose body contains another body of
    /// the same head. An operations game (.hrf) is written as a ground
    /// .hrf game: ground view rules and ground operations `action :: conditions ==> effects`.
    ///
    /// Example: gdlground ground examples/tictactoe.kif -o tictactoe.ground.kif --stats
    ///
    /// Example: gdlground ground examples/takeaway.hrf -o takeaway.ground.hrf
    Ground(ground::Args),
    /// Ground a game live and re-ground it on every save of the file.
    ///
    /// Grounds once, then watches GAME: on each save it computes which rules changed, feeds
    /// only those into the running dataflow, patches the ground game with the instances that
    /// came and went, rewrites the output atomically and prints one line: rules of P+
    /// enabled/disabled, ground rules, facts and atoms of S* added/removed, then the save's
    /// milliseconds, the dataflow's, the ground game's and whether it was patched or rebuilt
    /// by the whole ground stage (`--diff` also prints the ground rules and facts that
    /// changed). A save with
    /// a syntax or check error prints the error with its location and leaves the last good
    /// output in place; fixing the file brings the output back. A game that is broken when
    /// `watch` starts is watched too: the first save that fixes it is grounded.
    ///
    /// Example: gdlground watch examples/tictactoe.kif -o /tmp/tictactoe.ground.kif
    Watch(watch::Args),
    /// Print the reachable superset S*: one atom per line, KIF text, sorted.
    ///
    /// Example: gdlground atoms examples/tictactoe.kif
    Atoms(atoms::Args),
    /// Print the domain of every argument position: the values the domain graph allows.
    ///
    /// The domain graph (GDL.md §2; the analysis chapter's Definition 14.1) has a vertex per
    /// argument position of every relation and function symbol, per function symbol and per
    /// constant. A constant or function term in a rule head goes into the domain of its
    /// position; a variable shared by a head position and a positive body position makes the
    /// head position's domain include the body position's; true[1] includes base[1], init[1]
    /// and next[1], does[i] includes input[i] and legal[i]. The domains are the least
    /// fixpoint. They over-approximate: every atom of the reachable superset has its
    /// arguments in them, but not every combination is derivable (`gdlground atoms` lists
    /// those).
    ///
    /// The table has one block per relation and function, sorted: its number of argument
    /// tuples (the product of its domains), then one line per argument with the domain's
    /// size and its first values. A function that can nest in itself (s(s(s(...)))) makes
    /// its domains unbounded; they are reported so, never enumerated. So are the domains
    /// built-ins (plus, countofall) compute values for.
    ///
    /// Operation games (.hrf): a fluent relation includes the terms of the function of the
    /// same name (from base, init and the effects), and an operation's action is an argument
    /// of legal.
    ///
    /// Example: gdlground domains examples/tictactoe.kif --limit 5
    Domains(domains::Args),
    /// Print a classic game as an answer set program, to check gdlground against gringo.
    ///
    /// Relation p becomes predicate r_p, function f becomes f_f, every constant a quoted string
    /// ("1" stays a symbol, never a number); in names, _ becomes __ and any other byte outside
    /// [a-z0-9] becomes _xHH_. With --relaxed, negative literals are dropped and the rules
    /// true(F) :- init(F), true(F) :- next(F), does(R,M) :- legal(R,M) are added: gringo's
    /// facts are then the reachable superset S (GDL.md §2). Without it, negation is kept and
    /// the same rules are added as choice rules ({ true(F) } :- init(F), ...): gringo's output
    /// is its own ground program of the game.
    ///
    /// Example: gdlground export-asp examples/tictactoe.kif --relaxed | gringo --text
    ExportAsp(export_asp::Args),
    /// Check that the ground program means the same game as the original rules.
    ///
    /// Grounds the game, then plays random playouts (seeded: --seed replays them). At every
    /// step two independent reasoners answer the player's questions: one evaluates the original
    /// rules bottom-up, the other the ground program. Their legal moves, goals, terminal status
    /// and next states must agree, and every atom true in a visited state must be in the
    /// reachable superset S* (GDL.md §2–3). Prints one summary line, or the first disagreement
    /// with the playout, step, state and joint move, and exits 1. Operations games (.hrf) too.
    /// Large games take minutes: a progress bar shows the playout and step on a terminal;
    /// elsewhere, after 5 s, one line per playout goes to stderr.
    ///
    /// Example: gdlground validate examples/tictactoe.kif --playouts 100 --seed 7
    Validate(validate::Args),
    /// Time gdlground against gringo game by game; write results.csv, report.md and SVG plots.
    ///
    /// For each game: gdlground's wall time (median of --runs, each a new process of this
    /// executable running `ground GAME -o /dev/null -w W`), peak memory and counts; gringo's
    /// time, peak memory and ground rules on the full ASP translation (negation kept) and on the
    /// relaxed one; whether S* ⊆ S and |S*|/|S|. A game a tool cannot ground within --timeout,
    /// or rejects, is a row with that status. Exits 1 if S* ⊄ S on some game.
    ///
    /// Example: gdlground bench examples/tictactoe.kif --series --runs 3 --out bench-results
    Bench(bench::Args),
    /// Write bigger versions of a few games (the scaling series of `bench --series`).
    ///
    /// Families: hex (n×n board), counter (steps 0..n), connectfour (n columns, 6 rows).
    ///
    /// Example: gdlground generate hex 11 13 15 --dir series
    Generate(generate::Args),
    /// Internal to `bench`: run a command, then report its wall time, peak memory and status.
    #[command(hide = true)]
    MeasureChild(measure_child::Args),
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

/// Reads and checks the game in `path`, printing every diagnostic; on failure, the exit code.
pub fn load_game(
    path: &std::path::Path,
    syntax: Option<SyntaxArg>,
) -> Result<gdlground::Game, i32> {
    gdlground::read_game(path, syntax.map(Into::into)).map_err(|e| {
        eprint!("{}", e.render());
        match e {
            gdlground::LoadError::Io(..) => EXIT_USAGE,
            gdlground::LoadError::Rejected(..) => EXIT_REJECTED,
        }
    })
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
        Command::Ground(args) => ground::run(&args),
        Command::Watch(args) => watch::run(&args),
        Command::Atoms(args) => atoms::run(&args),
        Command::Domains(args) => domains::run(&args),
        Command::ExportAsp(args) => export_asp::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Generate(args) => generate::run(&args),
        Command::MeasureChild(args) => measure_child::run(&args),
    }
}
