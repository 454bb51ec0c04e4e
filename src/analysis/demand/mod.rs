//! Demand: only the instances the game can ask for (GDL.md §3.1), as magic sets.
//!
//! Input: a checked program (classic, or an operations game lowered to rules, after local
//! variables were projected). Output: the same program with some relations *restricted*:
//! each restricted relation `p` gets a demand relation over the argument positions that
//! every call of `p` binds, whose atoms are the calls; every rule of `p` reads it, and for
//! every literal over a restricted relation a rule derives its calls from the bindings
//! before it (negative literals call too: their calls are the bindings of the whole body).
//! Evaluated bottom-up, demand and supply form one fixpoint: a restricted relation's atoms
//! are those of S* that some rule calls (R*), and a rule of it has only the instances whose
//! head is called. The game's semantics reads `role`, `init`, `legal`, `next`, `goal` and
//! `terminal` (and an operations game's operations), so those are never restricted, nor are
//! the state, the moves, the exactly computed static relations and the relations with
//! certain atoms ([`crate::analysis::certain`]), whose analyses read every atom.
//!
//! Which relations to restrict: demand costs a relation and a rule per call site, and pays
//! where a rule's instances are a cross product that the calls tie together. So a relation
//! is restricted when one of its rules draws head variables from parts of its body that
//! share no variable (chess's `threatened_with_capture ?owner ?cx ?cy ?x ?y ?ix ?iy`, whose
//! `(coordinate ?ix)` ranges freely although every caller binds all seven arguments), and
//! so is every relation the rules of a restricted relation read, which the calls then
//! reach; a relation one of whose calls binds no argument is not restricted after all, and
//! neither is a seed whose calls leave one of those parts wholly unbound (the cross product
//! would remain).

mod passing;
mod rewrite;
#[cfg(test)]
mod tests;

use crate::analysis::certain::certain_relations;
use crate::analysis::{close_over_reads, each_relation, Dependencies};
use crate::program::{Literal, Program, RelId, Rule, VarId};
use passing::{passing, vars_of};

/// `program` restricted by demand (see the module doc), or `None` when no relation is.
pub fn restrict(program: &Program) -> Option<Program> {
    let exact = Dependencies::new(program).exact_relations(program);
    let candidates = candidates(program, &exact);
    let mut seeds = seeds(program, &candidates);
    let bound = loop {
        if !seeds.iter().any(|&r| r) {
            return None;
        }
        let mut restricted = seeds.clone();
        close_over_reads(program, &candidates, &mut restricted, read);
        let bound = adorn(program, &restricted);
        let cut = cut_seeds(program, &seeds, &bound);
        if cut == seeds {
            break bound;
        }
        seeds = cut;
    };
    if bound.iter().all(Option::is_none) {
        return None;
    }
    Some(rewrite::rewrite(program, &bound, &exact))
}

/// Which relations may be restricted: derived by a rule with a body, neither exact nor with
/// certain atoms, not given by the state or the moves, not read by the game's semantics, and
/// neither defined nor read by an aggregate.
fn candidates(program: &Program, exact: &[bool]) -> Vec<bool> {
    let n = program.relations.len();
    let certain = certain_relations(program, exact);
    let given = program.given_relations();
    let mut root: Vec<bool> = (0..n as RelId)
        .map(|r| program.keyword(r).is_some())
        .collect();
    let mut mark = |r: RelId, _| root[r as usize] = true;
    for rule in &program.dynamics {
        rule.body.iter().for_each(|l| each_relation(l, &mut mark));
    }
    if let Some(lowering) = &program.lowering {
        (lowering.operations.iter()).for_each(|(rel, _)| mark(*rel, false));
    }
    let mut derived = vec![false; n];
    for rule in &program.rules {
        let counts = (rule.body.iter()).any(|l| matches!(l, Literal::Count { .. }));
        if counts {
            mark(rule.head.rel, false);
            (rule.body.iter())
                .filter(|l| matches!(l, Literal::Count { .. }))
                .for_each(|l| each_relation(l, &mut mark));
        }
        derived[rule.head.rel as usize] |= !rule.body.is_empty();
    }
    (0..n)
        .map(|r| derived[r] && !exact[r] && !certain[r] && !given[r] && !root[r])
        .collect()
}

/// The candidates with a rule whose head variables come from parts of its body that share no
/// variable (positive literals and built-ins joined by their variables).
fn seeds(program: &Program, candidates: &[bool]) -> Vec<bool> {
    let mut seeds = vec![false; candidates.len()];
    for rule in &program.rules {
        let h = rule.head.rel as usize;
        if candidates[h] && !seeds[h] && crosses(rule) {
            seeds[h] = true;
        }
    }
    seeds
}

/// Whether the head variables of `rule` fall into two or more parts of its body that share no
/// variable.
fn crosses(rule: &Rule) -> bool {
    parts(rule).len() > 1
}

