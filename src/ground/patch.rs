//! Patching a ground program after an edit, instead of building it again: the instances
//! that came and went are simplified against the facts (which the patch requires to stay
//! the same), counted in and out of the rules they give, and only rules whose count starts
//! or stops change the program.
//!
//! A patch gives up (`None`), and the caller runs the whole ground stage, when it cannot be
//! sure of the result: a fact other than a static atom could come or go, an atom that some
//! rule reads could become false for want of rules or stop being false, or a rule could
//! start or stop subsuming another. When the versions number atoms in different orders the
//! carried rules are sorted again instead of merged.

use super::rules::{Flat, GroundLiteral, Rule, Rules};
use super::{simplify, subsumed_in, AtomId, GroundProgram, Subsets};
use crate::engine::{Instances, Row};
use crate::hash::{FastMap, FastSet};
use crate::program::encoding::Token;
use crate::program::RelId;
use std::cmp::Ordering;
use std::ops::Range;
use std::sync::Arc;

/// What patching a ground program needs beyond the program: how many instances give each
/// rule (by [`rule_key`]), the heads (atom keys) that lost a rule to subsumption, and the
/// false atoms (keys) that rules read: rules died or lost literals for them, which the
/// program no longer shows.
#[derive(Clone, Debug, Default)]
pub struct Support {
    pub(super) counts: FastMap<u64, u32>,
    pub(super) subsumed: FastSet<u64>,
    pub(super) read_false: FastSet<u64>,
}

/// The new version's atoms, and where the previous version's went.
pub struct Carried {
    /// The new version's atoms, sorted.
    pub atoms: Vec<(RelId, Row)>,
    /// Each previous atom's id in the new version, if it is still there.
    pub ids: Vec<Option<AtomId>>,
    /// Whether the carried atoms keep their order (then so do the carried rules).
    pub in_order: bool,
}

/// An edit, as the ground stage sees it.
pub struct Patch<'a> {
    /// The new version's atoms ([`carried_atoms`] makes them).
    pub carried: Carried,
    /// The keys of the previous version's atoms, by id.
    pub previous_keys: &'a [u64],
    /// The keys of the new version's atoms, by id.
    pub keys: &'a [u64],
    /// Which of the new version's relations are static.
    pub is_static: &'a [bool],
    /// Which of the previous version's relations are static (the same relations).
    pub was_static: &'a [bool],
    /// Which of the new version's relations the state or the moves give.
    pub is_given: &'a [bool],
    /// Instances that came (new ids).
    pub added: &'a Instances,
    /// Instances that went (previous ids).
    pub removed: &'a Instances,
}

/// A patched ground program and what changed in it.
pub struct Patched {
    /// The new version's ground program, but for its rules when `same_rules`.
    pub ground: GroundProgram,
    /// Whether the new version's rules are the patched program's, atom ids and order
    /// included (an edit whose instances simplify to the rules they replace, such as a
    /// changed goal rule that gives the same ground rules): then `ground.rules` is empty,
    /// for the caller to move the rules over instead of copying millions of them.
    pub same_rules: bool,
    /// Its rules that are new (indices into it).
    pub rules_added: Vec<usize>,
    /// The previous program's rules that went (indices into it).
    pub rules_removed: Vec<usize>,
    /// Its facts that are new (atom ids).
    pub facts_added: Vec<AtomId>,
    /// The previous program's facts that went (atom ids).
    pub facts_removed: Vec<AtomId>,
}

/// A rule's key from its atoms' keys (`keys`, by atom id): the same for the same rule in
/// every version, whatever the order of its body (a set).
pub fn rule_key(rule: Rule<'_>, keys: &[u64]) -> u64 {
    let head = mix(keys[rule.head as usize] ^ 0x9e37_79b9_7f4a_7c15);
    (rule.body.iter()).fold(head, |key, &(negated, a)| {
        key.wrapping_add(mix(keys[a as usize] ^ negated as u64))
    })
}

