//! A rule's chain of joins in one operator, on one worker: a pipelined symmetric hash join.
//!
//! Why: as differential operators, each join of a chain is two (the arrangement of the
//! bindings so far, and the join with the literal's shared arrangement), and an arrangement
//! waits for its input's frontier, which costs a step of progress tracking per join per
//! iteration of a recursive component. Small games with big recursive components spent most
//! of their time in that bookkeeping. Here the whole chain is one operator that emits at once.
//!
//! How: the operator keeps, for each join, the bindings that reached it and the entries of its
//! literal, both hashed by the join's key, with their times and multiplicities. Each update,
//! from either side, is matched against what the other side holds and then kept: every pair
//! is produced once, by whichever of its two updates comes second, at the least upper bound of
//! their times with the product of their multiplicities. That is the join of the two
//! collections for any lattice of times, so nothing waits for a frontier. The state is never
//! compacted: it holds the updates as they came, like the arrangements it replaces.
//!
//! Each join of a chain is keyed differently, so the updates of one chain cannot all be
//! brought to one worker by a single exchange. In a recursive component's iterative scope a
//! chain is used on one worker only, where the steps are; outside them on one worker a rule
//! is instantiated in a few steps anyway, and differential's arrangements, shared by every
//! literal of one shape and merged in sorted batches, do big joins faster (skirmish took 5.1 s
//! with chains everywhere, 4.0 s without them at the top level).
//!
//! On several workers, outside iterative scopes in a run without rounds, a chain *waits*: each
//! worker takes every row of the joins' relations (the caller sends them to every worker) and
//! holds its own source rows until those relations are complete, then starts its bindings
//! from them. So no binding is kept for entries to come, as the fixpoint's levels do
//! ([`super::fixpoint`]), and the bindings are split as the source rows are. Where the first
//! join's key has several variables, its relation's rows are instead partitioned by that key,
//! and the source comes as bindings keyed for it and partitioned alike: each worker indexes
//! its share of that relation rather than all of it.

use super::dataflow::{Diff, Rows};
use super::eager::{Builder, Output};
use super::pattern::{Ranges, Row};
use super::pipe::{joined, Out};
use super::shape::Shape;
use crate::hash::FastMap;
use differential_dataflow::lattice::Lattice;
use differential_dataflow::{AsCollection, Data, VecCollection};
use std::sync::Arc;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::generic::builder_rc::OperatorBuilder;
use timely::dataflow::operators::generic::{OutputBuilder, OutputBuilderSession};
use timely::dataflow::operators::{Capability, CapabilitySet};
use timely::progress::operate::FrontierInterest;
use timely::progress::Timestamp;

/// What turns a binding (or a chain's source row of type `S`) into the keyed bindings of the
/// next join (a rule's pipe).
pub type Keying<S = Row> = Box<dyn FnMut(S) -> Out<(Row, Row)>>;

/// One join of a chain: the rows of its literal's relation, and the literal's shape.
pub struct Join<'s, T: Timestamp> {
    /// The relation's rows.
    pub rows: Rows<'s, T>,
    /// The literal, keyed by the variables bound before it.
    pub shape: Shape,
}

/// How many output records the operator holds before it sends them.
const BATCH: usize = 4096;

/// Updates by key: what each side of a join holds.
type Index<T> = FastMap<Row, Vec<(Row, T, Diff)>>;

