//! A version of a game as live rules: each rule of P+ planned, placed on its level, put in
//! the token space, and given a key that says when two versions hold the same rule.

use super::space::Mapping;
use crate::analysis::Dependencies;
use crate::engine::pattern::pattern;
use crate::engine::plan::{Part, Plan, RulePlan, Step};
use crate::engine::stats::Stats;
use crate::engine::EngineError;
use crate::program::encoding::Encoding;
use crate::program::{Literal, Program, RelId};
use std::fmt::Write;

/// One rule of a version, ready to run live.
pub struct Candidate {
    /// Equal keys mean the same rule, evaluated the same way: level, head, body literals
    /// (in the space, each with how it is evaluated) and the literals its instances keep.
    pub key: String,
    /// The plan, in the space.
    pub plan: RulePlan,
    /// Its level.
    pub level: usize,
    /// The program rule it comes from, if its instances are part of the ground program.
    pub instances: Option<usize>,
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
            let mut key = format!("{level}|{}|{}|", plan.recursive, plan.head_rel);
            let _ = write!(key, "{:?}|{}|", plan.head, plan.vars);
            let mut literals: Vec<String> = plan.steps.iter().map(describe).collect();
            if let Some(source) = instances {
                for literal in &program.rules[source].body {
                    if let Literal::Pos(a) | Literal::Neg(a) = literal {
                        if !exact[a.rel as usize] {
                            let negated = matches!(literal, Literal::Neg(_));
                            let p = mapping.pattern(&pattern(program, encoding, &a.args));
                            let rel = mapping.relation(a.rel);
                            literals.push(format!("kept {negated} {rel} {p:?}"));
                        }
                    }
                }
            }
            literals.sort_unstable();
            key.push_str(&literals.join("|"));
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
fn describe(step: &Step) -> String {
    match step {
        Step::Join { rel, pattern, .. } => format!("pos {rel} {pattern:?}"),
        Step::Filter { op, args, negated } => format!("builtin {op:?} {negated} {args:?}"),
        Step::Compute { op, args, .. } => format!("builtin {op:?} false {args:?}"),
        Step::Antijoin { rel, pattern } => format!("neg {rel} {pattern:?}"),
    }
}