/// SplitMix64's finaliser: spreads a key's bits so that sums of keys do not collide.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The new version's atoms and each previous atom's new id: the previous `atoms` less
/// `removed`, each carried to its new ids by `carry` (`None`: the versions' ids are the
/// same), with `added`, sorted. `None` if an atom cannot be carried or is added twice.
pub fn carried_atoms(
    atoms: &[(RelId, Row)],
    removed: &[(RelId, Row)],
    added: Vec<(RelId, Row)>,
    carry: Option<impl Fn(RelId, &[Token]) -> Option<(RelId, Row)>>,
) -> Option<Carried> {
    let Some(carry) = carry else {
        return kept_atoms(atoms, removed, added);
    };
    let removed: FastSet<&(RelId, Row)> = removed.iter().collect();
    // Every atom of the new version, with the previous id of the carried ones.
    let mut all: Vec<((RelId, Row), AtomId)> = Vec::with_capacity(atoms.len() + added.len());
    for (i, atom) in atoms.iter().enumerate() {
        if !removed.contains(atom) {
            all.push((carry(atom.0, &atom.1)?, i as AtomId));
        }
    }
    let in_order = all.windows(2).all(|w| w[0].0 < w[1].0);
    all.extend(added.into_iter().map(|atom| (atom, AtomId::MAX)));
    // Carried atoms in order stay in order: sorting only places the added ones.
    all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    if all.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    let mut ids = vec![None; atoms.len()];
    for (new, (_, old)) in all.iter().enumerate() {
        if *old != AtomId::MAX {
            ids[*old as usize] = Some(new as AtomId);
        }
    }
    Some(Carried {
        atoms: all.into_iter().map(|(atom, _)| atom).collect(),
        ids,
        in_order,
    })
}

/// [`carried_atoms`] when the versions' ids are the same: the previous `atoms` (sorted) less
/// `removed`, merged with `added`, with no atom carried, hashed or sorted again (hex's 22 K
/// atoms: 3.3 ms carried).
fn kept_atoms(
    atoms: &[(RelId, Row)],
    removed: &[(RelId, Row)],
    mut added: Vec<(RelId, Row)>,
) -> Option<Carried> {
    let mut gone = vec![false; atoms.len()];
    for atom in removed {
        if let Ok(i) = atoms.binary_search(atom) {
            gone[i] = true;
        }
    }
    added.sort_unstable();
    if added.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    let mut all = Vec::with_capacity(atoms.len() + added.len());
    let mut ids = Vec::with_capacity(atoms.len());
    // The previous atoms from `from` to `to` (not gone) go in as they are.
    let mut keep = |all: &mut Vec<(RelId, Row)>, from: usize, to: usize| {
        for (atom, &gone) in atoms[from..to].iter().zip(&gone[from..to]) {
            ids.push((!gone).then_some(all.len() as AtomId));
            if !gone {
                // Copied, not cloned: a row's `clone` pushes its tokens one by one, which
                // was two thirds of this copy (breakthrough's goal edits: 6 % of the edit).
                all.push((atom.0, Row::from_slice(&atom.1)));
            }
        }
    };
    // Each added atom goes where a binary search places it, and the runs of previous atoms
    // between are copied without a comparison each (an edit adds a few atoms to hundreds).
    let mut from = 0;
    for new in added {
        let to = from + atoms[from..].partition_point(|atom| *atom < new);
        if atoms.get(to) == Some(&new) && !gone[to] {
            return None;
        }
        keep(&mut all, from, to);
        all.push(new);
        from = to;
    }
    keep(&mut all, from, atoms.len());
    Some(Carried {
        atoms: all,
        ids,
        in_order: true,
    })
}

/// A rule an edit adds or removes, with how many instances more (or fewer) give it.
#[derive(Default)]
struct Net {
    count: i64,
    /// The rule in the previous version's ids, if a removed instance gave it.
    before: Option<(AtomId, Vec<GroundLiteral>)>,
    /// The rule in the new version's ids, if an added instance gave it.
    after: Option<(AtomId, Vec<GroundLiteral>)>,
}

