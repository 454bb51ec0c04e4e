//! Which relations of a recursive component carry its loops.
//!
//! In an iterative scope, only the relations that close a cycle need a `Variable` (a feedback
//! edge to the next iteration); every other relation of the component can be computed within
//! the iteration from those, in dependency order. Fewer feedback edges make the scope's
//! progress graph smaller, and timely's cost of building it grows faster than its size: in a
//! game whose next-state rules pass through a long chain of views (`true` → `prereq1` → … →
//! `legal` → `does` → `next` → `true`), one variable is enough instead of one per relation.

use crate::program::RelId;
use std::collections::{BTreeMap, BTreeSet};

/// The component's relations split into loop relations (a set whose removal leaves no cycle,
/// chosen greedily, by ties the lowest id) and the others in an order where each comes after those it reads.
/// `edges` are `(read, head)` pairs between the component's relations.
pub fn cut(relations: &[RelId], edges: &[(RelId, RelId)]) -> (Vec<RelId>, Vec<RelId>) {
    let mut loops: Vec<RelId> = Vec::new();
    loop {
        let core = cyclic_core(relations, edges, &loops);
        // The relation on most paths through the core: most reads times most readers.
        let (mut reads, mut readers) = (BTreeMap::new(), BTreeMap::new());
        for (read, head) in edges {
            if core.contains(read) && core.contains(head) {
                *reads.entry(*head).or_insert(0usize) += 1;
                *readers.entry(*read).or_insert(0usize) += 1;
            }
        }
        let degree = |r: RelId| reads.get(&r).unwrap_or(&0) * readers.get(&r).unwrap_or(&0);
        // Ties go to the lowest id.
        let Some(&pick) = relations
            .iter()
            .filter(|r| core.contains(r))
            .max_by_key(|&&r| (degree(r), std::cmp::Reverse(r)))
        else {
            break;
        };
        loops.push(pick);
    }
    let order = ordered(relations, edges, &loops);
    (loops, order)
}

/// The relations (outside `cut`) that lie on a cycle avoiding `cut`: what is left after
/// repeatedly removing relations that nothing left reads or that read nothing left.
fn cyclic_core(relations: &[RelId], edges: &[(RelId, RelId)], cut: &[RelId]) -> BTreeSet<RelId> {
    let mut core: BTreeSet<RelId> = outside(relations, cut).collect();
    loop {
        let inside = |e: &&(RelId, RelId)| core.contains(&e.0) && core.contains(&e.1);
        let reads: BTreeSet<RelId> = edges.iter().filter(inside).map(|e| e.1).collect();
        let read: BTreeSet<RelId> = edges.iter().filter(inside).map(|e| e.0).collect();
        let before = core.len();
        core.retain(|r| reads.contains(r) && read.contains(r));
        if core.len() == before {
            return core;
        }
    }
}

/// The relations outside `cut`, each after the ones (outside `cut`) it reads; `cut` must leave
/// no cycle. Ties keep the component's order.
fn ordered(relations: &[RelId], edges: &[(RelId, RelId)], cut: &[RelId]) -> Vec<RelId> {
    let mut left: Vec<RelId> = outside(relations, cut).collect();
    let mut order = Vec::new();
    while !left.is_empty() {
        let pending: BTreeSet<RelId> = left.iter().copied().collect();
        let blocked: BTreeSet<RelId> = edges
            .iter()
            .filter(|e| e.0 != e.1 && pending.contains(&e.0))
            .map(|e| e.1)
            .collect();
        let ready = |r: &RelId| !blocked.contains(r);
        let Some(i) = left.iter().position(ready) else {
            // Only if `cut` left a cycle; keep the rest in the component's order.
            order.append(&mut left);
            break;
        };
        order.push(left.remove(i));
    }
    order
}

/// The relations not in `cut`, in the component's order.
fn outside<'a>(relations: &'a [RelId], cut: &'a [RelId]) -> impl Iterator<Item = RelId> + 'a {
    relations.iter().filter(|r| !cut.contains(r)).copied()
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn a_chain_closed_into_a_ring_needs_one_loop_relation() {
        // 0 → 1 → 2 → 3 → 0
        let (loops, order) = cut(&[0, 1, 2, 3], &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        assert_eq!(loops.len(), 1);
        let l = loops[0];
        // The rest follow the ring from the loop relation.
        let expected: Vec<u32> = (1..4).map(|i| (l + i) % 4).collect();
        assert_eq!(order, expected);
    }

    #[test]
    fn a_relation_reading_itself_is_a_loop_relation() {
        // 1 reads itself; 0 and 1 read each other.
        let (loops, order) = cut(&[0, 1], &[(1, 1), (0, 1), (1, 0)]);
        assert_eq!(loops, vec![1]);
        assert_eq!(order, vec![0]);
    }

    #[test]
    fn two_rings_through_one_relation_need_only_it() {
        // 0 → 1 → 0 and 0 → 2 → 0: relation 0 is on both.
        let edges = [(0, 1), (1, 0), (0, 2), (2, 0)];
        let (loops, order) = cut(&[0, 1, 2], &edges);
        assert_eq!(loops, vec![0]);
        assert_eq!(order, vec![1, 2]);
    }

    #[test]
    fn disjoint_rings_each_get_a_loop_relation() {
        let edges = [(0, 1), (1, 0), (2, 3), (3, 2), (1, 2)];
        let (loops, order) = cut(&[0, 1, 2, 3], &edges);
        assert_eq!(loops.len(), 2);
        assert_eq!(order.len(), 2);
        // Every edge between relations outside the cut goes forward in the order.
        let at = |r: u32| order.iter().position(|&o| o == r);
        for (a, b) in edges {
            if let (Some(i), Some(j)) = (at(a), at(b)) {
                assert!(i < j, "{a} → {b} goes backwards in {order:?}");
            }
        }
    }
}
