//! The program rewritten for demand: a demand relation per restricted relation, read by its
//! rules, and the rules that derive the calls.

use super::passing::{passing, vars_of};
use crate::hash::FastSet;
use crate::program::project::push_new;
use crate::program::{Atom, Demand, Literal, Origin, Program, RelId, Rule, Term, VarId};
use crate::syntax::Span;

/// `program` with each relation that `bound` gives positions for restricted by demand over
/// those positions (module doc of [`super`]); `exact` says which relations are computed
/// exactly, whose negations a call's rule may test.
pub fn rewrite(program: &Program, bound: &[Option<Vec<bool>>], exact: &[bool]) -> Program {
    let mut out = program.clone();
    let first = out.relations.len() as RelId;
    let demand: Vec<Option<RelId>> = (bound.iter().enumerate())
        .map(|(r, positions)| {
            let positions = positions.as_ref()?;
            let name = demand_name(program.relation_name(r as RelId), positions);
            let arity = positions.iter().filter(|&&b| b).count();
            Some(out.fresh_relation(&name, arity))
        })
        .collect();
    let calls = Calls {
        bound,
        demand: &demand,
        exact,
    };
    let mut seen: FastSet<Rule> = FastSet::default();
    let mut derived = Vec::new();
    for (i, rule) in program.rules.iter().enumerate() {
        if rule.body.is_empty() {
            continue;
        }
        let origin = &program.rule_origins[i];
        let head = calls.call(&rule.head);
        for (call, spans) in calls.rules(rule, origin, head.as_ref()) {
            if seen.insert(call.clone()) {
                let call_origin = Origin {
                    head_span: spans[0],
                    literal_spans: spans[1..].to_vec(),
                    ..origin.clone()
                };
                derived.push((call, call_origin));
            }
        }
        if let Some(head) = head {
            out.rules[i].body.push(Literal::Pos(head));
            out.rule_origins[i].literal_spans.push(origin.head_span);
        }
    }
    for (rule, origin) in derived {
        out.rules.push(rule);
        out.rule_origins.push(origin);
    }
    out.demand = Demand {
        relations: (first..out.relations.len() as RelId).collect(),
        restricted: (bound.iter().enumerate())
            .filter(|(_, b)| b.is_some())
            .map(|(r, _)| r as RelId)
            .collect(),
    };
    if let Some(lowering) = &mut out.lowering {
        lowering.fluents.resize(out.relations.len(), false);
    }
    out
}

/// The name of the demand relation of `relation` over `positions`: stable across versions
/// of a game (a live session matches relations by name), unlike ids.
fn demand_name(relation: &str, positions: &[bool]) -> String {
    let mask: String = positions
        .iter()
        .map(|&b| if b { 'b' } else { 'f' })
        .collect();
    format!("{relation}~{mask}")
}

/// What making the calls of a rule reads.
struct Calls<'a> {
    /// The positions each restricted relation's calls bind.
    bound: &'a [Option<Vec<bool>>],
    /// The demand relation of each restricted relation.
    demand: &'a [Option<RelId>],
    /// Which relations are computed exactly.
    exact: &'a [bool],
}

/// A literal a call's rule may read, with where it is in the source.
type Item = (Literal, Span);