impl GroundProgram {
    /// This program patched by `patch`, with the facts and rules that came and went, and `support`
    /// brought up to date; `None` (with `support` untouched) when a patch cannot be sure of
    /// the result (see the module doc): then ground the new version in full.
    pub fn patched(&self, support: &mut Support, patch: Patch<'_>) -> Option<Patched> {
        let Carried {
            atoms,
            ids: carried,
            in_order,
        } = patch.carried;
        // Static atoms are facts, and come and go as the dataflow says (no instance keeps a
        // static literal); every other fact stays, unless `tally` finds it could go.
        let mut is_fact = vec![false; atoms.len()];
        for (a, (rel, _)) in atoms.iter().enumerate() {
            is_fact[a] = patch.is_static[*rel as usize];
        }
        let mut was_fact = vec![false; self.atoms.len()];
        let mut facts_removed = Vec::new();
        for &f in &self.facts {
            was_fact[f as usize] = true;
            match carried[f as usize] {
                Some(a) => is_fact[a as usize] = true,
                None if patch.was_static[self.atoms[f as usize].0 as usize] => {
                    facts_removed.push(f)
                }
                None => return None,
            }
        }
        let facts: Vec<AtomId> = (0..atoms.len() as AtomId)
            .filter(|&a| is_fact[a as usize])
            .collect();
        let mut carried_facts = vec![false; atoms.len()];
        (self.facts.iter())
            .filter_map(|&f| carried[f as usize])
            .for_each(|a| carried_facts[a as usize] = true);
        let facts_added = (facts.iter())
            .copied()
            .filter(|&a| !carried_facts[a as usize])
            .collect();
        let mut net: FastMap<u64, Net> = FastMap::default();
        tally(
            patch.removed,
            &self.atoms,
            &was_fact,
            patch.previous_keys,
            -1,
            &mut net,
        )?;
        tally(patch.added, &atoms, &is_fact, patch.keys, 1, &mut net)?;
        let mut removed = Vec::new();
        let mut added = Rules::default();
        let mut counts = Vec::with_capacity(net.len());
        for (key, n) in net {
            let before = support.counts.get(&key).copied().unwrap_or(0) as i64;
            let after = u32::try_from(before + n.count).ok()?;
            if before > 0 && after == 0 {
                let (head, body) = n.before?;
                if support
                    .subsumed
                    .contains(&patch.previous_keys[head as usize])
                {
                    return None;
                }
                removed.push(find(&self.rules, Rule { head, body: &body })?);
            } else if before == 0 && after > 0 {
                let (head, body) = n.after?;
                added.push(head, &body);
            }
            counts.push((key, after));
        }
        removed.sort_unstable();
        let identity = atoms.len() == self.atoms.len()
            && (carried.iter().enumerate()).all(|(i, &a)| a == Some(i as AtomId));
        if removed.is_empty() && added.is_empty() && identity {
            recount(support, counts);
            return Some(Patched {
                ground: GroundProgram {
                    atoms: Arc::new(atoms),
                    facts,
                    rules: Rules::default(),
                },
                same_rules: true,
                rules_added: Vec::new(),
                rules_removed: Vec::new(),
                facts_added,
                facts_removed,
            });
        }
        let (rules, rules_added) = placed(&self.rules, &removed, added, &carried, in_order)?;
        // False in the patched program: not a fact, not given, and without a rule.
        let is_false = |a: AtomId| {
            !is_fact[a as usize]
                && !patch.is_given[atoms[a as usize].0 as usize]
                && !has_rules(&rules, a)
        };
        // An added rule must not revive a false atom, nor read one (it would be dead or lose
        // the literal).
        for &r in &rules_added {
            let rule = rules.get(r);
            if support.read_false.contains(&patch.keys[rule.head as usize])
                || (rule.body.iter()).any(|&(_, a)| is_false(a))
            {
                return None;
            }
        }
        // A head whose last rule went is false now: nothing may read it.
        let falsified: FastSet<AtomId> = (removed.iter())
            .filter_map(|&r| carried[self.rules.get(r).head as usize])
            .filter(|&a| is_false(a))
            .collect();
        if !falsified.is_empty()
            && (rules.iter()).any(|rule| rule.body.iter().any(|(_, a)| falsified.contains(a)))
        {
            return None;
        }
        // A new rule must neither subsume nor be subsumed by another of its head.
        let mut last_head = None;
        for &r in &rules_added {
            let head = rules.get(r).head;
            if last_head.replace(head) == Some(head) {
                continue;
            }
            let start = (0..r).rev().find(|&i| rules.get(i).head != head);
            let group: Flat = (rules.range(start.map_or(0, |s| s + 1)..rules.len()))
                .take_while(|rule| rule.head == head)
                .collect();
            let (mut subsumption, mut scratch) = (false, Subsets::default());
            let all = 0..group.len();
            subsumed_in(&group, all, &mut scratch, &mut |_| subsumption = true);
            if subsumption {
                return None;
            }
        }
        recount(support, counts);
        let ground = GroundProgram {
            atoms: Arc::new(atoms),
            facts,
            rules,
        };
        Some(Patched {
            ground,
            same_rules: false,
            rules_added,
            rules_removed: removed,
            facts_added,
            facts_removed,
        })
    }
}

