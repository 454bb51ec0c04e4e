//! Netting a run's bindings without differential's `consolidate`.
//!
//! Without rounds every update of a run is at time 0, so a binding's multiplicity is final once
//! the run is: each worker collects the updates of the bindings whose hash picks it, and nets
//! them when the run ends. `consolidate` would arrange every binding instead (its merge sort
//! was 17% of zhadu's instructions and 12% of breakthrough's); one sort of the collected
//! updates, by rule then row, costs a fraction of that and keeps less in memory.
//!
//! Bindings made once each (the fixpoint operators') skip all of that: each worker keeps its
//! own as they come. On two workers, hashing, exchanging and sorting racer4's 8.8 M bindings
//! was a fifth of its dataflow's time.

use super::dataflow::Diff;
use super::pattern::Row;
use differential_dataflow::hashable::Hashable;
use differential_dataflow::VecCollection;
use std::cell::RefCell;
use std::rc::Rc;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::{Exchange, ParallelizationContract, Pipeline};
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::Stream;

/// A binding: the index of its rule plan and its row.
type Binding = (usize, Row);
/// One update of a binding, as the dataflow carries it.
type Update = (Binding, u32, Diff);

/// The bindings collected on one worker: updates to net, and bindings made once.
#[derive(Default)]
pub struct Tally {
    updates: Rc<RefCell<Vec<(usize, Row, Diff)>>>,
    once: Rc<RefCell<Vec<Binding>>>,
}

impl Tally {
    /// Collects every update of `bindings` (time 0 only) into this tally, on the worker the
    /// binding's hash picks. The returned stream carries nothing: probe it to know when the
    /// tally is complete.
    pub fn collect<'s>(
        &self,
        bindings: VecCollection<'s, u32, Binding, Diff>,
    ) -> Stream<'s, u32, Vec<Update>> {
        let updates = self.updates.clone();
        let by_hash = Exchange::new(|(binding, _, _): &Update| binding.hashed());
        sink(bindings, by_hash, move |data| {
            let data = data.drain(..).map(|((r, row), _, d)| (r, row, d));
            updates.borrow_mut().extend(data);
        })
    }

    /// Keeps every binding of `bindings` (time 0 only) on the worker that made it: the
    /// caller's promise is that each is made once, on one worker, with multiplicity 1. The
    /// returned stream carries nothing: probe it to know when the tally is complete.
    pub fn keep<'s>(
        &self,
        bindings: VecCollection<'s, u32, Binding, Diff>,
    ) -> Stream<'s, u32, Vec<Update>> {
        let once = self.once.clone();
        sink(bindings, Pipeline, move |data| {
            debug_assert!(data.iter().all(|(_, _, d)| *d == 1), "made once");
            once.borrow_mut().extend(data.drain(..).map(|(b, _, _)| b));
        })
    }

    /// The bindings whose updates add up to a positive multiplicity, each once and in order
    /// (by rule, then row), then those made once (emptying the tally).
    ///
    /// In order, not by hash: the ground stage reads the instances' rules head by head, and a
    /// rule's bindings in order mostly make its heads in order. Netted by hash, the rules of
    /// a head were scattered over memory and sorting them on two workers took three times as
    /// long as on one (chineseCheckers6: 130 -> 43 ms at `-w 2`, 0.1 s less in all).
    pub fn bindings(&self) -> impl Iterator<Item = Binding> {
        let updates = std::mem::take(&mut *self.updates.borrow_mut());
        let once = std::mem::take(&mut *self.once.borrow_mut());
        positive(updates).chain(once)
    }
}

/// An operator that gives each message of `bindings`, brought by `pact`, to `take`, and
/// sends nothing on.
fn sink<'s, P: ParallelizationContract<u32, Vec<Update>>>(
    bindings: VecCollection<'s, u32, Binding, Diff>,
    pact: P,
    mut take: impl FnMut(&mut Vec<Update>) + 'static,
) -> Stream<'s, u32, Vec<Update>> {
    (bindings.inner).unary::<CapacityContainerBuilder<Vec<Update>>, _, _, _>(
        pact,
        "Tally",
        |_, _| move |input, _output| input.for_each(|_, data| take(data)),
    )
}

/// The records of `updates` whose multiplicities add up to a positive number, each once,
/// sorted by key then record.
pub fn positive<K: Ord, R: Ord>(mut updates: Vec<(K, R, Diff)>) -> impl Iterator<Item = (K, R)> {
    updates.sort_unstable_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    let mut updates = updates.into_iter().peekable();
    std::iter::from_fn(move || loop {
        let (key, record, mut sum) = updates.next()?;
        while let Some((_, _, diff)) = updates.next_if(|(k, r, _)| *k == key && *r == record) {
            sum += diff;
        }
        if sum > 0 {
            return Some((key, record));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{positive, Tally};
    use crate::engine::pattern::Row;
    use differential_dataflow::input::Input;
    use timely::dataflow::operators::Probe;
    use timely::dataflow::ProbeHandle;

    /// A row of one token.
    fn row(v: u32) -> Row {
        Row::from(&[v][..])
    }

    #[test]
    fn updates_are_netted_and_bindings_made_once_kept_as_they_came() {
        let mut kept = timely::execute_directly(|worker| {
            let tally = Tally::default();
            let probe = ProbeHandle::new();
            let (mut netted, mut once) = worker.dataflow::<u32, _, _>(|scope| {
                let (netted_in, netted) = scope.new_collection::<(usize, Row), isize>();
                let (once_in, once) = scope.new_collection::<(usize, Row), isize>();
                tally.collect(netted).probe_with(&probe);
                tally.keep(once).probe_with(&probe);
                (netted_in, once_in)
            });
            netted.update((0, row(1)), 1);
            netted.update((0, row(1)), 1);
            netted.update((0, row(2)), 1);
            netted.update((0, row(2)), -1);
            once.update((1, row(3)), 1);
            once.update((1, row(4)), 1);
            drop((netted, once));
            while !probe.done() {
                worker.step();
            }
            tally.bindings().collect::<Vec<_>>()
        });
        kept.sort();
        assert_eq!(kept, [(0, row(1)), (1, row(3)), (1, row(4))]);
    }

    #[test]
    fn records_are_netted_and_kept_once_if_positive() {
        let updates = vec![
            (2, 'b', 1),
            (1, 'a', 1),
            (2, 'b', -1),
            (1, 'c', 2),
            (1, 'a', 1),
            (3, 'd', -1),
            (3, 'd', 1),
            (3, 'd', 1),
        ];
        let kept: Vec<_> = positive(updates).collect();
        assert_eq!(kept, [(1, 'a'), (1, 'c'), (3, 'd')]);
    }
}
