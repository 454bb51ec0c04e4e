//! The relation dependency graph: an edge from each rule's head relation to every relation of
//! its body, marked positive, negative or counted, and located at the body literal.
//!
//! Invariant: every traversal here is iterative (programs can have thousands of relations), and
//! edges whose relation ids fall outside the program are dropped instead of indexed.

use crate::graph::components;
use crate::program::{Atom, Literal, Origin, Program, RelId, Rule};
use crate::syntax::Span;
use std::collections::VecDeque;

/// How a head depends on a body relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dependency {
    /// Through a positive literal.
    Positive,
    /// Through a negative literal.
    Negative,
    /// Through the condition of `countofall`, which needs the relation's full extension.
    Count,
}

impl Dependency {
    /// Whether the head needs the body relation's complete extension first (stratification).
    pub(super) fn is_negative(self) -> bool {
        self != Dependency::Positive
    }
}

/// One dependency: the head of rule `rule` uses relation `to` in the literal at `span`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Edge {
    /// The body relation.
    pub(super) to: RelId,
    /// Positive, negative or counted.
    pub(super) kind: Dependency,
    /// The index of the rule in [`Program::rules`].
    pub(super) rule: usize,
    /// The body literal.
    pub(super) span: Span,
}

/// The dependency graph of a program's rules (operation rules add no edges).
pub(super) struct Graph {
    /// The edges leaving each relation, by `RelId`, in rule order.
    out: Vec<Vec<Edge>>,
}

impl Graph {
    /// The graph of `program`: head ← body for every rule.
    pub(super) fn new(program: &Program) -> Graph {
        let n = program.relations.len();
        let mut out = vec![Vec::new(); n];
        for (index, (rule, origin)) in program.rules.iter().zip(&program.rule_origins).enumerate() {
            let Some(edges) = out.get_mut(rule.head.rel as usize) else {
                continue;
            };
            for (i, atom, kind) in body_atoms(rule) {
                if (atom.rel as usize) < n {
                    edges.push(Edge {
                        to: atom.rel,
                        kind,
                        rule: index,
                        span: literal_span(origin, i),
                    });
                }
            }
        }
        Graph { out }
    }

    /// The edges leaving `rel`, in rule order.
    pub(super) fn edges(&self, rel: RelId) -> &[Edge] {
        self.out.get(rel as usize).map_or(&[], Vec::as_slice)
    }

    /// The strongly connected component of each relation, by `RelId`.
    pub(super) fn components(&self) -> Vec<u32> {
        components(self.out.len(), |v, i| {
            self.out[v].get(i).map(|e| e.to as usize)
        })
    }

    /// A shortest path of edges from `from` to a relation satisfying `is_target`, passing only
    /// through relations satisfying `within`. Each step is the relation it leaves and the edge
    /// taken.
    pub(super) fn path(
        &self,
        from: RelId,
        is_target: impl Fn(RelId) -> bool,
        within: impl Fn(RelId) -> bool,
    ) -> Option<Vec<(RelId, Edge)>> {
        let steps = shortest_path(
            self.out.len(),
            from as usize,
            |v, i| self.out[v].get(i).map(|e| e.to as usize),
            |r| is_target(r as RelId),
            |r| within(r as RelId),
        )?;
        Some(
            steps
                .into_iter()
                .map(|(v, i)| (v as RelId, self.out[v][i]))
                .collect(),
        )
    }
}

/// The relation atoms of `rule`'s body with the index of their literal and how the head
/// depends on them; atoms inside `countofall` conditions are counted dependencies.
pub(super) fn body_atoms(rule: &Rule) -> Vec<(usize, &Atom, Dependency)> {
    let mut out = Vec::new();
    for (i, literal) in rule.body.iter().enumerate() {
        // Count conditions may nest; walk them with an explicit stack.
        let mut stack = vec![(literal, false)];
        while let Some((literal, counted)) = stack.pop() {
            match literal {
                Literal::Pos(a) | Literal::Neg(a) if counted => {
                    out.push((i, a, Dependency::Count));
                }
                Literal::Pos(a) => out.push((i, a, Dependency::Positive)),
                Literal::Neg(a) => out.push((i, a, Dependency::Negative)),
                Literal::Builtin { .. } => {}
                Literal::Count { condition, .. } => {
                    stack.extend(condition.iter().rev().map(|l| (l, true)));
                }
            }
        }
    }
    out
}

/// The span of body literal `i` of a rule, or its head's if it has none.
pub(super) fn literal_span(origin: &Origin, i: usize) -> Span {
    origin
        .literal_spans
        .get(i)
        .copied()
        .unwrap_or(origin.head_span)
}

/// A shortest path (breadth-first) among `n` nodes from `from` to a node satisfying
/// `is_target`, through nodes satisfying `within`; `successor` as for [`components`]. Each
/// step is the node it leaves and the index of the successor taken.
pub(super) fn shortest_path(
    n: usize,
    from: usize,
    successor: impl Fn(usize, usize) -> Option<usize>,
    is_target: impl Fn(usize) -> bool,
    within: impl Fn(usize) -> bool,
) -> Option<Vec<(usize, usize)>> {
    if from >= n {
        return None;
    }
    // How each node was first reached: the node before it and the successor index taken.
    let mut parent: Vec<Option<(usize, usize)>> = vec![None; n];
    let mut seen = vec![false; n];
    seen[from] = true;
    let mut queue = VecDeque::from([from]);
    while let Some(v) = queue.pop_front() {
        let mut i = 0;
        while let Some(w) = successor(v, i) {
            if w < n && is_target(w) {
                let mut path = vec![(v, i)];
                let mut at = v;
                while let Some(step) = parent[at] {
                    path.push(step);
                    at = step.0;
                }
                path.reverse();
                return Some(path);
            }
            if w < n && !seen[w] && within(w) {
                seen[w] = true;
                parent[w] = Some((v, i));
                queue.push_back(w);
            }
            i += 1;
        }
    }
    None
}
