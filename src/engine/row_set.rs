//! A set of rows whose lookups can be prefetched: the atoms a recursive component's
//! fixpoint has seen, and those an eager `distinct` has ([`super::eager`]).
//!
//! Why: the fixpoint looks up the head of every binding it makes (is it new?), millions of
//! times, in sets that outgrow the caches (crissrace's holds 832 K atoms), so each lookup
//! waits for a cache miss, one after the other. A standard hash set cannot say where a row
//! will be looked for before the lookup. Here the caller hashes a batch of rows and
//! prefetches their slots first ([`RowSet::prefetch`]), and the batch's misses overlap:
//! crissrace's whole run 10 % shorter on one worker and 13 % on two (LTO, median of 3).
//!
//! How: open addressing with linear probing over 32-byte slots, each a tag and a row of up
//! to [`INLINE`] tokens padded with zeros, so that a probe compares one slot, in the line it
//! has just read. The tag holds high bits of the row's hash and its length (so rows that
//! differ only by trailing zeros differ), and is never zero: zero marks a free slot. Rows
//! longer than [`INLINE`] tokens, rare in games, go to a standard hash set beside.
//!
//! Each set hashes with its own seed. The rows of one set are read out in the order of their
//! hashes, and often go into another set as they are (a rule copying a relation's atoms into
//! its head's); with one hash for both, they would arrive in the order of their places, and
//! fill the bottom of the growing table one long cluster (amazonsTorus: 1.26 billion probes
//! for 360 K rows).

use super::pattern::Row;
use crate::hash::{FastSet, FxHasher};
use crate::program::encoding::Token;
use smallvec::SmallVec;
use std::hash::Hasher;

/// How many rows [`in_batches`] looks up together, their places prefetched first.
const PREFETCH: usize = 16;
/// The most tokens of a row held in a slot.
const INLINE: usize = 7;
/// The tag bit that every taken slot has.
const TAKEN: u32 = 1 << 3;
/// The tag bits that hold the row's length.
const LENGTH: u32 = TAKEN - 1;
/// How many of the hash's high bits a tag holds (its others are [`TAKEN`] and [`LENGTH`]).
const TAG_BITS: u32 = 28;

/// A tag (zero when free) and a row of at most [`INLINE`] tokens, padded with zeros: half a
/// cache line, aligned so that no slot straddles two.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, align(32))]
struct Slot {
    tag: u32,
    tokens: [Token; INLINE],
}

/// Takes each of `items` to `insert` with its hash, [`PREFETCH`] at a time: `hash` hashes an
/// item in the set it goes to and prefetches its place ([`RowSet::prefetch`]), all of a
/// batch before the first is inserted, so that the batch's cache misses overlap. Both work
/// on `state`, which holds the sets.
pub fn in_batches<S, P>(
    state: &mut S,
    items: impl IntoIterator<Item = P>,
    mut hash: impl FnMut(&mut S, &P) -> u64,
    mut insert: impl FnMut(&mut S, P, u64),
) {
    let mut items = items.into_iter().peekable();
    let mut batch: SmallVec<[(P, u64); PREFETCH]> = SmallVec::new();
    while items.peek().is_some() {
        for item in items.by_ref().take(PREFETCH) {
            let hashed = hash(state, &item);
            batch.push((item, hashed));
        }
        for (item, hashed) in batch.drain(..) {
            insert(state, item, hashed);
        }
    }
}

/// A set of rows (see the module's documentation).
pub struct RowSet {
    /// What the hashes start from.
    seed: u32,
    /// A power of two of slots (or none), at most [`RowSet::full`] of them taken.
    slots: Vec<Slot>,
    /// How many slots are taken.
    taken: usize,
    /// The rows longer than [`INLINE`] tokens.
    long: FastSet<Row>,
}

impl RowSet {
    /// An empty set whose hashes start from `seed`: a number that no other set whose rows
    /// it takes has, such as its relation's.
    pub fn new(seed: u32) -> RowSet {
        RowSet {
            seed,
            slots: Vec::new(),
            taken: 0,
            long: FastSet::default(),
        }
    }

    /// The hash of `row` in this set, for [`Self::prefetch`] and [`Self::insert_hashed`].
    pub fn hash(&self, row: &[Token]) -> u64 {
        let mut hasher = FxHasher::default();
        hasher.write_u64(u64::from(self.seed) | (row.len() as u64) << 32);
        let mut pairs = row.chunks_exact(2);
        for pair in &mut pairs {
            hasher.write_u64(u64::from(pair[0]) | u64::from(pair[1]) << 32);
        }
        if let [last] = pairs.remainder() {
            hasher.write_u32(*last);
        }
        hasher.finish()
    }

    /// Adds `row`; whether it was not in the set.
    #[cfg(test)]
    pub fn insert(&mut self, row: &[Token]) -> bool {
        self.insert_hashed(row, self.hash(row))
    }

