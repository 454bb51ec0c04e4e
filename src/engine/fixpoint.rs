//! A recursive component's fixpoint in one operator per worker, in a run without rounds (on
//! one worker, the whole plan's: [`Plan::whole`]).
//!
//! Why: as an iterative scope, a recursive component costs a step of timely's progress
//! tracking per iteration, over every operator of the dataflow, and its operators (the
//! scope, its variables, its `enter`s and `leave`s) cost to build. A step counter that counts
//! to 800 iterated 800 times: most of a small game's run was that bookkeeping. Here the
//! component is one operator that computes its fixpoint by itself once its inputs have come,
//! with no rounds at all: semi-naive evaluation with a worklist, each rule a chain of symmetric
//! hash joins ([`chain::State`]).
//!
//! How: each atom that comes in (a row of a relation the component reads from before it, or
//! the unit row) or that a rule derives for the first time is taken once to every place of a
//! rule that reads its relation: as the rule's source, it starts bindings; as one of its
//! joins, it is joined with the bindings held there and kept for those to come. A pair of
//! updates meets exactly once, whichever comes second, so every binding is made once. The
//! bindings go out (the component's ground instances), their head atoms that are new go out
//! too, and onto the worklist.
//!
//! The work goes level by level: the component's relations are numbered in dependency order
//! (the plan's components; on one worker the whole plan is one such component), and once the
//! inputs have ended, each level is taken to its fixpoint before the next begins. So a rule
//! starts from its source's rows when its level begins if they are of a lower level, and a
//! join of a lower level's relation meets all of it: the bindings that reach it are not kept
//! for entries to come, which are most of a chain's state in non-recursive rules and in
//! recursive rules' joins with static relations (gt_two_thirds_2p: 207 -> 162 ms; the 2^20
//! bindings of ruleDepthExponential: 2.9 -> 2.3 GB).
//!
//! On several workers the operator sits in an iterative scope whose only loop carries the
//! atoms each worker derives to the others: every worker holds all the atoms, a rule's
//! bindings start on the worker that owns its source atom, and each atom goes out from its
//! owner. The scope iterates once per exchange of atoms, not once per step of the rules.
//!
//! Sound for insertions only, which is what a run without rounds has when no rule of its plan
//! antijoins a relation derived in it (the caller's promise, see [`fits`]): then every update
//! is an insertion at time 0, and the fixpoint of the insertions is the component's atoms. An
//! antijoin's retractions would need the iterations back.

use super::chain::{Keying, State};
use super::dataflow::{Atoms, Diff, Rows, Tagged};
use super::eager::{Builder, Output};
use super::lookup::Lookups;
use super::pattern::{Ranges, Row};
use super::pipe::Out;
use super::plan::{Plan, Step};
use super::row_set::{in_batches, RowSet};
use super::shape::Shape;
use super::{EngineError, Limits};
use crate::hash::FastMap;
use crate::program::RelId;
use differential_dataflow::{AsCollection, Data, Hashable};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::generic::builder_rc::OperatorBuilder;
use timely::dataflow::operators::generic::{OutputBuilder, OutputBuilderSession};
use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::operators::{Capability, ConnectLoop, InputCapability, LoopVariable};
use timely::dataflow::{Scope, Stream, StreamVec};
use timely::progress::operate::FrontierInterest;
use timely::progress::Timestamp;

/// How many atoms of the worklist the operator takes to their places between two looks at
/// its output and the clock. Few: an atom can make thousands of bindings, and on several
/// workers the atoms derived go to the others only when the operator returns, so a long
/// chunk keeps them waiting (racer4 on two workers: 4.96 s with 4096, 4.04 s with 32).
const CHUNK: usize = 32;
/// How many chunks between two checks of the limits (a system call for the memory).
const CHECKS: usize = 128;
/// How many output records the operator holds before it sends them.
const BATCH: usize = 4096;
/// How long the operator works in one step of its worker before it lets the others take its
/// output (a step of the worker costs about 0.1 ms on a small dataflow).
const SLICE: Duration = Duration::from_millis(10);

/// What makes a rule plan's complete bindings, tagged with it, of its bindings after its last
/// step that needs an operator.
pub type Complete = Box<dyn FnMut(Row) -> Out<(usize, Row)>>;

/// What a rule does with its source rows (or the unit row).
pub enum Body {
    /// No join: each row's complete bindings, tagged with the rule plan.
    Scan(Complete),
    /// A chain of joins: `first` keys a row's bindings for the first join, `between` those of
    /// each join but the last for the next, and `last` makes the complete bindings.
    Chain {
        first: Keying,
        between: Vec<Keying>,
        last: Complete,
    },
}

