//! A live game's rule bindings, grouped by rule: an edit that changes what some rules'
//! instances negate looks again at those rules' bindings only (skirmish's static-fact edits
//! had gone through all of its bindings, 3 ms an edit).

use super::RuleId;
use crate::engine::pattern::Row;
use crate::hash::{FastMap, FastSet};

/// Each live rule's bindings.
#[derive(Default)]
pub(super) struct Bindings {
    by_rule: FastMap<RuleId, FastSet<Row>>,
    len: usize,
}

impl Bindings {
    /// Applies net `changes`.
    pub(super) fn update(&mut self, changes: &[(RuleId, Row, isize)]) {
        for (rule, row, diff) in changes {
            if *diff > 0 {
                self.len += self.by_rule.entry(*rule).or_default().insert(row.clone()) as usize;
            } else if let Some(rows) = self.by_rule.get_mut(rule) {
                self.len -= rows.remove(row) as usize;
                if rows.is_empty() {
                    self.by_rule.remove(rule);
                }
            }
        }
    }

    /// How many bindings there are.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Every binding.
    pub(super) fn iter(&self) -> impl Iterator<Item = (RuleId, &Row)> + '_ {
        (self.by_rule.iter()).flat_map(|(rule, rows)| rows.iter().map(|row| (*rule, row)))
    }

    /// The bindings of `rule`, if it has any.
    pub(super) fn of(&self, rule: RuleId) -> Option<&FastSet<Row>> {
        self.by_rule.get(&rule)
    }
}
