//! Positive literals that only test that a row exists.
//!
//! In `shoulddisappear(P, V, X) :- …, value(V2), cell(X2), does(P2, move(V2, X))` (zhadu), `X2`
//! occurs in `cell(X2)` alone: the literal holds for every row of `cell`, and its instances
//! differ only in `X2`, which no ground rule keeps (static literals are left out of the
//! instances). Joined, it multiplies the rule's bindings by the 32 cells, and the ground
//! stage throws the copies away again (zhadu: 153,600 of its 170,047 bindings). When the
//! relation's rows are known and one matches, the planner drops such a literal instead.

use crate::program::{Literal, Rule, VarId};

/// Whether no variable of `rule`'s body literal `i` occurs anywhere else in the rule (head,
/// other literals), so that the literal only tests that a row matches it. Never for rules
/// with an aggregate (`countofall`), whose conditions may share variables with the rule.
pub fn only_tests_existence(rule: &Rule, i: usize) -> bool {
    let mut elsewhere: Vec<VarId> = Vec::new();
    let mut note = |v: VarId| elsewhere.push(v);
    rule.head
        .args
        .iter()
        .for_each(|t| t.for_each_var(&mut note));
    for (_, literal) in rule.body.iter().enumerate().filter(|(j, _)| *j != i) {
        match literal {
            Literal::Pos(a) | Literal::Neg(a) => {
                a.args.iter().for_each(|t| t.for_each_var(&mut note))
            }
            Literal::Builtin { args, .. } => args.iter().for_each(|t| t.for_each_var(&mut note)),
            Literal::Count { .. } => return false,
        }
    }
    let Some(Literal::Pos(atom)) = rule.body.get(i) else {
        return false;
    };
    let mut shared = false;
    atom.args
        .iter()
        .for_each(|t| t.for_each_var(&mut |v| shared |= elsewhere.contains(&v)));
    !shared
}

#[cfg(test)]
mod tests {
    use super::only_tests_existence;
    use crate::program::{Atom, Literal, Rule, Term};

    fn atom(rel: u32, vars: &[u32]) -> Atom {
        Atom {
            rel,
            args: vars.iter().map(|&v| Term::Var(v)).collect(),
        }
    }

    #[test]
    fn a_literal_whose_variables_occur_nowhere_else_only_tests_existence() {
        // p(X) :- q(X), r(Y, Y), s(X, Z), not t(Z).
        let rule = Rule {
            head: atom(0, &[0]),
            body: vec![
                Literal::Pos(atom(1, &[0])),
                Literal::Pos(atom(2, &[1, 1])),
                Literal::Pos(atom(3, &[0, 2])),
                Literal::Neg(atom(4, &[2])),
            ],
        };
        let only: Vec<bool> = (0..4).map(|i| only_tests_existence(&rule, i)).collect();
        assert_eq!(only, [false, true, false, false]);
    }
}
