//! Unification of a body atom with the head of another rule, variables renamed apart: whether
//! some ground instance of the one can be an instance of the other.
//!
//! Used to refine the dependency graph from relations to rules, so that
//! `goal(R,0) :- ~goal(R,100)` does not count as `goal` depending on its own negation.
//! Invariant: the answer errs only towards "unifiable" (no occurs check, a step bound), so a
//! refinement built on it stays sound.

use crate::program::{GroundTerm, Term, TermId, Terms, VarId};
use std::collections::HashMap;

/// The most term pairs one unification compares before giving up and answering "unifiable".
const MAX_STEPS: usize = 100_000;

/// Which of the two atoms a term belongs to: their variables are distinct even when they come
/// from the same rule.
type Side = bool;

/// A term being unified: a term of one side, or an interned ground term.
#[derive(Clone, Copy)]
enum Node<'a> {
    Rule(Side, &'a Term),
    Ground(TermId),
}

/// Whether the argument lists `a` (of one rule) and `b` (of another, or of the same rule
/// renamed apart) have a common instance.
pub(super) fn unifiable(terms: &Terms, a: &[Term], b: &[Term]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut bindings: HashMap<(Side, VarId), Node> = HashMap::new();
    let mut pending: Vec<(Node, Node)> = a
        .iter()
        .zip(b)
        .map(|(x, y)| (Node::Rule(false, x), Node::Rule(true, y)))
        .collect();
    let mut steps = 0;
    while let Some((x, y)) = pending.pop() {
        steps += 1;
        if steps > MAX_STEPS {
            return true;
        }
        match (resolve(&bindings, x), resolve(&bindings, y)) {
            (Node::Rule(s, Term::Var(v)), Node::Rule(t, Term::Var(w))) if s == t && v == w => {}
            (Node::Rule(s, Term::Var(v)), other) | (other, Node::Rule(s, Term::Var(v))) => {
                bindings.insert((s, *v), other);
            }
            (Node::Ground(g), Node::Ground(h)) => {
                if g != h {
                    return false;
                }
            }
            (Node::Ground(g), Node::Rule(s, Term::Func(f, args)))
            | (Node::Rule(s, Term::Func(f, args)), Node::Ground(g)) => {
                if g as usize >= terms.len() {
                    return true;
                }
                match terms.term(g) {
                    GroundTerm::Func(h, ids) if h == f && ids.len() == args.len() => pending
                        .extend(
                            ids.iter()
                                .zip(args.iter())
                                .map(|(&id, arg)| (Node::Ground(id), Node::Rule(s, arg))),
                        ),
                    _ => return false,
                }
            }
            (Node::Rule(s, Term::Func(f, xs)), Node::Rule(t, Term::Func(g, ys))) => {
                if f != g || xs.len() != ys.len() {
                    return false;
                }
                pending.extend(
                    xs.iter()
                        .zip(ys.iter())
                        .map(|(x, y)| (Node::Rule(s, x), Node::Rule(t, y))),
                );
            }
            // `resolve` turns ground rule terms into `Node::Ground`.
            (Node::Rule(_, Term::Ground(_)), _) | (_, Node::Rule(_, Term::Ground(_))) => {}
        }
    }
    true
}

/// `node` with bound variables followed to what they are bound to.
fn resolve<'a>(bindings: &HashMap<(Side, VarId), Node<'a>>, mut node: Node<'a>) -> Node<'a> {
    loop {
        match node {
            Node::Rule(s, Term::Var(v)) => match bindings.get(&(s, *v)) {
                Some(&bound) => node = bound,
                None => return node,
            },
            Node::Rule(_, Term::Ground(id)) => return Node::Ground(*id),
            _ => return node,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::unifiable;
    use crate::program::{GroundTerm, Term, Terms};

    #[test]
    fn constants_variables_and_functions() {
        let mut terms = Terms::default();
        let a = terms.constant(0);
        let b = terms.constant(1);
        let fa = terms.intern(GroundTerm::Func(2, Box::new([a])));
        let (x, y) = (Term::Var(0), Term::Var(1));
        let g = |t: u32| Term::Ground(t);
        let f = |t: Term| Term::Func(2, Box::new([t]));
        assert!(unifiable(&terms, &[x.clone(), g(a)], &[x.clone(), g(a)]));
        assert!(!unifiable(&terms, &[x.clone(), g(a)], &[y.clone(), g(b)]));
        // p(X, X) and p(a, b): X cannot be both.
        assert!(!unifiable(&terms, &[x.clone(), x.clone()], &[g(a), g(b)]));
        // p(X, X) and p(Y, b) (renamed apart): X = Y = b.
        assert!(unifiable(
            &terms,
            &[x.clone(), x.clone()],
            &[x.clone(), g(b)]
        ));
        assert!(unifiable(&terms, &[f(x.clone())], &[g(fa)]));
        assert!(!unifiable(&terms, &[f(x.clone())], &[g(a)]));
        assert!(!unifiable(&terms, &[f(g(b))], &[g(fa)]));
        // No occurs check: X and f(X) count as unifiable, erring on the safe side.
        assert!(unifiable(
            &terms,
            &[x.clone(), x.clone()],
            &[y.clone(), f(y.clone())]
        ));
    }
}
