//! The live dataflow's index of atoms by shape: each atom paired with the shapes in use of
//! its relation as either comes ([`super::symmetric`]), rather than a join of two
//! arrangements.
//!
//! Why: the index was the atoms arranged, joined with the shapes arranged, and arranged
//! again, and every arrangement on the fixpoint's cycle costs a step of the worker an
//! iteration (skirmish's step-counter edit retracts one step of the counter an iteration,
//! 48 of them, in 202 worker steps then). A shape enabled in a later epoch gets the entries
//! of the atoms that came before it at the iterations they came in, as the join of two
//! arrangements gave them.

use super::symmetric::{self, Spread};
use super::worker::Registry;
use super::ShapeId;
use crate::engine::pattern::{Ranges, Row};
use crate::program::RelId;
use differential_dataflow::lattice::Lattice;
use differential_dataflow::VecCollection;
use std::cell::RefCell;
use std::rc::Rc;
use timely::progress::Timestamp;

/// The index's entries: (shape, key values) → the values of the shape's new variables.
pub type Entries<'s, T> = VecCollection<'s, T, ((ShapeId, Row), Row), isize>;

/// The entries of every atom of `atoms` in the shapes of `shapes` (relation, shape) that
/// match it. Atoms are spread over the workers by their hash; every worker sees every shape.
pub fn entries<'s, T: Timestamp + Lattice>(
    atoms: VecCollection<'s, T, (RelId, Row), isize>,
    shapes: VecCollection<'s, T, (RelId, ShapeId), isize>,
    registry: &Rc<RefCell<Registry>>,
) -> Entries<'s, T> {
    let registry = registry.clone();
    let mut ranges = Ranges::new(0);
    let spread = Spread::RightEverywhere;
    symmetric::join(
        atoms,
        shapes,
        spread,
        "IndexByShape",
        move |_, row, shape| entry(&registry.borrow(), &mut ranges, *shape, row),
    )
}

/// The entry of the atom with arguments `row` in the index of `shape` (its key values and the
/// values of the shape's new variables), or `None` if the atom does not match the shape.
fn entry(
    reg: &Registry,
    ranges: &mut Ranges,
    shape: ShapeId,
    row: &Row,
) -> Option<((ShapeId, Row), Row)> {
    let s = reg.shape(shape);
    ranges.room(s.pattern.len());
    let (key, new) = s.entry(row, ranges, &reg.arities)?;
    Some(((shape, key), new))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::live::Change;
    use crate::engine::pattern::Item;
    use crate::engine::shape::Shape;
    use differential_dataflow::input::Input;
    use std::sync::Arc;
    use timely::dataflow::operators::{Inspect, Probe};
    use timely::dataflow::ProbeHandle;
    use timely::order::Product;

    type Time = Product<u32, u64>;
    type Entry = ((ShapeId, Row), Row);

    /// A shape that comes in epoch 1 finds an atom that came in epoch 0 at iteration 3 at
    /// (1, 3), where the join of two arrangements would: not at the shape's own (1, 0), from
    /// which a rule that came with it could make the atom support itself.
    #[test]
    fn an_atom_meets_a_later_shape_at_the_shapes_epoch_and_its_own_iteration() {
        let out = timely::execute_directly(|worker| {
            let registry: Rc<RefCell<Registry>> = Rc::default();
            let shape = Shape::new(7, &[Item::Var(0)], &[], &[0]);
            registry.borrow_mut().extend(&Change {
                shapes: vec![(0, Arc::new(shape))],
                arities: Arc::new(vec![0; 8]),
                ..Change::default()
            });
            let seen: Rc<RefCell<Vec<(Entry, Time, isize)>>> = Rc::default();
            let probe = ProbeHandle::new();
            let (mut atoms, mut shapes) = worker.dataflow::<u32, _, _>(|scope| {
                let (atoms_in, atoms) = scope.new_collection();
                let (shapes_in, shapes) = scope.new_collection();
                let (sink, probe) = (seen.clone(), probe.clone());
                scope.iterative::<u64, _, _>(|inner| {
                    let atoms = atoms.enter_at(inner, |_| 3);
                    entries(atoms, shapes.enter(inner), &registry)
                        .inner
                        .inspect(move |update| sink.borrow_mut().push(update.clone()))
                        .probe_with(&probe);
                });
                (atoms_in, shapes_in)
            });
            atoms.insert((7, Row::from(&[5][..])));
            shapes.advance_to(1);
            shapes.insert((7, 0));
            drop((atoms, shapes));
            while !probe.done() {
                worker.step();
            }
            let seen = seen.borrow().clone();
            seen
        });
        let entry = ((0, Row::new()), Row::from(&[5][..]));
        assert_eq!(out, vec![(entry, Product::new(1, 3), 1)]);
    }
}
