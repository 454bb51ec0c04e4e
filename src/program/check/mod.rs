//! The checks a program must pass to be a game (GDL.md §1): safety, stratification, GDL
//! keyword use, required relations; undefined relations are warnings.
//!
//! Input: a lowered [`Program`]. Output: its diagnostics, each located, with notes at the other
//! places involved and a hint. Invariant: no check recurses on the size of the program (graph
//! walks are iterative) and none panics on any program.

mod graph;
mod keywords;
mod required;
mod safety;
mod strata;
mod undefined;
mod unify;

use super::Program;
use crate::syntax::Diagnostic;

/// At most this many steps of a dependency path get a note of their own.
const MAX_STEP_NOTES: usize = 8;

/// The diagnostics of the checks of each rule on its own (safety), in no particular order:
/// run on each lowered fragment, whose rules they do not relate to any other.
pub fn rules(program: &Program) -> Vec<Diagnostic> {
    safety::check(program)
}

/// [`rules`] for the rules and operations whose origin `keep` accepts.
pub fn rules_where(program: &Program, keep: impl Fn(&super::Origin) -> bool) -> Vec<Diagnostic> {
    safety::check_where(program, keep)
}

pub(crate) use safety::unbound_given;

/// The diagnostics of the checks of the whole program (stratification, keywords, required
/// and undefined relations), in no particular order.
pub fn whole(program: &Program) -> Vec<Diagnostic> {
    let graph = graph::Graph::new(program);
    let mut out = strata::check(program, &graph);
    out.extend(keywords::check(program, &graph));
    out.extend(required::check(program));
    out.extend(undefined::check(program));
    out
}

/// A dependency path as `a → b → c`, eliding the middle of long ones.
fn path_text(steps: &[String]) -> String {
    const HEAD: usize = 8;
    const TAIL: usize = 4;
    if steps.len() <= HEAD + TAIL + 1 {
        return steps.join(" → ");
    }
    let hidden = steps.len() - HEAD - TAIL;
    format!(
        "{} → … ({hidden} more) → {}",
        steps[..HEAD].join(" → "),
        steps[steps.len() - TAIL..].join(" → ")
    )
}

#[cfg(test)]
mod tests {
    use crate::program::{lower, Model};
    use crate::syntax::{parse, Code, Diagnostic, SourceFile, Syntax};
    use std::path::Path;

    /// A minimal complete game, four lines long, for tests to append to.
    pub(super) const GAME: &str = "(role robot)\n(legal robot x)\n(goal robot 100)\nterminal\n";

    /// Parses KIF `text` (which must be free of syntax errors) as `t.kif` and lowers it in the
    /// classic model.
    pub(super) fn check(text: &str) -> (SourceFile, Vec<Diagnostic>) {
        let file = SourceFile::new("t.kif", text);
        let parsed = parse(&file, Syntax::Kif);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let (_, diags) = lower(&parsed.statements, Model::Classic);
        (file, diags)
    }

    /// A minimal complete operations game in HRF, four lines long.
    pub(super) const HRF_GAME: &str = "role(robot)\nlegal(x)\ngoal(robot,100)\nterminal\n";

    /// Parses HRF `text` (which must be free of syntax errors) as `t.hrf` and lowers it in the
    /// operations model.
    pub(super) fn check_hrf(text: &str) -> (SourceFile, Vec<Diagnostic>) {
        let file = SourceFile::new("t.hrf", text);
        let parsed = parse(&file, Syntax::Hrf);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let (_, diags) = lower(&parsed.statements, Model::Operations);
        (file, diags)
    }

    /// The codes of `diags`, in order.
    pub(super) fn codes(diags: &[Diagnostic]) -> Vec<Code> {
        diags.iter().map(|d| d.code).collect()
    }

    #[test]
    fn path_text_elides_long_paths() {
        let steps: Vec<String> = (0..3).map(|i| format!("r{i}")).collect();
        assert_eq!(super::path_text(&steps), "r0 → r1 → r2");
        let steps: Vec<String> = (0..20).map(|i| format!("r{i}")).collect();
        assert_eq!(
            super::path_text(&steps),
            "r0 → r1 → r2 → r3 → r4 → r5 → r6 → r7 → … (8 more) → r16 → r17 → r18 → r19"
        );
    }

    /// The libgdl parser tests: each file is built to fail one check.
    #[test]
    fn libgdl_parser_tests() {
        let dir = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/games/libgdl"
        ));
        if !dir.is_dir() {
            eprintln!("skipped: {} is absent", dir.display());
            return;
        }
        let expected = [
            ("base_depen", Code::Keyword),
            ("init_depen", Code::Keyword),
            ("input_depen", Code::Keyword),
            ("legal_depen", Code::Keyword),
            ("headsafe", Code::Unsafe),
            ("notsafe", Code::Unsafe),
            ("orsafe", Code::Unsafe),
            ("mularity", Code::Arity),
            ("ndef_goal", Code::Missing),
            ("ndef_legal", Code::Missing),
            ("ndef_role", Code::Missing),
            ("ndef_terminal", Code::Missing),
            ("notunstrat", Code::Unstratified),
            ("unstratrec", Code::Unstratified),
            // Syntactically valid fragments, not games.
            ("ds_test", Code::Missing),
            ("mgu_check", Code::Missing),
            ("opt1", Code::Missing),
            ("variable_parsing", Code::Missing),
        ];
        for (name, code) in expected {
            let path = dir.join(format!("parsertest__{name}.kif"));
            let Ok(text) = std::fs::read_to_string(&path) else {
                eprintln!("skipped: {} is absent", path.display());
                continue;
            };
            let file = SourceFile::new(path.display().to_string(), text);
            let parsed = parse(&file, Syntax::Kif);
            assert!(parsed.diagnostics.is_empty(), "{name}");
            let (_, diags) = lower(&parsed.statements, Model::Classic);
            let errors: Vec<Code> = diags
                .iter()
                .filter(|d| d.is_error())
                .map(|d| d.code)
                .collect();
            let all: String = diags.iter().map(|d| d.render(&file)).collect();
            assert!(!errors.is_empty(), "{name}: no error\n{all}");
            assert!(
                errors.iter().all(|&c| c == code),
                "{name}: expected only {code:?}, got {errors:?}\n{all}"
            );
        }
    }

    /// recurseunstrat breaks only GDL's recursion restriction, which gdlground does not
    /// enforce: it is an acceptable game (with a warning for the undefined `test2`).
    #[test]
    fn libgdl_recursion_restriction_is_not_enforced() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/games/libgdl/parsertest__recurseunstrat.kif"
        );
        let Ok(text) = std::fs::read_to_string(path) else {
            eprintln!("skipped: {path} is absent");
            return;
        };
        let file = SourceFile::new(path, text);
        let parsed = parse(&file, Syntax::Kif);
        let (_, diags) = lower(&parsed.statements, Model::Classic);
        assert_eq!(codes(&diags), [Code::Undefined]);
    }
}
