//! The ASP translation of a classic game (GDL.md §5): the text gringo grounds as our oracle.
//!
//! Input: a classic-model [`Program`]. Output: a clingo 5 program, one statement per line.
//! The *relaxed* translation drops every negative literal and adds the dynamics of GDL.md §2 as
//! rules, `r_true(F) :- r_init(F).  r_true(F) :- r_next(F).  r_does(R,M) :- r_legal(R,M).`:
//! it is P+, and its least model, which `gringo --text` prints as facts, is S.
//! The *full* translation keeps negation and adds the same dynamics as choice rules,
//! `{ r_true(F) } :- r_init(F).` and so on, so that gringo grounds the whole game: every rule
//! instance over the reachable atoms, with `true`/`does` left open as in a real state. (With
//! plain rules every reachable fluent would be true at once: gringo would evaluate the game down
//! to facts, 0 rules with a body for tic-tac-toe instead of 388, and time nothing useful.)
//!
//! Names are mapped reversibly, so that every ground atom gringo prints maps back to one GDL atom:
//! - relation `cell` → predicate `r_cell` (ASP tells arities apart itself);
//! - function `mark` → function symbol `f_mark`;
//! - in both, bytes of the name outside `[a-z0-9_]` become `_xHH_` (two lower-case hex digits)
//!   and `_` becomes `__`, so `my_rel` → `r_my__rel` and `a-b` → `r_a_x2d_b`. The prefixes keep
//!   every name clear of ASP keywords (`not`) and of each other;
//! - constants are always quoted strings, `b` → `"b"`, with `\` and `"` escaped by a backslash
//!   and a line feed written `\n`. Quoting keeps upper case and odd characters, and keeps GDL
//!   numerals as symbols: as ASP integers `10` and `9` would compare numerically and `01` would
//!   read as `1`, merging two GDL constants;
//! - the variable with `VarId` n is `Vn`.
//!
//! Invariant: the output uses only relations of the program and the dynamics relations, each
//! declared with `#defined` so that gringo does not report relations without rules.

use super::WriteError;
use crate::program::{Atom, Builtin, GroundTerm, Literal, Model, Program, Rule, Term};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The three dynamics rules of GDL.md §2 (the relaxed translation).
const DYNAMICS: &str = "\
r_true(F) :- r_init(F).
r_true(F) :- r_next(F).
r_does(R,M) :- r_legal(R,M).
";

/// The dynamics as choice rules (the full translation), so that no state is assumed.
const OPEN_DYNAMICS: &str = "\
{ r_true(F) } :- r_init(F).
{ r_true(F) } :- r_next(F).
{ r_does(R,M) } :- r_legal(R,M).
";

/// The dynamics relations, as (GDL name, arity).
const DYNAMICS_RELATIONS: [(&str, usize); 5] = [
    ("does", 2),
    ("init", 1),
    ("legal", 2),
    ("next", 1),
    ("true", 1),
];

/// The ASP translation of `program`: relaxed (negative literals dropped) or full.
pub fn translate(program: &Program, relaxed: bool) -> Result<String, WriteError> {
    if program.model == Model::Operations {
        return Err(WriteError(
            "operation games have no ASP translation yet".into(),
        ));
    }
    let mut out = String::new();
    out.push_str(if relaxed {
        "% The relaxed ASP translation (GDL.md §2, §5): negative literals dropped.\n"
    } else {
        "% The full ASP translation (GDL.md §5).\n"
    });
    out.push_str(
        "% Relation p -> r_p, function f -> f_f, constant c -> \"c\", variable n -> Vn;\n\
         % in names, _ -> __ and other bytes outside [a-z0-9] -> _xHH_.\n",
    );

    let mut defined = BTreeSet::new();
    for rel in &program.relations {
        let mut name = String::from("r_");
        escape(program.symbols.spelling(rel.name), &mut name);
        defined.insert((name, rel.arity));
    }
    for (name, arity) in DYNAMICS_RELATIONS {
        defined.insert((format!("r_{name}"), arity));
    }
    for (name, arity) in &defined {
        let _ = writeln!(out, "#defined {name}/{arity}.");
    }

    let writer = Asp { program };
    for rule in &program.rules {
        writer.rule(rule, relaxed, &mut out)?;
    }
    out.push_str("% The dynamics (GDL.md §2).\n");
    out.push_str(if relaxed { DYNAMICS } else { OPEN_DYNAMICS });
    Ok(out)
}

