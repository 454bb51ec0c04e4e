//! What a rule's chain does to each binding between two operators, fused into the operator
//! that produces the binding: the built-in filters and computations that follow it, then the
//! key that the next join or antijoin reads.
//!
//! Why: timely builds the progress graph of an iterative scope in time that grows faster than
//! its operator count, and for small games with big recursive components that build costs more
//! than the run. A `filter`, a `flat_map` or a re-keying `map` between two joins is an operator
//! of its own; fused into the join's closure, it costs nothing to build.

use super::dataflow::Guard;
use super::pattern::{variables, Pattern, Ranges, Row};
use super::plan::Step;
use super::Limits;
use crate::program::{Builtin, VarId};
use std::sync::Arc;

/// The steps applied to a binding after the operator that produced it.
pub(super) struct Fused {
    /// Filters and computations, in chain order.
    locals: Vec<Local>,
    /// What the next operator needs.
    next: Next,
    arities: Arc<Vec<u32>>,
    ranges: Ranges,
    guard: Guard,
}

/// A built-in step, with the variables bound before it (the layout of the binding it reads).
enum Local {
    Filter {
        op: Builtin,
        args: Vec<Pattern>,
        negated: bool,
        bound: Vec<VarId>,
    },
    Compute {
        op: Builtin,
        args: Vec<Pattern>,
        known: Vec<bool>,
        bound: Vec<VarId>,
    },
}

/// The key the next operator reads, from the binding's variables `bound`.
enum Next {
    /// None: the chain ends here.
    End,
    /// A join on the values of `key`.
    Join { bound: Vec<VarId>, key: Vec<VarId> },
    /// An antijoin with the atom `pattern` instantiated.
    Antijoin { bound: Vec<VarId>, pattern: Pattern },
}

impl Fused {
    /// The built-in steps at the start of `steps` (which follow a producing operator whose
    /// bindings hold `bound`), and the key of the step after them if there is one. `bound`
    /// is extended by the variables those steps compute; returns how many steps were fused.
    pub(super) fn new(
        steps: &[Step],
        bound: &mut Vec<VarId>,
        vars: usize,
        arities: Arc<Vec<u32>>,
        limits: &Arc<Limits>,
    ) -> (Fused, usize) {
        let mut locals = Vec::new();
        let mut next = Next::End;
        let mut used = 0;
        for step in steps {
            match step {
                Step::Filter { op, args, negated } => locals.push(Local::Filter {
                    op: *op,
                    args: args.clone(),
                    negated: *negated,
                    bound: bound.clone(),
                }),
                Step::Compute { op, args, out } => {
                    let known = args
                        .iter()
                        .map(|p| variables(p).iter().all(|v| bound.contains(v)))
                        .collect();
                    locals.push(Local::Compute {
                        op: *op,
                        args: args.clone(),
                        known,
                        bound: bound.clone(),
                    });
                    bound.push(*out);
                }
                Step::Join { key, .. } => {
                    next = Next::Join {
                        bound: bound.clone(),
                        key: key.clone(),
                    };
                    break;
                }
                Step::Antijoin { pattern, .. } => {
                    next = Next::Antijoin {
                        bound: bound.clone(),
                        pattern: pattern.clone(),
                    };
                    break;
                }
            }
            used += 1;
        }
        let fused = Fused {
            locals,
            next,
            arities,
            ranges: Ranges::new(vars),
            guard: Guard::new(limits),
        };
        (fused, used)
    }

    /// Whether the chain ends after these steps (the binding is complete).
    pub(super) fn ends(&self) -> bool {
        matches!(self.next, Next::End)
    }

    /// The binding after the built-in steps, or `None` if one drops it or the run is stopping.
    pub(super) fn apply(&mut self, row: Row) -> Option<Row> {
        if self.guard.stop() {
            return None;
        }
        let mut row = row;
        for local in &self.locals {
            match local {
                Local::Filter {
                    op,
                    args,
                    negated,
                    bound,
                } => {
                    self.ranges.read_binding(bound, &row, &self.arities);
                    if !super::builtin::holds_for(*op, args, *negated, &self.ranges, &row) {
                        return None;
                    }
                }
                Local::Compute {
                    op,
                    args,
                    known,
                    bound,
                } => {
                    self.ranges.read_binding(bound, &row, &self.arities);
                    let value = super::builtin::compute_for(*op, args, known, &self.ranges, &row)?;
                    row.extend_from_slice(&value);
                }
            }
        }
        Some(row)
    }

    /// [`apply`](Self::apply), then the key the next operator reads, beside the binding.
    pub(super) fn keyed(&mut self, row: Row) -> Option<(Row, Row)> {
        let row = self.apply(row)?;
        let key = match &self.next {
            Next::End => Row::new(),
            Next::Join { bound, key: vars } => {
                self.ranges.read_binding(bound, &row, &self.arities);
                self.ranges.values(vars, &row)
            }
            Next::Antijoin { bound, pattern } => {
                self.ranges.read_binding(bound, &row, &self.arities);
                self.ranges.instantiated(pattern, &row)
            }
        };
        Some((key, row))
    }
}
