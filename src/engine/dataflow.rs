//! Lowering a [`Plan`] to differential-dataflow operators.
//!
//! Each component of the relaxed program becomes either plain operators (non-recursive) or an
//! iterative scope (recursive): differential's incremental fixpoint is semi-naive evaluation.
//! Only the relations that close its cycles are `Variable`s ([`loops`]); the others are
//! derived within each iteration. Each rule is a chain of `join_core`s over arrangements keyed
//! by the bound variables, with the built-in steps between them fused into the joins
//! ([`Fused`]); arrangements are shared between literals of the same shape in the same scope.
//! Joins and antijoins against relations given to the run are table lookups instead
//! ([`super::lookup`]), done with the built-ins in the operator before them ([`Pipe`]). The
//! bindings a rule's chain produces are its ground instances.
//!
//! Timely's cost of building and of stepping a scope grows with its operators and its outputs,
//! and for small games with big recursive components that cost dominates the run: hence the
//! few variables, the fused steps, and one stream out of each scope for all its atoms and one
//! for all its bindings. An iterative scope costs a round of progress tracking per step, and
//! every operator on a cycle that waits for its input's frontier (an arrangement, a
//! differential `distinct`) adds a step to each iteration: hence the lookups, the eager
//! `distinct` ([`eager`]), no `distinct` at all for copies ([`Plan::copy_only`]), and on one
//! worker each rule of a recursive component one operator ([`chain`]); a step counter's
//! component iterates in one step per count. In a run without rounds (when nothing is
//! retracted: [`fixpoint::fits`]) a recursive component is instead one operator that computes
//! its fixpoint by itself ([`fixpoint`]): on one worker not a scope at all, on several a scope
//! that iterates only to exchange the atoms each worker derived. On one worker the whole plan
//! is then one such operator, recursive or not: a small game's run was mostly timely building
//! and stepping an operator per rule (ticTicToe 4.4 → 2.9 ms, checkLines 8.9 → 4.6 ms). On
//! several, the components stay apart: a non-recursive rule's differential joins split its
//! work by key, where the fixpoint operator would index every atom on every worker.
//!
//! Invariant: every worker builds the same operators in the same order (timely connects
//! workers' operators by creation order), so nothing here iterates over a `HashMap`.

use super::chain::{self, Keying};
use super::eager::{self, Updates};
use super::fixpoint::{self, Complete};
use super::fused::Fused;
use super::lookup::Lookups;
use super::loops;
use super::pattern::{depth, Ranges, Row};
use super::pipe::{joined, Lookup, Out, Pipe};
use super::plan::{Component, Plan, Step};
use super::shape::Shape;
use super::Limits;
use crate::hash::FastMap;
use crate::program::{RelId, VarId};
use differential_dataflow::collection::concatenate;
use differential_dataflow::hashable::Hashable;
use differential_dataflow::lattice::Lattice;
use differential_dataflow::operators::arrange::arrangement::arrange_core;
use differential_dataflow::operators::arrange::{Arranged, TraceAgent};
use differential_dataflow::operators::iterate::Variable;
use differential_dataflow::trace::implementations::{ValBatcher, ValSpine};
use differential_dataflow::{AsCollection, Data, VecCollection};
use smallvec::smallvec;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::vec::{Broadcast, Partition};
use timely::dataflow::operators::Exchange;
use timely::dataflow::Scope;
use timely::order::Product;
use timely::progress::Timestamp;

/// Multiplicities of records.
pub type Diff = isize;
/// A collection of rows (atoms of one relation, or bindings of one rule).
pub type Rows<'s, T> = VecCollection<'s, T, Row, Diff>;
/// Atoms tagged with their relation.
pub type Atoms<'s, T> = VecCollection<'s, T, (RelId, Row), Diff>;
/// Bindings tagged with the index of their rule plan.
pub type Tagged<'s, T> = VecCollection<'s, T, (usize, Row), Diff>;
/// Rows arranged by a key row.
type Keyed<'s, T> = Arranged<'s, TraceAgent<ValSpine<Row, Row, T, Diff>>>;

/// What the dataflow produces, at the top scope: every atom and every rule's bindings
/// (ground instances), each in one stream tagged by relation or rule.
///
/// One stream each because every stream leaving an iterative scope is an output of that
/// scope, and timely computes the reachability of every output from every location when it
/// builds the scope: with an output per rule and per relation, that build costs more than the
/// run for small games with big recursive components.
pub struct Outputs<'s> {
    /// Atoms of S* with their relation (those the plan has rules for).
    pub atoms: VecCollection<'s, u32, (RelId, Row), Diff>,
    /// The atoms of the relations the plan's supports name, by relation (those it has rules
    /// for).
    pub supports: BTreeMap<RelId, Rows<'s, u32>>,
    /// Bindings with the index of their rule plan, as differential's operators make them:
    /// a binding may come as several updates, on several workers, to be netted.
    pub instances: VecCollection<'s, u32, (usize, Row), Diff>,
    /// Bindings made by the [`fixpoint`] operators: each made once, on one worker, with
    /// multiplicity 1, so they need no netting (nor an exchange to net them).
    pub made_once: VecCollection<'s, u32, (usize, Row), Diff>,
}