/// Sets the instance counts of `support`'s rules to `counts` (a count of 0: no such rule).
fn recount(support: &mut Support, counts: Vec<(u64, u32)>) {
    for (key, count) in counts {
        match count {
            0 => support.counts.remove(&key),
            n => support.counts.insert(key, n),
        };
    }
}

/// Counts the rules `instances` give into `net` (`sign` +1 for added instances, −1 for
/// removed ones), their atoms among `atoms`, `is_fact` the facts, `keys` the atom keys.
/// `None` if an instance makes or supports a fact: the facts could change.
fn tally(
    instances: &Instances,
    atoms: &[(RelId, Row)],
    is_fact: &[bool],
    keys: &[u64],
    sign: i64,
    net: &mut FastMap<u64, Net>,
) -> Option<()> {
    let lookup = |rel: RelId, args: &[Token]| {
        let i = atoms.binary_search_by(|(r, row)| (*r, &row[..]).cmp(&(rel, args)));
        i.ok().map(|i| i as AtomId)
    };
    let mut body = Vec::new();
    for instance in instances.iter() {
        let Some(head) = simplify(&instance, &lookup, is_fact, &mut body) else {
            continue;
        };
        if body.is_empty() && (sign < 0 || !is_fact[head as usize]) {
            return None;
        }
        if is_fact[head as usize] {
            continue;
        }
        let rule = Rule { head, body: &body };
        let entry = net.entry(rule_key(rule, keys)).or_default();
        entry.count += sign;
        let side = if sign > 0 {
            &mut entry.after
        } else {
            &mut entry.before
        };
        side.get_or_insert_with(|| (head, body.clone()));
    }
    Some(())
}

/// Whether `rules` (sorted) has a rule for `head`.
fn has_rules(rules: &Rules, head: AtomId) -> bool {
    let first = partition(rules.len(), |r| rules.get(r).head < head);
    first < rules.len() && rules.get(first).head == head
}