/// One rule of the component, lowered: its source, then its chain of joins.
pub struct Rule {
    /// The relation of its first literal; `None` if it starts from the empty binding.
    pub source: Option<RelId>,
    /// What it does with the source's rows.
    pub body: Body,
    /// Its joins' literals, in order (none for a scan).
    pub joins: Vec<Shape>,
    /// The level of its head's relation ([`fixpoint`]'s `levels`).
    pub level: usize,
}

/// Whether a run of `plan` without rounds can have its recursive components computed by
/// [`fixpoint`]: no rule antijoins a relation that is not a lookup (one derived in the run),
/// so no update is a retraction.
pub fn fits(plan: &Plan, lookups: &Lookups) -> bool {
    (plan.rules.iter().flat_map(|rule| rule.steps.iter())).all(|step| match step {
        Step::Antijoin { rel, .. } => lookups.set(*rel).is_some(),
        _ => true,
    })
}

/// The component's atoms (tagged with their relation) and its bindings (tagged with their rule
/// plan), computed from `inputs` (the rows of each relation the rules read from outside the
/// component; `None` for the unit row) by `rules`; `head` makes the head atom of a binding
/// (`None`: none, as when it is too deep).
///
/// `levels` orders the work: the level of each relation derived in the component (1, 2, …,
/// every relation after those its rules read, except itself and those of its level; the
/// inputs are level 0). The operator waits for its inputs to end, then takes the levels in
/// turn, each to its fixpoint: a rule of level `l` starts from its source's rows when level
/// `l` begins (or as they come, if the source is of level `l` too), and the bindings that
/// reach a join of a lower level's relation are not kept, since that relation is complete.
/// (Empty `levels` would put everything at level 0: every atom taken to every rule as it
/// comes, every binding kept.)
///
/// On several workers every worker holds all of the component's atoms (the inputs are
/// broadcast, and each worker sends the atoms it derives to the others), and the bindings are
/// split: a rule's bindings start on the worker that owns the atom of its source ([`owner`]).
/// A join's entries and its bindings held so far meet on that worker only, so every binding
/// is still made once. Each worker computes its fixpoint without waiting for the others; the
/// atoms it derives reach the others through a loop, one iteration of an iterative scope per
/// exchange, and the owner of each atom sends it out.
pub fn fixpoint<'s, H>(
    scope: Scope<'s, u32>,
    inputs: Vec<(Option<RelId>, Rows<'s, u32>)>,
    rules: Vec<Rule>,
    head: H,
    arities: Arc<Vec<u32>>,
    limits: Arc<Limits>,
    levels: FastMap<RelId, usize>,
) -> (Atoms<'s, u32>, Tagged<'s, u32>)
where
    H: FnMut(&(usize, Row)) -> Option<(RelId, Row)> + 'static,
{
    let (me, peers) = (scope.index(), scope.peers());
    let component = Component::new(rules, head, arities, limits, levels, me, peers);
    if peers == 1 {
        let inputs = inputs.into_iter().map(|(rel, rows)| (rel, rows.inner));
        let (atoms, bindings, _) = operator(scope, inputs.collect(), None, component);
        return (atoms.as_collection(), bindings.as_collection());
    }
    scope.iterative::<u64, _, _>(|inner| {
        let (handle, shared) = inner.loop_variable(1);
        let inputs = (inputs.into_iter())
            .map(|(rel, rows)| (rel, rows.enter(inner).inner.broadcast()))
            .collect();
        let (atoms, bindings, derived) = operator(inner, inputs, Some(shared), component);
        derived.connect_loop(handle);
        (
            atoms.as_collection().leave(scope),
            bindings.as_collection().leave(scope),
        )
    })
}

/// Atoms a worker derived, each with the worker it goes to.
type Shared = Vec<(u64, (RelId, Row))>;

