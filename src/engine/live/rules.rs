//! A version of a game as live rules: each rule of P+ planned, placed on its level, put in
//! the token space, and given a key that says when two versions hold the same rule.

use super::space::Mapping;
use crate::analysis::Dependencies;
use crate::engine::pattern::{pattern, Pattern};
use crate::engine::plan::{Part, Plan, RulePlan, Step};
use crate::engine::stats::Stats;
use crate::engine::EngineError;
use crate::program::encoding::Encoding;
use crate::program::{Builtin, Literal, Program, RelId};

/// One rule of a version, ready to run live.
pub struct Candidate {
    /// Equal keys mean the same rule, evaluated the same way.
    pub key: RuleKey,
    /// The plan, in the space.
    pub plan: RulePlan,
    /// Its level.
    pub level: usize,
    /// The program rule it comes from, if its instances are part of the ground program.
    pub instances: Option<usize>,
}

/// What makes two versions' rules the same, evaluated the same way: level, head, body
/// literals (in the space, each with how it is evaluated, in a canonical order) and the
/// literals its instances keep. Compared as data, not spelled: every rule of every version
/// gets one.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RuleKey {
    level: usize,
    recursive: bool,
    head_rel: RelId,
    head: Pattern,
    vars: usize,
    /// Sorted.
    literals: Vec<LiteralKey>,
}

/// A literal of a [`RuleKey`], whatever its place in the rule's order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum LiteralKey {
    /// A join with the relation's atoms.
    Pos(RelId, Pattern),
    /// A built-in, computed or tested alike, and whether negated.
    Builtin(Builtin, bool, Vec<Pattern>),
    /// An antijoin with the relation's atoms.
    Neg(RelId, Pattern),
    /// A literal its instances keep, and whether negated.
    Kept(bool, RelId, Pattern),
}

/// A version's rules of P+ planned, with the levels they need.
pub struct Planned {
    /// The plans of the exact relations, of the certain atoms and of the rest.
    plans: [Plan; 3],
    /// Each relation's stratum ([`strata`]).
    strata: Vec<Option<usize>>,
    /// How many levels a live dataflow needs for them: the strata and a top level.
    pub levels: usize,
}

/// The rules of P+ for `program` (exact relations first), planned with `stats`; `exact` says
/// which relations are computed exactly ([`Dependencies::exact_relations`]).
pub fn plan(
    program: &Program,
    encoding: &Encoding,
    stats: &Stats,
    exact: &[bool],
) -> Result<Planned, EngineError> {
    let plans =
        [Part::Exact, Part::Certain, Part::Rest].map(|p| Plan::new(program, encoding, p, stats));
    let strata = strata(&Dependencies::new(program), exact, &plans[1]).ok_or_else(|| {
        EngineError::Unsupported(
            "a live session needs the static relations and certain atoms stratified by \
             negation, below every other relation"
                .into(),
        )
    })?;
    let levels = strata.iter().flatten().max().map_or(0, |&s| s) + 2;
    Ok(Planned {
        plans,
        strata,
        levels,
    })
}

/// The candidates of `planned` (for `program`, with `exact` as planned) in the space of
/// `mapping`, on a live dataflow of `levels` levels, at least [`Planned::levels`]: every
/// relation without a stratum goes on the top one.
pub fn candidates(
    planned: Planned,
    program: &Program,
    encoding: &Encoding,
    mapping: &Mapping,
    exact: &[bool],
    levels: usize,
) -> Vec<Candidate> {
    let Planned { plans, strata, .. } = planned;
    let level = |rel: RelId| strata[rel as usize].unwrap_or(levels - 1);
    let mut out = Vec::new();
    for plan in plans {
        for rule in plan.rules {
            let level = level(rule.head_rel);
            let instances = rule.source.filter(|_| !exact[rule.head_rel as usize]);
            let plan = translate(&rule, mapping);
            let mut literals: Vec<LiteralKey> = plan.steps.iter().map(describe).collect();
            if let Some(source) = instances {
                for literal in &program.rules[source].body {
                    if let Literal::Pos(a) | Literal::Neg(a) = literal {
                        if !exact[a.rel as usize] {
                            let negated = matches!(literal, Literal::Neg(_));
                            let p = mapping.pattern(&pattern(program, encoding, &a.args));
                            literals.push(LiteralKey::Kept(negated, mapping.relation(a.rel), p));
                        }
                    }
                }
            }
            literals.sort_unstable();
            let key = RuleKey {
                level,
                recursive: plan.recursive,
                head_rel: plan.head_rel,
                head: plan.head.clone(),
                vars: plan.vars,
                literals,
            };
            out.push(Candidate {
                key,
                plan,
                level,
                instances,
            });
        }
    }
    out
}

