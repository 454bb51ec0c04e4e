//! Sideways information passing: the order in which a rule's positive literals hand their
//! bindings on, and so which variables are bound when each literal is called.
//!
//! Demand needs an order before any row is known, so it is chosen from the rule alone:
//! literals whose relation is not restricted by demand (static tables, the state, relations
//! computed whole) come first while they share a bound variable, since they bind more of a
//! restricted literal's arguments without being called themselves; a restricted literal
//! comes once nothing else connects, the one with the most bound arguments first; literals
//! sharing nothing come last. The engine orders the rewritten rules again by their rows;
//! this order only says what each call binds.

use crate::program::project::push_new;
use crate::program::{Builtin, Literal, RelId, Rule, Term, VarId};

/// A positive literal of a rule in passing order, with the variables bound before it.
#[derive(Clone, Debug)]
pub struct Pass {
    /// Its index in the rule's body.
    pub literal: usize,
    /// The variables bound when it is called: the head's bound ones, those of the literals
    /// before it, and those the built-ins compute from them.
    pub known: Vec<VarId>,
}

/// The positive literals of `rule` in passing order, starting from the variables `bound` by
/// the call of its head; `restricted` says which relations are restricted by demand.
pub fn passing(rule: &Rule, bound: &[VarId], restricted: &dyn Fn(RelId) -> bool) -> Vec<Pass> {
    let mut known = bound.to_vec();
    computed(rule, &mut known);
    let mut left: Vec<usize> = (rule.body.iter().enumerate())
        .filter(|(_, l)| matches!(l, Literal::Pos(_)))
        .map(|(i, _)| i)
        .collect();
    let mut out = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let best = (0..left.len())
            .min_by_key(|&k| (rank(rule, left[k], &known, restricted), left[k]))
            .expect("a literal is left");
        let literal = left.remove(best);
        out.push(Pass {
            literal,
            known: known.clone(),
        });
        if let Literal::Pos(atom) = &rule.body[literal] {
            atom.args
                .iter()
                .for_each(|t| t.for_each_var(&mut |v| push_new(&mut known, v)));
        }
        computed(rule, &mut known);
    }
    out
}

/// Where literal `i` goes among those left (lower first; see the module doc): unrestricted
/// and bound or connected, then restricted by its unbound arguments, then the rest.
fn rank(rule: &Rule, i: usize, known: &[VarId], restricted: &dyn Fn(RelId) -> bool) -> (u8, usize) {
    let Literal::Pos(atom) = &rule.body[i] else {
        return (u8::MAX, 0);
    };
    let vars = vars_of(&atom.args);
    let shared = vars.iter().filter(|v| known.contains(v)).count();
    let connected = shared > 0 || vars.is_empty();
    let unbound = (atom.args.iter())
        .filter(|t| {
            !vars_of(std::slice::from_ref(t))
                .iter()
                .all(|v| known.contains(v))
        })
        .count();
    match (restricted(atom.rel), connected) {
        (false, true) if shared == vars.len() => (0, 0),
        (false, true) => (1, 0),
        (true, _) if unbound < atom.args.len() => (2, unbound),
        (false, false) => (3, 0),
        (true, _) => (4, 0),
    }
}

/// Adds to `known` the variables the non-negated built-ins of `rule` compute from it (`Z` of
/// `plus(X, Y, Z)` once X and Y are known), until none computes more.
pub fn computed(rule: &Rule, known: &mut Vec<VarId>) {
    loop {
        let mut more = false;
        for literal in &rule.body {
            if let Literal::Builtin {
                op,
                args,
                negated: false,
            } = literal
            {
                if let Some(v) = computable(*op, args, known) {
                    known.push(v);
                    more = true;
                }
            }
        }
        if !more {
            return;
        }
    }
}

/// The variable built-in `op` computes from `args` given `known`: the one argument that is an
/// unknown variable alone, when the known ones are one of the built-in's modes.
fn computable(op: Builtin, args: &[Term], known: &[VarId]) -> Option<VarId> {
    let (mut mask, mut out) = (0u8, None);
    for (i, arg) in args.iter().enumerate() {
        let vars = vars_of(std::slice::from_ref(arg));
        if vars.iter().all(|v| known.contains(v)) {
            mask |= 1 << i;
        } else if let Term::Var(v) = arg {
            if out.replace(*v).is_some() {
                return None;
            }
        } else {
            return None;
        }
    }
    out.filter(|_| op.modes().contains(&mask))
}

/// The variables of `terms`, each once, in order of first occurrence.
pub fn vars_of(terms: &[Term]) -> Vec<VarId> {
    let mut out = Vec::new();
    (terms.iter()).for_each(|t| t.for_each_var(&mut |v| push_new(&mut out, v)));
    out
}
