//! Hashing for keys that come from the game, not from an adversary: token rows and atom
//! numbers, hashed millions of times by the ground stage and the reasoners.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A fast non-cryptographic hasher (FxHash's rotate-xor-multiply, then a final mix), for
/// keys that come from the game, not from an adversary.
#[derive(Clone, Copy, Debug, Default)]
pub struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for FxHasher {
    /// Each 8 bytes as a little-endian word, the last ones padded with zeros. (A row's tokens
    /// come here as one slice of bytes: copying each word out through a buffer called
    /// `memcpy` once a word, which was 4% of ruleDepthExponential's run.)
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.add(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        match words.remainder() {
            [] => {}
            // A row of an odd number of tokens ends with one.
            &[a, b, c, d] => self.add(u32::from_le_bytes([a, b, c, d]).into()),
            rest => {
                let mut word = [0u8; 8];
                word[..rest.len()].copy_from_slice(rest);
                self.add(u64::from_le_bytes(word));
            }
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.add(n.into());
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        // A final mix (murmur3's), so that the low bits hash tables index with depend on
        // every input bit: without it, the high half of the last word would only reach the
        // high bits, and rows differing there would all collide.
        let mut z = self.0;
        z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        z = (z ^ (z >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        z ^ (z >> 33)
    }
}

/// A hash map with [`FxHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A hash set with [`FxHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;
/// The hasher builder of [`FastMap`] and [`FastSet`], for hashing values directly.
pub type FastBuild = BuildHasherDefault<FxHasher>;

/// A memo kept across the versions of a live session: what the last version and the current
/// one used stays, older entries go when a version begins. One lookup stamps an entry (a
/// map per version had three: look in the current one, take from the last, put back).
pub struct Recent<K, V> {
    entries: FastMap<K, (V, u64)>,
    /// The current version.
    version: u64,
}

impl<K, V> Default for Recent<K, V> {
    fn default() -> Self {
        Recent {
            entries: FastMap::default(),
            version: 0,
        }
    }
}

impl<K: std::hash::Hash + Eq, V> Recent<K, V> {
    /// Begins a version: entries the last one did not use go.
    pub fn begin(&mut self) {
        self.version += 1;
        let version = self.version;
        (self.entries).retain(|_, (_, used)| *used + 1 >= version);
    }

    /// The entry of `key` (or of a key it borrows as), marked used by the current version.
    pub fn get<Q>(&mut self, key: &Q) -> Option<&V>
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        self.get_mut(key).map(|value| &*value)
    }

    /// [`Recent::get`], the entry mutable.
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        let (value, used) = self.entries.get_mut(key)?;
        *used = self.version;
        Some(value)
    }

    /// Remembers `value` for `key`, used by the current version.
    pub fn insert(&mut self, key: K, value: V) {
        self.entries.insert(key, (value, self.version));
    }

    /// Forgets the entries whose value `keep` refuses.
    pub fn retain(&mut self, mut keep: impl FnMut(&V) -> bool) {
        self.entries.retain(|_, (value, _)| keep(value));
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Row;
    use std::hash::BuildHasher;

    /// Bytes are hashed as little-endian words, the last one padded with zeros, whatever
    /// their number.
    #[test]
    fn bytes_are_hashed_as_padded_words() {
        let bytes: Vec<u8> = (1..=23).collect();
        for n in 0..=bytes.len() {
            let (mut fast, mut words) = (FxHasher::default(), FxHasher::default());
            fast.write(&bytes[..n]);
            for chunk in bytes[..n].chunks(8) {
                let mut word = [0u8; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                words.write_u64(u64::from_le_bytes(word));
            }
            assert_eq!(fast.finish(), words.finish(), "{n} bytes");
        }
    }

    /// Entries the last version used stay; those it did not go when the next begins.
    #[test]
    fn recent_entries_stay_one_version() {
        let mut recent = Recent::default();
        recent.begin();
        recent.insert(1, "a");
        recent.insert(2, "b");
        recent.begin();
        assert_eq!(recent.get(&1), Some(&"a"));
        recent.begin();
        assert_eq!(recent.get(&1), Some(&"a"));
        assert_eq!(recent.get(&2), None);
        recent.begin();
        recent.begin();
        assert!(recent.is_empty());
    }

    /// Regression: without a final mix, rows differing only in the high half of their last
    /// 8-byte word had the same low hash bits, and hash tables degenerated to lists.
    #[test]
    fn low_hash_bits_depend_on_every_token() {
        let hasher = BuildHasherDefault::<FxHasher>::default();
        let low = |row: &[u32]| hasher.hash_one(Row::from_slice(row)) & 0xffff;
        let distinct: FastSet<u64> = (0..1000).map(|t| low(&[7, t])).collect();
        assert!(
            distinct.len() > 900,
            "{} distinct low halves",
            distinct.len()
        );
    }
}
