//! The live engine: one dataflow that holds a grounded game and takes rule edits as input.
//!
//! The compiled engine ([`super::instantiate`]) builds one chain of operators per rule: fast,
//! but fixed once built. Here rules are data. A rule is a [`LiveRule`] (a chain of [`Op`]s over
//! canonical literal shapes) registered under a [`RuleId`] that is never reused, so its
//! definition is a pure function of its id; the dataflow's only rule input is the collection
//! of enabled rule ids. One set of operators evaluates every rule: partial bindings
//! `(rule, step, values)` advance one join per iteration of a fixpoint, against an index of
//! atoms keyed by `(shape, key values)` that every rule of a shape shares. Enabling or
//! disabling a rule is an input change, and differential-dataflow updates the atoms and
//! bindings incrementally, retractions through recursion included.
//!
//! The exactly computed static relations (GDL.md §2) and the certain atoms are not rules of
//! the dataflow but its second input: each version's are computed by the compiled engine
//! ([`crate::engine::run::statics`], stratified by negation as a full grounding does) when
//! their rules changed, and the atoms that came and went go in. So the dataflow has one
//! fixpoint, whose negation reads that input only: an edit's epoch costs every operator of
//! the dataflow its progress tracking, and levels for the strata cost more operators
//! (connect four's edits took 0.45 ms less on 3 levels than on 8).

mod above;
mod copies;
mod dataflow;
mod game;
mod grouped;
mod index;
mod rules;
mod space;
mod statics;
mod symmetric;
mod worker;

pub use game::{Changes, Edit, LiveGame};

use super::pattern::{Pattern, Row};
use super::plan::RulePlan;
use super::plan::Step;
use super::shape::Shape;
use super::{EngineError, Limits, Options};
use crate::hash::FastMap;
use crate::program::{Builtin, RelId, VarId};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

/// A rule's identity in a live engine (never reused).
pub type RuleId = u32;
/// A literal shape's identity in a live engine.
pub type ShapeId = u32;

/// One operation of a live rule's chain.
#[derive(Clone, Debug)]
pub enum Op {
    /// Join with the index of `shape` on the values of `key` (bound variables).
    Join {
        /// The shape.
        shape: ShapeId,
        /// The bound variables, in the shape's key order.
        key: Vec<VarId>,
    },
    /// Extend bindings by the one argument of the built-in not `known`.
    Compute {
        /// Which built-in.
        op: Builtin,
        /// Its arguments.
        args: Vec<Pattern>,
        /// Which arguments are bound.
        known: Vec<bool>,
    },
    /// A plan step kept as planned: a filter, or an antijoin (against the given atoms).
    Check(Step),
}

/// A rule as the live dataflow evaluates it.
#[derive(Clone, Debug)]
pub struct LiveRule {
    /// The head relation.
    pub head_rel: RelId,
    /// The head's arguments.
    pub head: Pattern,
    /// The chain.
    pub ops: Vec<Op>,
    /// The variables bound before each op, and after the last (the final binding).
    pub bound: Vec<Vec<VarId>>,
    /// How many variables the rule has.
    pub vars: usize,
    /// Whether its head's terms may grow (checked against the depth limit).
    pub recursive: bool,
    /// Whether its bindings are reported (its instances are part of the ground program).
    pub instances: bool,
    /// The relations whose atoms copy its head's ([`copies`]): each head atom is also an
    /// atom of these, in the same iteration. Empty for the rules above the dataflow.
    pub copies: Vec<RelId>,
}

impl LiveRule {
    /// The live form of `plan`, its join literals' shapes numbered by `shape_id`, its head's
    /// atoms copied into the relations `copies`.
    pub fn new(
        plan: &RulePlan,
        instances: bool,
        copies: Vec<RelId>,
        shape_id: &mut dyn FnMut(Shape) -> ShapeId,
    ) -> LiveRule {
        let mut bound: Vec<VarId> = Vec::new();
        let mut all_bound = Vec::new();
        let mut ops = Vec::new();
        for step in plan.steps.iter() {
            all_bound.push(bound.clone());
            ops.push(match step {
                Step::Join {
                    rel,
                    pattern,
                    key,
                    new,
                } => {
                    bound.extend(new);
                    Op::Join {
                        shape: shape_id(Shape::new(*rel, pattern, key, new)),
                        key: key.clone(),
                    }
                }
                Step::Filter { .. } | Step::Antijoin { .. } => Op::Check(step.clone()),
                Step::Compute { op, args, out } => {
                    let known = args
                        .iter()
                        .map(|p| {
                            super::pattern::variables(p)
                                .iter()
                                .all(|v| bound.contains(v))
                        })
                        .collect();
                    bound.push(*out);
                    Op::Compute {
                        op: *op,
                        args: args.clone(),
                        known,
                    }
                }
            });
        }
        all_bound.push(bound);
        LiveRule {
            head_rel: plan.head_rel,
            head: (*plan.head).clone(),
            ops,
            bound: all_bound,
            vars: plan.vars,
            recursive: plan.recursive,
            instances,
            copies,
        }
    }

