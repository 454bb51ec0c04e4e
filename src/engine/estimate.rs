//! The instances a run's rules are expected to make, estimated before it starts.
//!
//! A rule whose body is a large product of known relations (sudoku's static `exactlyFirst`:
//! nine `index` literals, 9·8⁸ instances a rule; laikLee_hex's `isList` over lists of up to
//! 25 of 25 elements) fills the memory limit only after minutes of work, and then the error
//! says nothing about why. Every rule whose literals all read relations with known rows (the
//! facts, and the exact relations of earlier runs) has its instances estimated from those
//! rows along its join order ([`Stats::fanout`] per step, so under the planner's independence
//! assumption); when the estimates together need several times the memory the run may use,
//! the run does not start and the error names the largest rule and the variables that
//! multiply its instances.
//!
//! The estimate ignores filters and negations (it is an upper bound there) and counts only a
//! binding's terms and a row's bookkeeping per instance (a lower bound on the memory); only a
//! clear excess ([`EXCESS`]) stops a run, so that a game that grounds is never refused.

use super::plan::{Plan, RulePlan, Step};
use super::stats::Stats;
use super::EngineError;
use crate::hash::FastMap;
use crate::program::{RelId, VarId};

/// How many times the memory limit the estimated instances must need before a run is
/// refused.
const EXCESS: f64 = 2.0;

/// A rule expected to have too many instances to ground.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// The program rule (an index into its rules).
    pub rule: usize,
    /// Its estimated instances (saturating).
    pub instances: u128,
    /// The variables that multiply them: each join step's new variables with the number of
    /// values it brings per binding before it (steps that bring one or none left out).
    pub factors: Vec<(Vec<VarId>, u64)>,
    /// The estimated bytes of all the run's instances, and the memory limit.
    pub bytes: (u128, u64),
}

/// Refuses the run of `plan` (see the module doc) when the instances of its rules over known
/// rows are expected to need more than [`EXCESS`] times `max_memory`.
pub fn check(plan: &Plan, stats: &Stats, max_memory: Option<u64>) -> Result<(), EngineError> {
    let Some(limit) = max_memory else {
        return Ok(());
    };
    let estimates = estimates(plan, stats);
    let bytes: f64 = (estimates.iter())
        .map(|(rule, e)| e.instances * bytes_per_instance(rule))
        .sum();
    if bytes <= EXCESS * limit as f64 {
        return Ok(());
    }
    // The first of the largest: the rule the others' sizes come from.
    let largest = (estimates.into_iter().rev())
        .filter_map(|(rule, e)| Some((rule.source?, e)))
        .max_by(|a, b| a.1.instances.total_cmp(&b.1.instances));
    let Some((rule, estimate)) = largest else {
        return Ok(());
    };
    Err(EngineError::TooLarge(TooLarge {
        rule,
        instances: estimate.instances as u128,
        factors: (estimate.factors.into_iter())
            .map(|(vars, f)| (vars, f.round() as u64))
            .collect(),
        bytes: (bytes as u128, limit),
    }))
}

/// A rule's estimated instances and the steps that multiply them.
struct Estimate {
    instances: f64,
    factors: Vec<(Vec<VarId>, f64)>,
}

/// The estimates of the rules of `plan` that can be estimated, component by component in
/// dependency order: a rule whose relations have known rows or estimated sizes is estimated,
/// and the relations of a component that is not recursive and whose rules all are get the
/// sum of their instances as their size (at least their atoms).
fn estimates<'p>(plan: &'p Plan, stats: &Stats) -> Vec<(&'p RulePlan, Estimate)> {
    let mut sizes: FastMap<RelId, f64> = FastMap::default();
    let mut out = Vec::new();
    for component in plan.components.iter() {
        let before = out.len();
        for &r in &component.rules {
            let rule = &plan.rules[r];
            if let Some(estimate) = estimate(rule, stats, &sizes) {
                out.push((rule, estimate));
            }
        }
        if component.recursive || out.len() - before < component.rules.len() {
            continue;
        }
        for (rule, estimate) in &out[before..] {
            *sizes.entry(rule.head_rel).or_default() += estimate.instances;
        }
    }
    out
}

