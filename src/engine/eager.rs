//! An eager `distinct`: each atom goes out at the time it first comes in, without waiting for
//! the input's frontier to pass that time.
//!
//! Why: differential's `distinct` arranges its input and emits a time's result once no more
//! input can come at that time, which takes timely two rounds of progress tracking (the
//! arrangement's, then the reduction's). On the cycle of a recursive component that is two
//! scheduling steps per iteration per relation; a step counter that counts to 800 waited 1600
//! times, each a pass of progress bookkeeping over the whole dataflow. Emitting at once, the
//! iteration goes on in the same step.
//!
//! Sound for totally ordered times only (the caller's promise): then a record's output
//! history is a step function of its input history, and an update at time `t` changes it at
//! `t` or later only, where the update's capability allows output. Records that come late at
//! an earlier time move their output there (+1 at the earlier time, −1 at the later); inputs
//! with negative multiplicities (an antijoin's retractions, the reduction loop's removals)
//! are followed exactly, at the price of outputs that later cancel.
//!
//! Where every update is an insertion at one time (a run without rounds whose rules retract
//! nothing), the histories are bookkeeping for nothing: the operator keeps only the set of
//! records seen, about half the memory per record (chineseCheckers6 on two workers: the
//! histories' map and their first writes were a fifth of the operator's samples).
//!
//! Each operator of an iterative scope costs timely progress tracking at every step, so the
//! operator also does the work of its neighbours where it can: on one worker it makes the
//! head atoms of the bindings itself, and it emits the atoms a second time tagged with their
//! relation (what the run gathers) instead of leaving that to a `map`.

use super::dataflow::{Atoms, Diff, Rows};
use super::pattern::Row;
use super::row_set::{in_batches, RowSet};
use crate::hash::FastMap;
use crate::program::RelId;
use differential_dataflow::hashable::Hashable;
use differential_dataflow::{AsCollection, Data, VecCollection};
use smallvec::SmallVec;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::{Exchange, ParallelizationContract};
use timely::dataflow::operators::generic::builder_rc::OperatorBuilder;
use timely::dataflow::operators::generic::OutputBuilder;
use timely::progress::operate::FrontierInterest;
use timely::progress::Timestamp;

/// What builds an operator's output containers of records `D` at times `T`.
pub(super) type Builder<T, D> = CapacityContainerBuilder<Vec<(D, T, Diff)>>;
/// An operator output of records `D` at times `T`.
pub(super) type Output<T, D> = OutputBuilder<T, Builder<T, D>>;

/// What an eager `distinct` is given, and so what it keeps of each record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Updates {
    /// Any updates, at totally ordered times: each record's input and output histories.
    Any,
    /// Insertions only, all at one time (the caller's promise; true of a run without rounds
    /// when [`fits`](super::fixpoint::fits)): the records seen, each out when first seen.
    Insertions,
}

/// What the operator keeps of the records it has been given (see [`Updates`]).
enum Kept<T> {
    Histories(FastMap<Row, Record<T>>),
    /// The records seen, in a set whose lookups are prefetched: most of them miss the cache.
    Seen(RowSet),
}

impl<T: Ord + Clone> Kept<T> {
    /// Nothing kept yet, for `updates` of relation `rel`.
    fn new(updates: Updates, rel: RelId) -> Kept<T> {
        match updates {
            Updates::Any => Kept::Histories(FastMap::default()),
            Updates::Insertions => Kept::Seen(RowSet::new(rel)),
        }
    }

    /// Takes `updates` (each a row, a time and a multiplicity), pushing the changes of the
    /// output to `changes`. Seen records are looked up a batch at a time ([`in_batches`]).
    fn take(
        &mut self,
        updates: impl Iterator<Item = (Row, T, Diff)>,
        changes: &mut Vec<(Row, T, Diff)>,
    ) {
        match self {
            Kept::Seen(seen) => in_batches(
                seen,
                updates,
                |seen, (row, _, diff)| {
                    debug_assert!(*diff > 0, "an insertion");
                    let hash = seen.hash(row);
                    seen.prefetch(hash);
                    hash
                },
                |seen, (row, time, _), hash| {
                    if seen.insert_hashed(&row, hash) {
                        changes.push((row, time, 1));
                    }
                },
            ),
            Kept::Histories(records) => {
                for (row, time, diff) in updates {
                    if let Some(record) = records.get_mut(&row) {
                        record.update(time, diff, |t, d| changes.push((row.clone(), t, d)));
                        continue;
                    }
                    let record =
                        Record::first(time, diff, |t, d| changes.push((row.clone(), t, d)));
                    records.insert(row, record);
                }
            }
        }
    }
}

