//! Planning: the relaxed program P+ (GDL.md §2) as a list of rule plans, each an ordered
//! chain of joins, filters and antijoins, grouped into strongly connected components in
//! dependency order.
//!
//! Static relations (those not depending on `true`/`does`) are planned exactly, negation
//! included (antijoins against completed lower strata); dynamic rules drop their negative
//! literals over dynamic relations (the relaxation) but keep those over static relations,
//! which can be decided exactly. That makes S* tighter than S and still sound.

use super::pattern::{pattern, variables, Item, Pattern};
use crate::analysis::Dependencies;
use crate::program::encoding::Encoding;
use crate::program::{Builtin, Literal, Model, Program, RelId, VarId};

/// One step of a rule's chain, applied to the bindings so far.
#[derive(Clone, Debug)]
pub enum Step {
    /// Join with the rows of `rel` matching `pattern`: `key` are the variables already bound
    /// (in key order), `new` those the step binds (appended to the binding in that order).
    Join {
        /// The relation.
        rel: RelId,
        /// Its literal's arguments.
        pattern: Pattern,
        /// Shared variables.
        key: Vec<VarId>,
        /// Newly bound variables.
        new: Vec<VarId>,
    },
    /// Keep bindings for which the built-in holds.
    Filter {
        /// Which built-in.
        op: Builtin,
        /// Its arguments.
        args: Vec<Pattern>,
        /// Whether negated.
        negated: bool,
    },
    /// Drop bindings for which the (static, completed) atom holds.
    Antijoin {
        /// The relation, of a lower stratum.
        rel: RelId,
        /// The atom's arguments, all bound.
        pattern: Pattern,
    },
}

/// A rule of P+, planned.
#[derive(Clone, Debug)]
pub struct RulePlan {
    /// The program rule it comes from, or `None` for the dynamics rules of §2.
    pub source: Option<usize>,
    /// The head relation.
    pub head_rel: RelId,
    /// The head's arguments.
    pub head: Pattern,
    /// The steps, in order; the first `Join` starts from the empty binding.
    pub steps: Vec<Step>,
    /// The variables of the final binding, in order.
    pub binding: Vec<VarId>,
    /// How many variables the rule has.
    pub vars: usize,
    /// Whether the head relation is in a recursive component (its terms may grow).
    pub recursive: bool,
}

/// A strongly connected component of the relaxed dependency graph.
#[derive(Clone, Debug)]
pub struct Component {
    /// Its relations.
    pub relations: Vec<RelId>,
    /// Whether any of its relations depends on itself.
    pub recursive: bool,
    /// The plans (indices into [`Plan::rules`]) whose head is in it.
    pub rules: Vec<usize>,
}

/// The whole relaxed program, planned.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Components in dependency order (every component after those it depends on).
    pub components: Vec<Component>,
    /// Rule plans.
    pub rules: Vec<RulePlan>,
    /// Whether each relation is static and computed exactly (see
    /// [`Dependencies::exact_relations`]); the others are over-approximated.
    pub is_static: Vec<bool>,
    /// The arity of each functor token.
    pub arities: std::sync::Arc<Vec<u32>>,
}

impl Plan {
    /// Plans `program` (classic model).
    pub fn new(program: &Program, encoding: &Encoding) -> Plan {
        let deps = Dependencies::new(program);
        let is_static = deps.exact_relations(program);
        let mut rules = Vec::new();
        for (i, rule) in program.rules.iter().enumerate() {
            let head_static = is_static[rule.head.rel as usize];
            let vars = program.rule_origins[i].var_names.len();
            let mut positives = Vec::new();
            let mut filters = Vec::new();
            for literal in &rule.body {
                match literal {
                    Literal::Pos(a) => positives.push((a.rel, pattern(program, encoding, &a.args))),
                    Literal::Neg(a) if head_static || is_static[a.rel as usize] => {
                        filters.push(Step::Antijoin {
                            rel: a.rel,
                            pattern: pattern(program, encoding, &a.args),
                        })
                    }
                    Literal::Neg(_) => {}
                    Literal::Builtin { op, args, negated } => filters.push(Step::Filter {
                        op: *op,
                        args: args
                            .iter()
                            .map(|t| pattern(program, encoding, std::slice::from_ref(t)))
                            .collect(),
                        negated: *negated,
                    }),
                    Literal::Count { .. } => {}
                }
            }
            let head = pattern(program, encoding, &rule.head.args);
            rules.push(order(
                Some(i),
                rule.head.rel,
                head,
                positives,
                filters,
                vars,
                &is_static,
            ));
        }
        if program.model == Model::Classic {
            for (head, body) in [("true", "init"), ("true", "next")] {
                if let (Some(h), Some(b)) = (program.relation(head, 1), program.relation(body, 1)) {
                    let p = vec![Item::Var(0)];
                    rules.push(order(
                        None,
                        h,
                        p.clone(),
                        vec![(b, p)],
                        Vec::new(),
                        1,
                        &is_static,
                    ));
                }
            }
            if let (Some(h), Some(b)) = (program.relation("does", 2), program.relation("legal", 2))
            {
                let p = vec![Item::Var(0), Item::Var(1)];
                rules.push(order(
                    None,
                    h,
                    p.clone(),
                    vec![(b, p)],
                    Vec::new(),
                    2,
                    &is_static,
                ));
            }
        }
        let mut edges: Vec<Vec<RelId>> = vec![Vec::new(); program.relations.len()];
        for plan in &rules {
            for step in &plan.steps {
                if let Step::Join { rel, .. } | Step::Antijoin { rel, .. } = step {
                    edges[plan.head_rel as usize].push(*rel);
                }
            }
        }
        let mut components: Vec<Component> = crate::analysis::components(&edges)
            .into_iter()
            .map(|relations| {
                let recursive =
                    relations.len() > 1 || edges[relations[0] as usize].contains(&relations[0]);
                Component {
                    relations,
                    recursive,
                    rules: Vec::new(),
                }
            })
            .collect();
        let mut component_of = vec![0; program.relations.len()];
        for (c, comp) in components.iter().enumerate() {
            for &r in &comp.relations {
                component_of[r as usize] = c;
            }
        }
        for (i, plan) in rules.iter_mut().enumerate() {
            let c = component_of[plan.head_rel as usize];
            plan.recursive = components[c].recursive;
            components[c].rules.push(i);
        }
        Plan {
            components,
            rules,
            is_static,
            arities: std::sync::Arc::new(encoding.arities()),
        }
    }
}