    /// The final binding's variables, in order.
    pub fn binding(&self) -> &[VarId] {
        self.bound.last().map(|b| &b[..]).unwrap_or(&[])
    }
}

/// A change to a live engine: rules enabled and disabled, and what the new rules need.
#[derive(Clone, Debug, Default)]
pub struct Change {
    /// Rules to enable (new ids).
    pub added: Vec<(RuleId, Arc<LiveRule>)>,
    /// Rules to disable.
    pub removed: Vec<RuleId>,
    /// Atoms of the exact relations and certain atoms that came (+1) and went (−1): the
    /// dataflow's given atoms.
    pub given: Vec<(RelId, Row, isize)>,
    /// Shapes first used by the added rules.
    pub shapes: Vec<(ShapeId, Arc<Shape>)>,
    /// Arities of all functor tokens (the token space only grows).
    pub arities: Arc<Vec<u32>>,
}

/// What a change did: atoms and bindings (of rules with instances) that came and went.
#[derive(Clone, Debug, Default)]
pub struct Delta {
    /// Atom changes (+1 new, −1 gone), net.
    pub atoms: Vec<(RelId, Row, isize)>,
    /// Binding changes, net.
    pub bindings: Vec<(RuleId, Row, isize)>,
}

/// A command to the workers.
enum Command {
    Apply(Arc<Change>),
}

/// What a worker answers to a change: its share of the delta, or that the run stopped.
type Answer = Option<Delta>;

/// A live dataflow on timely workers of their own, waiting for changes.
pub struct Live {
    senders: Vec<Sender<Command>>,
    answers: Receiver<Answer>,
    limits: Arc<Limits>,
    guards: Option<timely::communication::initialize::WorkerGuards<()>>,
}

impl Live {
    /// Starts the workers (`options.workers`) on a dataflow with no rule enabled and no atom
    /// given. The options' limits hold for every change; the deadline for the first only
    /// (the initial grounding).
    pub fn start(options: &Options) -> Result<Live, EngineError> {
        let limits = Limits::new(options);
        let workers = options.workers.max(1);
        let (senders, receivers): (Vec<_>, Vec<_>) = (0..workers).map(|_| channel()).unzip();
        let receivers: Vec<Mutex<Option<Receiver<Command>>>> =
            receivers.into_iter().map(|r| Mutex::new(Some(r))).collect();
        let (answer, answers) = channel();
        let answer = Mutex::new(answer);
        let bounds = worker::Bounds {
            max_atoms: options.max_atoms,
            deadline: options.deadline,
        };
        let l = limits.clone();
        let guards = timely::execute(timely::Config::process(workers), move |w| {
            let commands = receivers[w.index()].lock().ok().and_then(|mut r| r.take());
            let answer = answer.lock().map(|a| a.clone());
            if let (Some(commands), Ok(answer)) = (commands, answer) {
                worker::serve(w, &l, bounds, commands, answer);
            }
        })
        .map_err(EngineError::Worker)?;
        Ok(Live {
            senders,
            answers,
            limits,
            guards: Some(guards),
        })
    }

    /// Applies `change`, returning the net delta; after an error the engine is unusable.
    pub fn apply(&mut self, change: Change) -> Result<Delta, EngineError> {
        let change = Arc::new(change);
        for sender in &self.senders {
            sender
                .send(Command::Apply(change.clone()))
                .map_err(|_| self.failure())?;
        }
        let mut deltas = Vec::with_capacity(self.senders.len());
        for _ in &self.senders {
            match self.answers.recv() {
                Ok(Some(delta)) => deltas.push(delta),
                Ok(None) | Err(_) => return Err(self.failure()),
            }
        }
        // A worker's delta is net already (its records consolidated, one epoch each change):
        // one worker's is the answer as it is (skirmish's deep edit spent an eighth of its
        // update hashing it again); several workers' are summed.
        if let [delta] = &mut deltas[..] {
            return Ok(std::mem::take(delta));
        }
        let mut atoms: FastMap<(RelId, Row), isize> = FastMap::default();
        let mut bindings: FastMap<(RuleId, Row), isize> = FastMap::default();
        for delta in deltas {
            for (rel, row, d) in delta.atoms {
                *atoms.entry((rel, row)).or_default() += d;
            }
            for (rule, row, d) in delta.bindings {
                *bindings.entry((rule, row)).or_default() += d;
            }
        }
        Ok(Delta {
            atoms: net(atoms),
            bindings: net(bindings),
        })
    }

    /// Stops the workers and waits for them (their dataflow's memory is freed); the engine
    /// is unusable after.
    pub fn stop(&mut self) {
        // Closing the channels ends the workers' loops.
        self.senders.clear();
        if let Some(guards) = self.guards.take() {
            drop(guards.join());
        }
    }

    /// Why the workers stopped.
    fn failure(&self) -> EngineError {
        self.limits.failure("a live worker stopped")
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The changes that do not cancel out.
fn net<A, B>(changes: FastMap<(A, B), isize>) -> Vec<(A, B, isize)> {
    changes
        .into_iter()
        .filter(|(_, d)| *d != 0)
        .map(|((a, b), d)| (a, b, d))
        .collect()
}