/// Builds the whole computation in `scope`; `unit` holds the single empty binding, `given`
/// the relations computed before (which the plan has no rules for), `lookups` the tables of
/// those of them that do not change during the run. With `rounds` the run advances the
/// top-level time (the reduction loop), and the times within an iterative scope are not
/// totally ordered: its relations are made distinct by differential's `distinct`, not the
/// [`eager`](super::eager) one.
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
    lookups: &Arc<Lookups>,
    limits: &Arc<Limits>,
    rounds: bool,
) -> Outputs<'s> {
    let computed_before: BTreeSet<RelId> = given.keys().copied().collect();
    // Recursive components as one operator each, iterating only to exchange atoms between
    // workers ([`fixpoint`]).
    let fixpoints = !rounds && fixpoint::fits(plan, lookups);
    // On one worker the whole plan is one such operator: no operator per rule at all.
    if fixpoints && scope.peers() == 1 && plan.supports.is_empty() {
        let insertions = Some(Updates::Insertions);
        let (atoms, made_once) =
            Context::new(plan, lookups, limits, unit, &given, insertions, Chains::No)
                .fixpoint(scope, &plan.whole());
        return Outputs {
            atoms,
            supports: BTreeMap::new(),
            instances: concat(scope, Vec::new()),
            made_once,
        };
    }
    // Without rounds, every time outside the iterative scopes is 0, and retractions come only
    // from antijoins of relations derived in the run, which `fixpoints` excludes.
    let top_level = Some(match fixpoints {
        true => Updates::Insertions,
        false => Updates::Any,
    });
    let mut relations = given;
    let (mut atoms, mut instances, mut made_once) = (Vec::new(), Vec::new(), Vec::new());
    let mut read: BTreeSet<RelId> = BTreeSet::new();
    let mut narrowed = vec![false; plan.supports.len()];
    // What is read after the component that derives it, and so taken out of its stream.
    let all_reads: Vec<BTreeSet<RelId>> = plan.components.iter().map(|c| reads(plan, c)).collect();
    let needed: BTreeSet<RelId> = (all_reads.iter().flatten().copied())
        .chain(plan.supports.iter().flat_map(|(_, s)| s.iter().copied()))
        .collect();
    for (component, reads) in plan.components.iter().zip(&all_reads) {
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
        read.extend(reads);
        let top = |chains| {
            Context::new(
                plan,
                lookups,
                limits,
                unit.clone(),
                &relations,
                top_level,
                chains,
            )
        };
        if !component.recursive {
            // On several workers a rule's joins are one operator too, each worker taking the
            // bindings of its share of the source rows ([`Chains::Waiting`]).
            let chains = match scope.peers() > 1 && !rounds {
                true => Chains::Waiting,
                false => Chains::No,
            };
            let mut ctx = top(chains);
            let rel = component.relations[0];
            let (derived, tagged, bindings) = ctx.derive(scope, rel, &component.rules);
            match fixpoints && once_each(plan, &component.rules, &computed_before, lookups) {
                true => made_once.push(bindings),
                false => instances.push(bindings),
            }
            atoms.push(tagged);
            relations.insert(rel, derived);
            continue;
        }
        let derived = if fixpoints {
            let (derived, bindings) = top(Chains::No).fixpoint(scope, component);
            made_once.push(bindings);
            derived
        } else {
            let (loops, order) = loops::cut(&component.relations, &edges(plan, component));
            let (derived, bindings) = scope.iterative::<u64, _, _>(|inner| {
                // Only what the component reads enters: every operator counts in the scope.
                let outer: BTreeMap<RelId, Rows<'_, Product<u32, u64>>> = relations
                    .iter()
                    .filter(|(r, _)| reads.contains(r))
                    .map(|(&r, c)| (r, c.clone().enter(inner)))
                    .collect();
                let unit = unit.clone().enter(inner);
                let chains = match scope.peers() == 1 {
                    true => Chains::Streaming,
                    false => Chains::No,
                };
                let eager = (!rounds).then_some(Updates::Any);
                let mut ctx = Context::new(plan, lookups, limits, unit, &outer, eager, chains);
                let mut variables = BTreeMap::new();
                for &rel in &loops {
                    let (var, coll) = Variable::new(inner, Product::new(Default::default(), 1));
                    ctx.relations.insert(rel, coll);
                    variables.insert(rel, var);
                }
                let (mut atoms, mut bindings) = (Vec::new(), Vec::new());
                // The other relations within an iteration, each after those it reads; then the
                // loop relations' next values.
                for &rel in order.iter().chain(&loops) {
                    let rules: Vec<usize> = (component.rules.iter())
                        .filter(|&&r| plan.rules[r].head_rel == rel)
                        .copied()
                        .collect();
                    let (result, tagged, b) = ctx.derive(inner, rel, &rules);
                    bindings.push(b);
                    match variables.remove(&rel) {
                        Some(var) => var.set(result.clone()),
                        None => {
                            ctx.relations.insert(rel, result.clone());
                        }
                    }
                    atoms.push(tagged);
                }
                (
                    concat(inner, atoms).leave(scope),
                    concat(inner, bindings).leave(scope),
                )
            });
            instances.push(bindings);
            derived
        };
        let wanted: Vec<RelId> = (component.relations.iter())
            .filter(|r| needed.contains(r))
            .copied()
            .collect();
        if !wanted.is_empty() {
            relations.extend(split_by_relation(derived.clone(), wanted));
        }
        atoms.push(derived);
    }
    let supports = (plan.supports.iter())
        .flat_map(|(_, s)| s.iter())
        .filter(|s| !computed_before.contains(s))
        .filter_map(|s| Some((*s, relations.get(s)?.clone())))
        .collect();
    Outputs {
        atoms: concat(scope, atoms),
        supports,
        instances: concat(scope, instances),
        made_once: concat(scope, made_once),
    }
}

