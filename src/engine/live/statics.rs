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
use crate::engine::run::derived_relations;
use crate::engine::Tables;
use crate::hash::FastSet;
use crate::program::{Program, RelId};

/// Which relations of `program` keep the last version's rows: the exact ones (`exact`, as
/// in the last version) that the edit did not reach, by relation. The edit reaches the
/// relations of `changed` (space ids of the heads of the static rules that came or went)
/// and every relation that reads one it reaches. Relations defined by facts alone are left
/// out (the facts give them).
pub(super) fn unreached(
    program: &Program,
    mapping: &Mapping,
    exact: &[bool],
    changed: impl Iterator<Item = RelId>,
) -> Vec<bool> {
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
    let derived = derived_relations(program);
    (0..n)
        .map(|r| exact[r] && derived[r] && !reached[r])
        .collect()
}

/// The rows of the `kept` relations (by relation of the version), in the version's ids, from
/// `last` (the last version's static atoms, in the space of `mapping`'s); `None` when a kept
/// row has a functor this version lacks (the caller computes them all).
pub(super) fn kept_rows(
    kept: &[bool],
    mapping: &Mapping,
    last: &FastSet<(RelId, Row)>,
) -> Option<Tables> {
    let mut tables = Tables::new();
    for (rel, row) in last {
        let Some(r) = mapping.relation_back(*rel).filter(|&r| is_kept(kept, r)) else {
            continue;
        };
        tables.entry(r).or_default().push(mapping.row_back(row)?);
    }
    tables.values_mut().for_each(|rows| rows.sort_unstable());
    Some(tables)
}

/// The rows of the `kept` relations among `last` (the last version's rows, sorted, in ids
/// that mean the same in this version): no translation, no sort. Skirmish's step-counter
/// edits spent 0.7 ms of their 12 sorting the kept rows that [`kept_rows`] reads from a set.
pub(super) fn take_kept(kept: &[bool], last: Tables) -> Tables {
    (last.into_iter())
        .filter(|(r, _)| is_kept(kept, *r))
        .collect()
}

/// Whether relation (or certain id) `rel` is among the `kept`.
fn is_kept(kept: &[bool], rel: RelId) -> bool {
    kept.get(rel as usize).is_some_and(|&k| k)
}

/// Replaces the atoms of `atoms` (space ids) outside the `kept` relations by `fresh` (which
/// has none of theirs); returns the atoms that went (−1) and came (+1). The smaller of the
/// kept atoms and `fresh` is the one inserted into the other's set.
pub(super) fn replace_unkept(
    atoms: &mut FastSet<(RelId, Row)>,
    mut fresh: FastSet<(RelId, Row)>,
    kept: &FastSet<RelId>,
) -> Vec<(RelId, Row, isize)> {
    let (mut changes, mut kept_atoms) = (Vec::new(), 0);
    for atom in atoms.iter() {
        match kept.contains(&atom.0) {
            true => kept_atoms += 1,
            false if !fresh.contains(atom) => changes.push((atom.0, atom.1.clone(), -1)),
            false => {}
        }
    }
    let came = (fresh.iter()).filter(|atom| !atoms.contains(*atom));
    changes.extend(came.map(|(rel, row)| (*rel, row.clone(), 1)));
    if kept_atoms < fresh.len() {
        fresh.extend(atoms.drain().filter(|(rel, _)| kept.contains(rel)));
        *atoms = fresh;
    } else {
        atoms.retain(|(rel, _)| kept.contains(rel));
        atoms.extend(fresh);
    }
    changes
}
