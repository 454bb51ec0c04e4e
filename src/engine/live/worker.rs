//! One timely worker of a live engine: builds the dataflow once, then applies changes as
//! they arrive, one epoch each, and answers with its share of each change's delta.

use super::{Answer, Change, Command, Delta, LiveRule, RuleId, ShapeId};
use crate::engine::pattern::Row;
use crate::engine::shape::Shape;
use crate::engine::{EngineError, Limits};
use crate::program::RelId;
use differential_dataflow::input::Input;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::time::Instant;
use timely::dataflow::ProbeHandle;

/// The definitions of every rule and shape registered so far, by id, and the arities of
/// functor tokens: what the operators look rules up in. Entries are never changed nor
/// removed, so a record's rule means the same at every time.
#[derive(Default)]
pub struct Registry {
    rules: Vec<Option<Arc<LiveRule>>>,
    shapes: Vec<Option<Arc<Shape>>>,
    /// Arities of functor tokens.
    pub arities: Arc<Vec<u32>>,
}

impl Registry {
    /// Registers what `change` introduces.
    pub(super) fn extend(&mut self, change: &Change) {
        for (id, rule) in &change.added {
            put(&mut self.rules, *id as usize, rule.clone());
        }
        for (id, shape) in &change.shapes {
            put(&mut self.shapes, *id as usize, shape.clone());
        }
        self.arities = change.arities.clone();
    }

    /// Rule `id`, registered before any record mentions it.
    pub fn rule(&self, id: RuleId) -> &LiveRule {
        self.rules[id as usize]
            .as_deref()
            .expect("internal error: a live rule used before it was registered")
    }

    /// Shape `id`, registered before any rule uses it.
    pub fn shape(&self, id: ShapeId) -> &Shape {
        self.shapes[id as usize]
            .as_deref()
            .expect("internal error: a shape used before it was registered")
    }
}

/// Puts `value` at `index`, growing `slots` as needed.
fn put<V>(slots: &mut Vec<Option<V>>, index: usize, value: V) {
    if slots.len() <= index {
        slots.resize_with(index + 1, || None);
    }
    slots[index] = Some(value);
}

/// The limits a worker checks besides memory and depth.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Stop when S* passes this many atoms.
    pub max_atoms: usize,
    /// Stop the first change (the initial grounding) at this instant.
    pub deadline: Option<Instant>,
}

/// Serves `commands` on `worker` until the channel closes, answering each on `answer`.
pub fn serve(
    worker: &mut timely::worker::Worker,
    limits: &Arc<Limits>,
    bounds: Bounds,
    commands: Receiver<Command>,
    answer: Sender<Answer>,
) {
    let registry: Rc<RefCell<Registry>> = Rc::default();
    let atoms: Rc<RefCell<Vec<(RelId, Row, isize)>>> = Rc::default();
    let bindings: Rc<RefCell<Vec<(RuleId, Row, isize)>>> = Rc::default();
    let count = Rc::new(AtomicIsize::new(0));
    let probe = ProbeHandle::new();
    let dataflow_id = worker.next_dataflow_index();
    let (mut rules, mut given) = worker.dataflow::<u32, _, _>(|scope| {
        let (rules_input, rules) = scope.new_collection::<RuleId, isize>();
        let (given_input, given) = scope.new_collection::<(RelId, Row), isize>();
        let (all_atoms, all_bindings) =
            super::dataflow::build(scope, rules, given, &registry, limits);
        let (sink, count, l) = (atoms.clone(), count.clone(), limits.clone());
        all_atoms
            .consolidate()
            .inspect(move |((rel, row), _, diff)| {
                if count.fetch_add(*diff, Ordering::Relaxed) >= bounds.max_atoms as isize {
                    l.fail(EngineError::TooManyAtoms);
                }
                sink.borrow_mut().push((*rel, row.clone(), *diff));
            })
            .probe_with(&probe);
        let sink = bindings.clone();
        all_bindings
            .consolidate()
            .inspect(move |((rule, row), _, diff)| {
                sink.borrow_mut().push((*rule, row.clone(), *diff))
            })
            .probe_with(&probe);
        (rules_input, given_input)
    });
    let mut epoch = 0u32;
    let mut alive = true;
    while let Ok(Command::Apply(change)) = commands.recv() {
        if alive {
            registry.borrow_mut().extend(&change);
            if worker.index() == 0 {
                for id in &change.removed {
                    rules.remove(*id);
                }
                for (id, _) in &change.added {
                    rules.insert(*id);
                }
                for (rel, row, diff) in &change.given {
                    given.update((*rel, row.clone()), *diff);
                }
            }
            epoch += 1;
            rules.advance_to(epoch);
            rules.flush();
            given.advance_to(epoch);
            given.flush();
            let done = || !probe.less_than(&epoch);
            let deadline = bounds.deadline.filter(|_| epoch == 1);
            alive = crate::engine::steps::step_until(worker, limits, deadline, dataflow_id, &done);
        }
        let delta = alive.then(|| Delta {
            atoms: std::mem::take(&mut *atoms.borrow_mut()),
            bindings: std::mem::take(&mut *bindings.borrow_mut()),
        });
        if answer.send(delta).is_err() {
            break;
        }
    }
}