/// Whether every binding of rule plans `rules` is made at most once in a run without rounds
/// (every update an insertion, the recursive components computed by [`fixpoint`]) that is
/// given the relations `given`: no literal reads a relation that may hold a row twice. A
/// relation derived in the run is made distinct (by a fixpoint or an eager `distinct`), but
/// one derived outside a fixpoint by copies alone ([`Plan::copy_only`]), several of them (as
/// `true` is, from `init` and `next`); a given relation may repeat rows
/// ([`Lookups::repeats`]). Narrowed relations ([`Plan::supports`]) are not judged: their
/// semijoin counts each support.
///
/// Such bindings need no netting ([`tally`](super::tally)): on two workers, sorting
/// amazonsTorus's bindings to net them was 12 % of the engine's samples.
fn once_each(plan: &Plan, rules: &[usize], given: &BTreeSet<RelId>, lookups: &Lookups) -> bool {
    let distinct_given = |rel: RelId| !lookups.repeats(rel);
    let recursive =
        |rel: RelId| (plan.components.iter()).any(|c| c.recursive && c.relations.contains(&rel));
    let distinct = |rel: RelId| {
        if given.contains(&rel) {
            return distinct_given(rel);
        }
        if recursive(rel) {
            return true;
        }
        let derivers: Vec<usize> = (0..plan.rules.len())
            .filter(|&r| plan.rules[r].head_rel == rel)
            .collect();
        match (plan.copy_only(&derivers), &derivers[..]) {
            (false, _) => true,
            (true, &[only]) => (plan.rules[only].copies())
                .is_some_and(|copied| !given.contains(&copied) || distinct_given(copied)),
            (true, _) => false,
        }
    };
    let reads = rules.iter().flat_map(|&r| plan.rules[r].steps.iter());
    plan.supports.is_empty()
        && reads
            .filter_map(|step| match step {
                Step::Join { rel, .. } => Some(*rel),
                _ => None,
            })
            .all(distinct)
}

/// The rows of each relation of `wanted` among `atoms`: one pass that moves each atom to its
/// relation's stream (the others are dropped), where a filter per relation would copy every
/// atom once per relation (on several workers, a component's atoms reach the operators that
/// read them this way; amazonsTorus's filters and copies were a tenth of its dataflow's time).
fn split_by_relation<'s>(
    atoms: Atoms<'s, u32>,
    wanted: Vec<RelId>,
) -> impl Iterator<Item = (RelId, Rows<'s, u32>)> {
    let parts = wanted.len() as u64;
    let part: FastMap<RelId, u64> = (wanted.iter().copied()).zip(0..).collect();
    let route = move |((rel, row), time, diff): ((RelId, Row), u32, Diff)| {
        let i = part.get(&rel).copied().unwrap_or(parts);
        (i, (row, time, diff))
    };
    let streams = atoms.inner.partition(parts + 1, route);
    wanted
        .into_iter()
        .zip(streams.into_iter().map(|s| s.as_collection()))
}

/// The relations the rules of `component` read.
fn reads(plan: &Plan, component: &Component) -> BTreeSet<RelId> {
    (component.rules.iter())
        .flat_map(|&r| plan.rules[r].reads())
        .collect()
}

/// The `(read, head)` pairs between the relations of `component`, one per literal.
fn edges(plan: &Plan, component: &Component) -> Vec<(RelId, RelId)> {
    let mut edges = Vec::new();
    for &r in &component.rules {
        let rule = &plan.rules[r];
        (rule.reads())
            .filter(|rel| component.relations.contains(rel))
            .for_each(|rel| edges.push((rel, rule.head_rel)));
    }
    edges
}

/// The distinct union of `parts` (empty if there are none).
fn union<'s, T: Timestamp + Lattice + Ord>(
    scope: Scope<'s, T>,
    parts: Vec<Rows<'s, T>>,
) -> Rows<'s, T> {
    concat(scope, parts).distinct()
}

/// All of `parts` in one collection; one part is itself (no operator).
fn concat<'s, T: Timestamp + Lattice + Ord, D: Data>(
    scope: Scope<'s, T>,
    mut parts: Vec<VecCollection<'s, T, D, Diff>>,
) -> VecCollection<'s, T, D, Diff> {
    match parts.len() {
        1 => parts.remove(0),
        _ => concatenate(scope, parts),
    }
}

/// `rows`, and the same tagged with `rel`.
fn tagged_by<'s, T: Timestamp>(rel: RelId, rows: Rows<'s, T>) -> (Rows<'s, T>, Atoms<'s, T>) {
    let atoms = rows.clone().map(move |row| (rel, row));
    (rows, atoms)
}

/// Complete bindings, tagged with their rule plan `r`.
fn tagged(r: usize, rows: Out<Row>) -> Out<(usize, Row)> {
    rows.into_iter().map(|row| (r, row)).collect()
}

/// What [`Context::chain`] builds: a rule's complete bindings, or its bindings keyed for the
/// antijoin that follows.
enum Chained<'s, T: Timestamp> {
    Complete(Tagged<'s, T>),
    Keyed(VecCollection<'s, T, (Row, Row), Diff>),
}

/// The chain of `source`'s rows keyed by `first` through `joins` (see [`chain::chain`]): its
/// complete bindings if `last` ends the rule, else (an antijoin follows) the bindings keyed
/// for that antijoin by the last of `between`.
fn chained<'s, T, S>(
    source: VecCollection<'s, T, S, Diff>,
    first: Keying<S>,
    joins: Vec<chain::Join<'s, T>>,
    mut between: Vec<Keying>,
    last: Option<Complete>,
    arities: Arc<Vec<u32>>,
    wait: bool,
) -> Chained<'s, T>
where
    T: Timestamp + Lattice + Ord,
    S: Data,
{
    if let Some(last) = last {
        let bindings = chain::chain(source, first, joins, between, last, arities, wait);
        return Chained::Complete(bindings);
    }
    Chained::Keyed(match between.pop() {
        None => source.flat_map(first),
        Some(keying) => chain::chain(source, first, joins, between, keying, arities, wait),
    })
}

