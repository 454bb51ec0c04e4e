//! The reference reasoner's rules: compiled for evaluation, and ordered into strata.
//!
//! Input: a classic program's rules. Output: [`CompiledRule`]s (patterns, body literals in a
//! greedy evaluation order) and [`Stratum`]s in dependency order, from the *rule* graph: a body
//! literal leads to the rules whose heads it unifies with.

use super::unify::{unifiable, Pat};
use super::ReasonError;
use crate::program::encoding::Encoding;
use crate::program::{Builtin, Literal, Program, RelId, Rule, Term, VarId};
use std::collections::HashMap;

/// A rule ready to evaluate.
#[derive(Debug)]
pub(super) struct CompiledRule {
    /// The head's relation.
    pub head_rel: RelId,
    /// The head's arguments.
    pub head: Vec<Pat>,
    /// The body in evaluation order.
    pub steps: Vec<Step>,
    /// Its number of variables.
    pub vars: usize,
}

/// One literal of a compiled rule body.
#[derive(Debug)]
pub(super) enum Step {
    /// A positive literal, and how it is looked up.
    Match {
        /// The relation.
        rel: RelId,
        /// The arguments.
        args: Vec<Pat>,
        /// How the atoms that match are found.
        lookup: Lookup,
    },
    /// A negative literal.
    Absent {
        /// The relation.
        rel: RelId,
        /// The arguments.
        args: Vec<Pat>,
    },
    /// `distinct(left, right)`, or `not distinct` (equality) when `equal`.
    Distinct {
        /// The first term.
        left: Pat,
        /// The second term.
        right: Pat,
        /// Whether the literal was negated.
        equal: bool,
    },
    /// An arithmetic or comparison built-in (`plus`, `leq`, `same`, …): a test once its
    /// arguments are bound, or, placed where one argument is still an unbound variable and
    /// the others are bound, the computation of that variable.
    Arith {
        /// Which built-in.
        op: Builtin,
        /// Its arguments.
        args: Vec<Pat>,
        /// Whether the literal was negated (then only a test).
        negated: bool,
    },
}

/// How a positive literal finds its atoms, given the variables bound before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Lookup {
    /// Nothing is bound: every atom of the relation is tried.
    Scan,
    /// Some variables are bound: index number `slot`, which maps the values these variables
    /// take in the atoms that match the literal to those atoms, gives the candidates.
    Index {
        /// The bound variables, ascending.
        vars: Vec<VarId>,
        /// The index, numbered across all rules.
        slot: usize,
    },
    /// Every variable is bound: the atom is looked up whole.
    Whole,
}

/// Rules evaluated together to a fixpoint, and the relations of their heads.
#[derive(Debug)]
pub(super) struct Stratum {
    /// Its rules, indexes into the compiled rules.
    pub rules: Vec<usize>,
    /// The relations of their heads, sorted.
    pub heads: Vec<RelId>,
    /// Whether a rule depends on one of the stratum (itself included).
    pub recursive: bool,
}

/// Whether each relation depends on a relation marked in `seeds` (or is one).
pub(super) fn depends(rules: &[CompiledRule], mut marked: Vec<bool>) -> Vec<bool> {
    let mut changed = true;
    while changed {
        changed = false;
        for rule in rules {
            let h = rule.head_rel as usize;
            let uses = |s: &Step| match s {
                Step::Match { rel, .. } | Step::Absent { rel, .. } => marked[*rel as usize],
                Step::Distinct { .. } | Step::Arith { .. } => false,
            };
            if !marked[h] && rule.steps.iter().any(uses) {
                marked[h] = true;
                changed = true;
            }
        }
    }
    marked
}

