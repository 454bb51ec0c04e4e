//! The relation dependency graph: an edge from each rule's head relation to every relation of
//! its body, marked positive, negative or counted, and located at the body literal.
//!
//! Invariant: every traversal here is iterative (programs can have thousands of relations), and
//! edges whose relation ids fall outside the program are dropped instead of indexed.

use crate::program::{Literal, Program, RelId};
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
            for (i, literal) in rule.body.iter().enumerate() {
                let span = origin
                    .literal_spans
                    .get(i)
                    .copied()
                    .unwrap_or(origin.head_span);
                // Count conditions may nest; walk them with an explicit stack.
                let mut stack = vec![(literal, false)];
                while let Some((literal, counted)) = stack.pop() {
                    let (rel, kind) = match literal {
                        Literal::Pos(a) if counted => (a.rel, Dependency::Count),
                        Literal::Neg(a) if counted => (a.rel, Dependency::Count),
                        Literal::Pos(a) => (a.rel, Dependency::Positive),
                        Literal::Neg(a) => (a.rel, Dependency::Negative),
                        Literal::Builtin { .. } => continue,
                        Literal::Count { condition, .. } => {
                            stack.extend(condition.iter().rev().map(|l| (l, true)));
                            continue;
                        }
                    };
                    if (rel as usize) < n {
                        edges.push(Edge {
                            to: rel,
                            kind,
                            rule: index,
                            span,
                        });
                    }
                }
            }
        }
        Graph { out }
    }

    /// The edges leaving `rel`, in rule order.
    pub(super) fn edges(&self, rel: RelId) -> &[Edge] {
        self.out.get(rel as usize).map_or(&[], Vec::as_slice)
    }

    /// The strongly connected component of each relation, by `RelId` (iterative Tarjan).
    /// Component ids are arbitrary; two relations share one exactly when each depends on the
    /// other.
    pub(super) fn components(&self) -> Vec<u32> {
        const UNVISITED: u32 = u32::MAX;
        let n = self.out.len();
        let mut index = vec![UNVISITED; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut component = vec![UNVISITED; n];
        let mut stack: Vec<usize> = Vec::new();
        // The simulated call stack: a node and the next of its edges to follow.
        let mut calls: Vec<(usize, usize)> = Vec::new();
        let mut next_index = 0u32;
        let mut next_component = 0u32;
        for root in 0..n {
            if index[root] != UNVISITED {
                continue;
            }
            index[root] = next_index;
            low[root] = next_index;
            next_index += 1;
            stack.push(root);
            on_stack[root] = true;
            calls.push((root, 0));
            while let Some(&(v, i)) = calls.last() {
                if let Some(edge) = self.out[v].get(i) {
                    if let Some(top) = calls.last_mut() {
                        top.1 += 1;
                    }
                    let w = edge.to as usize;
                    if index[w] == UNVISITED {
                        index[w] = next_index;
                        low[w] = next_index;
                        next_index += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        calls.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(index[w]);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(parent, _)) = calls.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        component[w] = next_component;
                        if w == v {
                            break;
                        }
                    }
                    next_component += 1;
                }
            }
        }
        component
    }

    /// A shortest path of edges from `from` to a relation satisfying `is_target`, passing only
    /// through relations satisfying `within` (breadth-first). Each step is the relation it
    /// leaves and the edge taken.
    pub(super) fn path(
        &self,
        from: RelId,
        is_target: impl Fn(RelId) -> bool,
        within: impl Fn(RelId) -> bool,
    ) -> Option<Vec<(RelId, Edge)>> {
        let n = self.out.len();
        if from as usize >= n {
            return None;
        }
        // How each relation was first reached: the relation before it and the edge taken.
        let mut parent: Vec<Option<(RelId, Edge)>> = vec![None; n];
        let mut seen = vec![false; n];
        seen[from as usize] = true;
        let mut queue = VecDeque::from([from]);
        while let Some(v) = queue.pop_front() {
            for edge in self.edges(v) {
                if is_target(edge.to) {
                    let mut path = vec![(v, *edge)];
                    let mut at = v;
                    while let Some((before, e)) = parent[at as usize] {
                        path.push((before, e));
                        at = before;
                    }
                    path.reverse();
                    return Some(path);
                }
                let w = edge.to as usize;
                if !seen[w] && within(edge.to) {
                    seen[w] = true;
                    parent[w] = Some((v, *edge));
                    queue.push_back(edge.to);
                }
            }
        }
        None
    }
}