/// Each exact relation's stratum: one above the highest it negates and at least as high as
/// those it uses; then, past the program's relations, each one's certain atoms (the heads
/// of the `certain` plan), by the relations their plans join and antijoin. Every other
/// relation has none: it is on the top level. `None` if the strata do not settle (negation
/// through a cycle) or an exact relation or a certain atom reads the top level.
fn strata(deps: &Dependencies, exact: &[bool], certain: &Plan) -> Option<Vec<Option<usize>>> {
    // (relation, a relation it reads, whether negated).
    let mut reads: Vec<(usize, usize, bool)> = Vec::new();
    for r in (0..exact.len()).filter(|&r| exact[r]) {
        let negated = |u: &RelId| deps.negative[r].contains(u);
        reads.extend(deps.uses[r].iter().map(|u| (r, *u as usize, negated(u))));
    }
    for rule in &certain.rules {
        for step in &rule.steps {
            match step {
                Step::Join { rel, .. } => {
                    reads.push((rule.head_rel as usize, *rel as usize, false))
                }
                Step::Antijoin { rel, .. } => {
                    reads.push((rule.head_rel as usize, *rel as usize, true))
                }
                _ => {}
            }
        }
    }
    let mut stratum: Vec<Option<usize>> = exact.iter().map(|&e| e.then_some(0)).collect();
    stratum.resize(2 * exact.len(), Some(0));
    // Without a cycle through negation no stratum passes the number of relations.
    let most = stratum.len();
    let mut changed = true;
    while changed {
        changed = false;
        for &(r, u, negated) in &reads {
            let need = stratum[u]? + negated as usize;
            if need > stratum[r]? {
                if need > most {
                    return None;
                }
                stratum[r] = Some(need);
                changed = true;
            }
        }
    }
    Some(stratum)
}

/// `plan` with its relations and tokens in the space.
fn translate(plan: &RulePlan, m: &Mapping) -> RulePlan {
    let steps = plan
        .steps
        .iter()
        .map(|step| match step {
            Step::Join {
                rel,
                pattern,
                key,
                new,
            } => Step::Join {
                rel: m.relation(*rel),
                pattern: m.pattern(pattern),
                key: key.clone(),
                new: new.clone(),
            },
            Step::Filter { op, args, negated } => Step::Filter {
                op: *op,
                args: args.iter().map(|a| m.pattern(a)).collect(),
                negated: *negated,
            },
            Step::Compute { op, args, out } => Step::Compute {
                op: *op,
                args: args.iter().map(|a| m.pattern(a)).collect(),
                out: *out,
            },
            Step::Antijoin { rel, pattern } => Step::Antijoin {
                rel: m.relation(*rel),
                pattern: m.pattern(pattern),
            },
        })
        .collect();
    RulePlan {
        head_rel: m.relation(plan.head_rel),
        head: m.pattern(&plan.head),
        steps,
        ..plan.clone()
    }
}

/// A step's literal, whatever its place in the order: what makes two rules the same.
fn describe(step: &Step) -> LiteralKey {
    match step {
        Step::Join { rel, pattern, .. } => LiteralKey::Pos(*rel, pattern.clone()),
        Step::Filter { op, args, negated } => LiteralKey::Builtin(*op, *negated, args.clone()),
        Step::Compute { op, args, .. } => LiteralKey::Builtin(*op, false, args.clone()),
        Step::Antijoin { rel, pattern } => LiteralKey::Neg(*rel, pattern.clone()),
    }
}
