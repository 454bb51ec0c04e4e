//! A recursive component's fixpoint in one operator, on one worker, in a run without rounds.
//!
//! Why: as an iterative scope, a recursive component costs a step of timely's progress
//! tracking per iteration, over every operator of the dataflow, and its operators (the
//! scope, its variables, its `enter`s and `leave`s) cost to build. A step counter that counts
//! to 800 iterated 800 times: most of a small game's run was that bookkeeping. Here the
//! component is one operator that computes its fixpoint by itself as its inputs come, with no
//! rounds at all: semi-naive evaluation with a worklist, each rule a chain of symmetric hash
//! joins ([`chain::State`]).
//!
//! How: each atom that comes in (a row of a relation the component reads from before it, or
//! the unit row) or that a rule derives for the first time is taken once to every place of a
//! rule that reads its relation: as the rule's source, it starts bindings; as one of its
//! joins, it is joined with the bindings held there and kept for those to come. A pair of
//! updates meets exactly once, whichever comes second, so every binding is made once. The
//! bindings go out (the component's ground instances), their head atoms that are new go out
//! too, and onto the worklist.
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
use super::shape::Shape;
use super::{EngineError, Limits};
use crate::hash::{FastMap, FastSet};
use crate::program::RelId;
use differential_dataflow::{AsCollection, Data};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::builder_rc::OperatorBuilder;
use timely::dataflow::operators::generic::{OutputBuilder, OutputBuilderSession};
use timely::dataflow::operators::Capability;
use timely::dataflow::Scope;
use timely::progress::operate::FrontierInterest;

/// How many atoms of the worklist the operator takes to their places between two checks of
/// the limits and two sends of its output.
const CHUNK: usize = 1 << 12;
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
}

/// Whether a run of `plan` without rounds can have its recursive components computed by
/// [`fixpoint`]: no rule antijoins a relation that is not a lookup (one derived in the run),
/// so no update is a retraction.
pub fn fits(plan: &Plan, lookups: &Lookups) -> bool {
    (plan.rules.iter().flat_map(|rule| &rule.steps)).all(|step| match step {
        Step::Antijoin { rel, .. } => lookups.set(*rel).is_some(),
        _ => true,
    })
}

/// The component's atoms (tagged with their relation) and its bindings (tagged with their rule
/// plan), computed from `inputs` (the rows of each relation the rules read from outside the
/// component; `None` for the unit row) by `rules`; `head` makes the head atom of a binding
/// (`None`: none, as when it is too deep).
pub fn fixpoint<'s>(
    scope: Scope<'s, u32>,
    inputs: Vec<(Option<RelId>, Rows<'s, u32>)>,
    rules: Vec<Rule>,
    head: impl FnMut((usize, Row)) -> Option<(RelId, Row)> + 'static,
    arities: Arc<Vec<u32>>,
    limits: Arc<Limits>,
) -> (Atoms<'s, u32>, Tagged<'s, u32>) {
    let mut builder = OperatorBuilder::new("Fixpoint".to_owned(), scope);
    let mut ports = Vec::new();
    let mut sources = Vec::new();
    for (i, (rel, rows)) in inputs.into_iter().enumerate() {
        ports.push(builder.new_input(rows.inner, Pipeline));
        builder.set_notify_for(i, FrontierInterest::Never);
        sources.push(rel);
    }
    let (atoms_out, atoms) = builder.new_output();
    let (bindings_out, bindings) = builder.new_output();
    let mut atoms_out: Output<u32, (RelId, Row)> = OutputBuilder::from(atoms_out);
    let mut bindings_out: Output<u32, (usize, Row)> = OutputBuilder::from(bindings_out);
    // The initial capabilities are dropped: output goes out at the inputs' time (0), under
    // capabilities held from an input's while work is left.
    let activator = scope.activator_for(builder.operator_info().address);
    builder.build(move |_| {
        let mut state = Component::new(rules, head, arities, limits);
        let mut held: Option<[Capability<u32>; 2]> = None;
        move |_frontiers| {
            for (port, source) in ports.iter_mut().zip(&sources) {
                port.for_each(|capability, data| {
                    if held.is_none() {
                        let (atoms_at, bindings_at) =
                            (capability.retain_least(0), capability.retain_least(1));
                        held = atoms_at.zip(bindings_at).map(|(a, b)| [a, b]);
                    }
                    for (row, time, diff) in data.drain(..) {
                        state.add(*source, row, time, diff);
                    }
                });
            }
            let Some([atoms_at, bindings_at]) = &held else {
                return;
            };
            let (mut atoms_out, mut bindings_out) = (atoms_out.activate(), bindings_out.activate());
            // To the fixpoint, sending the output as it grows; after a while, the rest in a
            // later step, so that the operators after this one take what it sent.
            let start = Instant::now();
            while state.step() {
                send(&mut state.atoms, BATCH, atoms_at, &mut atoms_out);
                send(&mut state.bindings, BATCH, bindings_at, &mut bindings_out);
                if start.elapsed() > SLICE {
                    activator.activate();
                    return;
                }
            }
            send(&mut state.atoms, 0, atoms_at, &mut atoms_out);
            send(&mut state.bindings, 0, bindings_at, &mut bindings_out);
            held = None;
        }
    });
    (atoms.as_collection(), bindings.as_collection())
}