/// Orders a rule's literals greedily, without statistics: next comes a literal whose
/// variables are all bound (a semijoin), else one sharing a bound variable, static relations
/// first (they are the small tables: `succ`, `adjacent`), fewest new variables first; only
/// then a literal sharing nothing. Ties go to more shared variables, more constants, source
/// order. Each filter goes right after the join that binds its last variable.
///
/// Preferring a shared dynamic literal over a static one would be a trap: in
/// `line(P) :- true(cell(X1,Y,P)) & succ(X1,X2) & true(cell(X2,Y,P)) & ...` joining the second
/// cell on (Y, P) before `succ` multiplies the bindings by the board width at every step.
fn order(
    source: Option<usize>,
    head_rel: RelId,
    head: Pattern,
    mut positives: Vec<(RelId, Pattern)>,
    mut filters: Vec<Step>,
    vars: usize,
    is_static: &[bool],
) -> RulePlan {
    let mut bound: Vec<VarId> = Vec::new();
    let mut steps = Vec::new();
    place_filters(&mut filters, &bound, &mut steps);
    while !positives.is_empty() {
        let best = (0..positives.len())
            .max_by_key(|&i| {
                let (rel, p) = &positives[i];
                let vs = variables(p);
                let shared = vs.iter().filter(|v| bound.contains(v)).count();
                let new = vs.len() - shared;
                let constants = p.iter().filter(|x| matches!(x, Item::Tok(_))).count();
                let class = match (new, shared, is_static[*rel as usize]) {
                    (0, _, _) => 3,
                    (_, 1.., true) => 2,
                    (_, 1.., false) => 1,
                    _ => 0,
                };
                (class, usize::MAX - new, shared, constants, usize::MAX - i)
            })
            .unwrap_or(0);
        let (rel, pattern) = positives.remove(best);
        let vs = variables(&pattern);
        let key: Vec<VarId> = vs.iter().copied().filter(|v| bound.contains(v)).collect();
        let new: Vec<VarId> = vs.iter().copied().filter(|v| !bound.contains(v)).collect();
        bound.extend(&new);
        steps.push(Step::Join {
            rel,
            pattern,
            key,
            new,
        });
        place_filters(&mut filters, &bound, &mut steps);
    }
    // Filters whose variables no join binds cannot be evaluated (unsafe rules are rejected
    // before planning), so none can be left here.
    debug_assert!(filters.is_empty(), "internal error: unplaced filter");
    RulePlan {
        source,
        head_rel,
        head,
        steps,
        binding: bound,
        vars,
        recursive: false,
    }
}

/// Moves every filter whose variables are all in `bound` to `steps`.
fn place_filters(filters: &mut Vec<Step>, bound: &[VarId], steps: &mut Vec<Step>) {
    let ready = |s: &Step| -> bool {
        let pats: Vec<&Pattern> = match s {
            Step::Filter { args, .. } => args.iter().collect(),
            Step::Antijoin { pattern, .. } => vec![pattern],
            Step::Join { .. } => vec![],
        };
        pats.iter()
            .all(|p| variables(p).iter().all(|v| bound.contains(v)))
    };
    let mut i = 0;
    while i < filters.len() {
        if ready(&filters[i]) {
            steps.push(filters.remove(i));
        } else {
            i += 1;
        }
    }
}