/// Updates at distinct times, sorted by time.
type History<T> = SmallVec<[(T, Diff); 1]>;

/// What the operator keeps of one record: its input and its output so far.
struct Record<T> {
    input: History<T>,
    output: History<T>,
}

impl<T> Default for Record<T> {
    fn default() -> Record<T> {
        Record {
            input: History::new(),
            output: History::new(),
        }
    }
}

/// The distinct records of `rows`, emitted eagerly, and the same tagged with `rel`. The times
/// of `rows` must be totally ordered by their `Ord` (true of the top-level `u32`, and of an
/// iterative scope's times while the top-level time stays 0).
pub fn distinct<'s, T: Timestamp + Ord>(
    rows: Rows<'s, T>,
    updates: Updates,
    rel: RelId,
) -> (Rows<'s, T>, Atoms<'s, T>) {
    let exchange = Exchange::new(|(row, _, _): &(Row, T, Diff)| row.hashed());
    distinct_of(rows, exchange, updates, rel, Some)
}

/// The distinct rows `record` makes of the records of `input` (`None`: no row), emitted
/// eagerly, and the same rows tagged with `rel` (a relation's atoms as the run gathers them):
/// two outputs of one operator. `pact` must bring the records of a row to one worker (on one
/// worker, `Pipeline` does, and `record` runs in this operator instead of one of its own).
/// The times of `input` must be totally ordered, as for [`distinct`], and its updates what
/// `updates` says.
pub fn distinct_of<'s, T, D, P>(
    input: VecCollection<'s, T, D, Diff>,
    pact: P,
    updates: Updates,
    rel: RelId,
    mut record: impl FnMut(D) -> Option<Row> + 'static,
) -> (Rows<'s, T>, Atoms<'s, T>)
where
    T: Timestamp + Ord,
    D: Data,
    P: ParallelizationContract<T, Vec<(D, T, Diff)>>,
{
    let mut builder = OperatorBuilder::new("EagerDistinct".to_owned(), input.inner.scope());
    let mut input = builder.new_input(input.inner, pact);
    builder.set_notify_for(0, FrontierInterest::Never);
    let (rows_out, rows) = builder.new_output();
    let (atoms_out, atoms) = builder.new_output();
    let mut rows_out: Output<T, Row> = OutputBuilder::from(rows_out);
    let mut atoms_out: Output<T, (RelId, Row)> = OutputBuilder::from(atoms_out);
    // The initial capabilities are dropped: output goes out at the input's times.
    builder.build(move |_| {
        let mut kept = Kept::new(updates, rel);
        let mut changes: Vec<(Row, T, Diff)> = Vec::new();
        move |_frontiers| {
            let (mut rows_out, mut atoms_out) = (rows_out.activate(), atoms_out.activate());
            input.for_each(|capability, data| {
                let updates = (data.drain(..))
                    .filter_map(|(datum, time, diff)| Some((record(datum)?, time, diff)));
                kept.take(updates, &mut changes);
                changes.sort_unstable_by(|a, b| a.1.cmp(&b.1));
                // The rows tagged (copies), then the rows themselves (moved out), by time.
                let mut groups: SmallVec<[(T, usize); 1]> = SmallVec::new();
                for group in changes.chunk_by(|a, b| a.1 == b.1) {
                    let time = &group[0].1;
                    let tagged = group
                        .iter()
                        .map(|(row, t, d)| ((rel, row.clone()), t.clone(), *d));
                    (atoms_out.session(&capability.delayed(time, 1))).give_iterator(tagged);
                    groups.push((time.clone(), group.len()));
                }
                let mut changes = changes.drain(..);
                for (time, length) in groups {
                    let group = changes.by_ref().take(length);
                    (rows_out.session(&capability.delayed(&time, 0))).give_iterator(group);
                }
            });
        }
    });
    (rows.as_collection(), atoms.as_collection())
}

impl<T: Ord + Clone> Record<T> {
    /// A record whose first update is `diff` at `time`, calling `emit` with its output: what
    /// [`update`](Self::update) does to an empty record, without its general bookkeeping
    /// (most records come once, so this is most of the operator's work).
    fn first(time: T, diff: Diff, mut emit: impl FnMut(T, Diff)) -> Record<T> {
        let mut record = Record::default();
        if diff > 0 {
            record.output.push((time.clone(), 1));
            emit(time.clone(), 1);
        }
        record.input.push((time, diff));
        record
    }