/// Sends `out` under `capability` if it holds more than `over` records.
fn send<D: Data>(
    out: &mut Vec<(D, u32, Diff)>,
    over: usize,
    capability: &Capability<u32>,
    output: &mut OutputBuilderSession<'_, u32, Builder<u32, D>>,
) {
    if out.len() > over {
        output.session(capability).give_iterator(out.drain(..));
    }
}

/// Where an atom goes in a rule: its source, or join `k`.
#[derive(Clone, Copy)]
enum Place {
    Source,
    Join(usize),
}

/// A rule as the operator holds it.
struct Held {
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

/// What the operator holds: its rules, where each relation's atoms go, the atoms seen so far,
/// and the output not yet sent.
struct Component<H> {
    rules: Vec<Held>,
    /// By relation (`None`: the unit row), the places of rules that read it.
    places: FastMap<Option<RelId>, Vec<(usize, Place)>>,
    /// By relation, the atoms seen (from outside) or derived (inside).
    seen: FastMap<Option<RelId>, FastSet<Row>>,
    /// Atoms seen or derived, not yet taken to their places.
    work: Vec<(Option<RelId>, Row)>,
    head: H,
    arities: Arc<Vec<u32>>,
    limits: Arc<Limits>,
    /// Atoms and bindings not yet sent.
    atoms: Vec<((RelId, Row), u32, Diff)>,
    bindings: Vec<((usize, Row), u32, Diff)>,
    /// Bindings just made, not yet looked at.
    fresh: Vec<(usize, Row)>,
}

impl<H: FnMut((usize, Row)) -> Option<(RelId, Row)>> Component<H> {
    fn new(rules: Vec<Rule>, head: H, arities: Arc<Vec<u32>>, limits: Arc<Limits>) -> Self {
        let mut places: BTreeMap<Option<RelId>, Vec<(usize, Place)>> = BTreeMap::new();
        let mut held = Vec::new();
        for (i, rule) in rules.into_iter().enumerate() {
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
                } => Start::Chain(first, State::new(between, last)),
            };
            held.push(Held {
                start,
                ranges: rule.joins.iter().map(|s| Ranges::new(s.vars())).collect(),
                joins: rule.joins,
            });
        }
        Component {
            rules: held,
            places: places.into_iter().collect(),
            seen: FastMap::default(),
            work: Vec::new(),
            head,
            arities,
            limits,
            atoms: Vec::new(),
            bindings: Vec::new(),
            fresh: Vec::new(),
        }
    }

    /// Takes an update of an input's relation `rel` (`None`: the unit row): onto the
    /// worklist if it is new.
    fn add(&mut self, rel: Option<RelId>, row: Row, time: u32, diff: Diff) {
        if diff < 0 || time != 0 {
            let what = "a retraction or a round reached a recursive component's fixpoint";
            self.limits.fail(EngineError::Unsupported(what.to_owned()));
        }
        if !self.limits.stopped() {
            self.see(rel, row);
        }
    }

    /// Takes some of the worklist's atoms to their places; whether any are left. Checks the
    /// limits as it goes (one step of the worker can be the whole fixpoint), and once they
    /// stop the run, drops the work.
    fn step(&mut self) -> bool {
        for _ in 0..CHUNK {
            let Some((rel, row)) = self.work.pop() else {
                return false;
            };
            self.place(rel, row);
        }
        self.limits.check_deadline();
        self.limits.check_memory();
        if self.limits.stopped() {
            self.work.clear();
        }
        !self.work.is_empty()
    }

    /// Puts `row` of `rel` on the worklist if it is new; whether it was.
    fn see(&mut self, rel: Option<RelId>, row: Row) -> bool {
        let seen = self.seen.entry(rel).or_default();
        let new = !seen.contains(&row);
        if new {
            seen.insert(row.clone());
            self.work.push((rel, row));
        }
        new
    }

    /// Takes `row` of `rel` to every place that reads it, and what that derives out.
    fn place(&mut self, rel: Option<RelId>, row: Row) {
        let Some(places) = self.places.get(&rel) else {
            return;
        };
        let fresh = &mut self.fresh;
        for &(i, place) in places {
            let rule = &mut self.rules[i];
            match (place, &mut rule.start) {
                (Place::Source, Start::Scan(complete)) => fresh.extend(complete(row.clone())),
                (Place::Source, Start::Chain(first, chain)) => {
                    chain.start(first(row.clone()), 0, 1);
                    chain.drain();
                    fresh.extend(chain.output().map(|(binding, _, _)| binding));
                }
                (Place::Join(k), Start::Chain(_, chain)) => {
                    let ranges = &mut rule.ranges[k];
                    if let Some((key, values)) = rule.joins[k].entry(&row, ranges, &self.arities) {
                        chain.entry(k, key, values, 0, 1);
                        chain.drain();
                        fresh.extend(chain.output().map(|(binding, _, _)| binding));
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
        for binding in fresh.drain(..) {
            if let Some((rel, atom)) = (self.head)(binding.clone()) {
                if self.see(Some(rel), atom.clone()) {
                    self.atoms.push(((rel, atom), 0, 1));
                }
            }
            self.bindings.push((binding, 0, 1));
        }
        self.fresh = fresh;
    }
}
