//! The analysis stage: facts about a checked program that grounding needs.
//!
//! Input: a [`Program`]. Output: its relation dependency graph, which relations are static
//! (do not depend on `true`/`does`, nor on fluents in the operation model), and components.

use crate::program::{Keyword, Literal, Model, Program, RelId};

/// The relation dependency graph: for each relation, the relations its rules' bodies use.
#[derive(Clone, Debug)]
pub struct Dependencies {
    /// `uses[r]`: relations in bodies of rules with head `r` (with repetitions).
    pub uses: Vec<Vec<RelId>>,
}

impl Dependencies {
    /// The graph of `program`'s rules (operation rules add no edges).
    pub fn new(program: &Program) -> Dependencies {
        let mut uses = vec![Vec::new(); program.relations.len()];
        fn literal(l: &Literal, out: &mut Vec<RelId>) {
            match l {
                Literal::Pos(a) | Literal::Neg(a) => out.push(a.rel),
                Literal::Builtin { .. } => {}
                Literal::Count { condition, .. } => condition.iter().for_each(|c| literal(c, out)),
            }
        }
        for rule in &program.rules {
            let out = &mut uses[rule.head.rel as usize];
            rule.body.iter().for_each(|l| literal(l, out));
        }
        Dependencies { uses }
    }

    /// Whether each relation is static: it depends on no state relation. State relations are
    /// `true` and `does` (classic) or the fluents and `legal` (operations: every relation
    /// without rules that is used in a body is read from the state).
    pub fn static_relations(&self, program: &Program) -> Vec<bool> {
        let n = program.relations.len();
        let mut dynamic: Vec<bool> = (0..n)
            .map(|r| match program.model {
                Model::Classic => matches!(
                    program.keyword(r as RelId),
                    Some(Keyword::True | Keyword::Does)
                ),
                Model::Operations => false,
            })
            .collect();
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

/// The strongly connected components of the graph whose edges are `edges[v]`, in dependency
/// order: each component comes after every component it has an edge to.
pub fn components(edges: &[Vec<RelId>]) -> Vec<Vec<RelId>> {
    let ids = crate::graph::components(edges.len(), |v, i| {
        edges[v].get(i).map(|&w| w as usize)
    });
    let count = ids.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let mut out = vec![Vec::new(); count];
    for (v, &c) in ids.iter().enumerate() {
        out[c as usize].push(v as RelId);
    }
    out
}
