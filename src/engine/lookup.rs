//! Lookups: the joins and antijoins against relations given to a run, as hash-table lookups
//! inside the operator that produces the bindings, instead of differential joins.
//!
//! Why: a relation given to a run (the exact static relations, the certain atoms, the facts)
//! never changes during it, so a join against it needs neither an arrangement of the
//! bindings nor a wait for their frontier: each binding is extended as it comes, in the same
//! operator. In a recursive component every arrangement on the cycle costs each iteration a
//! round of timely's progress tracking; a step counter (`true(step(M)), succ(M, N)`) iterated
//! 200 times paid for its `succ` join's arrangement 200 times. The tables are built once per
//! run and shared by its workers.
//!
//! Not for relations a run changes or narrows: those the reduction loop shrinks, and
//! anything computed in the run itself.

use super::pattern::{Ranges, Row};
use super::plan::{Plan, Step};
use super::run::Tables;
use super::shape::Shape;
use crate::hash::{FastMap, FastSet};
use crate::program::RelId;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// The values a join's literal adds, by the values of its key.
pub type Index = FastMap<Row, Vec<Row>>;

/// A run's lookup tables: one index per literal shape over a given relation, one set per
/// relation a rule negates.
#[derive(Default)]
pub struct Lookups {
    joins: HashMap<Shape, Arc<Index>>,
    sets: HashMap<RelId, Arc<FastSet<Row>>>,
    /// The given relations whose rows are not sorted without repeats, so may hold a row twice.
    repeating: BTreeSet<RelId>,
}

impl Lookups {
    /// The tables for the joins (after the first literal of a chain) and the antijoins of
    /// `plan`'s rules over the relations of `given`, but those the plan narrows by their
    /// [`supports`](Plan::supports) (the reduction loop's `true` and `does`: they shrink
    /// between rounds, and within a round the rules read them narrowed).
    pub fn new(plan: &Plan, given: &Tables) -> Lookups {
        let narrowed = |rel: &RelId| plan.supports.iter().any(|(r, _)| r == rel);
        let fixed = |rel: &RelId| given.contains_key(rel) && !narrowed(rel);
        let mut lookups = Lookups::default();
        for rule in &plan.rules {
            let scan = usize::from(matches!(rule.steps.first(), Some(Step::Join { .. })));
            for step in &rule.steps[scan..] {
                if let Some(shape) = Shape::of(step).filter(|shape| fixed(&shape.rel)) {
                    if lookups.joins.contains_key(&shape) {
                        continue;
                    }
                    let mut ranges = Ranges::new(shape.vars());
                    let mut index = Index::default();
                    for row in &given[&shape.rel] {
                        if let Some((key, new)) = shape.entry(row, &mut ranges, &plan.arities) {
                            index.entry(key).or_default().push(new);
                        }
                    }
                    lookups.joins.insert(shape, Arc::new(index));
                } else if let Step::Antijoin { rel, .. } = step {
                    if fixed(rel) {
                        (lookups.sets.entry(*rel))
                            .or_insert_with(|| Arc::new(given[rel].iter().cloned().collect()));
                    }
                }
            }
        }
        lookups.repeating = (given.iter())
            .filter(|(_, rows)| !rows.is_sorted_by(|a, b| a < b))
            .map(|(&rel, _)| rel)
            .collect();
        lookups
    }

    /// Whether given relation `rel` may hold a row twice (its rows are not sorted without
    /// repeats, as the facts and the atoms of earlier runs are): then a join with it may make
    /// a binding twice.
    pub fn repeats(&self, rel: RelId) -> bool {
        self.repeating.contains(&rel)
    }

    /// The index of a join with literal shape `shape`, if its relation is given.
    pub fn join(&self, shape: &Shape) -> Option<Arc<Index>> {
        self.joins.get(shape).cloned()
    }

    /// The rows of relation `rel`, if it is given and negated.
    pub fn set(&self, rel: RelId) -> Option<Arc<FastSet<Row>>> {
        self.sets.get(&rel).cloned()
    }
}