/// Whether a waiting chain partitions its first join by key (the relation's rows and the
/// bindings keyed for it sent to the worker the key's hash names) rather than sending that
/// relation to every worker: when the key has several variables. Every worker indexing all
/// of a big relation had doubled the memory and the index work of ruleDepthExponential's
/// `prereq` rules (2^20 rows, keyed by 19 variables); a key of one variable can take few
/// values (a role, a step), and would bring most bindings to one worker.
fn first_by_key(shape: &Shape) -> bool {
    shape.key.len() >= 2
}

/// What makes a binding of the first literal's variables of a row (`None` if the row does
/// not match the literal).
type Scan = Box<dyn FnMut(Row) -> Option<Row>>;

/// How a rule plan starts (see [`Context::opening`]).
struct Opening<'p> {
    scan: Option<&'p Step>,
    at: usize,
    bound: Vec<VarId>,
    pipe: Pipe,
}

/// A rule plan's joins after its scan (see [`Context::links`]): their literals and what
/// follows each. With `last`, the chain ends after the last join and `between` keys the
/// bindings of each other join for the next; without, an antijoin follows and `between` has
/// one more, which keys the last join's bindings for it.
struct Links {
    joins: Vec<Shape>,
    between: Vec<Keying>,
    last: Option<Complete>,
}

/// The relation a chain starts from (`None`: the unit row) and what makes a binding of the
/// scan's new variables of a row that matches its pattern (see [`Context::source`]).
fn scanner(scan: Option<&Step>, vars: usize, arities: Arc<Vec<u32>>) -> (Option<RelId>, Scan) {
    let Some(Step::Join {
        rel, pattern, new, ..
    }) = scan
    else {
        return (None, Box::new(Some));
    };
    let (pattern, new) = (pattern.clone(), new.clone());
    let mut ranges = Ranges::new(vars);
    let first = move |row: Row| {
        if !ranges.match_row(&pattern, &row, &arities) {
            return None;
        }
        Some(ranges.values(&new, &row))
    };
    (Some(*rel), Box::new(first))
}

/// Where the two sides of a join are arranged.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Placement {
    /// Both partitioned among the workers by the join's key.
    ByKey,
    /// The bindings on the worker that made them, the literal's entries on every worker: for
    /// a join without a key (a ground literal, or a cross product), which by key would bring
    /// every binding to one worker (as queens' goal rules did with `step(9)` after a fan-out
    /// of millions of bindings, one worker busy and the other mostly idle, before such rules
    /// became waiting chains, [`Chains::Waiting`]).
    Here,
}

impl Placement {
    /// Where the sides of a join with literal `shape` go, on `peers` workers.
    fn of(shape: &Shape, peers: usize) -> Placement {
        match shape.key.is_empty() && peers > 1 {
            true => Placement::Here,
            false => Placement::ByKey,
        }
    }

    /// `rows` arranged by their key, where this placement puts them.
    fn arrange<'s, T: Timestamp + Lattice + Ord>(
        self,
        rows: VecCollection<'s, T, (Row, Row), Diff>,
    ) -> Keyed<'s, T> {
        match self {
            Placement::ByKey => rows.arrange_by_key(),
            Placement::Here => arrange_core::<_, _, ValBatcher<Row, Row, T, Diff>, _>(
                rows.inner,
                Pipeline,
                "ArrangeHere",
                ValBatcher::new,
            ),
        }
    }
}

/// The operators of one scope: its relations and the arrangements built so far.
struct Context<'s, 'p, T: Timestamp + Lattice + Ord> {
    plan: &'p Arc<Plan>,
    lookups: &'p Arc<Lookups>,
    limits: &'p Arc<Limits>,
    unit: Rows<'s, T>,
    relations: BTreeMap<RelId, Rows<'s, T>>,
    /// Arrangements of literal shapes, by canonical shape and where they live.
    arranged: HashMap<(Shape, Placement), Keyed<'s, T>>,
    /// Relations sent to every worker, for chains on several workers.
    everywhere: HashMap<RelId, Rows<'s, T>>,
    /// Relations partitioned by the keys of shapes, for waiting chains' first joins.
    by_key: HashMap<Shape, Rows<'s, T>>,
    /// If the scope's times are totally ordered, so that relations can be made distinct
    /// eagerly ([`eager::distinct`]), what updates come there; `None` if they are not.
    eager: Option<Updates>,
    /// Whether a rule's joins are one operator ([`chain`]), and how.
    chains: Chains,
}

/// Whether a rule's joins (up to an antijoin that is not a lookup) are one operator
/// ([`chain`]) rather than differential joins, and how it takes its rows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Chains {
    /// Differential joins.
    No,
    /// One operator that takes every row as it comes: in a recursive component's iterative
    /// scope, on one worker (each join of a chain would need its own exchange on several).
    Streaming,
    /// One operator per worker, outside iterative scopes in a run without rounds, on several
    /// workers: each worker takes every row of the joins' relations and the bindings of its
    /// own source rows, once those relations are complete, so it keeps no binding. Joins by
    /// key had brought skewed shares to the workers and sorted every binding into an
    /// arrangement (queens' goal rules).
    Waiting,
}