/// The seeds whose calls cut a cross product: one of their crossing rules has a bound head
/// variable in every part (a part left wholly free would still multiply with the calls, as
/// in ruleDepthExponential, where each level's calls are every value of the level below,
/// and demand would only add its own work).
fn cut_seeds(program: &Program, seeds: &[bool], bound: &[Option<Vec<bool>>]) -> Vec<bool> {
    let mut cut = vec![false; seeds.len()];
    for rule in &program.rules {
        let h = rule.head.rel as usize;
        if !seeds[h] || cut[h] || bound[h].is_none() {
            continue;
        }
        let known = head_known(rule, bound);
        let parts = parts(rule);
        cut[h] = parts.len() > 1 && (parts.iter()).all(|p| p.iter().any(|v| known.contains(v)));
    }
    cut
}

/// The head variables of `rule` grouped by the part of its body they occur in, parts being
/// positive literals and built-ins joined by shared variables.
fn parts(rule: &Rule) -> Vec<Vec<VarId>> {
    let vars = rule.variables();
    let mut parent: Vec<usize> = (0..vars).collect();
    fn find(parent: &mut [usize], v: usize) -> usize {
        let mut root = v;
        while parent[root] != root {
            root = parent[root];
        }
        parent[v] = root;
        root
    }
    for literal in &rule.body {
        let terms = match literal {
            Literal::Pos(a) => &a.args[..],
            Literal::Builtin { args, .. } => &args[..],
            _ => continue,
        };
        let vs = vars_of(terms);
        for pair in vs.windows(2) {
            let (a, b) = (
                find(&mut parent, pair[0] as usize),
                find(&mut parent, pair[1] as usize),
            );
            parent[a] = b;
        }
    }
    let mut parts: std::collections::BTreeMap<usize, Vec<VarId>> = Default::default();
    for v in vars_of(&rule.head.args) {
        parts
            .entry(find(&mut parent, v as usize))
            .or_default()
            .push(v);
    }
    parts.into_values().collect()
}

/// The relation `literal` calls, if it calls one: a positive or a negative literal's.
fn read(literal: &Literal) -> Option<RelId> {
    match literal {
        Literal::Pos(a) | Literal::Neg(a) => Some(a.rel),
        _ => None,
    }
}

/// The argument positions every call of each `restricted` relation binds (`None`: not
/// restricted, since some call binds none): starting from all of them, narrowed by every
/// positive literal's call in passing order ([`passing`]) until nothing narrows. A negative
/// literal binds every argument (the rule is safe), and the dynamics rules call what they
/// read with nothing bound.
fn adorn(program: &Program, restricted: &[bool]) -> Vec<Option<Vec<bool>>> {
    let arity = |r: usize| program.relations[r].arity;
    let mut bound: Vec<Option<Vec<bool>>> = (0..restricted.len())
        .map(|r| restricted[r].then(|| vec![true; arity(r)]))
        .collect();
    loop {
        let mut narrowed = false;
        for rule in program.rules.iter().filter(|r| !r.body.is_empty()) {
            let known = head_known(rule, &bound);
            let is_restricted = |rel: RelId| bound[rel as usize].is_some();
            let passes = passing(rule, &known, &is_restricted);
            for pass in passes {
                let Literal::Pos(atom) = &rule.body[pass.literal] else {
                    continue;
                };
                let Some(positions) = &mut bound[atom.rel as usize] else {
                    continue;
                };
                for (k, arg) in atom.args.iter().enumerate() {
                    let ground = vars_of(std::slice::from_ref(arg))
                        .iter()
                        .all(|v| pass.known.contains(v));
                    if positions[k] && !ground {
                        positions[k] = false;
                        narrowed = true;
                    }
                }
            }
        }
        for rule in &program.dynamics {
            for literal in &rule.body {
                if let Literal::Pos(a) | Literal::Neg(a) = literal {
                    narrowed |= bound[a.rel as usize].take().is_some();
                }
            }
        }
        for positions in bound.iter_mut() {
            if positions.as_ref().is_some_and(|p| !p.contains(&true)) {
                *positions = None;
                narrowed = true;
            }
        }
        if !narrowed {
            return bound;
        }
    }
}

/// The variables of `rule`'s head at the positions its relation's calls bind (none if the
/// relation is not restricted).
fn head_known(rule: &Rule, bound: &[Option<Vec<bool>>]) -> Vec<VarId> {
    match &bound[rule.head.rel as usize] {
        None => Vec::new(),
        Some(positions) => {
            let args = (rule.head.args.iter().zip(positions))
                .filter(|(_, &b)| b)
                .map(|(t, _)| t.clone())
                .collect::<Vec<_>>();
            vars_of(&args)
        }
    }
}
