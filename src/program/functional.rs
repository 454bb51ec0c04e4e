//! Functional dependencies between the arguments of body literals, for the group search
//! ([`super::groups`]): which variables a literal determines once others are known.
//!
//! A relation defined by ground facts alone has the dependency `i → j` when no two of its
//! facts agree at position i and differ at position j (`succ(X, Y)`: each of X and Y gives
//! the other). Arithmetic built-ins determine any argument from the others (`plus(X, Y,
//! Z)`), `same` each argument from the other. Derived relations get none: their rows are
//! not known before grounding.

use super::{Builtin, Literal, Program, RelId, Term, VarId};
use crate::hash::FastMap;

/// Dependencies by relation: for each, the pairs (i, j) with `i → j`.
///
/// Found again for every version of a live session's game, with fast hashing: with the
/// standard library's, finding them was a twenty-fifth of a connect four goal edit.
pub(super) struct Dependencies {
    by_relation: FastMap<RelId, Vec<(usize, usize)>>,
}

impl Dependencies {
    /// The dependencies of `program`'s relations defined by ground facts alone.
    pub(super) fn new(program: &Program) -> Dependencies {
        let mut facts: FastMap<RelId, Vec<&[Term]>> = FastMap::default();
        let mut derived: Vec<RelId> = Vec::new();
        for rule in &program.rules {
            let ground = rule.head.args.iter().all(|t| matches!(t, Term::Ground(_)));
            match rule.body.is_empty() && ground {
                true => facts
                    .entry(rule.head.rel)
                    .or_default()
                    .push(&rule.head.args),
                false => derived.push(rule.head.rel),
            }
        }
        let by_relation = (facts.into_iter())
            .filter(|(rel, _)| !derived.contains(rel))
            .map(|(rel, rows)| (rel, pairs(&rows)))
            .collect();
        Dependencies { by_relation }
    }

    /// The pairs of `literal`'s relation if it is a positive literal (`None` if the relation
    /// has none, or the literal is not positive): what [`Dependencies::of`] gives for the
    /// literal depends on the literal and these pairs only.
    pub(super) fn pairs(&self, literal: &Literal) -> Option<&[(usize, usize)]> {
        match literal {
            Literal::Pos(atom) => self.by_relation.get(&atom.rel).map(Vec::as_slice),
            _ => None,
        }
    }

    /// For `literal`, each argument variable it determines and the variables that determine
    /// it (a ground argument is always known).
    pub(super) fn of(&self, literal: &Literal) -> Vec<(Vec<VarId>, VarId)> {
        let var = |t: &Term| match t {
            Term::Var(v) => Some(*v),
            _ => None,
        };
        // The variables of `args` at `from`, if each is a variable or ground.
        let sources = |args: &[Term], from: &[usize]| -> Option<Vec<VarId>> {
            (from.iter()).try_fold(Vec::new(), |mut out, &i| {
                match &args[i] {
                    Term::Var(v) => out.push(*v),
                    Term::Ground(_) => {}
                    Term::Func(..) => return None,
                }
                Some(out)
            })
        };
        let mut out = Vec::new();
        let mut push = |args: &[Term], from: &[usize], to: usize| {
            if let (Some(sources), Some(target)) = (sources(args, from), var(&args[to])) {
                out.push((sources, target));
            }
        };
        match literal {
            Literal::Pos(atom) => {
                for &(i, j) in self.by_relation.get(&atom.rel).into_iter().flatten() {
                    push(&atom.args, &[i], j);
                }
            }
            Literal::Builtin {
                op: Builtin::Plus | Builtin::Minus | Builtin::Times | Builtin::Same,
                args,
                negated: false,
            } => {
                for to in 0..args.len() {
                    let from: Vec<usize> = (0..args.len()).filter(|&i| i != to).collect();
                    push(args, &from, to);
                }
            }
            _ => {}
        }
        out
    }
}

/// The pairs (i, j), i ≠ j, such that position i of `rows` determines position j.
fn pairs(rows: &[&[Term]]) -> Vec<(usize, usize)> {
    let arity = rows.first().map_or(0, |r| r.len());
    let mut out = Vec::new();
    let mut seen: FastMap<&Term, &Term> = FastMap::default();
    for i in 0..arity {
        for j in (0..arity).filter(|&j| j != i) {
            seen.clear();
            let functional =
                (rows.iter()).all(|row| *seen.entry(&row[i]).or_insert(&row[j]) == &row[j]);
            if functional {
                out.push((i, j));
            }
        }
    }
    out
}

/// The variables among `wanted` that `known` leaves free: greedily, each variable that
/// `known` and the ones counted before do not determine through `dependencies` is counted
/// (and known from then on). The count is the number of free dimensions of `wanted`.
pub(super) fn free(
    wanted: &[VarId],
    known: &[VarId],
    dependencies: &[(Vec<VarId>, VarId)],
) -> usize {
    let mut known = known.to_vec();
    let close = |known: &mut Vec<VarId>| loop {
        let before = known.len();
        for (from, to) in dependencies {
            if !known.contains(to) && from.iter().all(|v| known.contains(v)) {
                known.push(*to);
            }
        }
        if known.len() == before {
            break;
        }
    };
    close(&mut known);
    let mut count = 0;
    for &v in wanted {
        if !known.contains(&v) {
            count += 1;
            known.push(v);
            close(&mut known);
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::super::project::tests::game;
    use super::*;

    /// The dependencies of the first body literal of the rule of `program` whose head is
    /// `head`, as (sources, target) variable names.
    fn of(rules: &str, head: &str) -> Vec<(Vec<String>, String)> {
        let program = game(rules);
        let dependencies = Dependencies::new(&program);
        let (rule, origin) = (program.rules.iter().zip(&program.rule_origins))
            .find(|(r, _)| program.relation_name(r.head.rel) == head)
            .expect("the rule");
        let name = |v: &VarId| origin.var_names[*v as usize].to_string();
        (dependencies.of(&rule.body[0]).iter())
            .map(|(from, to)| (from.iter().map(name).collect(), name(to)))
            .collect()
    }

    #[test]
    fn a_successor_table_determines_each_argument_from_the_other() {
        let found = of("succ(1,2)\nsucc(2,3)\np(X,Y) :- succ(X,Y)\n", "p");
        let both = [
            (vec!["X".into()], "Y".into()),
            (vec!["Y".into()], "X".into()),
        ];
        assert_eq!(found, both);
    }

    #[test]
    fn a_table_with_a_repeated_key_or_a_rule_determines_nothing() {
        let table = "q(1,2)\nq(1,3)\nq(2,3)\np(X,Y) :- q(X,Y)\n";
        assert_eq!(of(table, "p"), []);
        let derived = "succ(1,2)\nsucc(X,Y) :- true(c(X)) & true(c(Y))\np(X,Y) :- succ(X,Y)\n";
        assert_eq!(of(derived, "p"), []);
    }

    #[test]
    fn free_counts_what_the_known_variables_leave_undetermined() {
        // Y follows from X, Z from X and Y (a sum); W from nothing.
        let dependencies = [(vec![0], 1), (vec![0, 1], 2)];
        assert_eq!(free(&[1, 2], &[0], &dependencies), 0);
        assert_eq!(free(&[0, 1, 2], &[], &dependencies), 1);
        assert_eq!(free(&[2, 3], &[1], &dependencies), 2);
    }
}