/// The operator: `component` fed by `inputs` and by the atoms other workers derived
/// (`shared`, on several workers); its atoms, its bindings, and the atoms it derived for the
/// other workers.
#[allow(clippy::type_complexity)]
fn operator<'s, T: Timestamp, H>(
    scope: Scope<'s, T>,
    inputs: Vec<(Option<RelId>, StreamVec<'s, T, (Row, T, Diff)>)>,
    shared: Option<Stream<'s, T, Shared>>,
    mut state: Component<H>,
) -> (
    StreamVec<'s, T, ((RelId, Row), T, Diff)>,
    StreamVec<'s, T, ((usize, Row), T, Diff)>,
    Stream<'s, T, Shared>,
)
where
    H: FnMut(&(usize, Row)) -> Option<(RelId, Row)> + 'static,
{
    let mut builder = OperatorBuilder::new("Fixpoint".to_owned(), scope);
    let mut ports = Vec::new();
    let mut sources = Vec::new();
    // With levels, the operator waits for its inputs to end before it leaves level 0: it is
    // scheduled when they do, as it holds capabilities then.
    let interest = match state.ordered() {
        true => FrontierInterest::IfCapability,
        false => FrontierInterest::Never,
    };
    for (i, (rel, rows)) in inputs.into_iter().enumerate() {
        ports.push(builder.new_input(rows, Pipeline));
        builder.set_notify_for(i, interest);
        sources.push(rel);
    }
    let mut from_others = shared.map(|stream| {
        let port = builder.new_input(stream, Exchange::new(|(to, _): &(u64, _)| *to));
        builder.set_notify_for(sources.len(), FrontierInterest::Never);
        port
    });
    let (atoms_out, atoms) = builder.new_output();
    let (bindings_out, bindings) = builder.new_output();
    let (shared_out, shared) = builder.new_output();
    let mut atoms_out: Output<T, (RelId, Row)> = OutputBuilder::from(atoms_out);
    let mut bindings_out: Output<T, (usize, Row)> = OutputBuilder::from(bindings_out);
    let mut shared_out: OutputBuilder<T, CapacityContainerBuilder<Shared>> =
        OutputBuilder::from(shared_out);
    // The initial capabilities are dropped: output goes out at the time of an input's
    // update, under capabilities held from it while work is left.
    let activator = scope.activator_for(builder.operator_info().address);
    builder.build(move |_| {
        let mut held: Option<[Capability<T>; 3]> = None;
        move |frontiers| {
            for (port, source) in ports.iter_mut().zip(&sources) {
                port.for_each(|capability, data| {
                    hold(&mut held, &capability);
                    state.add(*source, data.drain(..));
                });
            }
            if let Some(port) = &mut from_others {
                port.for_each(|capability, data| {
                    hold(&mut held, &capability);
                    state.receive(data.drain(..).map(|(_, atom)| atom));
                });
            }
            let ended = frontiers[..sources.len()].iter().all(|f| f.is_empty());
            state.inputs_ended(ended);
            let Some([atoms_at, bindings_at, shared_at]) = &held else {
                return;
            };
            let (mut atoms_out, mut bindings_out) = (atoms_out.activate(), bindings_out.activate());
            let mut shared_out = shared_out.activate();
            // To the fixpoint, sending the output as it grows; after a while, the rest in a
            // later step, so that the operators after this one take what it sent.
            let start = Instant::now();
            let mut done = false;
            while !done {
                done = !state.step();
                let over = if done { 0 } else { BATCH };
                send(&mut state.atoms, over, atoms_at, &mut atoms_out);
                send(&mut state.bindings, over, bindings_at, &mut bindings_out);
                if !state.shared.is_empty() {
                    shared_out
                        .session(shared_at)
                        .give_iterator(state.shared.drain(..));
                }
                if !done && start.elapsed() > SLICE {
                    activator.activate();
                    return;
                }
            }
            // Waiting for the inputs to end, the capabilities are held for what follows.
            if state.finished() {
                held = None;
            }
        }
    });
    (atoms, bindings, shared)
}

/// Holds a capability for each output at the time of an input's update, unless some are
/// held already (at an earlier time: the update's output may go out then too).
fn hold<T: Timestamp>(held: &mut Option<[Capability<T>; 3]>, capability: &InputCapability<T>) {
    if let (None, Some(time)) = (&held, capability.stamp().iter().next()) {
        *held = Some([0, 1, 2].map(|port| capability.delayed(time, port)));
    }
}

/// Sends `out` as updates at `capability`'s time, if it holds more than `over` records.
fn send<T: Timestamp, D: Data>(
    out: &mut Vec<D>,
    over: usize,
    capability: &Capability<T>,
    output: &mut OutputBuilderSession<'_, T, Builder<T, D>>,
) {
    if out.len() > over {
        let time = capability.time().clone();
        (output.session(capability)).give_iterator(out.drain(..).map(|d| (d, time.clone(), 1)));
    }
}

