//! The ground stage's atom index: an atom's number from its relation and arguments.
//!
//! Every body atom of every instance is looked up here, so the index must be fast to read;
//! and it is built over all of S* before any rule is made, so it must be fast to build too:
//! on one thread its build was the largest part of the ground stage that did not shrink with
//! more threads. The atoms are copied into one flat list of tokens (each atom's number,
//! relation, length, then its arguments) and hashed, on every thread, a range each; the
//! table is cut into one shard per thread by the high bits of the hash, and each thread fills
//! its own shard (open addressing, linear probing within the shard). A slot holds where its
//! atom starts in the flat list beside a tag of its hash, so a probe reads an atom only when
//! the tags match, and then in one place: with the atoms read from their own list, a lookup
//! was three dependent cache misses (the slot, the atom, and its row on the heap when longer
//! than a row's inline room), and on ruleDepthExponential's rows of 20 tokens the lookups
//! were a fifth of the run.

use std::hash::Hasher;
use std::ops::Range;

use super::AtomId;
use crate::engine::Row;
use crate::hash::FxHasher;
use crate::parallel;
use crate::program::encoding::Token;
use crate::program::RelId;

/// A free slot.
const EMPTY: u64 = u64::MAX;
/// The bits of a slot that say where its atom starts in the flat list; the others hold a
/// tag of the atom's hash.
const AT: u64 = (1 << 40) - 1;
/// The tokens before an atom's arguments in the flat list: its number, relation and length.
const HEADER: usize = 3;

/// The numbers of a list of atoms (their positions) by relation and arguments.
pub struct AtomIndex {
    /// Each atom in turn: its number, its relation, its length, its arguments.
    flat: Vec<Token>,
    /// Each shard's slots, a power of two of them, at most half full: where the atom starts
    /// in [`Self::flat`] (the low [`AT`] bits), and a tag of its hash.
    shards: Vec<Vec<u64>>,
}

impl AtomIndex {
    /// Indexes `atoms` (distinct, fewer than `AtomId::MAX`), building `threads` shards on as
    /// many threads.
    pub fn new(atoms: &[(RelId, Row)], threads: usize) -> AtomIndex {
        let threads = threads.max(1);
        let mut starts = Vec::with_capacity(atoms.len() + 1);
        let mut end = 0;
        for (_, row) in atoms {
            starts.push(end);
            end += HEADER + row.len();
        }
        starts.push(end);
        assert!((end as u64) < AT, "too many tokens to index: {end}");
        let mut flat = vec![0; end];
        let parts = parallel::split(0..atoms.len(), threads);
        let mut rest = &mut flat[..];
        let mut pieces = Vec::with_capacity(parts.len());
        for part in parts {
            let (piece, after) = rest.split_at_mut(starts[part.end] - starts[part.start]);
            rest = after;
            pieces.push((part, piece));
        }
        let hashes: Vec<u64> =
            parallel::map_parts(pieces, |(part, piece)| copy(atoms, part, piece)).concat();
        let shards = parallel::map_parts((0..threads).collect(), |k| {
            shard(&hashes, &starts, threads, k)
        });
        AtomIndex { flat, shards }
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
            if slot & !AT == tag(h) {
                let at = (slot & AT) as usize;
                let [id, r, len] = [0, 1, 2].map(|k| self.flat[at + k]);
                let tokens = at + HEADER..at + HEADER + len as usize;
                if r == rel && len as usize == args.len() && self.flat[tokens] == *args {
                    return Some(id);
                }
            }
            i = (i + 1) & mask;
        }
    }
}

/// Atoms `part` of `atoms` written to `flat` (their share of the flat list), each as its
/// number, relation, length and arguments; their hashes, read in the same pass over the rows.
fn copy(atoms: &[(RelId, Row)], part: Range<usize>, flat: &mut [Token]) -> Vec<u64> {
    let mut at = 0;
    let mut hashes = Vec::with_capacity(part.len());
    for id in part {
        let (rel, row) = &atoms[id];
        flat[at..at + HEADER].copy_from_slice(&[id as Token, *rel, row.len() as Token]);
        flat[at + HEADER..at + HEADER + row.len()].copy_from_slice(row);
        at += HEADER + row.len();
        hashes.push(hash(*rel, row));
    }
    hashes
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

/// The tag of hash `h` a slot keeps: its bits that neither pick the shard (the highest) nor
/// the slot (the lowest), in the bits of the slot that [`AT`] leaves.
fn tag(h: u64) -> u64 {
    (h << 8) & !AT
}

/// The shard of `shards` that hash `h` falls in: its high half scaled to the shard count,
/// so that the low bits stay free for the slot.
fn shard_of(h: u64, shards: usize) -> usize {
    (((h >> 32) * shards as u64) >> 32) as usize
}

/// Shard `k` of `shards`: the slots of the atoms whose hash (`hashes`, by atom) falls in it,
/// each atom starting at `starts` (by atom) in the flat list.
fn shard(hashes: &[u64], starts: &[usize], shards: usize, k: usize) -> Vec<u64> {
    let mine = || (hashes.iter().enumerate()).filter(|(_, &h)| shard_of(h, shards) == k);
    let size = (2 * mine().count()).next_power_of_two().max(2);
    let mut slots = vec![EMPTY; size];
    let mask = size - 1;
    for (id, &h) in mine() {
        let mut i = h as usize & mask;
        while slots[i] != EMPTY {
            i = (i + 1) & mask;
        }
        slots[i] = tag(h) | starts[id] as u64;
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