/// The estimate of `rule`'s instances, if every relation it joins has known rows or an
/// estimated size (in `sizes`).
fn estimate(rule: &RulePlan, stats: &Stats, sizes: &FastMap<RelId, f64>) -> Option<Estimate> {
    let mut estimate = Estimate {
        instances: 1.0,
        factors: Vec::new(),
    };
    for step in rule.steps.iter() {
        if let Step::Join {
            rel,
            pattern,
            key,
            new,
        } = step
        {
            let fanout = match (stats.knows(*rel), sizes.get(rel)) {
                (true, _) => stats.fanout(*rel, pattern, key),
                (false, Some(&size)) => stats.fanout_of_size(size, pattern, key),
                (false, None) => return None,
            };
            estimate.instances *= fanout;
            if fanout >= 1.5 && !new.is_empty() {
                estimate.factors.push((new.clone(), fanout));
            }
        }
    }
    Some(estimate)
}

/// The least memory an instance of `rule` takes: its binding's terms (four bytes each) and a
/// row's time and count.
fn bytes_per_instance(rule: &RulePlan) -> f64 {
    (4 * rule.binding.len() + 16) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plan::Part;
    use crate::engine::run::facts;
    use crate::load::{load, source_from_bytes};
    use crate::program::encoding::Encoding;
    use crate::syntax::Syntax;
    use std::sync::Arc;

    /// The check of `game`'s exactly computed static rules against `limit` bytes.
    fn checked(game: &str, limit: u64) -> Result<(), EngineError> {
        let source =
            source_from_bytes("game.kif".into(), game.as_bytes().to_vec(), Syntax::Kif).unwrap();
        let game = load(source, Syntax::Kif).unwrap();
        let (program, encoding) = (&game.program, Encoding::new(&game.program));
        let stats = Stats::new(facts(program, &encoding), Arc::new(encoding.arities()));
        let plan = Plan::new(program, &encoding, Part::ExactDerived, &stats);
        check(&plan, &stats, Some(limit))
    }

    /// A game whose static `wide` is every quadruple of ten digits (its `next` is dynamic).
    const WIDE: &str = "(role r) (init (f 1)) (terminal) (goal r 100) (legal r go)
        (d 0) (d 1) (d 2) (d 3) (d 4) (d 5) (d 6) (d 7) (d 8) (d 9)
        (<= (wide ?a ?b ?c ?d) (d ?a) (d ?b) (d ?c) (d ?d))
        (<= (next (f ?a)) (true (f ?a)) (wide ?a ?a ?a ?a))";

    #[test]
    fn a_product_beyond_the_memory_names_its_rule_and_variables() {
        // 10⁴ instances of 32 bytes: 320 kB, more than twice 64 kB.
        let Err(EngineError::TooLarge(large)) = checked(WIDE, 64 << 10) else {
            panic!("the product is refused");
        };
        assert_eq!(large.instances, 10_000);
        assert_eq!(large.factors.len(), 4, "{:?}", large.factors);
        assert!(large
            .factors
            .iter()
            .all(|(vars, f)| vars.len() == 1 && *f == 10));
        assert_eq!(large.bytes, (320_000, 64 << 10));
    }

    #[test]
    fn a_product_within_the_memory_runs() {
        assert_eq!(checked(WIDE, 1 << 20), Ok(()));
    }

    #[test]
    fn relations_derived_in_the_run_have_their_rules_estimates() {
        // `wide` reads `dd`, derived in the same run from the ten digits: ten rows.
        let game = WIDE
            .replace("(d ?a) (d ?b)", "(dd ?a) (dd ?b)")
            .replace("(d 9)", "(d 9) (<= (dd ?x) (d ?x))");
        let Err(EngineError::TooLarge(large)) = checked(&game, 64 << 10) else {
            panic!("the product is refused");
        };
        assert_eq!(large.instances, 10_000);
    }

    #[test]
    fn rules_over_recursive_relations_are_not_estimated() {
        // `dd` is recursive: its size is unknown, and `wide` is not estimated.
        let game = WIDE.replace("(d ?a) (d ?b)", "(dd ?a) (dd ?b)").replace(
            "(d 9)",
            "(d 9) (<= (dd ?x) (d ?x)) (<= (dd ?x) (dd ?x) (d ?x))",
        );
        assert_eq!(checked(&game, 1000), Ok(()));
    }
}