/// The bindings of a chain: the rows of `source` (a relation's rows, or bindings already
/// keyed for the first join and partitioned by that key, as `dataflow`'s `first_by_key`
/// says), keyed by `first`, joined with each of `joins` in turn; between two joins the
/// bindings pass through `between` (one fewer than `joins`, at least one join), after the
/// last through `last`. With `wait`, the source's rows are taken only once the joins'
/// relations are complete (their inputs' frontiers empty), and no binding is kept: only where
/// every input comes to an end, outside iterative scopes.
pub fn chain<'s, T, S, O>(
    source: VecCollection<'s, T, S, Diff>,
    mut first: Keying<S>,
    joins: Vec<Join<'s, T>>,
    between: Vec<Keying>,
    last: impl FnMut(Row) -> Out<O> + 'static,
    arities: Arc<Vec<u32>>,
    wait: bool,
) -> VecCollection<'s, T, O, Diff>
where
    T: Timestamp + Lattice + Ord,
    S: Data,
    O: Data,
{
    let mut builder = OperatorBuilder::new("Chain".to_owned(), source.inner.scope());
    let mut source_in = builder.new_input(source.inner, Pipeline);
    builder.set_notify_for(0, FrontierInterest::Never);
    let mut shapes = Vec::new();
    let mut inputs = Vec::new();
    // Waiting, the operator holds capabilities for the source rows it holds, and is scheduled
    // when the joins' relations end.
    let interest = match wait {
        true => FrontierInterest::IfCapability,
        false => FrontierInterest::Never,
    };
    for (i, join) in joins.into_iter().enumerate() {
        inputs.push(builder.new_input(join.rows.inner, Pipeline));
        builder.set_notify_for(i + 1, interest);
        shapes.push(join.shape);
    }
    let (output, stream) = builder.new_output();
    let mut output: Output<T, O> = OutputBuilder::from(output);
    // The initial capabilities are dropped: output goes out at the inputs' times.
    builder.build(move |_| {
        let kept = vec![!wait; between.len() + 1];
        let mut state = State::new(between, Box::new(last), kept);
        let mut ranges: Vec<Ranges> = shapes.iter().map(|s| Ranges::new(s.vars())).collect();
        // Source rows held until the joins' relations are complete, with their capabilities.
        let mut held: Vec<Held<T, S>> = Vec::new();
        move |frontiers| {
            let mut output = output.activate();
            let mut start = |state: &mut State<T, O>, row, time, diff| {
                state.start(first(row), time, diff);
            };
            for (k, input) in inputs.iter_mut().enumerate() {
                let (shape, ranges) = (&shapes[k], &mut ranges[k]);
                input.for_each(|capability, data| {
                    let delayed = |t: &T| capability.delayed(t, 0);
                    state.take(data, delayed, &mut output, |state, row, time, diff| {
                        if let Some((key, values)) = shape.entry(&row, ranges, &arities) {
                            state.entry(k, key, values, time, diff);
                        }
                    });
                });
            }
            if wait && frontiers[1..].iter().any(|frontier| !frontier.is_empty()) {
                source_in.for_each(|capability, data| {
                    held.push((capability.retain_stamp(0), std::mem::take(data)));
                });
                return;
            }
            for (capabilities, mut data) in held.drain(..) {
                let delayed = |t: &T| capabilities.delayed(t);
                state.take(&mut data, delayed, &mut output, &mut start);
            }
            source_in.for_each(|capability, data| {
                state.take(data, |t| capability.delayed(t, 0), &mut output, &mut start);
            });
        }
    });
    stream.as_collection()
}

/// Source rows a waiting chain holds, with capabilities for their times.
type Held<T, S> = (CapabilitySet<T>, Vec<(S, T, Diff)>);

/// A binding that reached join `.0`, with its key, time and multiplicity.
type Pending<T> = (usize, Row, Row, T, Diff);

/// What a chain holds between updates: the operator's state, and a recursive component's
/// rules' in [`super::fixpoint`].
pub(super) struct State<T, O> {
    /// Per join, the bindings that reached it (none where they are not kept).
    lefts: Vec<Index<T>>,
    /// Per join, whether the bindings that reach it are kept for entries to come: not when
    /// its literal's relation is complete before any binding reaches it.
    kept: Vec<bool>,
    /// Per join, its literal's entries.
    rights: Vec<Index<T>>,
    /// Where joined bindings go.
    onward: Onward<T, O>,
}

/// Where the bindings a join makes go: on to the next join, or out.
struct Onward<T, O> {
    /// What follows each join but the last.
    between: Vec<Keying>,
    /// What follows the last join.
    last: Box<dyn FnMut(Row) -> Out<O>>,
    /// Bindings still to take to their join.
    stack: Vec<Pending<T>>,
    /// Output not yet sent.
    out: Vec<(O, T, Diff)>,
}

