//! Terms with variables for the reference reasoner: matching them against ground token rows,
//! instantiating them, and unifying two of them.
//!
//! Written apart from `engine/` on purpose: the reference reasoner must not share the code it
//! checks. A [`Pat`] is a tree (a ground subterm is a tree of tokens too), so that one type
//! serves matching, which walks a row left to right, and unification, which needs subterms.

use crate::engine::Row;
use crate::program::encoding::{term_end, Encoding, Token};
use crate::program::{GroundTerm, Program, Term, TermId, VarId};

/// A term of a rule: a variable, or a functor token (integers included) applied to terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Pat {
    /// A variable of the rule.
    Var(VarId),
    /// A functor token and its arguments (none for constants and integers).
    App(Token, Box<[Pat]>),
}

impl Pat {
    /// The pattern of a program term. A functor the encoding lacks (impossible for a program's
    /// own terms) becomes a token no row contains.
    pub fn new(program: &Program, encoding: &Encoding, term: &Term) -> Pat {
        match term {
            Term::Var(v) => Pat::Var(*v),
            Term::Ground(id) => ground(program, encoding, *id),
            Term::Func(sym, args) => Pat::App(
                encoding.get(*sym, args.len() as u32).unwrap_or(Token::MAX),
                args.iter()
                    .map(|a| Pat::new(program, encoding, a))
                    .collect(),
            ),
        }
    }

    /// Calls `f` on every variable occurrence.
    pub fn for_each_var(&self, f: &mut impl FnMut(VarId)) {
        match self {
            Pat::Var(v) => f(*v),
            Pat::App(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }
}

/// The pattern of ground term `id`.
fn ground(program: &Program, encoding: &Encoding, id: TermId) -> Pat {
    match program.terms.term(id) {
        GroundTerm::Const(s) => Pat::App(encoding.get(*s, 0).unwrap_or(Token::MAX), Box::new([])),
        GroundTerm::Func(s, args) => Pat::App(
            encoding.get(*s, args.len() as u32).unwrap_or(Token::MAX),
            args.iter().map(|&a| ground(program, encoding, a)).collect(),
        ),
    }
}

/// Variable bindings during a search, undone by backtracking: each bound variable's value is a
/// slice of one token arena.
#[derive(Debug, Default)]
pub(crate) struct Bindings {
    /// `(start, length)` of each variable's value in `values`; `UNBOUND` if none.
    slots: Vec<(u32, u32)>,
    values: Vec<Token>,
    /// Variables in the order they were bound.
    trail: Vec<VarId>,
}

/// The slot of an unbound variable.
const UNBOUND: (u32, u32) = (u32::MAX, 0);

/// A point to backtrack to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mark {
    trail: usize,
    values: usize,
}

impl Bindings {
    /// No variable of a rule with `vars` variables bound.
    pub fn reset(&mut self, vars: usize) {
        self.slots.clear();
        self.slots.resize(vars, UNBOUND);
        self.values.clear();
        self.trail.clear();
    }

    /// The current point, to [`undo`](Self::undo) to.
    pub fn mark(&self) -> Mark {
        Mark {
            trail: self.trail.len(),
            values: self.values.len(),
        }
    }

    /// Unbinds every variable bound since `mark`.
    pub fn undo(&mut self, mark: Mark) {
        for &v in &self.trail[mark.trail..] {
            self.slots[v as usize] = UNBOUND;
        }
        self.trail.truncate(mark.trail);
        self.values.truncate(mark.values);
    }

    fn value(&self, v: VarId) -> Option<&[Token]> {
        let (start, len) = self.slots[v as usize];
        (start != u32::MAX).then(|| &self.values[start as usize..(start + len) as usize])
    }

    /// Matches the terms `pats` against the whole of `row`, binding variables; on failure some
    /// variables may be bound: the caller undoes to its mark.
    pub fn match_row(&mut self, pats: &[Pat], row: &[Token], arities: &[u32]) -> bool {
        let mut at = 0;
        for p in pats {
            match self.match_term(p, row, at, arities) {
                Some(end) => at = end,
                None => return false,
            }
        }
        at == row.len()
    }

    /// Matches `pat` against the term at `row[at]`, returning where that term ends.
    fn match_term(
        &mut self,
        pat: &Pat,
        row: &[Token],
        at: usize,
        arities: &[u32],
    ) -> Option<usize> {
        match pat {
            Pat::Var(v) => match self.value(*v) {
                Some(value) => {
                    let end = at + value.len();
                    (row.get(at..end)? == value).then_some(end)
                }
                None => {
                    let end = term_end(row, at, arities)?;
                    self.slots[*v as usize] = (self.values.len() as u32, (end - at) as u32);
                    self.values.extend_from_slice(&row[at..end]);
                    self.trail.push(*v);
                    Some(end)
                }
            },
            Pat::App(token, args) => {
                if row.get(at) != Some(token) {
                    return None;
                }
                let mut at = at + 1;
                for a in args.iter() {
                    at = self.match_term(a, row, at, arities)?;
                }
                Some(at)
            }
        }
    }

    /// Appends the values of `vars` to `out`; `false` if one is unbound.
    pub fn instantiate_vars(&self, vars: &[VarId], out: &mut Row) -> bool {
        vars.iter().all(|&v| match self.value(v) {
            Some(value) => {
                out.extend_from_slice(value);
                true
            }
            None => false,
        })
    }