impl<'s, 'p, T: Timestamp + Lattice + Ord> Context<'s, 'p, T> {
    fn new(
        plan: &'p Arc<Plan>,
        lookups: &'p Arc<Lookups>,
        limits: &'p Arc<Limits>,
        unit: Rows<'s, T>,
        relations: &BTreeMap<RelId, Rows<'s, T>>,
        eager: Option<Updates>,
        chains: Chains,
    ) -> Context<'s, 'p, T> {
        Context {
            plan,
            lookups,
            limits,
            unit,
            relations: relations.clone(),
            arranged: HashMap::new(),
            everywhere: HashMap::new(),
            by_key: HashMap::new(),
            eager,
            chains,
        }
    }

    /// The atoms of `rel` in this scope on every worker (on several, each has them all).
    fn everywhere(&mut self, rel: RelId) -> Rows<'s, T> {
        if self.unit.scope().peers() == 1 {
            return self.relation(rel);
        }
        if let Some(rows) = self.everywhere.get(&rel) {
            return rows.clone();
        }
        let rows = self.relation(rel).inner.broadcast().as_collection();
        self.everywhere.insert(rel, rows.clone());
        rows
    }

    /// The rows of `shape`'s relation partitioned among the workers by the hash of the values
    /// of the shape's key, as a waiting chain's bindings keyed for it are ([`first_by_key`]):
    /// one exchange per shape. A row that does not match the literal goes to worker 0, which
    /// drops it as any chain does.
    fn by_key(&mut self, shape: &Shape) -> Rows<'s, T> {
        if let Some(rows) = self.by_key.get(shape) {
            return rows.clone();
        }
        let (arities, literal) = (self.arities(), shape.clone());
        let mut ranges = Ranges::new(literal.vars());
        let rows = (self.relation(shape.rel).inner)
            .exchange(move |(row, _, _): &(Row, T, Diff)| {
                let key = literal.key_of(row, &mut ranges, &arities);
                key.map_or(0, |key| key.hashed())
            })
            .as_collection();
        self.by_key.insert(shape.clone(), rows.clone());
        rows
    }

    /// The atoms of `rel` in this scope (empty if nothing derives it).
    fn relation(&self, rel: RelId) -> Rows<'s, T> {
        match self.relations.get(&rel) {
            Some(c) => c.clone(),
            None => self.unit.clone().filter(|_| false),
        }
    }

    /// The bindings of rule plan `r`, tagged with `r`: its chain of steps applied to the empty
    /// binding. Each operator (the first join's scan, a join, an antijoin) also does the
    /// built-in steps and lookups that follow it and keys its output for the next one (see
    /// [`Pipe`]).
    fn bindings(&mut self, r: usize) -> Tagged<'s, T> {
        let plan: &'p Arc<Plan> = self.plan;
        let rule = &plan.rules[r];
        let steps = &rule.steps;
        let Opening {
            scan,
            mut at,
            mut bound,
            mut pipe,
        } = self.opening(r);
        let shared = self.shared(scan, &pipe);
        if shared {
            let scope = self.unit.scope();
            pipe.share(scope.index(), scope.peers());
        }
        if pipe.ends() {
            return self.start(scan, rule.vars, shared, move |row| {
                tagged(r, pipe.apply(row))
            });
        }
        let mut keyed = match self.chains {
            Chains::No => self.start(scan, rule.vars, shared, move |row| pipe.keyed(row)),
            _ => match self.chain(r, scan, pipe, shared, &mut at, &mut bound) {
                Chained::Complete(bindings) => return bindings,
                Chained::Keyed(keyed) => keyed,
            },
        };
        loop {
            // Not the end, so a join or an antijoin that needs an operator.
            let step = &steps[at];
            if let Step::Join { new, .. } = step {
                bound.extend(new);
            }
            at += 1;
            let mut pipe = self.pipe(steps, &mut at, &mut bound, rule.vars);
            if pipe.ends() {
                return self.extend(keyed, step, move |row| tagged(r, pipe.apply(row)));
            }
            keyed = self.extend(keyed, step, move |row| pipe.keyed(row));
        }
    }

    /// How rule plan `r` starts: its scan (its first step, if a join), the steps after it
    /// (from `at`, the variables `bound` by then) and the pipe of those that need no operator.
    fn opening(&self, r: usize) -> Opening<'p> {
        let plan: &'p Arc<Plan> = self.plan;
        let rule = &plan.rules[r];
        let mut bound: Vec<VarId> = Vec::new();
        let scan = match rule.steps.first() {
            Some(Step::Join { new, .. }) => {
                bound.extend(new);
                rule.steps.first()
            }
            _ => None,
        };
        let mut at = usize::from(scan.is_some());
        let pipe = self.pipe(&rule.steps, &mut at, &mut bound, rule.vars);
        Opening {
            scan,
            at,
            bound,
            pipe,
        }
    }

    /// The chain of rule plan `r` up to its first antijoin that is not a lookup, in one
    /// operator ([`chain`], as [`Context::chains`] says): its scan (on every worker if
    /// `shared`, see [`Context::shared`]), then its joins from `at` on (advanced past them),
    /// each with its pipe. Its complete bindings if no such antijoin follows.
    fn chain(
        &mut self,
        r: usize,
        scan: Option<&Step>,
        mut pipe: Pipe,
        shared: bool,
        at: &mut usize,
        bound: &mut Vec<VarId>,
    ) -> Chained<'s, T> {
        let (source, mut matched) = self.source(scan, self.plan.rules[r].vars);
        let source = match shared {
            true => source.inner.broadcast().as_collection(),
            false => source,
        };
        let first: Keying = Box::new(move |row| {
            (matched(row).map(|binding| pipe.keyed(binding))).unwrap_or_default()
        });
        let Links {
            joins,
            between,
            last,
        } = self.links(r, at, bound);
        let wait = self.chains == Chains::Waiting;
        let by_key = wait && joins.first().is_some_and(first_by_key);
        let joins = (joins.into_iter().enumerate())
            .map(|(k, shape)| chain::Join {
                rows: match by_key && k == 0 {
                    true => self.by_key(&shape),
                    false => self.everywhere(shape.rel),
                },
                shape,
            })
            .collect();
        let arities = self.arities();
        if by_key {
            let keyed = (source.flat_map(first).inner)
                .exchange(|((key, _), _, _): &((Row, Row), T, Diff)| key.hashed())
                .as_collection();
            let first = Box::new(|keyed| smallvec![keyed]);
            return chained(keyed, first, joins, between, last, arities, wait);
        }
        chained(source, first, joins, between, last, arities, wait)
    }

    /// The joins of rule plan `r` from `at` on (advanced past them), up to its end or to
    /// its first antijoin that is not a lookup, each with the pipe after it.
    fn links(&mut self, r: usize, at: &mut usize, bound: &mut Vec<VarId>) -> Links {
        let plan: &'p Arc<Plan> = self.plan;
        let rule = &plan.rules[r];
        let (mut joins, mut between) = (Vec::new(), Vec::<Keying>::new());
        while let Some(shape) = rule.steps.get(*at).and_then(Shape::of) {
            if let Step::Join { new, .. } = &rule.steps[*at] {
                bound.extend(new);
            }
            *at += 1;
            joins.push(shape);
            let mut pipe = self.pipe(&rule.steps, at, bound, rule.vars);
            if pipe.ends() {
                let last: Complete = Box::new(move |row| tagged(r, pipe.apply(row)));
                return Links {
                    joins,
                    between,
                    last: Some(last),
                };
            }
            between.push(Box::new(move |row| pipe.keyed(row)));
        }
        Links {
            joins,
            between,
            last: None,
        }
    }

    /// The pipe of the steps from `at` on (advanced past them): the built-in steps there, then
    /// every join and antijoin that is a lookup, each with the built-in steps after it.
    fn pipe(&self, steps: &[Step], at: &mut usize, bound: &mut Vec<VarId>, vars: usize) -> Pipe {
        let (first, used) = self.fused(&steps[*at..], bound, vars);
        *at += used;
        let mut pipe = Pipe::new(first);
        while let Some(lookup) = steps.get(*at).and_then(|step| self.lookup(step)) {
            if let Step::Join { new, .. } = &steps[*at] {
                bound.extend(new);
            }
            let (then, used) = self.fused(&steps[*at + 1..], bound, vars);
            *at += 1 + used;
            pipe.push(lookup, then);
        }
        pipe
    }

    /// `step` as a lookup, if it joins or antijoins a relation given to the run.
    fn lookup(&self, step: &Step) -> Option<Lookup> {
        match step {
            Step::Antijoin { rel, .. } => self.lookups.set(*rel).map(Lookup::Anti),
            _ => Shape::of(step)
                .and_then(|shape| self.lookups.join(&shape))
                .map(Lookup::Join),
        }
    }

    /// The built-in steps at the start of `steps`, fused (see [`Fused::new`]).
    fn fused(&self, steps: &[Step], bound: &mut Vec<VarId>, vars: usize) -> (Fused, usize) {
        Fused::new(steps, bound, vars, self.arities(), self.limits)
    }

    /// Whether a chain starts on every worker, each making its share of what its first pipe
    /// makes ([`Pipe::share`]): on several workers, when it starts with a ground literal (at
    /// most one row matches it, and that row lives on one worker) and its pipe joins, so that
    /// one row can give many bindings.
    fn shared(&self, scan: Option<&Step>, pipe: &Pipe) -> bool {
        let ground = matches!(scan, Some(Step::Join { new, .. }) if new.is_empty());
        ground && pipe.joins() && self.unit.scope().peers() > 1
    }

    /// The first operator of a chain, each output binding passed through `then` (see
    /// [`Context::source`]); if `shared`, the bindings of the scan are sent to every worker
    /// first ([`Context::shared`]).
    fn start<O: Data>(
        &self,
        scan: Option<&Step>,
        vars: usize,
        shared: bool,
        mut then: impl FnMut(Row) -> Out<O> + 'static,
    ) -> VecCollection<'s, T, O, Diff> {
        let (rows, mut first) = self.source(scan, vars);
        if shared {
            let everywhere = rows.flat_map(first).inner.broadcast().as_collection();
            return everywhere.flat_map(then);
        }
        rows.flat_map(move |row| first(row).map(&mut then).unwrap_or_default())
    }

    /// Where a chain starts: the rows of the first join's relation, with what makes a
    /// binding of its new variables of a row that matches its pattern; or, if the chain does
    /// not start with a join, the unit row, which is the empty binding.
    fn source(&self, scan: Option<&Step>, vars: usize) -> (Rows<'s, T>, Scan) {
        match scanner(scan, vars, self.arities()) {
            (Some(rel), first) => (self.relation(rel), first),
            (None, first) => (self.unit.clone(), first),
        }
    }

    /// Extends `keyed` bindings (keyed for `step`, a join or an antijoin that is not a
    /// lookup) by `step`, each output binding passed through `then`.
    fn extend<O: Data>(
        &mut self,
        keyed: VecCollection<'s, T, (Row, Row), Diff>,
        step: &Step,
        mut then: impl FnMut(Row) -> Out<O> + 'static,
    ) -> VecCollection<'s, T, O, Diff> {
        match (step, Shape::of(step)) {
            (_, Some(shape)) => {
                let placement = Placement::of(&shape, self.unit.scope().peers());
                let right = self.arranged(shape, placement);
                (placement.arrange(keyed)).join_core(right, move |_key, binding, values| {
                    then(joined(binding, values))
                })
            }
            (Step::Antijoin { rel, .. }, None) => keyed
                .antijoin(self.relation(*rel))
                .flat_map(move |(_, row)| then(row)),
            _ => unreachable!("built-in steps are fused into pipes, joins have shapes"),
        }
    }

    /// The rows of the literal of `shape`, keyed by the values of its key with those of its
    /// new variables beside them, placed by `placement`: one arrangement per shape and
    /// placement, shared by every literal of that shape.
    fn arranged(&mut self, shape: Shape, placement: Placement) -> Keyed<'s, T> {
        let at = (shape, placement);
        if let Some(arranged) = self.arranged.get(&at) {
            return arranged.clone();
        }
        let (arities, literal) = (self.arities(), at.0.clone());
        let mut ranges = Ranges::new(literal.vars());
        let entries = (self.relation(literal.rel))
            .flat_map(move |row: Row| literal.entry(&row, &mut ranges, &arities));
        let entries = match placement {
            Placement::ByKey => entries,
            Placement::Here => entries.inner.broadcast().as_collection(),
        };
        let arranged = placement.arrange(entries);
        self.arranged.insert(at, arranged.clone());
        arranged
    }

    /// The atoms of `rel`, whose rule plans are `rules`, plain and tagged with `rel`, and
    /// their bindings (tagged): distinct, unless they are copies ([`Plan::copy_only`]). On
    /// one worker the eager `distinct` makes the head atoms itself: an operator fewer.
    fn derive(
        &mut self,
        scope: Scope<'s, T>,
        rel: RelId,
        rules: &[usize],
    ) -> (Rows<'s, T>, Atoms<'s, T>, Tagged<'s, T>) {
        let parts = rules.iter().map(|&r| self.bindings(r)).collect();
        let bindings = concat(scope, parts);
        let mut head_of = self.head();
        let head = move |binding: (usize, Row)| head_of(&binding);
        let (rows, atoms) = match (self.plan.copy_only(rules), self.eager) {
            (false, Some(updates)) if scope.peers() == 1 => {
                eager::distinct_of(bindings.clone(), Pipeline, updates, rel, head)
            }
            (false, Some(updates)) => {
                eager::distinct(bindings.clone().flat_map(head), updates, rel)
            }
            (true, _) => tagged_by(rel, bindings.clone().flat_map(head)),
            (false, None) => tagged_by(rel, bindings.clone().flat_map(head).distinct()),
        };
        (rows, atoms, bindings)
    }

    /// The head atom of a tagged binding; in recursive components, atoms nested deeper than
    /// the limit are dropped and reported.
    fn head(&self) -> impl FnMut(&(usize, Row)) -> Option<Row> + 'static {
        let (plan, limits) = (self.plan.clone(), self.limits.clone());
        let mut ranges = Ranges::new(0);
        let mut guard = Guard::new(self.limits);
        move |(r, row): &(usize, Row)| {
            if guard.stop() {
                return None;
            }
            let rule = &plan.rules[*r];
            ranges.room(rule.vars);
            ranges.read_binding(&rule.binding, row, &plan.arities);
            let atom = ranges.instantiated(&rule.head, row);
            if rule.recursive && depth(&atom, &plan.arities) > limits.max_depth {
                limits.exceeded(plan.original(rule.head_rel), &atom);
                return None;
            }
            Some(atom)
        }
    }

    fn arities(&self) -> Arc<Vec<u32>> {
        self.plan.arities.clone()
    }
}

