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
use crate::hash::{FastMap, FastSet};
use crate::program::{Program, RelId};

/// Atoms (space ids), by relation: the static atoms a version gives the dataflow, kept by
/// relation so that an edit compares only the relations it computed anew. Kept as one set of
/// atoms, every edit went through all of them (skirmish: 9,409 for the 137 a step-counter
/// edit changes).
pub type ByRelation = FastMap<RelId, FastSet<Row>>;

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
pub(super) fn kept_rows(kept: &[bool], mapping: &Mapping, last: &ByRelation) -> Option<Tables> {
    let mut tables = Tables::new();
    for (rel, rows) in last {
        let Some(r) = mapping.relation_back(*rel).filter(|&r| is_kept(kept, r)) else {
            continue;
        };
        let table: &mut Vec<Row> = tables.entry(r).or_default();
        for row in rows {
            table.push(mapping.row_back(row)?);
        }
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

/// Replaces the atoms of `atoms` outside the `kept` relations by `fresh` (which has none of
/// theirs); returns the atoms that went (−1) and came (+1). The kept relations' atoms are
/// not looked at.
pub(super) fn replace_unkept(
    atoms: &mut ByRelation,
    mut fresh: ByRelation,
    kept: &FastSet<RelId>,
) -> Vec<(RelId, Row, isize)> {
    let mut changes = Vec::new();
    atoms.retain(|&rel, rows| {
        if kept.contains(&rel) {
            return true;
        }
        let new = fresh.remove(&rel).unwrap_or_default();
        let went = (rows.iter()).filter(|row| !new.contains(*row));
        changes.extend(went.map(|row| (rel, row.clone(), -1)));
        let came = (new.iter()).filter(|row| !rows.contains(*row));
        changes.extend(came.map(|row| (rel, row.clone(), 1)));
        *rows = new;
        !rows.is_empty()
    });
    for (rel, rows) in fresh {
        changes.extend(rows.iter().map(|row| (rel, row.clone(), 1)));
        atoms.insert(rel, rows);
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Atoms by relation, each row one token.
    fn atoms(rels: &[(RelId, &[u32])]) -> ByRelation {
        let row = |t: &u32| Row::from(&[*t][..]);
        (rels.iter())
            .map(|(rel, rows)| (*rel, rows.iter().map(row).collect()))
            .collect()
    }

    #[test]
    fn the_relations_not_kept_are_replaced_and_their_changes_returned() {
        // Relation 1 changes, 2 goes, 3 comes, 9 is kept.
        let mut last = atoms(&[(1, &[1, 2]), (2, &[3]), (9, &[9])]);
        let fresh = atoms(&[(1, &[2, 4]), (3, &[5])]);
        let kept = FastSet::from_iter([9]);
        let mut changes: Vec<(RelId, u32, isize)> = replace_unkept(&mut last, fresh, &kept)
            .into_iter()
            .map(|(rel, row, diff)| (rel, row[0], diff))
            .collect();
        changes.sort_unstable();
        assert_eq!(changes, [(1, 1, -1), (1, 4, 1), (2, 3, -1), (3, 5, 1)]);
        assert_eq!(last, atoms(&[(1, &[2, 4]), (3, &[5]), (9, &[9])]));
    }
}
