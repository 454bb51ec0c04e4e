//! Pipes: the steps of a rule's chain done inside one operator, between two operators that
//! need one (a differential join or antijoin, or the end of the chain).
//!
//! A pipe is the built-in steps that follow its operator ([`Fused`]), then any number of joins
//! and antijoins against relations given to the run ([`super::lookup`]: hash lookups), each
//! with the built-in steps after it. Why one operator for all of them: every operator is a
//! location of timely's progress tracking, so a scope's cost to build and to step grows with
//! its operators; a rule that reads three static relations after its first literal was four
//! operators and is now one.

use super::fused::Fused;
use super::lookup::Index;
use super::pattern::Row;
use crate::hash::FastSet;
use smallvec::SmallVec;
use std::sync::Arc;

/// What a pipe makes of one binding: usually none or one, without allocating for those.
pub type Out<O> = SmallVec<[O; 1]>;

/// A join or an antijoin done inside a pipe.
pub enum Lookup {
    /// A join with a given relation: the values its literal adds, by key.
    Join(Arc<Index>),
    /// An antijoin with a given relation: the atoms that drop a binding.
    Anti(Arc<FastSet<Row>>),
}

/// Built-in steps, then lookups each followed by built-in steps.
pub struct Pipe {
    /// The built-in steps before the first lookup and after each: one more than `lookups`.
    fused: Vec<Fused>,
    lookups: Vec<Lookup>,
    /// This worker's share, when every worker is given the same rows (see [`Pipe::share`]).
    share: Option<Share>,
}

/// Which of a pipe's bindings one worker makes, when every worker is given the same rows: at
/// the first join that gives a row several values, the values at positions `index`,
/// `index + peers`, …; a binding that meets no such join, worker 0 alone.
#[derive(Clone, Copy)]
struct Share {
    index: usize,
    peers: usize,
}

impl Pipe {
    /// A pipe of the built-in steps `first` only.
    pub fn new(first: Fused) -> Pipe {
        Pipe {
            fused: vec![first],
            lookups: Vec::new(),
            share: None,
        }
    }

    /// Makes this pipe, on worker `index` of `peers`, make its share of the bindings only,
    /// for rows that every worker is given (see [`Share`]): the workers together make each
    /// binding once. Why: a chain that starts with a ground literal (`true(step 20)`, then
    /// twenty lookups of `bit`) starts from one row, on one worker, which made all of its
    /// bindings while the other waited (ruleDepthExponential's 2^20); given that row on every
    /// worker, each makes its part of the first fan-out.
    pub fn share(&mut self, index: usize, peers: usize) {
        self.share = Some(Share { index, peers });
    }

    /// Adds `lookup`, with the built-in steps `then` after it.
    pub fn push(&mut self, lookup: Lookup, then: Fused) {
        self.lookups.push(lookup);
        self.fused.push(then);
    }

    /// Whether this pipe joins a given relation: whether a row can give it several bindings.
    pub fn joins(&self) -> bool {
        (self.lookups.iter()).any(|lookup| matches!(lookup, Lookup::Join(_)))
    }

    /// Whether the chain ends with this pipe (its bindings are complete).
    pub fn ends(&self) -> bool {
        self.fused.last().is_some_and(Fused::ends)
    }

    /// The complete bindings `row` gives, when the pipe [`ends`](Self::ends) the chain.
    pub fn apply(&mut self, row: Row) -> Out<Row> {
        let mut out = Out::new();
        run(
            &self.lookups,
            &mut self.fused,
            row,
            self.share,
            &mut |last, row| out.extend(last.apply(row)),
        );
        out
    }

    /// The bindings `row` gives, keyed for the operator after the pipe.
    pub fn keyed(&mut self, row: Row) -> Out<(Row, Row)> {
        let mut out = Out::new();
        run(
            &self.lookups,
            &mut self.fused,
            row,
            self.share,
            &mut |last, row| out.extend(last.keyed(row)),
        );
        out
    }
}

