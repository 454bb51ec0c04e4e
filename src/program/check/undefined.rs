//! Undefined relations: a relation used in a body that no rule or fact defines is always false,
//! which is usually a typo. A warning, once per relation, at its first use; a name also used
//! with another arity is left to the arity error of lowering.
//!
//! The game's dynamics define some relations without rules: `true` and `does` in the classic
//! model, and in the operations model the fluents, whose name and arity are those of a term in
//! `init(...)`, `base(...)` or an operation's effects.

use crate::program::{Keyword, Literal, Model, Program, Sym};
use crate::syntax::{Code, Diagnostic};
use std::collections::{HashMap, HashSet};

/// One warning per relation used in a body and defined nowhere.
pub(super) fn check(program: &Program) -> Vec<Diagnostic> {
    let n = program.relations.len();
    let mut defined = vec![false; n];
    for rule in &program.rules {
        if let Some(d) = defined.get_mut(rule.head.rel as usize) {
            *d = true;
        }
    }
    let fluents = match program.model {
        Model::Classic => HashSet::new(),
        Model::Operations => program.fluent_signatures(),
    };
    let mut used = vec![false; n];
    let mut stack: Vec<&Literal> = program
        .rules
        .iter()
        .flat_map(|r| &r.body)
        .chain(program.operations.iter().flat_map(|o| &o.conditions))
        .collect();
    while let Some(literal) = stack.pop() {
        match literal {
            Literal::Pos(a) | Literal::Neg(a) => {
                if let Some(u) = used.get_mut(a.rel as usize) {
                    *u = true;
                }
            }
            Literal::Builtin { .. } => {}
            Literal::Count { condition, .. } => stack.extend(condition),
        }
    }
    let mut arities: HashMap<Sym, usize> = HashMap::new();
    for relation in &program.relations {
        *arities.entry(relation.name).or_default() += 1;
    }
    let mut out = Vec::new();
    for (rel, relation) in program.relations.iter().enumerate() {
        if !used[rel] || defined[rel] || fluents.contains(&(relation.name, relation.arity)) {
            continue;
        }
        let keyword = program.keyword(rel as u32);
        if matches!(keyword, Some(Keyword::True | Keyword::Does)) {
            continue;
        }
        // The same name with another arity is an arity clash, already an error.
        if arities.get(&relation.name).is_some_and(|&n| n > 1) {
            continue;
        }
        let name = program.symbols.name(relation.name);
        let span = program.relation_spans.get(rel).copied().unwrap_or_default();
        let d = Diagnostic::warning(
            Code::Undefined,
            span,
            format!("`{name}` is used but never defined, so it is always false"),
        );
        let hint = match program.model {
            Model::Classic => "define it with a rule or fact, or check its spelling",
            Model::Operations => {
                "define it with a rule or fact, or if it is a fluent, declare it with base(...) \
                 or init(...); else check its spelling"
            }
        };
        out.push(d.with_hint(hint));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::{check, check_hrf, codes, GAME, HRF_GAME};
    use crate::syntax::{Code, Severity};

    #[test]
    fn undefined_relation_warns_once_at_first_use() {
        let (file, diags) = check(&format!(
            "{GAME}(<= (p ?x) (true ?x) (not (tset ?x)))\n(<= (q ?x) (tset ?x) (p ?x))\n"
        ));
        assert_eq!(codes(&diags), [Code::Undefined]);
        assert_eq!(diags[0].severity, Severity::Warning);
        let text = diags[0].render(&file);
        assert!(
            text.starts_with(
                "t.kif:5:28: warning[W006]: `tset` is used but never defined, so it is always false\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn arity_clashes_are_left_to_lowering() {
        let (_, diags) = check(&format!("{GAME}(r a b) (<= (p ?x) (r ?x))\n"));
        assert_eq!(codes(&diags), [Code::Arity]);
    }

    #[test]
    fn true_and_does_are_defined_by_the_dynamics() {
        let (_, diags) = check(&format!(
            "{GAME}(<= (next ?x) (true ?x) (not (does robot x)))\n"
        ));
        assert_eq!(codes(&diags), []);
    }

    #[test]
    fn fluents_are_defined_by_init_base_and_effects() {
        let (file, diags) = check_hrf(&format!(
            "{HRF_GAME}index(1)\nbase(cell(X)) :- index(X)\ninit(control(robot))\n\
             action(mark(1))\n\
             mark(X) :: cell(X) & ~seen(X) ==> seen(X) & ~cell(X)\n\
             p(X) :- cell(X) & control(R) & seen(X) & won\n"
        ));
        assert_eq!(codes(&diags), [Code::Undefined]);
        let text = diags[0].render(&file);
        assert!(
            text.starts_with("t.hrf:10:42: warning[W006]: `won` is used but never defined"),
            "{text}"
        );
        assert!(text.contains("declare it with base(...)"), "{text}");
    }
}
