//! A symmetric hash join: one operator that pairs the updates of two collections by key as
//! either comes, with no arrangement between them and its readers.
//!
//! Why: in an iteration of the live fixpoint every arrangement on the cycle costs a step of
//! the worker, since it seals its batch only once timely has moved the frontier past the
//! iteration, which it does at the start of a step. A join here sends its pairs out in the
//! step their updates come in.
//!
//! How: the operator keeps every update of either side with its time. An update meets each
//! kept update of the other side with its key and goes out at the least upper bound of the
//! two times (at or after its own), with the product of their counts: what a join of two
//! arrangements gives. So an update that comes in a later epoch meets the older updates of
//! the other side at the iterations they came in.
//!
//! A key's kept updates are compacted as they double: their times advanced to the inputs'
//! frontier (joined with its meet, which leaves every pair's time with a later update as
//! it was), and the updates of the same record at the same time added up. An edit that
//! retracts what an earlier one added leaves no pair of theirs behind to meet: without this,
//! hex's edits of a static fact took 10 times longer by their fifth repetition in a session.

use crate::hash::FastMap;
use differential_dataflow::lattice::Lattice;
use differential_dataflow::{AsCollection, ExchangeData, Hashable, VecCollection};
use std::hash::Hash;
use timely::dataflow::channels::pact::{Exchange, ParallelizationContract, Pipeline};
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::StreamVec;
use timely::progress::Timestamp;

/// How the two sides are spread over the workers.
#[derive(Clone, Copy, Debug)]
pub enum Spread {
    /// Both sides by the hash of their key: each key's pairs are made on one worker.
    ByKey,
    /// The left side by the hash of its whole record, the right side to every worker: for a
    /// right side of few records whose keys the left side's many records share.
    RightEverywhere,
}

/// The pairs of `left` and `right` with equal keys, as `result` makes them (or not: `None`).
pub fn join<'s, T, K, A, B, R, F>(
    left: VecCollection<'s, T, (K, A), isize>,
    right: VecCollection<'s, T, (K, B), isize>,
    spread: Spread,
    name: &str,
    result: F,
) -> VecCollection<'s, T, R, isize>
where
    T: Timestamp + Lattice,
    K: ExchangeData + Hash + Eq,
    A: ExchangeData + Hash + Ord,
    B: ExchangeData + Ord,
    R: ExchangeData,
    F: FnMut(&K, &A, &B) -> Option<R> + 'static,
{
    match spread {
        Spread::ByKey => {
            let pacts = (Exchange::new(by_key), Exchange::new(by_key));
            operator(left.inner, right.inner, pacts, name, result)
        }
        Spread::RightEverywhere => {
            let by_record = Exchange::new(|(record, _, _): &((K, A), T, isize)| record.hashed());
            let everywhere = right.inner.broadcast();
            operator(left.inner, everywhere, (by_record, Pipeline), name, result)
        }
    }
}

/// The hash of an update's key, to route it by.
fn by_key<K: Hashable<Output = u64>, V, T>(((key, _), _, _): &((K, V), T, isize)) -> u64 {
    key.hashed()
}

/// The join's operator, over streams already routed by `pacts`.
fn operator<'s, T, K, A, B, R, F, P1, P2>(
    left: StreamVec<'s, T, ((K, A), T, isize)>,
    right: StreamVec<'s, T, ((K, B), T, isize)>,
    pacts: (P1, P2),
    name: &str,
    mut result: F,
) -> VecCollection<'s, T, R, isize>
where
    T: Timestamp + Lattice,
    K: ExchangeData + Hash + Eq,
    A: ExchangeData + Ord,
    B: ExchangeData + Ord,
    R: ExchangeData,
    F: FnMut(&K, &A, &B) -> Option<R> + 'static,
    P1: ParallelizationContract<T, Vec<((K, A), T, isize)>>,
    P2: ParallelizationContract<T, Vec<((K, B), T, isize)>>,
{
    let (left_pact, right_pact) = pacts;
    let pairs = left.binary_frontier(right, left_pact, right_pact, name, move |initial, _| {
        // No output but the pairs, at the times of the updates that make them.
        drop(initial);
        let mut kept: FastMap<K, Sides<A, B, T>> = FastMap::default();
        move |(left_in, left_frontier), (right_in, right_frontier), output| {
            let frontiers = [left_frontier.frontier(), right_frontier.frontier()];
            let mut elements = frontiers.iter().flat_map(|f| f.iter());
            let first = elements.next().cloned();
            let frontier = first.map(|first| elements.fold(first, |m, t| m.meet(t)));
            left_in.for_each(|capability, data| {
                let mut session = output.session(&capability);
                for ((key, a), time, diff) in data.drain(..) {
                    let (lefts, rights) = kept.entry(key.clone()).or_default();
                    for (b, when, times) in rights.updates.iter() {
                        if let Some(r) = result(&key, &a, b) {
                            session.give((r, time.join(when), diff * times));
                        }
                    }
                    lefts.push((a, time, diff), frontier.as_ref());
                }
            });
            right_in.for_each(|capability, data| {
                let mut session = output.session(&capability);
                for ((key, b), time, diff) in data.drain(..) {
                    let (lefts, rights) = kept.entry(key.clone()).or_default();
                    for (a, when, times) in lefts.updates.iter() {
                        if let Some(r) = result(&key, a, &b) {
                            session.give((r, time.join(when), diff * times));
                        }
                    }
                    rights.push((b, time, diff), frontier.as_ref());
                }
            });
        }
    });
    pairs.as_collection()
}

