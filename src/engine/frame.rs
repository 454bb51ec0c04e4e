//! Frame rules out of the loops: a rule `next(F) :- true(F), ...` (the head's fluent is one
//! the body reads from the state, the frame axiom of most games) derives a relation of its own,
//! outside the state's recursive component, evaluated once that component is complete.
//!
//! Why: such a rule adds nothing to the state. Every fluent it derives was read from `true`,
//! so the least fixpoint of `true` is the same without it; but its body often reads a
//! relation that ties two loops into one recursive component. In a game of two timed halves
//! (`next(step1(N)) :- true(step1(N)), game1over` keeps the first half's counter once it is
//! over) the counter, which counts to 50, shared a component with the board, whose hundreds
//! of operators were stepped twice per count. Out of the loop, the counter is a component of
//! three operators and the board's iterates only as long as the board grows.
//!
//! Sound and exact: without the frame rules the state reaches a fixpoint `T'` within `T`
//! (monotone); applied to `T'` they derive fluents already in `T'`, so `T'` is closed under
//! the whole program and equal to `T`. The frame rules' atoms and instances are then those
//! they have over the complete relations, as before; their atoms are the program's `next`
//! atoms ([`Plan::original`]), the same fluents some other rule may derive too (the run
//! merges atoms by program relation). Applied only where nothing but `true`'s copy reads the
//! `next` relation, as in every valid game.

use super::plan::{components, Plan, Step};
use super::split::state_relations;
use crate::program::{Program, RelId};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// `plan` (of `program`, its `true` and `next` perhaps split by fluent) with each frame rule
/// deriving a relation of its own (one per `next` relation).
pub fn detach(mut plan: Plan, program: &Program) -> Plan {
    let Some((truth, next)) = state_relations(program) else {
        return plan;
    };
    let states = states(&plan, truth, next);
    // New ids past every id in use: the plan's, and the program's and their certain ids
    // ([`certain_id`](super::plan::certain_id)), whose relations the run may be given
    // without the plan reading them (snake2p's `base`).
    let mut ids = (plan.rules.iter())
        .flat_map(|rule| rule.reads().chain([rule.head_rel]))
        .chain(plan.renamed.keys().copied())
        .max()
        .map_or(0, |max| max + 1)
        .max(2 * program.relations.len() as RelId);
    let mut frames: BTreeMap<RelId, RelId> = BTreeMap::new();
    for rule in &mut plan.rules {
        let Some(&state) = states.get(&rule.head_rel) else {
            continue;
        };
        let reads_own = |step: &Step| matches!(step, Step::Join { rel, pattern, .. } if *rel == state && *pattern == *rule.head);
        if rule.source.is_none() || !rule.steps.iter().any(reads_own) {
            continue;
        }
        let frame = *frames.entry(rule.head_rel).or_insert_with(|| {
            ids += 1;
            ids - 1
        });
        rule.head_rel = frame;
    }
    if frames.is_empty() {
        return plan;
    }
    for &frame in frames.values() {
        plan.renamed.insert(frame, next);
    }
    plan.components = Arc::new(components(&mut plan.rules, ids as usize));
    plan
}

/// Each relation of `next` (the program's or a part of it) that only the copy into a
/// relation of `truth` reads, with that relation.
fn states(plan: &Plan, truth: RelId, next: RelId) -> BTreeMap<RelId, RelId> {
    let mut states = BTreeMap::new();
    let mut other_readers: BTreeSet<RelId> = BTreeSet::new();
    for rule in &plan.rules {
        let copy = rule
            .copies()
            .filter(|&from| plan.original(from) == next && plan.original(rule.head_rel) == truth);
        match copy {
            Some(from) if !states.contains_key(&from) => {
                states.insert(from, rule.head_rel);
            }
            Some(from) => {
                other_readers.insert(from);
            }
            None => other_readers.extend(rule.reads()),
        }
    }
    states.retain(|from, _| !other_readers.contains(from));
    states
}

#[cfg(test)]
mod tests {
    use super::super::split::tests::{loops, plans};
    use super::*;

    /// A board whose moves wait for a step counter, and the counter's frame rule, which keeps
    /// it once the board is full: the counter's loop reads the board and the board's reads
    /// the counter.
    const GAME: &str = "
        (role r) (init (step 1)) (init (cell 0)) (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
        (<= (legal r (fill ?y)) (true (cell ?x)) (succ ?x ?y) (true (step ?s)))
        (<= (next (cell ?y)) (does r (fill ?y)))
        (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
        (<= (next (step ?x)) (true (step ?x)) full)
        (<= full (true (cell 4)))
        (<= terminal (true (step 4))) (goal r 100)
    ";

    /// The sorted relation names of each recursive component of `plan`, sorted.
    fn sorted_loops(plan: &Plan, program: &crate::program::Program) -> Vec<Vec<String>> {
        let mut all = loops(plan, program);
        all.iter_mut().for_each(|c| c.sort());
        all.sort();
        all
    }

    #[test]
    fn a_frame_rule_leaves_the_loop_it_tied_to_another() {
        let (_, split, program) = plans(GAME);
        let tied = sorted_loops(&split, &program);
        assert_eq!(tied.len(), 1, "{tied:?}");
        assert!(tied[0].contains(&"full".to_string()), "{tied:?}");
        let (_, next) = state_relations(&program).unwrap();
        let detached = detach(split, &program);
        assert_eq!(
            sorted_loops(&detached, &program),
            [vec!["does", "legal", "next", "true"], vec!["next", "true"]]
        );
        // The frame rule alone derives `next` atoms outside every loop.
        let outside: Vec<_> = (detached.components.iter())
            .filter(|c| !c.recursive)
            .flat_map(|c| &c.rules)
            .filter(|&&r| detached.original(detached.rules[r].head_rel) == next)
            .collect();
        assert_eq!(outside.len(), 1);
        assert_eq!(detached.rules[*outside[0]].steps.len(), 2);
    }

    #[test]
    fn a_rule_that_changes_the_fluent_stays() {
        let changed = GAME.replace(
            "(next (step ?x)) (true (step ?x)) full",
            "(next (step ?x)) (true (step ?y)) (succ ?y ?x) full",
        );
        let (_, split, program) = plans(&changed);
        let (before, renamed) = (sorted_loops(&split, &program), split.renamed.len());
        let detached = detach(split, &program);
        assert_eq!(sorted_loops(&detached, &program), before);
        assert_eq!(detached.renamed.len(), renamed);
    }
}
