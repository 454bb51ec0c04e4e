//! Operations lowered to rules: the form in which an operations game (`.hrf`) is grounded.
//!
//! The relaxed program P+ of an operations game (GDL.md §2) says: a fluent is possible if
//! `init` has it or an operation adds it whose action is possible and whose positive
//! conditions are derivable; an action is possible if `legal` derives it or a possible
//! operation performs it; both bounded by the declared `base` and `action` sets where
//! arithmetic computes them (below). Written as rules over the program's own relations plus
//! two kinds of new ones:
//! - `does(A)` (a fresh name if the game uses `does/1`): the performed actions;
//! - one relation per operation rule `A :: C ==> E1 & ... & En` (`operation_K` for the K-th,
//!   counting from 0), whose atoms are its ground instances `op(A, E1, ..., En)`, derived by
//!   the ordinary rule `op(A, E1..En) :- does(A) & C`.
//!   Grounding that rule grounds the operation: each instance is a ground operation whose
//!   body is its conditions.
//!
//! The dynamics rules (never rules of the ground program): `f(X..) :- init(f(X..))`,
//! `f(..) :- op(A, .., f(..), ..)` for every added fluent, `does(A) :- legal(A)`,
//! `does(B) :- op(A, .., B, ..)` for every performed action.
//!
//! Where the declarations bound S*: an added fluent or performed action whose term holds a
//! value that arithmetic computes (a variable only built-ins bind, `N` in
//! `step(M) & plus(M,1,N) ==> step(N)`) must be in `base` or `action` when the game declares
//! that set, as a condition of the operation's rule: that is where the relaxed closure grows
//! forever (skirmish's scores), and an instance adding anything else is not grounded.
//! Everywhere else the closure is finite without them, and they are left out, because many
//! corpus games declare incomplete sets (`init(control(robot))` without a `base` for it,
//! hex7x7's step counter reaching 50 with bases up to 49, chained actions never declared):
//! restricting there would drop reachable atoms, which S* must keep (GDL.md §2: sound).

use super::{Atom, Effect, GroundTerm, Keyword, Literal, Origin, Program, RelId, Rule};
use super::{Sym, Term, VarId};

/// How to read back the relations that lowering adds ([`Program::lowering`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lowering {
    /// The relation of performed actions.
    pub performed: RelId,
    /// Per operation rule of the original, in order: the relation of its instances and the
    /// kind of each effect (its arguments after the action).
    pub operations: Vec<(RelId, Vec<EffectKind>)>,
    /// Whether each relation of `program` is a fluent.
    pub fluents: Vec<bool>,
}

/// What an effect of a ground operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EffectKind {
    /// Adds the fluent.
    Add,
    /// Deletes the fluent.
    Delete,
    /// Performs the action too.
    Perform,
}

impl EffectKind {
    /// Its name in the JSON output.
    pub fn name(self) -> &'static str {
        match self {
            EffectKind::Add => "add",
            EffectKind::Delete => "delete",
            EffectKind::Perform => "perform",
        }
    }
}

impl Lowering {
    /// The operation whose instances relation `rel` holds, if it is one.
    pub fn operation(&self, rel: RelId) -> Option<&[EffectKind]> {
        self.operations
            .iter()
            .find(|(r, _)| *r == rel)
            .map(|(_, kinds)| &kinds[..])
    }
}

