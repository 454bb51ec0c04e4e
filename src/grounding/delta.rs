//! What an edit changed in the ground game: atoms, facts and rules that came and went, found
//! by comparing the two versions' ground programs through atom keys that are the same in
//! every version.

use crate::ground::{rule_key, AtomId, GroundProgram};

/// The ground delta of an edit. Added items are indices into the new ground program, removed
/// ones into the previous one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroundDelta {
    /// Atoms of S* that came (new ids).
    pub atoms_added: Vec<AtomId>,
    /// Atoms of S* that went (previous ids).
    pub atoms_removed: Vec<AtomId>,
    /// Facts that came (new ids).
    pub facts_added: Vec<AtomId>,
    /// Facts that went (previous ids).
    pub facts_removed: Vec<AtomId>,
    /// Rules that came (indices into the new rules).
    pub rules_added: Vec<usize>,
    /// Rules that went (indices into the previous rules).
    pub rules_removed: Vec<usize>,
}

/// A ground program's atoms, facts and rules by version-independent keys, sorted: one side
/// of a comparison (made when an edit rebuilds the ground game; a patch gives its delta
/// directly).
#[derive(Clone, Debug, Default)]
pub struct Keys {
    atoms: Vec<(u64, usize)>,
    facts: Vec<(u64, usize)>,
    rules: Vec<(u64, usize)>,
}

impl Keys {
    /// The keys of `ground`, whose atoms have the keys `atom_keys` (by atom id).
    pub fn new(ground: &GroundProgram, atom_keys: &[u64]) -> Keys {
        let sorted = |mut v: Vec<(u64, usize)>| {
            v.sort_unstable();
            v
        };
        Keys {
            atoms: sorted(atom_keys.iter().enumerate().map(|(i, &k)| (k, i)).collect()),
            facts: sorted(
                (ground.facts.iter())
                    .map(|&f| (atom_keys[f as usize], f as usize))
                    .collect(),
            ),
            rules: sorted(rule_keys(ground, atom_keys)),
        }
    }
}

impl GroundDelta {
    /// Whether nothing changed: no atom, fact or rule came or went.
    pub fn is_empty(&self) -> bool {
        self.atoms_added.is_empty()
            && self.atoms_removed.is_empty()
            && self.facts_added.is_empty()
            && self.facts_removed.is_empty()
            && self.rules_added.is_empty()
            && self.rules_removed.is_empty()
    }

    /// What changed from the program keyed `before` to the one keyed `after`.
    pub fn new(before: &Keys, after: &Keys) -> GroundDelta {
        let ids = |v: Vec<usize>| v.into_iter().map(|i| i as AtomId).collect();
        let (atoms_added, atoms_removed) = difference(&after.atoms, &before.atoms);
        let (facts_added, facts_removed) = difference(&after.facts, &before.facts);
        let (rules_added, rules_removed) = difference(&after.rules, &before.rules);
        GroundDelta {
            atoms_added: ids(atoms_added),
            atoms_removed: ids(atoms_removed),
            facts_added: ids(facts_added),
            facts_removed: ids(facts_removed),
            rules_added,
            rules_removed,
        }
    }
}

/// Each rule's key ([`rule_key`]), with its index.
fn rule_keys(ground: &GroundProgram, keys: &[u64]) -> Vec<(u64, usize)> {
    (ground.rules.iter().enumerate())
        .map(|(r, rule)| (rule_key(rule, keys), r))
        .collect()
}

/// The items of `after` whose keys `before` lacks, and the items of `before` whose keys
/// `after` lacks (as multisets, both sorted), by index.
fn difference(after: &[(u64, usize)], before: &[(u64, usize)]) -> (Vec<usize>, Vec<usize>) {
    let (mut i, mut j) = (0, 0);
    let (mut added, mut removed) = (Vec::new(), Vec::new());
    while i < after.len() || j < before.len() {
        match (after.get(i), before.get(j)) {
            (Some(a), Some(b)) if a.0 == b.0 => (i, j) = (i + 1, j + 1),
            (Some(a), Some(b)) if a.0 < b.0 => {
                added.push(a.1);
                i += 1;
            }
            (Some(a), None) => {
                added.push(a.1);
                i += 1;
            }
            (_, Some(b)) => {
                removed.push(b.1);
                j += 1;
            }
            (None, None) => break,
        }
    }
    added.sort_unstable();
    removed.sort_unstable();
    (added, removed)
}