/// The worker of `peers` that owns `row`: the one that starts bindings from it and sends it
/// out.
fn owner(row: &Row, peers: usize) -> usize {
    (row.hashed() % peers as u64) as usize
}

/// The level of relation `rel` in `levels` (0: an input, or the unit row).
fn level_in(levels: &FastMap<RelId, usize>, rel: Option<RelId>) -> usize {
    (rel.and_then(|rel| levels.get(&rel).copied())).unwrap_or(0)
}

/// Where an atom goes in a rule: its source, or join `k`.
#[derive(Clone, Copy)]
enum Place {
    Source,
    Join(usize),
}

/// A rule as the operator holds it.
struct Held {
    /// Its source and the source's level.
    source: (Option<RelId>, usize),
    /// Its level.
    level: usize,
    /// What it does with its source's rows.
    start: Start,
    joins: Vec<Shape>,
    /// Per join, the ranges its entries are read with.
    ranges: Vec<Ranges>,
}

/// A rule's source rows: scanned, or keyed into its chain's state.
enum Start {
    Scan(Complete),
    Chain(Keying, State<u32, (usize, Row)>),
}

impl Start {
    /// The rule's bindings from `row` of its source, to `fresh`.
    fn from(&mut self, row: Row, fresh: &mut Vec<(usize, Row)>) {
        match self {
            Start::Scan(complete) => fresh.extend(complete(row)),
            Start::Chain(first, chain) => {
                chain.start(first(row), 0, 1);
                chain.drain();
                fresh.extend(chain.output().map(|(binding, _, _)| binding));
            }
        }
    }
}

/// What the operator holds: its rules, where each relation's atoms go, the atoms seen so far,
/// and the output not yet sent.
struct Component<H> {
    rules: Vec<Held>,
    /// By relation (`None`: the unit row), the places of rules that read it.
    places: FastMap<Option<RelId>, Vec<(usize, Place)>>,
    /// By relation, the atoms seen (from outside) or derived (inside), while its level is
    /// being computed.
    seen: FastMap<Option<RelId>, RowSet>,
    /// By relation, the atoms of a complete level (moved out of [`Self::seen`]): no atom is
    /// added to them, and the rules of higher levels start from them.
    complete: FastMap<Option<RelId>, Rc<Vec<Row>>>,
    /// By level, the atoms seen or derived, not yet taken to their places.
    work: Vec<Vec<(Option<RelId>, Row)>>,
    /// The level of each relation derived here (the others: 0).
    levels: FastMap<RelId, usize>,
    /// The level being computed: the lower ones are complete.
    at: usize,
    /// By level, the rules whose source is of a lower level: they start when it begins.
    begins: Vec<Vec<usize>>,
    /// Rules to start from the rows of their complete sources, at the level that just began,
    /// each with the position of the next row.
    starts: Vec<(usize, Rc<Vec<Row>>, usize)>,
    /// Whether the inputs have ended.
    ended: bool,
    head: H,
    arities: Arc<Vec<u32>>,
    limits: Arc<Limits>,
    /// This worker's index, and how many there are.
    me: usize,
    peers: usize,
    /// Atoms and bindings not yet sent.
    atoms: Vec<(RelId, Row)>,
    bindings: Vec<(usize, Row)>,
    /// Atoms derived here for the other workers, not yet sent.
    shared: Shared,
    /// Bindings just made, not yet looked at.
    fresh: Vec<(usize, Row)>,
    /// The head atoms of bindings just made, being looked up (kept for its room).
    heads: Vec<(Option<RelId>, Row)>,
    /// How many chunks of work [`Self::step`] took.
    chunks: usize,
}

