//! Lowering a [`Plan`] to differential-dataflow operators.
//!
//! Each component of the relaxed program becomes either plain operators (non-recursive) or an
//! iterative scope with one `Variable` per relation (recursive): differential's incremental
//! fixpoint is semi-naive evaluation. Each rule is a chain of `join_core`s over arrangements
//! keyed by the bound variables; arrangements are shared between literals of the same shape
//! in the same scope. The bindings a rule's chain produces are its ground instances.
//!
//! Invariant: every worker builds the same operators in the same order (timely connects
//! workers' operators by creation order), so nothing here iterates over a `HashMap`.

use super::pattern::{depth, variables, Pattern, Ranges, Row};
use super::plan::{Plan, RulePlan, Step};
use super::shape::Shape;
use super::Limits;
use crate::program::{Builtin, RelId, VarId};
use differential_dataflow::lattice::Lattice;
use differential_dataflow::operators::arrange::{Arranged, TraceAgent};
use differential_dataflow::operators::iterate::Variable;
use differential_dataflow::trace::implementations::ValSpine;
use differential_dataflow::VecCollection;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use timely::dataflow::Scope;
use timely::order::Product;
use timely::progress::Timestamp;

/// Multiplicities of records.
pub type Diff = isize;
/// A collection of rows (atoms of one relation, or bindings of one rule).
pub type Rows<'s, T> = VecCollection<'s, T, Row, Diff>;
/// Rows arranged by a key row.
type Keyed<'s, T> = Arranged<'s, TraceAgent<ValSpine<Row, Row, T, Diff>>>;

/// What the dataflow produces, at the top scope: each relation's atoms and each rule's
/// bindings (ground instances).
pub struct Outputs<'s> {
    /// Atoms of S*, by relation (those the plan has rules for).
    pub relations: BTreeMap<RelId, Rows<'s, u32>>,
    /// Bindings of each rule plan, by plan index.
    pub instances: Vec<(usize, Rows<'s, u32>)>,
}

/// Builds the whole computation in `scope`; `unit` holds the single empty binding, `given`
/// the relations computed before (which the plan has no rules for).
///
/// The plan's [`supports`](Plan::supports) narrow given relations: each is replaced by its
/// semijoin with its supports before the first rule reads it, if the supports are complete by
/// then (they do not depend on it). For the reduction loop's `does`, supported by `legal`,
/// that applies step 5 within a round, so no round derives from moves that are not legal: the
/// same fixpoint, with less work (`true`'s support, `next`, depends on it and is never ready).
pub fn build<'s>(
    scope: Scope<'s, u32>,
    plan: &Arc<Plan>,
    unit: Rows<'s, u32>,
    given: BTreeMap<RelId, Rows<'s, u32>>,
    limits: &Arc<Limits>,
) -> Outputs<'s> {
    let mut relations = given;
    let mut instances = Vec::new();
    let mut outputs = BTreeMap::new();
    let mut read: BTreeSet<RelId> = BTreeSet::new();
    let mut narrowed = vec![false; plan.supports.len()];
    for component in &plan.components {
        for ((rel, support), done) in plan.supports.iter().zip(&mut narrowed) {
            let ready = support.iter().all(|s| relations.contains_key(s));
            if *done || read.contains(rel) || !ready || !relations.contains_key(rel) {
                continue;
            }
            let supported = support.iter().map(|s| relations[s].clone()).collect();
            let rows = relations[rel].clone().map(|row| (row, ()));
            let kept = rows.semijoin(union(scope, supported)).map(|(row, ())| row);
            relations.insert(*rel, kept);
            *done = true;
        }
        for &r in &component.rules {
            for step in &plan.rules[r].steps {
                if let Step::Join { rel, .. } | Step::Antijoin { rel, .. } = step {
                    read.insert(*rel);
                }
            }
        }
        if !component.recursive {
            let mut ctx = Context::new(plan, limits, unit.clone(), &relations);
            let mut heads = Vec::new();
            for &r in &component.rules {
                let bindings = ctx.bindings(&plan.rules[r]);
                heads.push(ctx.head(&plan.rules[r], bindings.clone()));
                instances.push((r, bindings));
            }
            let rel = component.relations[0];
            let atoms = union(scope, heads);
            relations.insert(rel, atoms.clone());
            outputs.insert(rel, atoms);
            continue;
        }
        let (atoms, bindings) = scope.iterative::<u64, _, _>(|inner| {
            let outer: BTreeMap<RelId, Rows<'_, Product<u32, u64>>> = relations
                .iter()
                .map(|(&r, c)| (r, c.clone().enter(inner)))
                .collect();
            let mut ctx = Context::new(plan, limits, unit.clone().enter(inner), &outer);
            let mut variables = Vec::new();
            for &rel in &component.relations {
                let (var, coll) = Variable::new(inner, Product::new(Default::default(), 1));
                ctx.relations.insert(rel, coll);
                variables.push((rel, var));
            }
            let mut heads: HashMap<RelId, Vec<_>> = HashMap::new();
            let mut bindings = Vec::new();
            for &r in &component.rules {
                let b = ctx.bindings(&plan.rules[r]);
                let h = ctx.head(&plan.rules[r], b.clone());
                heads.entry(plan.rules[r].head_rel).or_default().push(h);
                bindings.push((r, b.leave(scope)));
            }
            let mut atoms = Vec::new();
            for (rel, var) in variables {
                let result = union(inner, heads.remove(&rel).unwrap_or_default());
                var.set(result.clone());
                atoms.push((rel, result.leave(scope)));
            }
            (atoms, bindings)
        });
        relations.extend(atoms.iter().cloned());
        outputs.extend(atoms);
        instances.extend(bindings);
    }
    Outputs {
        relations: outputs,
        instances,
    }
}