/// Passes `row` through `fused[0]`, then each lookup and the built-ins after it; `last`
/// takes the bindings that reach the last built-in steps, with those steps. With `share`
/// (not taken yet on the way to `row`), only this worker's share goes on (see [`Share`]).
fn run(
    lookups: &[Lookup],
    fused: &mut [Fused],
    row: Row,
    share: Option<Share>,
    last: &mut impl FnMut(&mut Fused, Row),
) {
    let Some((first, rest)) = fused.split_first_mut() else {
        return;
    };
    let Some((lookup, later)) = lookups.split_first() else {
        if share.is_some_and(|share| share.index != 0) {
            return;
        }
        return last(first, row);
    };
    let Some((key, binding)) = first.keyed(row) else {
        return;
    };
    match lookup {
        Lookup::Join(index) => {
            let values = index.get(&key).map_or(&[][..], |v| &v[..]);
            match share.filter(|_| values.len() > 1) {
                Some(Share { index, peers }) => {
                    for values in values.iter().skip(index).step_by(peers) {
                        run(later, rest, joined(&binding, values), None, last);
                    }
                }
                None => {
                    for values in values {
                        run(later, rest, joined(&binding, values), share, last);
                    }
                }
            }
        }
        Lookup::Anti(atoms) => {
            if !atoms.contains(&key) {
                run(later, rest, binding, share, last);
            }
        }
    }
}

/// A binding extended by the values a join adds.
pub fn joined(binding: &Row, values: &Row) -> Row {
    let mut out = Row::with_capacity(binding.len() + values.len());
    out.extend_from_slice(binding);
    out.extend_from_slice(values);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::pattern::Item::Var;
    use crate::engine::plan::Step;
    use crate::engine::{Limits, Options};
    use smallvec::smallvec;

    /// The fused built-ins of `steps` (none), keyed for the step after them.
    fn fused(steps: &[Step], bound: &mut Vec<u32>) -> Fused {
        let limits = Limits::new(&Options::default());
        Fused::new(steps, bound, 2, Arc::new(vec![0; 8]), &limits).0
    }

    /// `p(X), q(X, Y), not r(Y)` after its scan of `p`, with `q` and `r` given: X = 1 joins
    /// q(1, 2) and q(1, 3); r(3) drops the second.
    #[test]
    fn a_pipe_joins_then_antijoins_in_one_pass() {
        let join = Step::Join {
            rel: 1,
            pattern: vec![Var(0), Var(1)],
            key: vec![0],
            new: vec![1],
        };
        let anti = Step::Antijoin {
            rel: 2,
            pattern: vec![Var(1)],
        };
        let mut bound = vec![0];
        let mut pipe = Pipe::new(fused(std::slice::from_ref(&join), &mut bound));
        bound.push(1);
        let q: Index = [(smallvec![1], vec![smallvec![2], smallvec![3]])]
            .into_iter()
            .collect();
        pipe.push(Lookup::Join(Arc::new(q)), fused(&[anti], &mut bound));
        let r: FastSet<Row> = [smallvec![3]].into_iter().collect();
        pipe.push(Lookup::Anti(Arc::new(r)), fused(&[], &mut bound));
        assert!(pipe.ends());
        assert_eq!(
            pipe.apply(smallvec![1]).to_vec(),
            vec![Row::from_slice(&[1, 2])]
        );
        assert!(pipe.apply(smallvec![4]).is_empty());
    }

    /// `p(X), q(X, Y)` after its scan of `p`, with `q` given: q(1, …) has three values, q(2, 5)
    /// one.
    fn joining() -> Pipe {
        let join = Step::Join {
            rel: 1,
            pattern: vec![Var(0), Var(1)],
            key: vec![0],
            new: vec![1],
        };
        let mut bound = vec![0];
        let mut pipe = Pipe::new(fused(std::slice::from_ref(&join), &mut bound));
        bound.push(1);
        let q: Index = [
            (smallvec![1], vec![smallvec![2], smallvec![3], smallvec![4]]),
            (smallvec![2], vec![smallvec![5]]),
        ]
        .into_iter()
        .collect();
        pipe.push(Lookup::Join(Arc::new(q)), fused(&[], &mut bound));
        pipe
    }

    /// Workers given the same rows make each binding once between them: the values of a
    /// fan-out split by position, a binding without one made by worker 0.
    #[test]
    fn shared_pipes_make_each_binding_on_one_worker() {
        for peers in [2, 3] {
            for row in [smallvec![1], smallvec![2], smallvec![7]] {
                let whole = joining().apply(Row::clone(&row)).to_vec();
                let mut made: Vec<Row> = Vec::new();
                for index in 0..peers {
                    let mut pipe = joining();
                    pipe.share(index, peers);
                    let mine = pipe.apply(Row::clone(&row));
                    if row[0] == 2 && index > 0 {
                        assert!(mine.is_empty(), "only worker 0 makes what does not fan out");
                    }
                    made.extend(mine);
                }
                made.sort();
                assert_eq!(made, whole, "{peers} workers, row {row:?}");
            }
        }
        assert_eq!(joining().apply(smallvec![1]).len(), 3);
    }
}