impl<H: FnMut(&(usize, Row)) -> Option<(RelId, Row)>> Component<H> {
    fn new(
        rules: Vec<Rule>,
        head: H,
        arities: Arc<Vec<u32>>,
        limits: Arc<Limits>,
        levels: FastMap<RelId, usize>,
        me: usize,
        peers: usize,
    ) -> Self {
        let level = |rel: Option<RelId>| level_in(&levels, rel);
        let top = (levels.values().max().copied()).unwrap_or(0);
        let mut begins = vec![Vec::new(); top + 1];
        let mut places: BTreeMap<Option<RelId>, Vec<(usize, Place)>> = BTreeMap::new();
        let mut held = Vec::new();
        for (i, rule) in rules.into_iter().enumerate() {
            let source = (rule.source, level(rule.source));
            if source.1 < rule.level {
                begins[rule.level].push(i);
            }
            places
                .entry(rule.source)
                .or_default()
                .push((i, Place::Source));
            for (k, join) in rule.joins.iter().enumerate() {
                places
                    .entry(Some(join.rel))
                    .or_default()
                    .push((i, Place::Join(k)));
            }
            let start = match rule.body {
                Body::Scan(complete) => Start::Scan(complete),
                Body::Chain {
                    first,
                    between,
                    last,
                } => {
                    // A binding reaching a join of a lower level's relation meets all of it.
                    let joins = rule.joins.iter();
                    let kept = joins.map(|j| level(Some(j.rel)) >= rule.level);
                    Start::Chain(first, State::new(between, last, kept.collect()))
                }
            };
            held.push(Held {
                source,
                level: rule.level,
                start,
                ranges: rule.joins.iter().map(|s| Ranges::new(s.vars())).collect(),
                joins: rule.joins,
            });
        }
        Component {
            rules: held,
            places: places.into_iter().collect(),
            seen: FastMap::default(),
            complete: FastMap::default(),
            work: vec![Vec::new(); top + 1],
            levels,
            at: 0,
            begins,
            starts: Vec::new(),
            ended: false,
            head,
            arities,
            limits,
            me,
            peers,
            atoms: Vec::new(),
            bindings: Vec::new(),
            shared: Vec::new(),
            fresh: Vec::new(),
            heads: Vec::new(),
            chunks: 0,
        }
    }

    /// Takes updates of an input's relation `rel` (`None`: the unit row): onto the worklist
    /// if new.
    fn add<T: Timestamp>(
        &mut self,
        rel: Option<RelId>,
        updates: impl Iterator<Item = (Row, T, Diff)>,
    ) {
        let limits = self.limits.clone();
        let rows = updates.filter_map(|(row, time, diff)| {
            if diff < 0 || time != T::minimum() {
                let what = "a retraction or a round reached a recursive component's fixpoint";
                limits.fail(EngineError::Unsupported(what.to_owned()));
            }
            (!limits.stopped()).then_some((rel, row))
        });
        self.see_all(rows, |_, _, _, _| {});
    }

    /// Takes atoms another worker derived: onto the worklist if new, and out if this worker
    /// owns them.
    fn receive(&mut self, atoms: impl Iterator<Item = (RelId, Row)>) {
        let limits = self.limits.clone();
        let rows = atoms.map_while(|(rel, row)| (!limits.stopped()).then_some((Some(rel), row)));
        self.see_all(rows, |state, rel, row, new| match rel {
            Some(rel) if new && state.owns(&row) => state.atoms.push((rel, row)),
            _ => {}
        });
    }

    /// Whether this worker owns `row` ([`owner`]).
    fn owns(&self, row: &Row) -> bool {
        self.peers == 1 || owner(row, self.peers) == self.me
    }

    /// Whether the work is taken level by level (some relation is above level 0).
    fn ordered(&self) -> bool {
        self.work.len() > 1
    }

    /// Notes whether the inputs have ended: until they have, level 0 is not complete.
    fn inputs_ended(&mut self, ended: bool) {
        self.ended = ended;
    }

    /// Whether the fixpoint is reached: every level done, nothing left to take anywhere.
    fn finished(&self) -> bool {
        self.at + 1 == self.work.len() && self.starts.is_empty() && self.work[self.at].is_empty()
    }

    /// Takes some of the work to its places; whether any is left to do now (there may be more
    /// once the inputs end). Checks the limits as it goes (one step of the worker can be the
    /// whole fixpoint), and once they stop the run, drops the work.
    fn step(&mut self) -> bool {
        for _ in 0..CHUNK {
            if let Some((i, rows, next)) = self.starts.last_mut() {
                let (i, rows, at) = (*i, Rc::clone(rows), *next);
                *next += 1;
                if *next == rows.len() {
                    self.starts.pop();
                }
                // Only the rows this worker owns are copied out.
                if self.owns(&rows[at]) {
                    self.start(i, rows[at].clone());
                }
            } else if let Some((rel, row)) = self.work[self.at].pop() {
                self.place(rel, row);
            } else if !self.advance() {
                return false;
            }
        }
        self.chunks += 1;
        if self.chunks.is_multiple_of(CHECKS) {
            self.limits.check_deadline();
            self.limits.check_memory();
        }
        if self.limits.stopped() {
            self.work.iter_mut().for_each(Vec::clear);
            self.starts.clear();
            self.at = self.work.len() - 1;
            return false;
        }
        true
    }