impl<'s, 'p> Context<'s, 'p, u32> {
    /// Recursive component `component` as one operator computing its fixpoint
    /// ([`fixpoint`]; on one worker, in a run without rounds, when [`fixpoint::fits`]): its
    /// atoms and its bindings, both tagged.
    fn fixpoint(
        &mut self,
        scope: Scope<'s, u32>,
        component: &Component,
    ) -> (Atoms<'s, u32>, Tagged<'s, u32>) {
        let levels = levels(self.plan, component);
        let rules: Vec<fixpoint::Rule> = (component.rules.iter())
            .map(|&r| {
                let level = levels.get(&self.plan.rules[r].head_rel);
                self.fixpoint_rule(r, level.copied().unwrap_or(0))
            })
            .collect();
        let read: BTreeSet<Option<RelId>> = (rules.iter())
            .flat_map(|rule| {
                std::iter::once(rule.source).chain(rule.joins.iter().map(|j| Some(j.rel)))
            })
            .filter(|rel| !rel.is_some_and(|rel| component.relations.contains(&rel)))
            .collect();
        let inputs = (read.into_iter())
            .filter_map(|rel| match rel {
                None => Some((None, self.unit.clone())),
                Some(rel) => Some((Some(rel), self.relations.get(&rel)?.clone())),
            })
            .collect();
        let (plan, mut head) = (self.plan.clone(), self.head());
        let head = move |binding: &(usize, Row)| {
            let rel = plan.rules[binding.0].head_rel;
            head(binding).map(|atom| (rel, atom))
        };
        let (arities, limits) = (self.arities(), self.limits.clone());
        fixpoint::fixpoint(scope, inputs, rules, head, arities, limits, levels)
    }