/// The strata in evaluation order: the facts of static relations, of dynamic ones, of those
/// that depend on `does`, then the strongly connected components of the rule graph (a body
/// literal leads to the rules whose heads it unifies with) in dependency order.
pub(super) fn strata(
    rules: &[CompiledRule],
    is_static: &[bool],
    needs_does: &[bool],
) -> Result<Vec<Stratum>, ReasonError> {
    let (facts, with_body): (Vec<usize>, Vec<usize>) =
        (0..rules.len()).partition(|&r| rules[r].steps.is_empty());
    let mut by_head: HashMap<RelId, Vec<usize>> = HashMap::new();
    for (node, &r) in with_body.iter().enumerate() {
        by_head.entry(rules[r].head_rel).or_default().push(node);
    }
    // Edges between nodes (indexes into `with_body`), and whether through negation.
    let mut edges: Vec<Vec<(usize, bool)>> = vec![Vec::new(); with_body.len()];
    for (node, &r) in with_body.iter().enumerate() {
        let rule = &rules[r];
        for step in &rule.steps {
            let (rel, args, negative) = match step {
                Step::Match { rel, args, .. } => (rel, args, false),
                Step::Absent { rel, args } => (rel, args, true),
                Step::Distinct { .. } | Step::Arith { .. } => continue,
            };
            for &target in by_head.get(rel).into_iter().flatten() {
                let other = &rules[with_body[target]];
                if unifiable(args, rule.vars, &other.head, other.vars) {
                    edges[node].push((target, negative));
                }
            }
        }
    }
    let ids = crate::graph::components(with_body.len(), |v, i| edges[v].get(i).map(|e| e.0));
    let count = ids.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut components: Vec<(Vec<usize>, bool)> = vec![(Vec::new(), false); count];
    for (node, &c) in ids.iter().enumerate() {
        let (members, recursive) = &mut components[c as usize];
        members.push(with_body[node]);
        for &(target, negative) in &edges[node] {
            if ids[target] == c {
                if negative {
                    return Err(ReasonError::Unstratified(format!(
                        "rule {} depends on itself through negation",
                        with_body[node] + 1
                    )));
                }
                *recursive = true;
            }
        }
    }
    // Facts go to three strata: of static relations, of dynamic ones, of those needing `does`.
    let kind = |r: usize| {
        let h = rules[r].head_rel as usize;
        usize::from(!is_static[h]) + usize::from(needs_does[h])
    };
    let mut out: Vec<Stratum> = (0..3)
        .map(|k| {
            Stratum::new(
                facts.iter().copied().filter(|&r| kind(r) == k).collect(),
                rules,
                false,
            )
        })
        .collect();
    for (members, recursive) in components {
        let recursive = recursive || members.len() > 1;
        out.push(Stratum::new(members, rules, recursive));
    }
    Ok(out)
}

impl Stratum {
    /// The stratum of `members`, indexes into `rules`.
    fn new(members: Vec<usize>, rules: &[CompiledRule], recursive: bool) -> Stratum {
        let mut heads: Vec<RelId> = members.iter().map(|&r| rules[r].head_rel).collect();
        heads.sort_unstable();
        heads.dedup();
        Stratum {
            rules: members,
            heads,
            recursive,
        }
    }
}