impl Calls<'_> {
    /// The call of `atom` if its relation is restricted: its demand relation over the
    /// arguments at the bound positions.
    fn call(&self, atom: &Atom) -> Option<Atom> {
        let rel = self.demand[atom.rel as usize]?;
        let positions = self.bound[atom.rel as usize].as_ref()?;
        let args = (atom.args.iter().zip(positions))
            .filter(|(_, &b)| b)
            .map(|(t, _)| t.clone())
            .collect();
        Some(Atom { rel, args })
    }

    /// The rules deriving the calls `rule` makes (its head called by `head`), each with the
    /// spans of its head and body literals: a positive literal's from the literals before it
    /// in passing order, a negative one's from the whole body.
    fn rules(&self, rule: &Rule, origin: &Origin, head: Option<&Atom>) -> Vec<(Rule, Vec<Span>)> {
        let span = |i: usize| origin.literal_spans.get(i).copied().unwrap_or(origin.span);
        let head_item = head.map(|h| (Literal::Pos(h.clone()), origin.head_span));
        let known = head.map(|h| vars_of(&h.args)).unwrap_or_default();
        let restricted = |rel: RelId| self.demand[rel as usize].is_some();
        let passes = passing(rule, &known, &restricted);
        let mut out = Vec::new();
        for (k, pass) in passes.iter().enumerate() {
            let Literal::Pos(atom) = &rule.body[pass.literal] else {
                continue;
            };
            let Some(call) = self.call(atom) else {
                continue;
            };
            let before = passes[..k].iter().map(|p| p.literal);
            let mut items: Vec<Item> = head_item.iter().cloned().collect();
            items.extend(before.map(|i| (rule.body[i].clone(), span(i))));
            items.extend(self.tests(rule, &pass.known, usize::MAX, &span));
            out.push(derive(call, items, span(pass.literal)));
        }
        let all = vars_of_body(rule);
        for (j, literal) in rule.body.iter().enumerate() {
            let Literal::Neg(atom) = literal else {
                continue;
            };
            let Some(call) = self.call(atom) else {
                continue;
            };
            let mut items: Vec<Item> = head_item.iter().cloned().collect();
            items.extend(
                passes
                    .iter()
                    .map(|p| (rule.body[p.literal].clone(), span(p.literal))),
            );
            items.extend(self.tests(rule, &all, j, &span));
            out.push(derive(call, items, span(j)));
        }
        out
    }

    /// The built-ins and exact negations of `rule` (but literal `except`) whose variables are
    /// all `known`: what a call's rule may test.
    fn tests(
        &self,
        rule: &Rule,
        known: &[VarId],
        except: usize,
        span: &impl Fn(usize) -> Span,
    ) -> Vec<Item> {
        let within = |terms: &[Term]| vars_of(terms).iter().all(|v| known.contains(v));
        (rule.body.iter().enumerate())
            .filter(|&(i, l)| {
                i != except
                    && match l {
                        Literal::Builtin { args, .. } => within(args),
                        Literal::Neg(a) => self.exact[a.rel as usize] && within(&a.args),
                        _ => false,
                    }
            })
            .map(|(i, l)| (l.clone(), span(i)))
            .collect()
    }
}

/// Every variable of `rule`'s body.
fn vars_of_body(rule: &Rule) -> Vec<VarId> {
    let mut out = Vec::new();
    for literal in &rule.body {
        if let Literal::Pos(a) | Literal::Neg(a) = literal {
            for v in vars_of(&a.args) {
                push_new(&mut out, v);
            }
        }
    }
    out
}

/// The rule `call :- items`, keeping of `items` only what ties to the call's variables (the
/// literals and computing built-ins linked to them through shared variables, and the tests
/// whose variables those bind): a part that shares nothing with the call only says that some
/// binding exists, and dropping it keeps every call. With the spans of its head (`at`) and
/// body.
fn derive(call: Atom, items: Vec<Item>, at: Span) -> (Rule, Vec<Span>) {
    let mut linked = vars_of(&call.args);
    let mut keep = vec![false; items.len()];
    let links = |l: &Literal| match l {
        Literal::Pos(a) => Some(vars_of(&a.args)),
        Literal::Builtin {
            op,
            args,
            negated: false,
        } if computes(*op, args.len()) => Some(vars_of(args)),
        _ => None,
    };
    let mut grown = true;
    while grown {
        grown = false;
        for (k, (literal, _)) in items.iter().enumerate() {
            let Some(vars) = links(literal).filter(|_| !keep[k]) else {
                continue;
            };
            if vars.is_empty() || vars.iter().any(|v| linked.contains(v)) {
                keep[k] = true;
                grown = true;
                vars.into_iter().for_each(|v| push_new(&mut linked, v));
            }
        }
    }
    for (k, (literal, _)) in items.iter().enumerate() {
        if links(literal).is_none() {
            let vars = match literal {
                Literal::Neg(a) => vars_of(&a.args),
                Literal::Builtin { args, .. } => vars_of(args),
                _ => continue,
            };
            keep[k] = vars.iter().all(|v| linked.contains(v));
        }
    }
    let mut spans = vec![at];
    let mut body = Vec::new();
    for ((literal, span), kept) in items.into_iter().zip(keep) {
        if kept && !body.contains(&literal) {
            body.push(literal);
            spans.push(span);
        }
    }
    (Rule { head: call, body }, spans)
}

/// Whether built-in `op` with `arity` arguments can compute one of them (and so links its
/// variables), rather than only test them.
fn computes(op: crate::program::Builtin, arity: usize) -> bool {
    let all = (1u32 << arity.min(8)) - 1;
    op.modes().iter().any(|&mode| u32::from(mode) != all)
}