/// The distinct union of `parts` (empty if there are none).
fn union<'s, T: Timestamp + Lattice + Ord>(
    scope: Scope<'s, T>,
    parts: Vec<Rows<'s, T>>,
) -> Rows<'s, T> {
    differential_dataflow::collection::concatenate(scope, parts).distinct()
}

/// The operators of one scope: its relations and the arrangements built so far.
struct Context<'s, 'p, T: Timestamp + Lattice + Ord> {
    plan: &'p Arc<Plan>,
    limits: &'p Arc<Limits>,
    unit: Rows<'s, T>,
    relations: BTreeMap<RelId, Rows<'s, T>>,
    /// Arrangements of literal shapes, by canonical shape.
    arranged: HashMap<Shape, Keyed<'s, T>>,
}

impl<'s, 'p, T: Timestamp + Lattice + Ord> Context<'s, 'p, T> {
    fn new(
        plan: &'p Arc<Plan>,
        limits: &'p Arc<Limits>,
        unit: Rows<'s, T>,
        relations: &BTreeMap<RelId, Rows<'s, T>>,
    ) -> Context<'s, 'p, T> {
        Context {
            plan,
            limits,
            unit,
            relations: relations.clone(),
            arranged: HashMap::new(),
        }
    }

    /// The atoms of `rel` in this scope (empty if nothing derives it).
    fn relation(&self, rel: RelId) -> Rows<'s, T> {
        match self.relations.get(&rel) {
            Some(c) => c.clone(),
            None => self.unit.clone().filter(|_| false),
        }
    }

    /// The bindings of `rule`: its chain of steps applied to the empty binding.
    fn bindings(&mut self, rule: &RulePlan) -> Rows<'s, T> {
        let mut bindings = self.unit.clone();
        let mut bound: Vec<VarId> = Vec::new();
        for (i, step) in rule.steps.iter().enumerate() {
            bindings = match step {
                Step::Join {
                    rel, pattern, new, ..
                } if i == 0 => self.scan(*rel, pattern, new, rule.vars),
                Step::Join {
                    rel,
                    pattern,
                    key,
                    new,
                } => self.join(bindings, &bound, *rel, pattern, key, new, rule.vars),
                Step::Filter { op, args, negated } => {
                    self.filter(bindings, &bound, *op, args, *negated, rule.vars)
                }
                Step::Compute { op, args, .. } => {
                    self.compute(bindings, &bound, *op, args, rule.vars)
                }
                Step::Antijoin { rel, pattern } => {
                    self.antijoin(bindings, &bound, *rel, pattern, rule.vars)
                }
            };
            match step {
                Step::Join { new, .. } => bound.extend(new),
                Step::Compute { out, .. } => bound.push(*out),
                _ => {}
            }
        }
        bindings
    }

    /// The first join: the rows of `rel` matching `pattern`, as bindings of `new`.
    fn scan(&self, rel: RelId, pattern: &Pattern, new: &[VarId], vars: usize) -> Rows<'s, T> {
        let arities = self.arities();
        let pattern = pattern.clone();
        let new = new.to_vec();
        let mut ranges = Ranges::new(vars);
        let mut guard = Guard::new(self.limits);
        self.relation(rel).flat_map(move |row: Row| {
            if guard.stop() || !ranges.match_row(&pattern, &row, &arities) {
                return None;
            }
            let mut out = Row::new();
            new.iter()
                .for_each(|&v| ranges.push_value(v, &row, &mut out));
            Some(out)
        })
    }

    /// Extends `bindings` (of `bound`) by joining with `rel`'s rows matching `pattern`.
    #[allow(clippy::too_many_arguments)]
    fn join(
        &mut self,
        bindings: Rows<'s, T>,
        bound: &[VarId],
        rel: RelId,
        pattern: &Pattern,
        key: &[VarId],
        new: &[VarId],
        vars: usize,
    ) -> Rows<'s, T> {
        let shape = Shape::new(rel, pattern, key, new);
        let right = match self.arranged.get(&shape) {
            Some(a) => a.clone(),
            None => {
                let arities = self.arities();
                let (p, k, n) = (pattern.clone(), key.to_vec(), new.to_vec());
                let mut ranges = Ranges::new(vars);
                let arranged = self
                    .relation(rel)
                    .flat_map(move |row: Row| {
                        if !ranges.match_row(&p, &row, &arities) {
                            return None;
                        }
                        let (mut kr, mut nr) = (Row::new(), Row::new());
                        k.iter().for_each(|&v| ranges.push_value(v, &row, &mut kr));
                        n.iter().for_each(|&v| ranges.push_value(v, &row, &mut nr));
                        Some((kr, nr))
                    })
                    .arrange_by_key();
                self.arranged.insert(shape, arranged.clone());
                arranged
            }
        };
        let arities = self.arities();
        let (b, k) = (bound.to_vec(), key.to_vec());
        let mut ranges = Ranges::new(vars);
        let mut guard = Guard::new(self.limits);
        bindings
            .map(move |row: Row| {
                ranges.read_binding(&b, &row, &arities);
                let mut kr = Row::new();
                k.iter().for_each(|&v| ranges.push_value(v, &row, &mut kr));
                (kr, row)
            })
            .arrange_by_key()
            .join_core(right, move |_key, binding: &Row, values: &Row| {
                if guard.stop() {
                    return None;
                }
                let mut out = binding.clone();
                out.extend_from_slice(values);
                Some(out)
            })
    }

    /// Keeps the bindings for which the built-in holds.
    fn filter(
        &self,
        bindings: Rows<'s, T>,
        bound: &[VarId],
        op: Builtin,
        args: &[Pattern],
        negated: bool,
        vars: usize,
    ) -> Rows<'s, T> {
        let arities = self.arities();
        let (b, args) = (bound.to_vec(), args.to_vec());
        let mut ranges = Ranges::new(vars);
        bindings.filter(move |row: &Row| {
            ranges.read_binding(&b, row, &arities);
            super::builtin::holds_for(op, &args, negated, &ranges, row)
        })
    }

    /// Extends each binding by the value of the built-in's one unbound argument (a variable,
    /// which becomes the binding's last), dropping the bindings it has no value for.
    fn compute(
        &self,
        bindings: Rows<'s, T>,
        bound: &[VarId],
        op: Builtin,
        args: &[Pattern],
        vars: usize,
    ) -> Rows<'s, T> {
        let arities = self.arities();
        let (b, args) = (bound.to_vec(), args.to_vec());
        // Which argument is unknown is the plan's, the same for every binding.
        let known: Vec<bool> = args
            .iter()
            .map(|p| variables(p).iter().all(|v| b.contains(v)))
            .collect();
        let mut ranges = Ranges::new(vars);
        bindings.flat_map(move |row: Row| {
            ranges.read_binding(&b, &row, &arities);
            let value = super::builtin::compute_for(op, &args, &known, &ranges, &row)?;
            let mut out = row;
            out.extend_from_slice(&value);
            Some(out)
        })
    }

    /// Drops the bindings for which the atom `rel(pattern)` holds.
    fn antijoin(
        &self,
        bindings: Rows<'s, T>,
        bound: &[VarId],
        rel: RelId,
        pattern: &Pattern,
        vars: usize,
    ) -> Rows<'s, T> {
        let arities = self.arities();
        let (b, p) = (bound.to_vec(), pattern.clone());
        let mut ranges = Ranges::new(vars);
        bindings
            .map(move |row: Row| {
                ranges.read_binding(&b, &row, &arities);
                let mut atom = Row::new();
                ranges.instantiate(&p, &row, &mut atom);
                (atom, row)
            })
            .antijoin(self.relation(rel))
            .map(|(_, row)| row)
    }

    /// The head atoms of `rule` for `bindings`; in recursive components, atoms nested deeper
    /// than the limit are dropped and reported.
    fn head(&self, rule: &RulePlan, bindings: Rows<'s, T>) -> Rows<'s, T> {
        let arities = self.arities();
        let (b, head) = (rule.binding.clone(), rule.head.clone());
        let mut ranges = Ranges::new(rule.vars);
        let check = rule.recursive.then(|| (self.limits.clone(), rule.head_rel));
        let mut guard = Guard::new(self.limits);
        bindings.flat_map(move |row: Row| {
            if guard.stop() {
                return None;
            }
            ranges.read_binding(&b, &row, &arities);
            let mut atom = Row::new();
            ranges.instantiate(&head, &row, &mut atom);
            if let Some((limits, rel)) = &check {
                if depth(&atom, &arities) > limits.max_depth {
                    limits.exceeded(*rel, &atom);
                    return None;
                }
            }
            Some(atom)
        })
    }

    fn arities(&self) -> Arc<Vec<u32>> {
        self.plan.arities.clone()
    }
}

/// Stops an operator's output once the run is stopping, and checks the process's memory every
/// so many records: one step of a large join can allocate gigabytes, so checking between
/// steps alone would notice too late. Once stopped, operators emit nothing more and the run
/// ends quickly (its partial result is thrown away).
pub(super) struct Guard {
    limits: Arc<Limits>,
    count: u32,
}

impl Guard {
    pub(super) fn new(limits: &Arc<Limits>) -> Guard {
        Guard {
            limits: limits.clone(),
            count: 0,
        }
    }

    /// Whether the run is stopping.
    pub(super) fn stop(&mut self) -> bool {
        self.count = self.count.wrapping_add(1);
        if self.count.is_multiple_of(1 << 16) {
            self.limits.check_memory();
        }
        self.limits.stopped()
    }
}