    /// Begins the next level, if the current one is complete: its atoms move to
    /// [`Self::complete`], and the next level's rules whose sources are of lower levels start
    /// from all of their sources' rows. Whether it did.
    fn advance(&mut self) -> bool {
        if self.at + 1 == self.work.len() || (self.at == 0 && !self.ended) {
            return false;
        }
        let done: Vec<Option<RelId>> = (self.seen.keys())
            .filter(|&&rel| self.level(rel) == self.at)
            .copied()
            .collect();
        for rel in done {
            let rows = self.seen.remove(&rel).expect("a relation seen");
            self.complete
                .insert(rel, Rc::new(rows.into_rows().collect()));
        }
        self.at += 1;
        for &i in &self.begins[self.at] {
            match self.complete.get(&self.rules[i].source.0) {
                Some(rows) if !rows.is_empty() => self.starts.push((i, rows.clone(), 0)),
                _ => {}
            }
        }
        true
    }

    /// The level of relation `rel` ([`level_in`]).
    fn level(&self, rel: Option<RelId>) -> usize {
        level_in(&self.levels, rel)
    }

    /// Puts each of `rows` (a row and its relation) on its level's worklist if it is new;
    /// `then` takes it with whether it was. The rows are looked up a batch at a time, their
    /// places in [`Self::seen`] prefetched first ([`in_batches`]): most lookups miss the cache.
    fn see_all(
        &mut self,
        rows: impl IntoIterator<Item = (Option<RelId>, Row)>,
        mut then: impl FnMut(&mut Self, Option<RelId>, Row, bool),
    ) {
        let hash = |state: &mut Self, (rel, row): &(Option<RelId>, Row)| {
            let seed = rel.unwrap_or(RelId::MAX);
            let seen = state.seen.entry(*rel).or_insert_with(|| RowSet::new(seed));
            let hash = seen.hash(row);
            seen.prefetch(hash);
            hash
        };
        in_batches(self, rows, hash, |state, (rel, row), hash| {
            let seen = state.seen.get_mut(&rel).expect("made for the batch");
            let new = seen.insert_hashed(&row, hash);
            if new {
                let level = state.level(rel);
                debug_assert!(level >= state.at, "an atom of a level already complete");
                state.work[level].push((rel, row.clone()));
            }
            then(state, rel, row, new);
        });
    }

    /// Starts rule `i` from `row` of its source, and takes what that derives out.
    fn start(&mut self, i: usize, row: Row) {
        self.rules[i].start.from(row, &mut self.fresh);
        self.derive();
    }

    /// Takes `row` of `rel` to every place that reads it, and what that derives out. A rule of
    /// a higher level starts from it when that level begins.
    fn place(&mut self, rel: Option<RelId>, row: Row) {
        let source = self.owns(&row);
        let Some(places) = self.places.get(&rel) else {
            return;
        };
        for &(i, place) in places {
            let rule = &mut self.rules[i];
            match (place, &mut rule.start) {
                (Place::Source, _) if !source || rule.source.1 < rule.level => {}
                (Place::Source, start) => start.from(row.clone(), &mut self.fresh),
                (Place::Join(k), Start::Chain(_, chain)) => {
                    let ranges = &mut rule.ranges[k];
                    if let Some((key, values)) = rule.joins[k].entry(&row, ranges, &self.arities) {
                        chain.entry(k, key, values, 0, 1);
                        chain.drain();
                        (self.fresh).extend(chain.output().map(|(binding, _, _)| binding));
                    }
                }
                (Place::Join(_), Start::Scan(_)) => unreachable!("a scan has no joins"),
            }
        }
        self.derive();
    }

    /// The bindings just made: out, and their head atoms out and onto the worklist if new.
    fn derive(&mut self) {
        let mut fresh = std::mem::take(&mut self.fresh);
        let mut heads = std::mem::take(&mut self.heads);
        let made = fresh.iter().filter_map(|binding| (self.head)(binding));
        heads.extend(made.map(|(rel, atom)| (Some(rel), atom)));
        self.bindings.append(&mut fresh);
        self.fresh = fresh;
        self.see_all(heads.drain(..), |state, rel, atom, new| {
            let (Some(rel), true) = (rel, new) else {
                return;
            };
            let others = (0..state.peers as u64).filter(|&w| w != state.me as u64);
            (state.shared).extend(others.map(|w| (w, (rel, atom.clone()))));
            if state.owns(&atom) {
                state.atoms.push((rel, atom));
            }
        });
        self.heads = heads;
    }
}
