//! The ground stage's atom index: an atom's number from its relation and arguments.
//!
//! Every body atom of every instance is looked up here, so the index must be fast to read;
//! and it is built over all of S* before any rule is made, so it must be fast to build too:
//! on one thread its build was the largest part of the ground stage that did not shrink with
//! more threads. The atoms are hashed on every thread, a range each; the table is cut into
//! one shard per thread by the high bits of the hash, and each thread fills its own shard
//! (open addressing, linear probing within the shard), keeping only atom numbers there, each
//! beside its hash's high half: the atoms themselves are read from the sorted list, only
//! for a slot whose hash half matches (reading an atom that does not is a cache miss or
//! two, for long atoms held on the heap).

use std::hash::Hasher;

use super::AtomId;
use crate::engine::Row;
use crate::hash::FxHasher;
use crate::parallel;
use crate::program::encoding::Token;
use crate::program::RelId;

/// A free slot.
const EMPTY: u64 = u64::MAX;

/// The numbers of `atoms` (their positions) by relation and arguments.
pub struct AtomIndex<'a> {
    atoms: &'a [(RelId, Row)],
    /// Each shard's slots, a power of two of them, at most half full: an atom's number in
    /// the low half, its hash's high half in the high half.
    shards: Vec<Vec<u64>>,
}

impl<'a> AtomIndex<'a> {
    /// Indexes `atoms` (distinct, fewer than `AtomId::MAX`), building `threads` shards on as
    /// many threads.
    pub fn new(atoms: &'a [(RelId, Row)], threads: usize) -> AtomIndex<'a> {
        let threads = threads.max(1);
        let hashes: Vec<u64> =
            parallel::map_parts(parallel::split(0..atoms.len(), threads), |part| {
                (atoms[part].iter())
                    .map(|(rel, row)| hash(*rel, row))
                    .collect::<Vec<_>>()
            })
            .concat();
        let shards = parallel::map_parts((0..threads).collect(), |k| shard(&hashes, threads, k));
        AtomIndex { atoms, shards }
    }

    /// The number of atom `rel(args)`, `None` if it is not among the atoms.
    pub fn get(&self, rel: RelId, args: &[Token]) -> Option<AtomId> {
        let h = hash(rel, args);
        let slots = &self.shards[shard_of(h, self.shards.len())];
        let mask = slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let slot = slots[i];
            if slot == EMPTY {
                return None;
            }
            if slot >> 32 == h >> 32 {
                let id = slot as AtomId;
                let (r, row) = &self.atoms[id as usize];
                if *r == rel && row[..] == *args {
                    return Some(id);
                }
            }
            i = (i + 1) & mask;
        }
    }
}

/// The hash of atom `rel(args)`.
fn hash(rel: RelId, args: &[Token]) -> u64 {
    let mut h = FxHasher::default();
    h.write_u32(rel);
    for &t in args {
        h.write_u32(t);
    }
    h.finish()
}

/// The shard of `shards` that hash `h` falls in: its high half scaled to the shard count,
/// so that the low bits stay free for the slot.
fn shard_of(h: u64, shards: usize) -> usize {
    (((h >> 32) * shards as u64) >> 32) as usize
}

/// Shard `k` of `shards`: the slots of the atoms whose hash (`hashes`, by atom) falls in it.
fn shard(hashes: &[u64], shards: usize, k: usize) -> Vec<u64> {
    let mine = || (hashes.iter().enumerate()).filter(|(_, &h)| shard_of(h, shards) == k);
    let size = (2 * mine().count()).next_power_of_two().max(2);
    let mut slots = vec![EMPTY; size];
    let mask = size - 1;
    for (id, &h) in mine() {
        let mut i = h as usize & mask;
        while slots[i] != EMPTY {
            i = (i + 1) & mask;
        }
        slots[i] = h & !0xffff_ffff | id as u64;
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallvec::smallvec;

    /// Atoms over two relations, with rows of different lengths and shared prefixes.
    fn atoms() -> Vec<(RelId, Row)> {
        let mut atoms: Vec<(RelId, Row)> = Vec::new();
        for rel in 0..2 {
            for a in 0..300u32 {
                atoms.push((rel, smallvec![a]));
                atoms.push((rel, smallvec![a, a + 1, 7]));
            }
        }
        atoms.sort_unstable();
        atoms
    }

    #[test]
    fn every_atom_is_found_at_its_position_whatever_the_thread_count() {
        let atoms = atoms();
        for threads in [1, 2, 3, 8] {
            let index = AtomIndex::new(&atoms, threads);
            for (i, (rel, row)) in atoms.iter().enumerate() {
                assert_eq!(index.get(*rel, row), Some(i as AtomId), "{threads} threads");
            }
        }
    }

    #[test]
    fn an_atom_not_indexed_is_not_found() {
        let atoms = atoms();
        let index = AtomIndex::new(&atoms, 2);
        assert_eq!(index.get(2, &[0]), None);
        assert_eq!(index.get(0, &[0, 1]), None);
        assert_eq!(index.get(1, &[300]), None);
        assert_eq!(AtomIndex::new(&[], 3).get(0, &[]), None);
    }
}
