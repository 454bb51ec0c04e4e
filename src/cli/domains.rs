//! `gdlground domains`: the domain of every argument position, as a table, JSON or a graph.

use super::{load_game, output, SyntaxArg, EXIT_USAGE};
use gdlground::analysis::domains::Domains;
use gdlground::syntax::Syntax;
use gdlground::write::{self, Notation};
use std::path::PathBuf;

/// Flags of `domains`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game file.
    #[arg(value_name = "GAME")]
    game: PathBuf,
    /// Print one JSON object instead of the table.
    ///
    /// {"relations": [...], "functions": [...]}; each entry has "name", "arity", "size" (the
    /// number of argument tuples or terms, null when unbounded, with an "unbounded" reason)
    /// and "positions": [{"arg", "size", "values", "more"}], values in KIF text.
    #[arg(long, conflicts_with = "dot")]
    json: bool,
    /// Print the domain graph in Graphviz's dot language instead of the table.
    ///
    /// Boxes are argument positions (name[i]), hexagons function symbols, plain text
    /// constants. Edges point the way values flow: a constant or function into the positions
    /// it is written at in rule heads, a body position into the head position that shares its
    /// variable, a function's argument positions into the function (dashed).
    /// Render with: gdlground domains GAME --dot | dot -Tsvg > domains.svg
    #[arg(long)]
    dot: bool,
    /// After the table, list every rule with a body and its number of instances over the
    /// domains.
    ///
    /// The count is the product, over the variables of the rule's positive body atoms, of the
    /// number of values common to the domains of the positions the variable occurs at; it is
    /// taken before distinct, built-ins and negation are evaluated: what a grounder that
    /// instantiates rules over the domains would enumerate.
    #[arg(long, conflicts_with_all = ["dot", "json"])]
    rules: bool,
    /// Show at most N values per position; the others are counted ("… (12 more)").
    #[arg(long, default_value_t = 20, value_name = "N")]
    limit: usize,
    /// Read the file in this syntax instead of guessing from extension and content.
    #[arg(long, value_enum)]
    syntax: Option<SyntaxArg>,
}

/// Runs `domains`, returning the exit code.
pub fn run(args: &Args) -> i32 {
    let game = match load_game(&args.game, args.syntax) {
        Ok(game) => game,
        Err(code) => return code,
    };
    for w in &game.warnings {
        eprint!("{}", w.render(&game.source));
    }
    let program = &game.program;
    let domains = Domains::new(program);
    let notation = match game.syntax {
        Syntax::Kif => Notation::Kif,
        Syntax::Infix | Syntax::Hrf => Notation::Infix,
    };
    let text = if args.json {
        write::domains::json(program, &domains, args.limit)
    } else if args.dot {
        write::domains::dot(program, &domains, notation)
    } else {
        let mut text = write::domains::table(program, &domains, notation, args.limit);
        if args.rules {
            let line_of = |i: usize| {
                let span = program.rule_origins[i].span;
                game.source.line_col(span.start).0
            };
            text += &write::domains::rules(program, &domains, notation, line_of);
        }
        text
    };
    match output::write(std::path::Path::new("-"), &text) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: cannot write the domains: {e}");
            EXIT_USAGE
        }
    }
}