/// Writes `name` into `out` with the escapes of the module header: `_` → `__`, any byte
/// outside `[a-z0-9]` → `_xHH_`.
fn escape(name: &str, out: &mut String) {
    for b in name.bytes() {
        match b {
            b'a'..=b'z' | b'0'..=b'9' => out.push(b as char),
            b'_' => out.push_str("__"),
            _ => {
                let _ = write!(out, "_x{b:02x}_");
            }
        }
    }
}

/// Writes `name` as an ASP string literal.
fn quote(name: &str, out: &mut String) {
    out.push('"');
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Spells the rules of one program in ASP.
struct Asp<'p> {
    program: &'p Program,
}

impl Asp<'_> {
    /// `head :- l1, l2.` or `head.`; negative literals left out when `relaxed`.
    fn rule(&self, rule: &Rule, relaxed: bool, out: &mut String) -> Result<(), WriteError> {
        self.atom(&rule.head, out);
        let mut first = true;
        for literal in &rule.body {
            if relaxed && matches!(literal, Literal::Neg(_)) {
                continue;
            }
            out.push_str(if first { " :- " } else { ", " });
            first = false;
            self.literal(literal, out)?;
        }
        out.push_str(".\n");
        Ok(())
    }

    fn literal(&self, literal: &Literal, out: &mut String) -> Result<(), WriteError> {
        match literal {
            Literal::Pos(atom) => self.atom(atom, out),
            Literal::Neg(atom) => {
                out.push_str("not ");
                self.atom(atom, out);
            }
            Literal::Builtin {
                op: Builtin::Distinct,
                args,
                negated,
            } => {
                if let [s, t] = &args[..] {
                    self.term(s, out);
                    out.push_str(if *negated { " = " } else { " != " });
                    self.term(t, out);
                } else {
                    return Err(WriteError(format!(
                        "`distinct` with {} arguments has no ASP translation",
                        args.len()
                    )));
                }
            }
            Literal::Builtin { op, .. } => {
                return Err(WriteError(format!(
                    "the built-in `{}` has no ASP translation yet",
                    op.name()
                )))
            }
            Literal::Count { .. } => {
                return Err(WriteError("`countofall` has no ASP translation yet".into()))
            }
        }
        Ok(())
    }

    fn atom(&self, atom: &Atom, out: &mut String) {
        out.push_str("r_");
        escape(self.program.relation_spelling(atom.rel), out);
        self.arguments(&atom.args, out, |this, t, out| this.term(t, out));
    }

    /// `(a1,a2,...)`, or nothing for no arguments.
    fn arguments<T>(&self, args: &[T], out: &mut String, each: impl Fn(&Self, &T, &mut String)) {
        if args.is_empty() {
            return;
        }
        out.push('(');
        for (i, arg) in args.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            each(self, arg, out);
        }
        out.push(')');
    }

    fn term(&self, term: &Term, out: &mut String) {
        match term {
            Term::Var(v) => {
                let _ = write!(out, "V{v}");
            }
            Term::Ground(id) => self.ground(*id, out),
            Term::Func(f, args) => {
                out.push_str("f_");
                escape(self.program.symbols.spelling(*f), out);
                self.arguments(args, out, |this, t, out| this.term(t, out));
            }
        }
    }

    fn ground(&self, id: u32, out: &mut String) {
        match self.program.terms.term(id) {
            GroundTerm::Const(c) => quote(self.program.symbols.spelling(*c), out),
            GroundTerm::Func(f, args) => {
                out.push_str("f_");
                escape(self.program.symbols.spelling(*f), out);
                self.arguments(args, out, |this, t, out| this.ground(*t, out));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load;
    use crate::syntax::{SourceFile, Syntax};

    /// The translation of a KIF game, relaxed or full.
    fn asp(kif: &str, relaxed: bool) -> String {
        let game = match load(SourceFile::new("test.kif", kif), Syntax::Kif) {
            Ok(g) => g,
            Err(e) => panic!("internal error: test game rejected: {}", e.render()),
        };
        match translate(&game.program, relaxed) {
            Ok(text) => text,
            Err(e) => panic!("internal error: {e}"),
        }
    }

    /// The rules of a translation: no comments, no declarations, no dynamics.
    fn rules(text: &str) -> Vec<&str> {
        text.lines()
            .filter(|l| !l.starts_with('%') && !l.starts_with('#'))
            .filter(|l| !DYNAMICS.contains(*l) && !OPEN_DYNAMICS.contains(*l))
            .collect()
    }

    const GAME: &str = "(role x) (init (cell 1 my_b)) (goal x 100)
        (<= (legal x (go ?c)) (true (cell ?c ?d)) (not (true (cell ?d ?d))) (not (distinct ?c 1)))
        (<= terminal (true (cell 1 ?d)) (distinct ?d 1) (not (true (cell 2 ?d))))";

    #[test]
    fn names_constants_functions_and_variables() {
        assert_eq!(
            rules(&asp(GAME, false)),
            [
                "r_role(\"x\").",
                "r_init(f_cell(\"1\",\"my_b\")).",
                "r_goal(\"x\",\"100\").",
                "r_legal(\"x\",f_go(V0)) :- r_true(f_cell(V0,V1)), \
                 not r_true(f_cell(V1,V1)), V0 = \"1\".",
                "r_terminal :- r_true(f_cell(\"1\",V0)), V0 != \"1\", \
                 not r_true(f_cell(\"2\",V0)).",
            ]
        );
    }

    #[test]
    fn relaxed_drops_negative_literals_only() {
        assert_eq!(
            rules(&asp(GAME, true))[3..],
            [
                "r_legal(\"x\",f_go(V0)) :- r_true(f_cell(V0,V1)), V0 = \"1\".",
                "r_terminal :- r_true(f_cell(\"1\",V0)), V0 != \"1\".",
            ]
        );
    }

    #[test]
    fn both_translations_declare_relations_and_add_the_dynamics() {
        for relaxed in [false, true] {
            let text = asp(GAME, relaxed);
            let dynamics = if relaxed { DYNAMICS } else { OPEN_DYNAMICS };
            assert!(text.ends_with(dynamics), "{text}");
            for line in [
                "#defined r_next/1.",
                "#defined r_terminal/0.",
                "#defined r_role/1.",
            ] {
                assert!(text.lines().any(|l| l == line), "{line} missing in {text}");
            }
        }
    }

    #[test]
    fn a_body_of_negative_literals_becomes_a_fact_when_relaxed() {
        let text = asp(
            "(role x) (<= (legal x 1) (not (q 2))) (q 3) (goal x 0) terminal",
            true,
        );
        assert!(text.lines().any(|l| l == "r_legal(\"x\",\"1\")."), "{text}");
    }

    #[test]
    fn escapes_are_reversible_and_clash_free() {
        let escaped = |name: &str| {
            let mut out = String::new();
            escape(name, &mut out);
            out
        };
        assert_eq!(escaped("cell"), "cell");
        assert_eq!(escaped("my_rel"), "my__rel");
        assert_eq!(escaped("a-b"), "a_x2d_b");
        assert_eq!(escaped("A"), "_x41_");
        assert_ne!(escaped("a_x2d_b"), escaped("a-b"));
        let mut quoted = String::new();
        quote("say \"hi\"\\\n", &mut quoted);
        assert_eq!(quoted, r#""say \"hi\"\\\n""#);
    }
}