/// The first index in `0..len` for which `before` is false (`before` true on a prefix).
fn partition(len: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let mid = (low + high) / 2;
        if before(mid) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

/// Where `rule` is in `rules` (sorted).
fn find(rules: &Rules, rule: Rule<'_>) -> Option<usize> {
    let at = partition(rules.len(), |r| rules.get(r) < rule);
    (at < rules.len() && rules.get(at) == rule).then_some(at)
}

/// `rules` less the indices `removed` (sorted), carried to new atom ids, with `added`
/// (new ids), sorted; with the indices of the added rules in the result. Carried ids that
/// keep their order (`in_order`) keep the kept rules in order, and `added` is spliced in;
/// otherwise everything is sorted again. `None` if a kept rule has an atom that is gone,
/// or an added rule is already there.
fn placed(
    rules: &Rules,
    removed: &[usize],
    added: Rules,
    carried: &[Option<AtomId>],
    in_order: bool,
) -> Option<(Rules, Vec<usize>)> {
    // Every kept atom keeps its id (as when a goal's value changes in place).
    let same_ids = (carried.iter().enumerate()).all(|(i, &a)| a.is_none_or(|a| a == i as AtomId));
    if in_order || same_ids {
        return spliced(rules, removed, added, carried, same_ids);
    }
    let mut all = Rules::default();
    carry_rules(rules, removed, carried, &mut |rule| {
        all.push(rule.head, rule.body);
        Some(())
    })?;
    let count = all.len() + added.len();
    added.iter().for_each(|rule| all.push(rule.head, rule.body));
    let sorted = all.sorted(1);
    if sorted.len() != count {
        return None;
    }
    let mut positions = (added.iter())
        .map(|rule| find(&sorted, rule))
        .collect::<Option<Vec<usize>>>()?;
    positions.sort_unstable();
    Some((sorted, positions))
}

/// [`placed`] when carried ids keep their order, so the kept rules stay in order: they are
/// copied a slice at a time, each atom carried in one pass over the slice's arrays (none
/// taken apart: skirmish's 287 K rules took 9 ms carried one by one, their bodies sorted
/// again), and each added rule goes where a binary search among the kept rules puts it. With
/// the same ids (`same_ids`), the slices are copied as they are.
fn spliced(
    rules: &Rules,
    removed: &[usize],
    added: Rules,
    carried: &[Option<AtomId>],
    same_ids: bool,
) -> Option<(Rules, Vec<usize>)> {
    // The first kept rule at or after `r`, if any.
    let kept_from = |r: usize| {
        let first = removed.partition_point(|&x| x < r);
        let run = removed[first..]
            .iter()
            .zip(r..)
            .take_while(|(&x, r)| x == *r);
        Some(r + run.count()).filter(|&k| k < rules.len())
    };
    let added = added.sorted(1);
    let mut places = Vec::with_capacity(added.len());
    for new in added.iter() {
        // Kept rules carried are in order: the first not before `new` is its place.
        let before = |r: usize| kept_from(r).map(|k| compare_carried(rules.get(k), carried, new));
        let at = partition(rules.len(), |r| {
            before(r).is_some_and(|o| o == Some(Ordering::Less))
        });
        match before(at) {
            Some(None) => return None,
            Some(Some(Ordering::Equal)) => return None,
            _ => places.push((at, new)),
        }
    }
    let literals = (rules.lists().iter()).map(Flat::literal_count).sum();
    let mut all = Flat::with_capacity(rules.len() + added.len(), literals);
    // Copies the rules of `range` that are kept; `None` if one has an atom that is gone.
    let copy = |all: &mut Flat, range: Range<usize>| -> Option<()> {
        let first = removed.partition_point(|&r| r < range.start);
        let ends = removed[first..].iter().take_while(|&&r| r < range.end);
        let (mut pieces, mut start) = (Vec::new(), range.start);
        for &r in ends {
            pieces.push(start..r);
            start = r + 1;
        }
        pieces.push(start..range.end);
        for piece in pieces {
            for (list, part) in rules.pieces(piece) {
                if !same_ids {
                    all.extend_carried(list, part, carried)?;
                } else if list.any_atom(part.clone(), |a| carried[a as usize].is_none()) {
                    return None;
                } else {
                    all.extend_from(list, part);
                }
            }
        }
        Some(())
    };
    let (mut positions, mut next) = (Vec::with_capacity(places.len()), 0);
    for (at, new) in places {
        copy(&mut all, next..at)?;
        next = at;
        positions.push(all.len());
        all.push(new.head, new.body);
    }
    copy(&mut all, next..rules.len())?;
    Some((all.into(), positions))
}

/// How `rule`, carried to new atom ids, compares with `new`; `None` if an atom of `rule` is
/// gone. (Carried ids in order keep a body sorted.)
fn compare_carried(rule: Rule<'_>, carried: &[Option<AtomId>], new: Rule<'_>) -> Option<Ordering> {
    let head = carried[rule.head as usize]?.cmp(&new.head);
    if head != Ordering::Equal {
        return Some(head);
    }
    for (i, &(negated, a)) in rule.body.iter().enumerate() {
        let Some(theirs) = new.body.get(i) else {
            return Some(Ordering::Greater);
        };
        let literal = (negated, carried[a as usize]?).cmp(theirs);
        if literal != Ordering::Equal {
            return Some(literal);
        }
    }
    Some(rule.body.len().cmp(&new.body.len()))
}

/// Calls `each`, in order, with every rule of `rules` but the indices `removed` (sorted),
/// carried to new atom ids (its body sorted again). `None` if a rule has an atom that is
/// gone, or `each` says so.
fn carry_rules(
    rules: &Rules,
    removed: &[usize],
    carried: &[Option<AtomId>],
    each: &mut dyn FnMut(Rule<'_>) -> Option<()>,
) -> Option<()> {
    let mut removed = removed.iter().peekable();
    let mut body = Vec::new();
    for (r, rule) in rules.iter().enumerate() {
        if removed.next_if_eq(&&r).is_some() {
            continue;
        }
        body.clear();
        for &(negated, a) in rule.body {
            body.push((negated, carried[a as usize]?));
        }
        body.sort_unstable();
        each(Rule {
            head: carried[rule.head as usize]?,
            body: &body,
        })?;
    }
    Some(())
}
