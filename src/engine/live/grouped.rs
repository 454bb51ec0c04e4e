//! Rows grouped by a key: a live game's bindings by rule, and its atoms by relation.
//!
//! Why: an edit that changes what some rules' instances negate looks again at those rules'
//! bindings only (skirmish's static-fact edits had gone through all of its bindings, 3 ms an
//! edit), and the rules above the dataflow read the atoms of the relations they read only
//! (they had gone through every atom of the game at each edit: hex has 22,187).

use crate::engine::pattern::Row;
use crate::hash::{FastMap, FastSet};

/// Sets of rows by key (a rule id or a relation id).
#[derive(Default)]
pub(super) struct Grouped {
    by_key: FastMap<u32, FastSet<Row>>,
    len: usize,
}

impl Grouped {
    /// Puts `row` under `key` (`d` > 0) or takes it out.
    pub(super) fn put(&mut self, key: u32, row: Row, d: isize) {
        match d > 0 {
            true => self.insert(key, row),
            false => self.remove(key, &row),
        }
    }

    /// Applies net `changes`.
    pub(super) fn update(&mut self, changes: &[(u32, Row, isize)]) {
        for (key, row, d) in changes {
            match *d > 0 {
                // Copied: a row's `clone` pushes its tokens one by one.
                true => self.insert(*key, Row::from_slice(row)),
                false => self.remove(*key, row),
            }
        }
    }

    fn insert(&mut self, key: u32, row: Row) {
        self.len += self.by_key.entry(key).or_default().insert(row) as usize;
    }

    fn remove(&mut self, key: u32, row: &Row) {
        if let Some(rows) = self.by_key.get_mut(&key) {
            self.len -= rows.remove(row) as usize;
            if rows.is_empty() {
                self.by_key.remove(&key);
            }
        }
    }

    /// How many rows there are.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Every row, with its key.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u32, &Row)> + '_ {
        (self.by_key.iter()).flat_map(|(key, rows)| rows.iter().map(|row| (*key, row)))
    }

    /// The rows of `key`, if it has any.
    pub(super) fn of(&self, key: u32) -> Option<&FastSet<Row>> {
        self.by_key.get(&key)
    }
}