    /// Rule plan `r` lowered for [`fixpoint`] at `level`: its scan, its joins and the pipes
    /// between them (it has no antijoin that is not a lookup, as [`fixpoint::fits`] checks).
    fn fixpoint_rule(&mut self, r: usize, level: usize) -> fixpoint::Rule {
        let mut opening = self.opening(r);
        let (source, mut matched) = scanner(opening.scan, self.plan.rules[r].vars, self.arities());
        let mut pipe = opening.pipe;
        if pipe.ends() {
            let scan =
                move |row| (matched(row).map(|b| tagged(r, pipe.apply(b)))).unwrap_or_default();
            return fixpoint::Rule {
                source,
                body: fixpoint::Body::Scan(Box::new(scan)),
                joins: Vec::new(),
                level,
            };
        }
        let first: Keying =
            Box::new(move |row| (matched(row).map(|b| pipe.keyed(b))).unwrap_or_default());
        let Links {
            joins,
            between,
            last,
        } = self.links(r, &mut opening.at, &mut opening.bound);
        let last = last.expect("no antijoin that is not a lookup (fixpoint::fits)");
        fixpoint::Rule {
            source,
            body: fixpoint::Body::Chain {
                first,
                between,
                last,
            },
            joins,
            level,
        }
    }
}

/// The levels of `component`'s relations for [`fixpoint`]: 1 for those of the
/// plan's first component that has some, 2 for the next, and so on (the plan's components are
/// in dependency order).
fn levels(plan: &Plan, component: &Component) -> FastMap<RelId, usize> {
    let mine: BTreeSet<RelId> = component.relations.iter().copied().collect();
    let mut levels = FastMap::default();
    let parts = plan.components.iter().map(|c| &c.relations);
    let parts = parts.filter(|rels| rels.iter().any(|r| mine.contains(r)));
    for (level, relations) in (1..).zip(parts) {
        levels.extend(
            relations
                .iter()
                .filter(|r| mine.contains(r))
                .map(|&r| (r, level)),
        );
    }
    levels
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::plan::Part;
    use crate::engine::run::{facts, Tables};
    use crate::engine::stats::Stats;
    use crate::load::{load, source_from_bytes};
    use crate::program::encoding::Encoding;
    use crate::syntax::Syntax;

    /// Whether the rules deriving `name`/`arity` in `game`'s plan (the dynamics included; the
    /// relations defined by facts given, as `tables` says, or as the facts say) make each
    /// binding once.
    fn once(game: &str, name: &str, arity: usize, tables: Option<Tables>) -> bool {
        let source =
            source_from_bytes("game.kif".into(), game.as_bytes().to_vec(), Syntax::Kif).unwrap();
        let game = load(source, Syntax::Kif).unwrap();
        let (program, encoding) = (&game.program, Encoding::new(&game.program));
        let given = tables.unwrap_or_else(|| facts(program, &encoding));
        let stats = Stats::new(given.clone(), Arc::new(encoding.arities()));
        let plan = Plan::new(program, &encoding, Part::Rest, &stats);
        let lookups = Lookups::new(&plan, &given);
        let rel = program.relation(name, arity).unwrap();
        let rules: Vec<usize> = (0..plan.rules.len())
            .filter(|&r| plan.rules[r].head_rel == rel)
            .collect();
        assert!(!rules.is_empty(), "{name} is derived");
        once_each(&plan, &rules, &given.keys().copied().collect(), &lookups)
    }

    /// `true` from `init` and from `next`, which reads the facts alone (and so is given): the
    /// same fluent can come from both, so `legal`, which reads `true`, can make a binding
    /// twice. `does` copies `legal` alone.
    const FLAT: &str = "(role r) (init (f 1)) (g 1) (g 2) (terminal) (goal r 100)
        (<= (next (f ?x)) (g ?x)) (<= (legal r (m ?x)) (true (f ?x)))
        (<= (moved ?x) (does r (m ?x)) (g ?x))";

    #[test]
    fn a_relation_two_copies_derive_may_repeat_its_rows() {
        assert!(!once(FLAT, "legal", 2, None));
        // `moved` reads `does` and the facts of `g`, each row once.
        assert!(once(FLAT, "moved", 1, None));
    }

    #[test]
    fn a_fixpoint_makes_its_relations_distinct() {
        // `next` reads `true`: both are in one recursive component.
        let game = FLAT.replace(
            "(<= (next (f ?x)) (g ?x))",
            "(<= (next (f ?x)) (true (f ?x)))",
        );
        assert!(once(&game, "legal", 2, None));
    }

    #[test]
    fn a_given_relation_out_of_order_may_repeat_its_rows() {
        let source =
            source_from_bytes("game.kif".into(), FLAT.as_bytes().to_vec(), Syntax::Kif).unwrap();
        let game = load(source, Syntax::Kif).unwrap();
        let mut tables = facts(&game.program, &Encoding::new(&game.program));
        let g = game.program.relation("g", 1).unwrap();
        let rows = tables.get_mut(&g).unwrap();
        rows.push(rows[0].clone());
        assert!(!once(FLAT, "moved", 1, Some(tables)));
    }
}