    /// Adds `row`, whose [`Self::hash`] is `hash`; whether it was not in the set.
    pub fn insert_hashed(&mut self, row: &[Token], hash: u64) -> bool {
        if row.len() > INLINE {
            return self.long.insert(Row::from_slice(row));
        }
        if self.taken >= self.full() {
            self.grow();
        }
        let key = slot(row, hash);
        let mask = self.slots.len() - 1;
        let mut i = self.index(hash);
        loop {
            let slot = &mut self.slots[i];
            if slot.tag == 0 {
                *slot = key;
                self.taken += 1;
                return true;
            }
            if *slot == key {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// Reads the slot where a probe for a row of hash `hash` begins, so that the probe finds
    /// it in the cache: the misses of a batch of rows prefetched one after the other are
    /// waited for together, not one probe after another.
    pub fn prefetch(&self, hash: u64) {
        if !self.slots.is_empty() {
            let slot = &self.slots[self.index(hash)];
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a prefetch reads nothing into the program and cannot fault; SSE, which
            // it needs, is part of every x86_64 processor.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>((slot as *const Slot).cast());
            }
            #[cfg(not(target_arch = "x86_64"))]
            let _ = slot;
        }
    }

    /// How many rows the set holds.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.taken + self.long.len()
    }

    /// The rows, in no particular order.
    pub fn into_rows(self) -> impl Iterator<Item = Row> {
        let slots = self.slots.into_iter().filter(|slot| slot.tag != 0);
        let inline = slots.map(|slot| Row::from_slice(&slot.tokens[..length(slot.tag)]));
        inline.chain(self.long)
    }

    /// How many slots may be taken before the table grows: five eighths, so that a probe
    /// for a row not in the set reads few slots (about four at that load).
    fn full(&self) -> usize {
        self.slots.len() / 8 * 5
    }

    /// Where a probe for a row of hash `hash` begins, in a table with slots: the hash's high
    /// bits, as many as the table needs.
    fn index(&self, hash: u64) -> usize {
        (hash >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    /// Doubles the slots (16 at first) and puts the taken ones back in their new places.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(16);
        self.rebuild(size, size.trailing_zeros() <= TAG_BITS);
    }

    /// Moves the taken slots to a table of `size` slots (a power of two, more than are
    /// taken). A slot's place is read from its tag if `by_tag` (the table has at most
    /// 2^[`TAG_BITS`] slots), so that the rows are not hashed again; else its row is hashed.
    fn rebuild(&mut self, size: usize, by_tag: bool) {
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        let (mask, bits) = (size - 1, size.trailing_zeros());
        for slot in old.into_iter().filter(|slot| slot.tag != 0) {
            let mut i = match by_tag {
                true => (slot.tag >> (32 - bits)) as usize,
                false => self.index(self.hash(&slot.tokens[..length(slot.tag)])),
            };
            while self.slots[i].tag != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = slot;
        }
    }
}

/// The slot of `row` (at most [`INLINE`] tokens), whose hash is `hash`.
fn slot(row: &[Token], hash: u64) -> Slot {
    let mut tokens = [0; INLINE];
    tokens[..row.len()].copy_from_slice(row);
    // The hash's high bits, those that place the slot first (see `RowSet::rebuild`).
    let tag = ((hash >> 32) as u32 & !(TAKEN | LENGTH)) | TAKEN | row.len() as u32;
    Slot { tag, tokens }
}

/// The length of the row in a slot with tag `tag`.
fn length(tag: u32) -> usize {
    (tag & LENGTH) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The set agrees with a standard one on every insertion, over rows of every length up to
    /// past [`INLINE`], with zeros inside and at the end, through several growths.
    #[test]
    fn a_row_set_is_a_set() {
        let mut ours = RowSet::new(7);
        let mut theirs = BTreeSet::new();
        let mut state = 12345u64;
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (state >> 60) as usize % (INLINE + 3);
            let row: Vec<Token> = (0..len)
                .map(|k| ((state >> (k * 5)) % 3) as Token)
                .collect();
            assert_eq!(ours.insert(&row), theirs.insert(row.clone()), "{row:?}");
            assert_eq!(ours.len(), theirs.len());
        }
        assert!(theirs.len() > 1000, "the rows repeat, but not all");
        assert!(theirs.iter().any(|row| row.len() > INLINE));
        // Placed again by their hashes, as in a table too large for its tags to place them.
        let size = ours.slots.len() * 2;
        ours.rebuild(size, false);
        for row in theirs.iter() {
            assert!(!ours.insert(row), "{row:?}");
        }
        let mut rows: Vec<Vec<Token>> = ours.into_rows().map(|row| row.to_vec()).collect();
        rows.sort();
        assert_eq!(rows, theirs.into_iter().collect::<Vec<_>>());
    }

    /// Rows that differ only by trailing zeros are different rows.
    #[test]
    fn trailing_zeros_count() {
        let mut set = RowSet::new(0);
        assert!(set.insert(&[]));
        assert!(set.insert(&[0]));
        assert!(set.insert(&[0, 0]));
        assert!(set.insert(&[5]));
        assert!(set.insert(&[5, 0]));
        assert!(!set.insert(&[5, 0]));
        assert_eq!(set.len(), 5);
    }
}