    /// Appends the tokens of `pats` under the bindings to `out`; `false` (with `out` partly
    /// written) if a variable is unbound.
    pub fn instantiate(&self, pats: &[Pat], out: &mut Row) -> bool {
        pats.iter().all(|p| self.instantiate_term(p, out))
    }

    fn instantiate_term(&self, pat: &Pat, out: &mut Row) -> bool {
        match pat {
            Pat::Var(v) => match self.value(*v) {
                Some(value) => {
                    out.extend_from_slice(value);
                    true
                }
                None => false,
            },
            Pat::App(token, args) => {
                out.push(*token);
                args.iter().all(|a| self.instantiate_term(a, out))
            }
        }
    }
}

/// Whether the argument lists `a` and `b` unify, the variables of `b` renamed apart from those
/// of `a` (`a_vars` of them). With the occurs check: `p(X, f(X))` and `p(Y, Y)` do not unify.
pub(crate) fn unifiable(a: &[Pat], a_vars: usize, b: &[Pat], b_vars: usize) -> bool {
    let mut unifier = Unifier {
        offset: a_vars as u32,
        bound: vec![None; a_vars + b_vars],
    };
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| unifier.unify((x, 0), (y, unifier.offset)))
}

/// A pattern and the offset of its variables.
type Side<'p> = (&'p Pat, u32);

/// A substitution over the variables of two renamed-apart rules.
struct Unifier<'p> {
    offset: u32,
    bound: Vec<Option<Side<'p>>>,
}

impl<'p> Unifier<'p> {
    /// Follows variable bindings until an unbound variable or an application.
    fn resolve(&self, mut side: Side<'p>) -> Side<'p> {
        while let (Pat::Var(v), off) = side {
            match self.bound[(v + off) as usize] {
                Some(next) => side = next,
                None => break,
            }
        }
        side
    }

    fn unify(&mut self, a: Side<'p>, b: Side<'p>) -> bool {
        let (a, b) = (self.resolve(a), self.resolve(b));
        match (a, b) {
            ((Pat::Var(x), xo), (Pat::Var(y), yo)) if x + xo == y + yo => true,
            ((Pat::Var(x), xo), other) | (other, (Pat::Var(x), xo)) => {
                let index = x + xo;
                if self.occurs(index, other) {
                    return false;
                }
                self.bound[index as usize] = Some(other);
                true
            }
            ((Pat::App(f, fa), fo), (Pat::App(g, ga), go)) => {
                f == g
                    && fa.len() == ga.len()
                    && fa
                        .iter()
                        .zip(ga.iter())
                        .all(|(x, y)| self.unify((x, fo), (y, go)))
            }
        }
    }

    fn occurs(&self, index: u32, side: Side<'p>) -> bool {
        match self.resolve(side) {
            (Pat::Var(v), off) => v + off == index,
            (Pat::App(_, args), off) => args.iter().any(|a| self.occurs(index, (a, off))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(t: Token) -> Pat {
        Pat::App(t, Box::new([]))
    }

    fn f(t: Token, args: Vec<Pat>) -> Pat {
        Pat::App(t, args.into_boxed_slice())
    }

    // Functors: 0 = a/0, 1 = b/0, 2 = f/1, 3 = g/2.
    const ARITIES: [u32; 4] = [0, 0, 1, 2];

    #[test]
    fn matching_binds_and_checks_repeated_variables() {
        let mut b = Bindings::default();
        b.reset(2);
        // g(X, X) against g(f(a), f(a)) and g(f(a), f(b))
        let pats = [f(3, vec![Pat::Var(0), Pat::Var(0)])];
        assert!(b.match_row(&pats, &[3, 2, 0, 2, 0], &ARITIES));
        let mut out = Row::new();
        assert!(b.instantiate(&[Pat::Var(0)], &mut out));
        assert_eq!(&out[..], &[2, 0]);
        b.reset(2);
        assert!(!b.match_row(&pats, &[3, 2, 0, 2, 1], &ARITIES));
        // Undo unbinds.
        b.reset(2);
        let mark = b.mark();
        assert!(b.match_row(&[Pat::Var(1)], &[1], &ARITIES));
        b.undo(mark);
        assert!(!b.instantiate(&[Pat::Var(1)], &mut Row::new()));
        // A row longer than the patterns does not match.
        assert!(!b.match_row(&[c(0)], &[0, 1], &ARITIES));
    }

    #[test]
    fn unification_renames_apart_and_checks_occurrences() {
        // p(X, a) ~ p(b, X): the two X are different variables.
        assert!(unifiable(&[Pat::Var(0), c(0)], 1, &[c(1), Pat::Var(0)], 1));
        // p(X, X) ~ p(a, b): no.
        assert!(!unifiable(&[Pat::Var(0), Pat::Var(0)], 1, &[c(0), c(1)], 0));
        // p(X, f(X)) ~ p(Y, Y): occurs check.
        assert!(!unifiable(
            &[Pat::Var(0), f(2, vec![Pat::Var(0)])],
            1,
            &[Pat::Var(0), Pat::Var(0)],
            1
        ));
        // goal(R, 0) ~ goal(R, 100): no.
        assert!(!unifiable(&[Pat::Var(0), c(0)], 1, &[Pat::Var(0), c(1)], 1));
    }
}
