//! The exact relations of a version whose static rules changed: those the edit reaches are
//! computed anew, the others keep the last version's rows.
//!
//! Why: an edit of a static fact had every exact relation computed again, the whole static
//! program's fixpoint, while the fact usually feeds few of them. Skirmish's step counter
//! `(pp 52 53)` feeds `base` alone, yet its edits spent 6 of their 22 ms computing the board's
//! geometry again.

use super::space::Mapping;
use crate::analysis::Dependencies;
use crate::engine::pattern::Row;
use crate::engine::Tables;
use crate::hash::FastSet;
use crate::program::{Program, RelId};

/// The rows, in the version's ids, of the exact relations of `program` (`exact`, as in the
/// last version) that the edit did not reach, taken from `last` (the last version's static
/// atoms, in the space of `mapping`'s). The edit reaches the relations of `changed` (space ids
/// of the heads of the static rules that came or went) and every relation that reads one it
/// reaches. Relations defined by facts alone are left out (the facts give them); `None` when
/// a kept row has a functor this version lacks (the caller computes them all).
pub(super) fn kept_rows(
    program: &Program,
    mapping: &Mapping,
    exact: &[bool],
    changed: impl Iterator<Item = RelId>,
    last: &FastSet<(RelId, Row)>,
) -> Option<Tables> {
    let n = program.relations.len();
    let mut readers = vec![Vec::new(); n];
    for (head, reads) in Dependencies::new(program).uses.into_iter().enumerate() {
        for rel in reads {
            readers[rel as usize].push(head as RelId);
        }
    }
    let mut reached = vec![false; n];
    let mut work: Vec<RelId> = changed.filter_map(|r| mapping.relation_back(r)).collect();
    while let Some(rel) = work.pop() {
        if std::mem::replace(&mut reached[rel as usize], true) {
            continue;
        }
        work.extend(&readers[rel as usize]);
    }
    let mut derived = vec![false; n];
    for rule in &program.rules {
        let ground = (rule.head.args.iter()).all(|t| matches!(t, crate::program::Term::Ground(_)));
        let fact = rule.body.is_empty() && ground;
        derived[rule.head.rel as usize] |= !fact;
    }
    let kept = |r: RelId| exact[r as usize] && derived[r as usize] && !reached[r as usize];
    let mut tables = Tables::new();
    for (rel, row) in last {
        let Some(r) = mapping.relation_back(*rel).filter(|&r| kept(r)) else {
            continue;
        };
        tables.entry(r).or_default().push(mapping.row_back(row)?);
    }
    tables.values_mut().for_each(|rows| rows.sort_unstable());
    Some(tables)
}