    /// Adds `diff` at `time` to the input and calls `emit` with each change of the output
    /// (at `time` or later) that makes it the input's distinct set at every time.
    fn update(&mut self, time: T, diff: Diff, mut emit: impl FnMut(T, Diff)) {
        let at = self.input.partition_point(|(t, _)| *t < time);
        match self.input.get_mut(at) {
            Some((t, d)) if *t == time => {
                *d += diff;
                if *d == 0 {
                    self.input.remove(at);
                }
            }
            _ => self.input.insert(at, (time.clone(), diff)),
        }
        // The output before `time` stays; from `time` on it follows the input's count.
        let kept = self.output.partition_point(|(t, _)| *t < time);
        let mut present = self.output[..kept].iter().map(|(_, d)| d).sum::<Diff>() > 0;
        let mut count: Diff = self
            .input
            .iter()
            .take_while(|(t, _)| *t < time)
            .map(|(_, d)| d)
            .sum();
        let mut fresh: History<T> = History::new();
        for (t, d) in self.input.iter().skip_while(|(t, _)| *t < time) {
            count += d;
            if (count > 0) != present {
                present = count > 0;
                fresh.push((t.clone(), if present { 1 } else { -1 }));
            }
        }
        // Emit fresh − old, by time.
        let mut delta: SmallVec<[(T, Diff); 2]> = (self.output.drain(kept..))
            .map(|(t, d)| (t, -d))
            .chain(fresh.iter().cloned())
            .collect();
        delta.sort_by(|a, b| a.0.cmp(&b.0));
        for same in delta.chunk_by(|a, b| a.0 == b.0) {
            let sum: Diff = same.iter().map(|(_, d)| d).sum();
            if sum != 0 {
                emit(same[0].0.clone(), sum);
            }
        }
        self.output.extend(fresh);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The output of feeding `updates` in order to one record, as (time, diff) per update.
    fn outputs(updates: &[(u32, Diff)]) -> Vec<Vec<(u32, Diff)>> {
        let mut record = Record::default();
        (updates.iter())
            .map(|&(t, d)| {
                let mut out = Vec::new();
                record.update(t, d, |t, d| out.push((t, d)));
                out
            })
            .collect()
    }

    #[test]
    fn on_insertions_the_records_seen_do_what_the_histories_do() {
        let updates = [(1, 1), (2, 1), (1, 2), (3, 1), (2, 1), (1, 1)];
        let kept = |updates| Kept::new(updates, 7);
        let (mut seen, mut histories) = (kept(Updates::Insertions), kept(Updates::Any));
        let (mut by_seen, mut by_histories) = (Vec::new(), Vec::new());
        let rows = updates.map(|(v, diff)| (Row::from(&[v][..]), 0u32, diff));
        seen.take(rows.clone().into_iter(), &mut by_seen);
        histories.take(rows.into_iter(), &mut by_histories);
        assert_eq!(by_seen, by_histories);
        let out: Vec<u32> = by_seen.iter().map(|(row, _, _)| row[0]).collect();
        assert_eq!(out, [1, 2, 3]);
    }

    #[test]
    fn a_first_update_does_what_an_update_of_an_empty_record_does() {
        for (t, d) in [(3, 1), (3, 2), (0, -1), (5, 0)] {
            let (mut general, mut fast) = (Vec::new(), Vec::new());
            let mut record = Record::default();
            record.update(t, d, |t, d| general.push((t, d)));
            let first = Record::first(t, d, |t, d| fast.push((t, d)));
            assert_eq!(fast, general);
            assert_eq!((first.input, first.output), (record.input, record.output));
        }
    }

    #[test]
    fn a_record_goes_out_once_at_its_first_time() {
        assert_eq!(
            outputs(&[(3, 1), (5, 2), (3, 1)]),
            [vec![(3, 1)], vec![], vec![]]
        );
    }

    #[test]
    fn a_record_that_comes_earlier_moves_its_output_there() {
        assert_eq!(
            outputs(&[(5, 1), (2, 1), (2, -1)]),
            [vec![(5, 1)], vec![(2, 1), (5, -1)], vec![(2, -1), (5, 1)]]
        );
    }

    #[test]
    fn retractions_are_followed_exactly() {
        // In at 1, an antijoin's retraction at 1 (net 0), then in again at 4 and out at 6.
        assert_eq!(
            outputs(&[(1, 1), (1, -1), (4, 1), (6, -1)]),
            [vec![(1, 1)], vec![(1, -1)], vec![(4, 1)], vec![(6, -1)]]
        );
    }
}