/// A key's kept updates of either side.
type Sides<A, B, T> = (Kept<A, T>, Kept<B, T>);

/// One side's kept updates of a key.
struct Kept<D, T> {
    updates: Vec<(D, T, isize)>,
    /// How many there were after the last compaction.
    compacted: usize,
}

impl<D, T> Default for Kept<D, T> {
    fn default() -> Self {
        Kept {
            updates: Vec::new(),
            compacted: 0,
        }
    }
}

impl<D: Ord, T: Lattice + Ord> Kept<D, T> {
    /// Keeps `update`; compacts the updates to `frontier` (a time every later update is at
    /// or after; `None` when none will come) when they have doubled since the last time.
    fn push(&mut self, update: (D, T, isize), frontier: Option<&T>) {
        self.updates.push(update);
        if self.updates.len() < 2 * self.compacted.max(1) {
            return;
        }
        if let Some(frontier) = frontier {
            for (_, time, _) in self.updates.iter_mut() {
                *time = time.join(frontier);
            }
            differential_dataflow::consolidation::consolidate_updates(&mut self.updates);
        }
        self.compacted = self.updates.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use differential_dataflow::input::{Input, InputSession};
    use std::cell::RefCell;
    use std::rc::Rc;
    use timely::dataflow::operators::{Inspect, Probe};
    use timely::dataflow::ProbeHandle;
    use timely::order::Product;

    type Time = Product<u32, u64>;
    type Pair = (u32, u32);

    /// Updates meet at the least upper bound of their times, whichever side comes later, and
    /// a retraction retracts the pairs its update made; a right update of another key meets
    /// nothing, and `result` drops the pairs it declines. A record's iteration is its value's
    /// last digit; its epoch, when it comes.
    #[test]
    fn updates_meet_at_the_least_upper_bound_of_their_times() {
        let out = timely::execute_directly(|worker| {
            let seen: Rc<RefCell<Vec<(Pair, Time, isize)>>> = Rc::default();
            let probe = ProbeHandle::new();
            let (mut lefts, mut rights) = worker.dataflow::<u32, _, _>(|scope| {
                let (lefts_in, lefts) = scope.new_collection::<(u32, u32), isize>();
                let (rights_in, rights) = scope.new_collection::<(u32, u32), isize>();
                let (sink, probe) = (seen.clone(), probe.clone());
                scope.iterative::<u64, _, _>(|inner| {
                    let iteration = |(_, v): &(u32, u32)| u64::from(v % 10);
                    let lefts = lefts.enter_at(inner, iteration);
                    let rights = rights.enter_at(inner, iteration);
                    let result = |_: &u32, a: &u32, b: &u32| (*b != 0).then_some((*a, *b));
                    join(lefts, rights, Spread::ByKey, "Test", result)
                        .inner
                        .inspect(move |update| sink.borrow_mut().push(*update))
                        .probe_with(&probe);
                });
                (lefts_in, rights_in)
            });
            // Each epoch's updates reach the operator before the next epoch's come.
            let mut epoch = |lefts: &mut InputSession<_, _, _>,
                             rights: &mut InputSession<_, _, _>| {
                let next = lefts.time() + 1;
                lefts.advance_to(next);
                rights.advance_to(next);
                lefts.flush();
                rights.flush();
                for _ in 0..20 {
                    worker.step();
                }
            };
            lefts.insert((1, 13));
            lefts.insert((1, 17));
            epoch(&mut lefts, &mut rights);
            for right in [(1, 25), (1, 28), (1, 0), (2, 30)] {
                rights.insert(right);
            }
            epoch(&mut lefts, &mut rights);
            lefts.insert((1, 12));
            epoch(&mut lefts, &mut rights);
            rights.remove((1, 25));
            epoch(&mut lefts, &mut rights);
            lefts.insert((1, 14));
            drop((lefts, rights));
            while !probe.done() {
                worker.step();
            }
            let mut seen = seen.borrow().clone();
            differential_dataflow::consolidation::consolidate_updates(&mut seen);
            seen
        });
        let at = Product::new;
        let mut expected = vec![
            ((13, 25), at(1, 5), 1),
            ((17, 25), at(1, 7), 1),
            ((13, 28), at(1, 8), 1),
            ((17, 28), at(1, 8), 1),
            ((12, 25), at(2, 5), 1),
            ((12, 28), at(2, 8), 1),
            ((13, 25), at(3, 5), -1),
            ((17, 25), at(3, 7), -1),
            ((12, 25), at(3, 5), -1),
            ((14, 28), at(4, 8), 1),
        ];
        differential_dataflow::consolidation::consolidate_updates(&mut expected);
        assert_eq!(out, expected);
    }
}