/// Compiles `rule`: patterns, and the body in a greedy evaluation order; `slots` counts the
/// indexes its literals need, across rules. The order takes next the positive literal with the
/// fewest expected matches: `size(rel)^(unbound / variables)` for a relation of `size(rel)`
/// atoms (a literal without unbound variables is a test: 1), ties in source order.
pub(super) fn compile(
    program: &Program,
    encoding: &Encoding,
    rule: &Rule,
    slots: &mut usize,
    size: &dyn Fn(RelId) -> f64,
) -> Result<CompiledRule, ReasonError> {
    let pats = |args: &[Term]| -> Vec<Pat> {
        args.iter()
            .map(|t| Pat::new(program, encoding, t))
            .collect()
    };
    let head = pats(&rule.head.args);
    let mut vars = 0;
    let mut count = |p: &Pat| p.for_each_var(&mut |v| vars = vars.max(v as usize + 1));
    head.iter().for_each(&mut count);
    let mut positives = Vec::new();
    let mut tests = Vec::new();
    for literal in &rule.body {
        match literal {
            Literal::Pos(a) => positives.push(Step::Match {
                rel: a.rel,
                args: pats(&a.args),
                lookup: Lookup::Scan,
            }),
            Literal::Neg(a) => tests.push(Step::Absent {
                rel: a.rel,
                args: pats(&a.args),
            }),
            Literal::Builtin {
                op: Builtin::Distinct,
                args,
                negated,
            } if args.len() == 2 => tests.push(Step::Distinct {
                left: Pat::new(program, encoding, &args[0]),
                right: Pat::new(program, encoding, &args[1]),
                equal: *negated,
            }),
            Literal::Builtin { op, args, negated } => tests.push(Step::Arith {
                op: *op,
                args: pats(args),
                negated: *negated,
            }),
            Literal::Count { .. } => {
                return Err(ReasonError::Unsupported(
                    "`countofall` is not evaluated yet".into(),
                ))
            }
        }
    }
    for step in positives.iter().chain(&tests) {
        step_vars(step)
            .iter()
            .for_each(|&v| vars = vars.max(v as usize + 1));
    }
    let mut bound = vec![false; vars];
    let mut steps = Vec::with_capacity(positives.len() + tests.len());
    let unbound =
        |s: &Step, bound: &[bool]| step_vars(s).iter().filter(|&&v| !bound[v as usize]).count();
    loop {
        // Tests go as early as their variables allow, and so do built-ins that compute
        // their last unbound variable (which binds it: start over).
        let mut i = 0;
        while i < tests.len() {
            if unbound(&tests[i], &bound) == 0 {
                steps.push(tests.remove(i));
            } else if let Some(v) = computes(&tests[i], &bound) {
                bound[v as usize] = true;
                steps.push(tests.remove(i));
                i = 0;
            } else {
                i += 1;
            }
        }
        // Then the positive literal with the fewest expected matches.
        let expected = |s: &Step| match s {
            Step::Match { rel, .. } => {
                let all = step_vars(s).len().max(1) as f64;
                size(*rel).max(1.0).powf(unbound(s, &bound) as f64 / all)
            }
            _ => 1.0,
        };
        let Some(best) = (0..positives.len())
            .min_by(|&i, &j| expected(&positives[i]).total_cmp(&expected(&positives[j])))
        else {
            break;
        };
        let mut step = positives.remove(best);
        let free = unbound(&step, &bound);
        if let Step::Match { args, lookup, .. } = &mut step {
            *lookup = lookup_for(args, &bound, free, slots);
        }
        step_vars(&step)
            .iter()
            .for_each(|&v| bound[v as usize] = true);
        steps.push(step);
    }
    // Unsafe leftovers (excluded by the checks) fail when evaluated.
    steps.append(&mut tests);
    Ok(CompiledRule {
        head_rel: rule.head.rel,
        head,
        steps,
        vars,
    })
}

/// The variable a built-in step binds when placed now: its one argument that is an unbound
/// variable alone, when the bound arguments are one of the built-in's modes.
fn computes(step: &Step, bound: &[bool]) -> Option<VarId> {
    let Step::Arith {
        op,
        args,
        negated: false,
    } = step
    else {
        return None;
    };
    let (mut mask, mut out) = (0u8, None);
    for (i, arg) in args.iter().enumerate() {
        let mut free = false;
        arg.for_each_var(&mut |v| free |= !bound[v as usize]);
        match arg {
            _ if !free => mask |= 1 << i,
            Pat::Var(v) if out.is_none() => out = Some(*v),
            _ => return None,
        }
    }
    out.filter(|_| op.modes().contains(&mask))
}

/// How to look up a literal with arguments `args`, `free` of whose variables are unbound;
/// `slots` counts the indexes so far.
fn lookup_for(args: &[Pat], bound: &[bool], free: usize, slots: &mut usize) -> Lookup {
    if free == 0 {
        return Lookup::Whole;
    }
    let mut vars = Vec::new();
    args.iter()
        .for_each(|a| a.for_each_var(&mut |v| vars.extend(bound[v as usize].then_some(v))));
    vars.sort_unstable();
    vars.dedup();
    if vars.is_empty() {
        return Lookup::Scan;
    }
    *slots += 1;
    Lookup::Index {
        vars,
        slot: *slots - 1,
    }
}

/// The variables of a step, each once.
fn step_vars(step: &Step) -> Vec<u32> {
    let mut vars = Vec::new();
    let mut add = |p: &Pat| p.for_each_var(&mut |v| vars.push(v));
    match step {
        Step::Match { args, .. } | Step::Absent { args, .. } => args.iter().for_each(&mut add),
        Step::Distinct { left, right, .. } => {
            add(left);
            add(right);
        }
        Step::Arith { args, .. } => args.iter().for_each(&mut add),
    }
    vars.sort_unstable();
    vars.dedup();
    vars
}