impl<T: Timestamp + Lattice + Ord, O: Data> State<T, O> {
    /// The state of a chain whose joins are followed by `between` (one fewer) and the last
    /// by `last`, holding nothing yet; `kept` says per join whether the bindings that reach
    /// it are kept for entries to come.
    pub(super) fn new(
        between: Vec<Keying>,
        last: Box<dyn FnMut(Row) -> Out<O>>,
        kept: Vec<bool>,
    ) -> State<T, O> {
        let joins = between.len() + 1;
        assert_eq!(kept.len(), joins, "one flag per join");
        State {
            lefts: (0..joins).map(|_| Index::default()).collect(),
            kept,
            rights: (0..joins).map(|_| Index::default()).collect(),
            onward: Onward {
                between,
                last,
                stack: Vec::new(),
                out: Vec::new(),
            },
        }
    }

    /// Adds an entry of join `k`'s literal: joined with the bindings there, then kept.
    pub(super) fn entry(&mut self, k: usize, key: Row, values: Row, time: T, diff: Diff) {
        if let Some(lefts) = self.lefts[k].get(&key) {
            for (binding, t, d) in lefts {
                (self.onward).emit(k, joined(binding, &values), t.join(&time), d * diff);
            }
        }
        self.rights[k]
            .entry(key)
            .or_default()
            .push((values, time, diff));
    }

    /// Adds bindings keyed for the first join, pending until [`drain`](Self::drain).
    pub(super) fn start(&mut self, keyed: Out<(Row, Row)>, time: T, diff: Diff) {
        for (key, binding) in keyed {
            (self.onward.stack).push((0, key, binding, time.clone(), diff));
        }
    }

    /// The output made so far, taken out.
    pub(super) fn output(&mut self) -> std::vec::Drain<'_, (O, T, Diff)> {
        self.onward.out.drain(..)
    }

    /// Takes every pending binding to its join: joined with the entries there, then kept if
    /// that join keeps its bindings.
    pub(super) fn drain(&mut self) {
        while let Some((k, key, binding, time, diff)) = self.onward.stack.pop() {
            if let Some(rights) = self.rights[k].get(&key) {
                for (values, t, d) in rights {
                    (self.onward).emit(k, joined(&binding, values), t.join(&time), d * diff);
                }
            }
            if self.kept[k] {
                self.lefts[k]
                    .entry(key)
                    .or_default()
                    .push((binding, time, diff));
            }
        }
    }

    /// Takes the updates of one input message, each added by `add` and taken through the
    /// chain, and sends the output at their times (in batches as it grows).
    fn take<D>(
        &mut self,
        data: &mut Vec<(D, T, Diff)>,
        delayed: impl Fn(&T) -> Capability<T>,
        output: &mut OutputBuilderSession<'_, T, Builder<T, O>>,
        mut add: impl FnMut(&mut Self, D, T, Diff),
    ) {
        for (row, time, diff) in data.drain(..) {
            add(self, row, time, diff);
            self.drain();
            self.flush(BATCH, &delayed, output);
        }
        self.flush(0, &delayed, output);
    }

    /// Sends the output so far, grouped by time (each under the capability `delayed` gives
    /// for it), if there is more than `over`.
    fn flush(
        &mut self,
        over: usize,
        delayed: &impl Fn(&T) -> Capability<T>,
        output: &mut OutputBuilderSession<'_, T, Builder<T, O>>,
    ) {
        let out = &mut self.onward.out;
        if out.len() <= over {
            return;
        }
        out.sort_by(|a, b| b.1.cmp(&a.1));
        while let Some((_, time, _)) = out.last() {
            let time = time.clone();
            let start = out.partition_point(|(_, t, _)| *t != time);
            (output.session(&delayed(&time))).give_iterator(out.drain(start..));
        }
    }
}

