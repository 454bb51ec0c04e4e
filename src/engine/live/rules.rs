//! A version of a game as live rules: each rule of P+ planned, put in the token space, and
//! given a key that says when two versions hold the same rule.

use super::space::Mapping;
use crate::engine::pattern::{pattern, Pattern};
use crate::engine::plan::{Kinds, Memo, Part, Plan, RulePlan, Step};
use crate::engine::stats::Stats;
use crate::program::encoding::Encoding;
use crate::program::{Builtin, Literal, Program, RelId};

/// One rule of a version, ready to run live.
pub struct Candidate {
    /// Equal keys mean the same rule, evaluated the same way.
    pub key: RuleKey,
    /// The plan, in the space.
    pub plan: RulePlan,
    /// The program rule it comes from, if its instances are part of the ground program.
    pub instances: Option<usize>,
}

/// What makes two versions' rules the same, evaluated the same way: head, body literals (in
/// the space, each with how it is evaluated, in a canonical order) and the literals its
/// instances keep. Compared as data, not spelled: every rule of every version gets one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleKey {
    recursive: bool,
    head_rel: RelId,
    head: Pattern,
    vars: usize,
    /// Sorted.
    literals: Vec<LiteralKey>,
}

impl RuleKey {
    /// The relation of the rule's head (in the space).
    pub fn head_rel(&self) -> RelId {
        self.head_rel
    }
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

/// A version's rules of P+ planned.
pub struct Planned {
    /// The plans of the exact relations, of the certain atoms and of the rest.
    plans: [Plan; 3],
}

/// The rules of P+ for `program` (exact relations first, its relations' `kinds` known),
/// planned with `stats` (and the plans `memo` remembers for them).
pub fn plan(
    program: &Program,
    encoding: &Encoding,
    stats: (&Stats, Option<&Memo>),
    kinds: &Kinds,
) -> Planned {
    if let Some(memo) = stats.1 {
        memo.begin();
    }
    let plans = [Part::Exact, Part::Certain, Part::Rest]
        .map(|p| Plan::with_kinds(program, encoding, p, stats, kinds));
    Planned { plans }
}

/// A version's rules in the space of `mapping`: the keys of the rules that give the exact
/// relations and the certain atoms (sorted: equal lists give equal atoms, which the dataflow
/// is given rather than derives), and the candidates of every other rule of `planned` (for
/// `program`, with `exact` as planned).
pub fn candidates(
    planned: Planned,
    program: &Program,
    encoding: &Encoding,
    mapping: &Mapping,
    exact: &[bool],
) -> (Vec<RuleKey>, Vec<Candidate>) {
    let [exact_plan, certain_plan, rest] = planned.plans;
    let mut given: Vec<RuleKey> = (exact_plan.rules.into_iter().chain(certain_plan.rules))
        .map(|rule| key(&translate(rule, mapping), Vec::new()))
        .collect();
    given.sort_unstable();
    let mut out = Vec::new();
    for rule in rest.rules {
        // The rest's heads are never exact: a rule with a source has instances.
        let instances = rule.source;
        let plan = translate(rule, mapping);
        let mut kept = Vec::new();
        if let Some(source) = instances {
            for literal in &program.rules[source].body {
                if let Literal::Pos(a) | Literal::Neg(a) = literal {
                    if !exact[a.rel as usize] {
                        let negated = matches!(literal, Literal::Neg(_));
                        let mut p = pattern(program, encoding, &a.args);
                        mapping.translate(&mut p);
                        kept.push(LiteralKey::Kept(negated, mapping.relation(a.rel), p));
                    }
                }
            }
        }
        out.push(Candidate {
            key: key(&plan, kept),
            plan,
            instances,
        });
    }
    (given, out)
}

/// The key of `plan` (in the space), with the literals `kept` its instances keep.
fn key(plan: &RulePlan, mut literals: Vec<LiteralKey>) -> RuleKey {
    literals.extend(plan.steps.iter().map(describe));
    literals.sort_unstable();
    RuleKey {
        recursive: plan.recursive,
        head_rel: plan.head_rel,
        head: plan.head.clone(),
        vars: plan.vars,
        literals,
    }
}

/// `plan` with its relations and tokens in the space, changed in place (its lists are the
/// memo's copy, not shared).
fn translate(mut plan: RulePlan, m: &Mapping) -> RulePlan {
    for step in &mut plan.steps {
        match step {
            Step::Join { rel, pattern, .. } | Step::Antijoin { rel, pattern } => {
                *rel = m.relation(*rel);
                m.translate(pattern);
            }
            Step::Filter { args, .. } | Step::Compute { args, .. } => {
                args.iter_mut().for_each(|a| m.translate(a));
            }
        }
    }
    plan.head_rel = m.relation(plan.head_rel);
    m.translate(&mut plan.head);
    plan
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
