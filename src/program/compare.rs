//! Structural equality of programs, independent of interning order, spans and variable names.
//!
//! Used by round-trip tests (parse → print → parse must give the same program); deliberately
//! independent of the writers, so that a writer that drops something cannot hide it.

use super::{Atom, Effect, GroundTerm, Literal, Operation, Program, Rule, Term, TermId};

impl Program {
    /// Whether `self` and `other` have the same model, rules and operations in the same order,
    /// comparing names by spelling (as written: a KIF game printed in infix keeps them) and
    /// variables by position.
    pub fn same_as(&self, other: &Program) -> bool {
        let pair = Pair { a: self, b: other };
        self.model == other.model
            && self.rules.len() == other.rules.len()
            && self.operations.len() == other.operations.len()
            && self
                .rules
                .iter()
                .zip(&other.rules)
                .all(|(x, y)| pair.rule(x, y))
            && self
                .operations
                .iter()
                .zip(&other.operations)
                .all(|(x, y)| pair.operation(x, y))
    }
}

/// Two programs being compared.
struct Pair<'p> {
    a: &'p Program,
    b: &'p Program,
}

impl Pair<'_> {
    fn rule(&self, x: &Rule, y: &Rule) -> bool {
        self.atom(&x.head, &y.head) && self.literals(&x.body, &y.body)
    }

    fn operation(&self, x: &Operation, y: &Operation) -> bool {
        self.term(&x.action, &y.action)
            && self.literals(&x.conditions, &y.conditions)
            && x.effects.len() == y.effects.len()
            && x.effects.iter().zip(&y.effects).all(|(e, f)| match (e, f) {
                (Effect::Add(s), Effect::Add(t))
                | (Effect::Delete(s), Effect::Delete(t))
                | (Effect::Perform(s), Effect::Perform(t)) => self.term(s, t),
                _ => false,
            })
    }

    fn literals(&self, xs: &[Literal], ys: &[Literal]) -> bool {
        xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| self.literal(x, y))
    }

    fn literal(&self, x: &Literal, y: &Literal) -> bool {
        match (x, y) {
            (Literal::Pos(s), Literal::Pos(t)) | (Literal::Neg(s), Literal::Neg(t)) => {
                self.atom(s, t)
            }
            (
                Literal::Builtin {
                    op: o1,
                    args: a1,
                    negated: n1,
                },
                Literal::Builtin {
                    op: o2,
                    args: a2,
                    negated: n2,
                },
            ) => o1 == o2 && n1 == n2 && self.terms(a1, a2),
            (
                Literal::Count {
                    template: t1,
                    condition: c1,
                    result: r1,
                },
                Literal::Count {
                    template: t2,
                    condition: c2,
                    result: r2,
                },
            ) => self.term(t1, t2) && self.literals(c1, c2) && self.term(r1, r2),
            _ => false,
        }
    }

    fn atom(&self, x: &Atom, y: &Atom) -> bool {
        self.a.relation_spelling(x.rel) == self.b.relation_spelling(y.rel)
            && self.terms(&x.args, &y.args)
    }

    fn terms(&self, xs: &[Term], ys: &[Term]) -> bool {
        xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| self.term(x, y))
    }

    fn term(&self, x: &Term, y: &Term) -> bool {
        match (x, y) {
            (Term::Var(v), Term::Var(w)) => v == w,
            (Term::Ground(s), Term::Ground(t)) => self.ground(*s, *t),
            (Term::Func(f, xs), Term::Func(g, ys)) => {
                self.a.symbols.spelling(*f) == self.b.symbols.spelling(*g) && self.terms(xs, ys)
            }
            _ => false,
        }
    }

    fn ground(&self, s: TermId, t: TermId) -> bool {
        match (self.a.terms.term(s), self.b.terms.term(t)) {
            (GroundTerm::Const(c), GroundTerm::Const(d)) => {
                self.a.symbols.spelling(*c) == self.b.symbols.spelling(*d)
            }
            (GroundTerm::Func(f, xs), GroundTerm::Func(g, ys)) => {
                self.a.symbols.spelling(*f) == self.b.symbols.spelling(*g)
                    && xs.len() == ys.len()
                    && xs.iter().zip(ys.iter()).all(|(x, y)| self.ground(*x, *y))
            }
            _ => false,
        }
    }
}