impl<T: Clone, O> Onward<T, O> {
    /// A binding that joined join `k`: keyed for the next join, or out after the last.
    fn emit(&mut self, k: usize, row: Row, time: T, diff: Diff) {
        if diff == 0 {
            return;
        }
        match self.between.get_mut(k) {
            Some(keying) => {
                for (key, binding) in keying(row) {
                    (self.stack).push((k + 1, key, binding, time.clone(), diff));
                }
            }
            None => (self.out).extend(
                (self.last)(row)
                    .into_iter()
                    .map(|o| (o, time.clone(), diff)),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::pattern::Item::Var;
    use differential_dataflow::consolidation::consolidate_updates;
    use differential_dataflow::input::Input;
    use smallvec::smallvec;
    use std::cell::RefCell;
    use std::rc::Rc;

    type Updates = Vec<(Row, u32, Diff)>;
    type Given = Vec<([u32; 2], u32, Diff)>;

    /// The consolidated updates of `a(X, Y), b(Y, Z)` as bindings `[X, Y, Z]`, by the chain
    /// operator (waiting for `b` to end if `wait`) and by differential's join, from the same
    /// updates of `a` and `b` (each `(row, time, diff)`).
    fn both(a: Given, b: Given, wait: bool) -> (Updates, Updates) {
        timely::execute_directly(move |worker| {
            let (ours, theirs): (Rc<RefCell<Updates>>, Rc<RefCell<Updates>>) = Default::default();
            let (o, t) = (ours.clone(), theirs.clone());
            let (mut a_in, mut b_in) = worker.dataflow::<u32, _, _>(|scope| {
                let (a_in, a) = scope.new_collection::<Row, Diff>();
                let (b_in, b) = scope.new_collection::<Row, Diff>();
                let first: Keying = Box::new(|row: Row| smallvec![(Row::from(&row[1..]), row)]);
                let shape = Shape::new(0, &[Var(0), Var(1)], &[0], &[1]);
                let joins = vec![Join {
                    rows: b.clone(),
                    shape,
                }];
                let last = |row: Row| -> Out<Row> { smallvec![row] };
                chain(
                    a.clone(),
                    first,
                    joins,
                    Vec::new(),
                    last,
                    Arc::new(vec![0; 16]),
                    wait,
                )
                .inspect(move |(row, time, diff)| o.borrow_mut().push((row.clone(), *time, *diff)));
                let keyed = a.map(|row| (Row::from(&row[1..]), row));
                (keyed.join(b.map(|row| (Row::from(&row[..1]), Row::from(&row[1..])))))
                    .map(|(_, (binding, values))| joined(&binding, &values))
                    .inspect(move |(row, time, diff)| {
                        t.borrow_mut().push((row.clone(), *time, *diff))
                    });
                (a_in, b_in)
            });
            for time in 0..8 {
                a_in.advance_to(time);
                b_in.advance_to(time);
                let at = |given: &Given| -> Vec<(Row, Diff)> {
                    (given.iter().filter(|u| u.1 == time))
                        .map(|(row, _, d)| (Row::from(&row[..]), *d))
                        .collect()
                };
                at(&a).into_iter().for_each(|(row, d)| a_in.update(row, d));
                at(&b).into_iter().for_each(|(row, d)| b_in.update(row, d));
                // Some times are stepped through alone (long enough for the operators to take
                // what came), some come together.
                if time % 3 == 0 {
                    a_in.flush();
                    b_in.flush();
                    (0..8).for_each(|_| _ = worker.step());
                }
            }
            drop((a_in, b_in));
            while worker.step() {}
            let net = |updates: &Rc<RefCell<Updates>>| {
                let mut updates = updates.borrow().clone();
                consolidate_updates(&mut updates);
                updates
            };
            (net(&ours), net(&theirs))
        })
    }

    #[test]
    fn a_chain_joins_like_differential_at_every_time() {
        let a = vec![
            ([1, 2], 0, 1),
            ([3, 2], 2, 1),
            ([4, 7], 2, 1),
            ([1, 2], 5, -1),
            ([1, 2], 6, 2),
        ];
        let b = vec![
            ([2, 6], 0, 1),
            ([2, 5], 1, 1),
            ([7, 7], 3, 1),
            ([2, 5], 4, -1),
            ([7, 8], 7, 1),
        ];
        for wait in [false, true] {
            let (ours, theirs) = both(a.clone(), b.clone(), wait);
            assert!(theirs.len() > 5);
            assert_eq!(ours, theirs, "wait: {wait}");
        }
    }
}
