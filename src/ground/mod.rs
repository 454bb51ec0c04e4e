//! The ground stage: the engine's instances → a [`GroundProgram`], simplified (GDL.md §3).
//!
//! Input: an [`Instantiation`]. Output: atoms numbered in a canonical order, facts, and
//! ground rules with impossible negations dropped, rules killed by a fact negation removed,
//! bodies as sets (sorted, each literal once), duplicate rules once. Invariant: the same instantiation always gives the same program.

use crate::engine::{Instantiation, Row};
use crate::hash::FastMap;
use crate::program::{Keyword, Program, RelId};

/// An index into [`GroundProgram::atoms`].
pub type AtomId = u32;

/// A ground rule `head :- body`, body non-empty.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroundRule {
    /// The head atom.
    pub head: AtomId,
    /// Body literals: (negated, atom), sorted, each once.
    pub body: Vec<(bool, AtomId)>,
}

/// A ground game: its atoms (S*), the facts, and the rules.
#[derive(Clone, Debug, Default)]
pub struct GroundProgram {
    /// Every atom of S*, sorted by relation id then arguments.
    pub atoms: Vec<(RelId, Row)>,
    /// Atoms that hold unconditionally, ascending.
    pub facts: Vec<AtomId>,
    /// Rules with non-empty bodies, sorted, without duplicates.
    pub rules: Vec<GroundRule>,
}

/// The counts of GDL.md §4 (`ms` is measured by the caller).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Ground fluents in S*.
    pub bases: usize,
    /// Ground moves in S*.
    pub actions: usize,
    /// All atoms of S*.
    pub atoms: usize,
    /// Atoms written as facts.
    pub facts: usize,
    /// Rules with a non-empty body.
    pub rules: usize,
}

impl GroundProgram {
    /// Builds and simplifies the ground program of `instantiation`.
    pub fn new(instantiation: &Instantiation) -> GroundProgram {
        let atoms = instantiation.atoms.clone();
        let index: FastMap<(RelId, &Row), AtomId> = atoms
            .iter()
            .enumerate()
            .map(|(i, (r, row))| ((*r, row), i as AtomId))
            .collect();
        let mut is_fact = vec![false; atoms.len()];
        for (i, (rel, _)) in atoms.iter().enumerate() {
            is_fact[i] = instantiation.is_static[*rel as usize];
        }
        let mut rules = Vec::new();
        'instances: for instance in &instantiation.instances {
            let Some(&head) = index.get(&(instance.head_rel, &instance.head)) else {
                continue;
            };
            let mut body = Vec::with_capacity(instance.body.len());
            for literal in &instance.body {
                match index.get(&(literal.rel, &literal.args)) {
                    None if literal.negated => {}
                    None => continue 'instances,
                    Some(&a) if literal.negated && is_fact[a as usize] => continue 'instances,
                    Some(&a) if !literal.negated && is_fact[a as usize] => {}
                    Some(&a) => body.push((literal.negated, a)),
                }
            }
            // A body is a set: repeated literals and other orders are the same rule.
            body.sort_unstable();
            body.dedup();
            if body.is_empty() {
                is_fact[head as usize] = true;
            } else {
                rules.push(GroundRule { head, body });
            }
        }
        rules.sort_unstable();
        rules.dedup();
        rules.retain(|r| !is_fact[r.head as usize]);
        let facts = (0..atoms.len() as AtomId)
            .filter(|&a| is_fact[a as usize])
            .collect();
        GroundProgram {
            atoms,
            facts,
            rules,
        }
    }

    /// The counts of GDL.md §4 for the classic model of `program`.
    pub fn counts(&self, program: &Program) -> Counts {
        let count = |k: Keyword| {
            self.atoms
                .iter()
                .filter(|(rel, _)| program.keyword(*rel) == Some(k))
                .count()
        };
        Counts {
            bases: count(Keyword::True),
            actions: count(Keyword::Does),
            atoms: self.atoms.len(),
            facts: self.facts.len(),
            rules: self.rules.len(),
        }
    }
}
