//! The analysis stage: facts about a checked program that grounding needs.
//!
//! Input: a [`Program`]. Output: its relation dependency graph, which relations are static
//! (do not depend on `true`/`does`, nor on fluents in the operation model), which may have
//! atoms true in every state ([`certain`]), and components.

pub mod certain;
pub mod demand;
pub mod domains;

use crate::program::{Literal, Program, RelId};

/// The relation dependency graph: for each relation, the relations its rules' bodies use.
#[derive(Clone, Debug)]
pub struct Dependencies {
    /// `uses[r]`: relations in bodies of rules with head `r` (with repetitions).
    pub uses: Vec<Vec<RelId>>,
    /// `negative[r]`: the relations of `uses[r]` used under negation or in a count.
    pub negative: Vec<Vec<RelId>>,
}

/// Calls `f` with the relation of each atom of `literal` (those of a count's condition
/// included) and whether it is used under negation or in a count.
pub fn each_relation(literal: &Literal, f: &mut impl FnMut(RelId, bool)) {
    fn walk(literal: &Literal, counted: bool, f: &mut impl FnMut(RelId, bool)) {
        match literal {
            Literal::Pos(a) => f(a.rel, counted),
            Literal::Neg(a) => f(a.rel, true),
            Literal::Builtin { .. } => {}
            Literal::Count { condition, .. } => condition.iter().for_each(|c| walk(c, true, f)),
        }
    }
    walk(literal, false, f)
}

/// Adds to `marked` every relation `allowed` admits that a rule of a marked relation reads
/// through a literal `reads` names, until no more is added: the relations a set of
/// relations' rules depend on, within a class.
pub fn close_over_reads(
    program: &Program,
    allowed: &[bool],
    marked: &mut [bool],
    reads: impl Fn(&Literal) -> Option<RelId>,
) {
    let mut changed = true;
    while changed {
        changed = false;
        for rule in &program.rules {
            if !marked[rule.head.rel as usize] {
                continue;
            }
            for r in rule.body.iter().filter_map(&reads) {
                let r = r as usize;
                if allowed[r] && !marked[r] {
                    marked[r] = true;
                    changed = true;
                }
            }
        }
    }
}

impl Dependencies {
    /// The graph of `program`'s rules (operation rules add no edges).
    pub fn new(program: &Program) -> Dependencies {
        let n = program.relations.len();
        let (mut uses, mut negative) = (vec![Vec::new(); n], vec![Vec::new(); n]);
        for rule in &program.rules {
            let h = rule.head.rel as usize;
            for l in &rule.body {
                each_relation(l, &mut |rel, negated| {
                    uses[h].push(rel);
                    if negated {
                        negative[h].push(rel);
                    }
                });
            }
        }
        Dependencies { uses, negative }
    }

    /// Whether each relation is static: it depends on no state relation. The state relations
    /// are the heads of the program's dynamics rules: `true` and `does` (classic), the fluents
    /// and the performed actions (operations, once lowered to rules).
    pub fn static_relations(&self, program: &Program) -> Vec<bool> {
        let n = program.relations.len();
        let mut dynamic = vec![false; n];
        for rule in &program.dynamics {
            dynamic[rule.head.rel as usize] = true;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for r in 0..n {
                if !dynamic[r] && self.uses[r].iter().any(|&u| dynamic[u as usize]) {
                    dynamic[r] = true;
                    changed = true;
                }
            }
        }
        dynamic.into_iter().map(|d| !d).collect()
    }
}

impl Dependencies {
    /// Which relations the engine can compute exactly: static ones, except those in a
    /// component with negation inside (stratified only rule by rule, like
    /// `goal(R,0) :- ~goal(R,100)`) and those depending on such. The others are
    /// over-approximated like dynamic relations and keep their rules in the ground program.
    /// Nor are demand relations ([`Program::demand`]): an edit that adds a relation's first
    /// call then changes a rule of the dataflow, not which relations are exact, and the
    /// session patches it.
    pub fn exact_relations(&self, program: &Program) -> Vec<bool> {
        let mut exact = self.static_relations(program);
        for &r in &program.demand.relations {
            exact[r as usize] = false;
        }
        let ids = crate::graph::components(self.uses.len(), |v, i| {
            self.uses[v].get(i).map(|&w| w as usize)
        });
        for (r, negs) in self.negative.iter().enumerate() {
            if negs.iter().any(|&n| ids[n as usize] == ids[r]) {
                exact[r] = false;
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for r in 0..exact.len() {
                if exact[r] && self.uses[r].iter().any(|&u| !exact[u as usize]) {
                    exact[r] = false;
                    changed = true;
                }
            }
        }
        exact
    }
}

/// The strongly connected components of the graph whose edges are `edges[v]`, in dependency
/// order: each component comes after every component it has an edge to.
pub fn components(edges: &[Vec<RelId>]) -> Vec<Vec<RelId>> {
    let ids = crate::graph::components(edges.len(), |v, i| edges[v].get(i).map(|&w| w as usize));
    let count = ids.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut out = vec![Vec::new(); count];
    for (v, &c) in ids.iter().enumerate() {
        out[c as usize].push(v as RelId);
    }
    out
}
