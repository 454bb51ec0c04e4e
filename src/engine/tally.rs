//! Netting a run's bindings without differential's `consolidate`.
//!
//! Without rounds every update of a run is at time 0, so a binding's multiplicity is final once
//! the run is: each worker collects the updates of the bindings whose hash picks it, and nets
//! them when the run ends. `consolidate` would arrange every binding instead (its merge sort
//! was 17% of zhadu's instructions and 12% of breakthrough's); one sort of the collected
//! updates, by hash first, costs a fraction of that and keeps less in memory.

use super::dataflow::Diff;
use super::pattern::Row;
use differential_dataflow::hashable::Hashable;
use differential_dataflow::VecCollection;
use std::cell::RefCell;
use std::rc::Rc;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::Operator;
use timely::dataflow::Stream;

/// A binding: the index of its rule plan and its row.
type Binding = (usize, Row);
/// One update of a binding, as the dataflow carries it.
type Update = (Binding, u32, Diff);

/// The updates of bindings collected on one worker, each with its binding's hash.
#[derive(Default)]
pub struct Tally(Rc<RefCell<Vec<(u64, Binding, Diff)>>>);

impl Tally {
    /// Collects every update of `bindings` (time 0 only) into this tally, on the worker the
    /// binding's hash picks. The returned stream carries nothing: probe it to know when the
    /// tally is complete.
    pub fn collect<'s>(
        &self,
        bindings: VecCollection<'s, u32, Binding, Diff>,
    ) -> Stream<'s, u32, Vec<Update>> {
        let updates = self.0.clone();
        let by_hash = Exchange::new(|(binding, _, _): &Update| binding.hashed());
        bindings
            .inner
            .unary::<CapacityContainerBuilder<Vec<Update>>, _, _, _>(by_hash, "Tally", |_, _| {
                move |input, _output| {
                    let mut updates = updates.borrow_mut();
                    input.for_each(|_, data| {
                        updates.extend(data.drain(..).map(|(b, _, d)| (b.hashed(), b, d)));
                    });
                }
            })
    }

    /// The bindings whose updates add up to a positive multiplicity, each once (emptying
    /// the tally).
    pub fn bindings(&self) -> impl Iterator<Item = Binding> {
        let updates = std::mem::take(&mut *self.0.borrow_mut());
        positive(updates).map(|(_, binding)| binding)
    }
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
    use super::positive;

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