/// Lowers the operations of `program` (an operations game, checked) to rules: the program
/// with the operation rules and dynamics rules added and [`Program::lowering`] set (the
/// original's relations keep their ids; the new ones come after them).
pub fn lower_operations(program: &Program) -> Program {
    let mut p = program.clone();
    p.dynamics.clear();
    let declared = |p: &Program, name: &str| {
        p.relation(name, 1)
            .filter(|&r| program.rules.iter().any(|rule| rule.head.rel == r))
    };
    let (base, action) = (declared(&p, "base"), declared(&p, "action"));
    let performed = p.fresh_relation("does", 1);
    let mut signatures: Vec<(Sym, usize)> = program.fluent_signatures().into_iter().collect();
    signatures.sort_unstable_by(|a, b| {
        (program.symbols.name(a.0), a.1).cmp(&(program.symbols.name(b.0), b.1))
    });
    let init = p.relation("init", 1);
    for &(sym, arity) in &signatures {
        let rel = p.relation_of(sym, arity);
        let term = fluent_term(&mut p, sym, arity);
        if let Some(init) = init {
            let body = vec![Literal::Pos(atom(init, term.clone()))];
            let head = Atom {
                rel,
                args: (0..arity as VarId).map(Term::Var).collect(),
            };
            p.dynamics.push(Rule { head, body });
        }
    }
    if let Some(legal) = p
        .relation("legal", 1)
        .filter(|&r| program.keyword(r) == Some(Keyword::Legal))
    {
        let body = vec![Literal::Pos(atom(legal, Term::Var(0)))];
        let head = atom(performed, Term::Var(0));
        p.dynamics.push(Rule { head, body });
    }
    let mut operations = Vec::new();
    for (k, operation) in program.operations.iter().enumerate() {
        let effects: Vec<(EffectKind, &Term)> = operation
            .effects
            .iter()
            .map(|e| match e {
                Effect::Add(t) => (EffectKind::Add, t),
                Effect::Delete(t) => (EffectKind::Delete, t),
                Effect::Perform(t) => (EffectKind::Perform, t),
            })
            .collect();
        let rel = p.fresh_relation(&format!("operation_{k}"), 1 + effects.len());
        let instance = Atom {
            rel,
            args: std::iter::once(&operation.action)
                .chain(effects.iter().map(|(_, t)| *t))
                .cloned()
                .collect(),
        };
        let mut body = vec![Literal::Pos(atom(performed, operation.action.clone()))];
        body.extend(operation.conditions.iter().cloned());
        // Effects with computed values must be in the declared sets: an instance that adds
        // or performs anything else does not exist.
        let computed = computed_variables(operation);
        for &(kind, term) in &effects {
            let mut bounded = false;
            term.for_each_var(&mut |v| bounded |= computed.contains(&v));
            let set = match kind {
                EffectKind::Add => base,
                EffectKind::Perform => action,
                EffectKind::Delete => None,
            };
            if let Some(set) = set.filter(|_| bounded) {
                body.push(Literal::Pos(atom(set, term.clone())));
            }
        }
        let origin = &program.operation_origins[k];
        let mut literal_spans = vec![origin.head_span];
        literal_spans.extend(origin.literal_spans.iter().take(operation.conditions.len()));
        literal_spans.resize(body.len(), origin.span);
        p.rules.push(Rule {
            head: instance.clone(),
            body,
        });
        p.rule_origins.push(Origin {
            literal_spans,
            ..origin.clone()
        });
        for &(kind, term) in &effects {
            let source = vec![Literal::Pos(instance.clone())];
            match kind {
                EffectKind::Add => {
                    if let Some(head) = atom_of(&mut p, term) {
                        p.dynamics.push(Rule { head, body: source });
                    }
                }
                EffectKind::Perform => {
                    let head = atom(performed, term.clone());
                    p.dynamics.push(Rule { head, body: source });
                }
                EffectKind::Delete => {}
            }
        }
        operations.push((rel, effects.iter().map(|(kind, _)| *kind).collect()));
    }
    let mut fluents = vec![false; p.relations.len()];
    for rule in &p.dynamics {
        fluents[rule.head.rel as usize] = rule.head.rel != performed;
    }
    p.lowering = Some(Lowering {
        performed,
        operations,
        fluents,
    });
    p
}

/// The variables of `operation` that only built-ins bind (`N` in `step(M) & plus(M,1,N)`):
/// the values arithmetic computes, which can grow without bound.
fn computed_variables(operation: &super::Operation) -> Vec<VarId> {
    let mut bound = Vec::new();
    operation.action.for_each_var(&mut |v| bound.push(v));
    let mut computed = Vec::new();
    for literal in &operation.conditions {
        match literal {
            Literal::Pos(a) => a
                .args
                .iter()
                .for_each(|t| t.for_each_var(&mut |v| bound.push(v))),
            Literal::Builtin { args, .. } => args
                .iter()
                .for_each(|t| t.for_each_var(&mut |v| computed.push(v))),
            Literal::Neg(_) | Literal::Count { .. } => {}
        }
    }
    computed.retain(|v| !bound.contains(v));
    computed
}

/// The one-argument atom `rel(term)`.
fn atom(rel: RelId, term: Term) -> Atom {
    Atom {
        rel,
        args: Box::new([term]),
    }
}

/// The term `name(X0, ..., Xn-1)` (the constant `name` when `arity` is 0).
fn fluent_term(p: &mut Program, sym: Sym, arity: usize) -> Term {
    if arity == 0 {
        Term::Ground(p.terms.constant(sym))
    } else {
        Term::Func(sym, (0..arity as VarId).map(Term::Var).collect())
    }
}

/// The atom a fluent term stands for: `cell(1, X, b)` → relation `cell`/3 applied to its
/// arguments. `None` for a variable.
fn atom_of(p: &mut Program, term: &Term) -> Option<Atom> {
    let (sym, args): (Sym, Box<[Term]>) = match term {
        Term::Var(_) => return None,
        Term::Func(sym, args) => (*sym, args.clone()),
        Term::Ground(id) => match p.terms.term(*id) {
            GroundTerm::Const(sym) => (*sym, Box::new([])),
            GroundTerm::Func(sym, args) => (*sym, args.iter().map(|&a| Term::Ground(a)).collect()),
        },
    };
    let rel = p.relation_of(sym, args.len());
    Some(Atom { rel, args })
}
