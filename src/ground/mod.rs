//! The ground stage: the engine's instances → a [`GroundProgram`], simplified (GDL.md §3).
//!
//! Input: an [`Instantiation`]. Output: atoms numbered in a canonical order, facts, and
//! ground rules with impossible negations dropped, rules killed by a fact negation removed,
//! rules that need an atom nothing can derive removed, bodies as sets (sorted, each literal
//! once), duplicate rules once. Invariant: the same instantiation always gives the same
//! program.

use crate::engine::{Instance, Instantiation, Row};
use crate::graph::Lists;
use crate::hash::FastSet;
use crate::parallel;
use crate::program::encoding::Token;
use crate::program::{Keyword, Program, RelId};
use std::sync::Arc;

mod index;
mod patch;
mod rules;
mod sort;

use index::AtomIndex;
pub use patch::{carried_atoms, rule_key, Carried, Patch, Patched, Support};
use rules::Flat;
pub use rules::{GroundLiteral, Iter, Rule, Rules};

/// An index into [`GroundProgram::atoms`].
pub type AtomId = u32;

/// A ground game: its atoms (S*), the facts, and the rules.
#[derive(Clone, Debug, Default)]
pub struct GroundProgram {
    /// Every atom of S*, sorted by relation id then arguments (shared with the
    /// [`Instantiation`] it was made from).
    pub atoms: Arc<Vec<(RelId, Row)>>,
    /// Atoms that hold unconditionally, ascending.
    pub facts: Vec<AtomId>,
    /// Rules with non-empty bodies, sorted, without duplicates.
    pub rules: Rules,
}

/// The counts of GDL.md §4 (`ms` is measured by the caller).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Ground fluents in S*.
    pub bases: usize,
    /// Ground moves in S*.
    pub actions: usize,
    /// All atoms of S*.
    pub atoms: usize,
    /// Atoms written as facts.
    pub facts: usize,
    /// Rules with a non-empty body.
    pub rules: usize,
    /// Whether some relation is restricted by demand (GDL.md §3.1), so that `atoms` (and
    /// `bases`, `actions`, which demand never restricts) count R*, not S*.
    pub relevant: bool,
}

impl GroundProgram {
    /// Builds and simplifies the ground program of `instantiation`: static literals and
    /// impossible negations dropped, then atoms decided to a fixpoint (a rule whose literals
    /// all hold is a fact; a rule with a literal that fails is dead; a rule for a fact is
    /// redundant; an atom without a live rule, not given by the state or the moves, is false:
    /// GDL's closed world). The instances are turned into rules on up to `threads` threads,
    /// which share their parts as they come free. The result does not depend on the order of
    /// the instances, nor on which thread made which rules, nor on `threads`.
    pub fn new(instantiation: &Instantiation, threads: usize) -> GroundProgram {
        GroundProgram::build(instantiation, threads, None).0
    }

    /// [`GroundProgram::new`], and the [`Support`] that [`GroundProgram::patched`] needs to
    /// patch it after an edit; `atom_keys` are the atoms' keys (by position in
    /// `instantiation.atoms`), the same in every version of the game.
    pub fn with_support(
        instantiation: &Instantiation,
        threads: usize,
        atom_keys: &[u64],
    ) -> (GroundProgram, Support) {
        GroundProgram::build(instantiation, threads, Some(atom_keys))
    }

    fn build(
        instantiation: &Instantiation,
        threads: usize,
        atom_keys: Option<&[u64]>,
    ) -> (GroundProgram, Support) {
        let atoms = instantiation.atoms.clone();
        let index = AtomIndex::new(&instantiation.atoms, threads);
        let mut is_fact: Vec<bool> = (atoms.iter())
            .map(|(rel, _)| instantiation.is_static[*rel as usize])
            .collect();
        let given: Vec<bool> = (atoms.iter())
            .map(|(rel, _)| instantiation.is_given[*rel as usize])
            .collect();
        let threads = threads.max(1);
        let instances = &instantiation.instances;
        let (index, static_facts) = (&index, &is_fact);
        let parts = parallel::share(
            instances.part_count(),
            threads,
            Flat::default,
            |rules, p| {
                let lookup = |rel, args: &[Token]| index.get(rel, args);
                add_rules_of(rules, instances.part(p), lookup, static_facts)
            },
        );
        let (parts, read_false) = propagate(parts, &mut is_fact, &given);
        let mut support = Support::default();
        if let Some(keys) = atom_keys {
            for rule in parts.iter().flat_map(Flat::iter) {
                *support.counts.entry(rule_key(rule, keys)).or_default() += 1;
            }
            support.read_false = read_false.iter().map(|&a| keys[a as usize]).collect();
        }
        let (rules, subsumed) = Rules::sort_parts(&parts, threads, drop_subsumed);
        if let Some(keys) = atom_keys {
            support.subsumed = subsumed.iter().map(|&h| keys[h as usize]).collect();
        }
        let facts = (0..atoms.len() as AtomId)
            .filter(|&a| is_fact[a as usize])
            .collect();
        let ground = GroundProgram {
            atoms,
            facts,
            rules,
        };
        (ground, support)
    }

    /// The counts of GDL.md §4 for `program`, the program grounded: bases are `true` atoms
    /// and actions `does` atoms, or for a lowered operations game the fluents and the
    /// performed actions, and its operation instances are not atoms of the game; nor are the
    /// auxiliary relations of projected local variables.
    pub fn counts(&self, program: &Program) -> Counts {
        let count =
            |keep: &dyn Fn(RelId) -> bool| self.atoms.iter().filter(|(rel, _)| keep(*rel)).count();
        let (bases, actions, atoms) = match &program.lowering {
            None => (
                count(&|r| program.keyword(r) == Some(Keyword::True)),
                count(&|r| program.keyword(r) == Some(Keyword::Does)),
                count(&|r| !program.is_auxiliary(r)),
            ),
            Some(lowering) => (
                count(&|r| lowering.fluents[r as usize]),
                count(&|r| r == lowering.performed),
                count(&|r| lowering.operation(r).is_none() && !program.is_auxiliary(r)),
            ),
        };
        Counts {
            bases,
            actions,
            atoms,
            facts: self.facts.len(),
            rules: self.rules.len(),
            relevant: !program.demand.restricted.is_empty(),
        }
    }
}

/// Adds the rules of `instances` to `rules`: atoms numbered by `lookup`, each instance as
/// [`simplify`] makes it.
fn add_rules_of<'a>(
    rules: &mut Flat,
    instances: impl Iterator<Item = Instance<'a>>,
    lookup: impl Fn(RelId, &[Token]) -> Option<AtomId>,
    is_fact: &[bool],
) {
    let mut body = Vec::new();
    for instance in instances {
        if let Some(head) = simplify(&instance, &lookup, is_fact, &mut body) {
            rules.push(head, &body);
        }
    }
}

/// The rule an instance gives, its atoms numbered by `lookup` (`None`: not in S*): its head,
/// and its body in `body`, sorted and each literal once (a body is a set). Literals over
/// facts and negations of atoms outside S* are dropped; an instance whose head or a
/// positive literal is outside S*, or that negates a fact, gives nothing.
fn simplify(
    instance: &Instance<'_>,
    lookup: &impl Fn(RelId, &[Token]) -> Option<AtomId>,
    is_fact: &[bool],
    body: &mut Vec<GroundLiteral>,
) -> Option<AtomId> {
    let head = lookup(instance.head_rel, instance.head)?;
    body.clear();
    for (negated, rel, args) in instance.body() {
        match lookup(rel, args) {
            None if negated => {}
            None => return None,
            Some(a) if negated && is_fact[a as usize] => return None,
            Some(a) if !negated && is_fact[a as usize] => {}
            Some(a) => body.push((negated, a)),
        }
    }
    body.sort_unstable();
    body.dedup();
    Some(head)
}

/// The largest body whose subsets [`drop_subsumed`] enumerates (2^8 − 2 lookups a rule).
const MAX_SUBSUMING: usize = 8;

/// Drops every rule whose body contains the whole body of another rule with the same head: it
/// can only hold when that one does (the bloated rules of the Stanford "bad" games are such
/// supersets). Rules come sorted by head; see [`subsumed_in`]. Keeps the order; returns the
/// heads that lost a rule too.
fn drop_subsumed(rules: Flat) -> (Flat, Vec<AtomId>) {
    let mut subsumed = vec![false; rules.len()];
    let mut heads = Vec::new();
    let mut scratch = Subsets::default();
    let mut start = 0;
    while start < rules.len() {
        let group = start..head_end(&rules, start);
        start = group.end;
        let before = heads.len();
        subsumed_in(&rules, group.clone(), &mut scratch, &mut |r| {
            subsumed[r] = true;
            if heads.len() == before {
                heads.push(rules.get(r).head);
            }
        });
    }
    drop(scratch);
    if heads.is_empty() {
        return (rules, heads);
    }
    (rules.filtered(|r, _| !subsumed[r], |_| true), heads)
}

/// Where the rules of the head of rule `start` end (rules sorted by head).
fn head_end(rules: &Flat, start: usize) -> usize {
    let head = rules.get(start).head;
    (start..rules.len())
        .find(|&r| rules.get(r).head != head)
        .unwrap_or(rules.len())
}

/// Scratch room for [`subsumed_in`], reused from group to group (a game has as many groups
/// as heads).
#[derive(Default)]
struct Subsets<'a> {
    bodies: FastSet<&'a [GroundLiteral]>,
    subset: Vec<GroundLiteral>,
}

/// Calls `found` with each rule of `group` (the rules of one head) whose body contains
/// another's body. Only a body longer than the group's shortest can be, and it is checked by
/// looking up each of its proper subsets whose length some body of the group has among the
/// group's bodies, for bodies of at most [`MAX_SUBSUMING`] literals. (In the 8-queens goals,
/// 911,550 bodies of k literals and 92 of k − 1: k lookups each instead of 2^k − 2.)
fn subsumed_in<'a>(
    rules: &'a Flat,
    group: std::ops::Range<usize>,
    scratch: &mut Subsets<'a>,
    found: &mut dyn FnMut(usize),
) {
    let shortest = group.clone().map(|r| rules.get(r).body.len()).min();
    let candidate = |r: usize| {
        let k = rules.get(r).body.len();
        Some(k) > shortest && k <= MAX_SUBSUMING
    };
    if !group.clone().any(candidate) {
        return;
    }
    let Subsets { bodies, subset } = scratch;
    bodies.clear();
    bodies.extend(group.clone().map(|r| rules.get(r).body));
    // The lengths the group's bodies have: a subset of another length is no body.
    let lengths = (group.clone()).fold(0u32, |set, r| {
        set | 1u32
            .checked_shl(rules.get(r).body.len() as u32)
            .unwrap_or(0)
    });
    for r in group.filter(|&r| candidate(r)) {
        let body = rules.get(r).body;
        let k = body.len();
        let contains = (1..(1u32 << k) - 1).any(|mask| {
            if lengths & (1 << mask.count_ones()) == 0 {
                return false;
            }
            subset.clear();
            subset.extend((0..k).filter(|i| mask & (1 << i) != 0).map(|i| body[i]));
            bodies.contains(&subset[..])
        });
        if contains {
            found(r);
        }
    }
}

/// Decides atoms to a fixpoint, both ways. True: a rule with an empty body makes its head a
/// fact. False: an atom that is neither a fact nor `given` (by the state or the moves) and
/// has no live rule left. A true atom leaves positive bodies and kills the rules that negate
/// it; a false one kills the rules that need it and leaves negative bodies. Returns the live
/// rules for atoms that are not facts, with bodies of undecided atoms only, one part for each
/// part of `parts` with its rules in their order, and the false atoms that some rule read
/// (what a [`Support`] must remember: they had rules to revive).
///
/// The parts are the rules as each thread made them: each part's occurrence lists are built
/// and its live rules copied on a thread of its own (on alexChess__v1, 7.5 M rules, those
/// two were 0.57 s on one thread while the other waited); only the deciding is sequential.
fn propagate(parts: Vec<Flat>, is_fact: &mut [bool], given: &[bool]) -> (Vec<Flat>, Vec<AtomId>) {
    let atoms = is_fact.len();
    let mut parts: Vec<Deciding> = parallel::map_parts(parts, |rules| Deciding::new(rules, atoms));
    let mut alive = vec![0u32; atoms];
    let mut is_false = vec![false; atoms];
    // Decided atoms not yet propagated: (atom, whether true).
    let mut queue: Vec<(AtomId, bool)> = Vec::new();
    for rule in parts.iter().flat_map(|part| part.rules.iter()) {
        alive[rule.head as usize] += 1;
        if rule.body.is_empty() && !is_fact[rule.head as usize] {
            is_fact[rule.head as usize] = true;
            queue.push((rule.head, true));
        }
    }
    for a in 0..atoms {
        if alive[a] == 0 && !is_fact[a] && !given[a] {
            is_false[a] = true;
            queue.push((a as AtomId, false));
        }
    }
    while let Some((a, holds)) = queue.pop() {
        for part in &mut parts {
            for (head, lost) in part.decided(a, holds) {
                let head = head as usize;
                if lost {
                    alive[head] -= 1;
                    if alive[head] == 0 && !is_fact[head] && !given[head] {
                        is_false[head] = true;
                        queue.push((head as AtomId, false));
                    }
                } else if !is_fact[head] {
                    is_fact[head] = true;
                    queue.push((head as AtomId, true));
                }
            }
        }
    }
    let read_false = (0..atoms)
        .filter(|&a| is_false[a] && parts.iter().any(|p| !p.occurrences.get(a).is_empty()))
        .map(|a| a as AtomId)
        .collect();
    let is_fact = &*is_fact;
    let kept = parallel::map_parts(parts, |part| {
        let live = |r: usize, rule: Rule<'_>| !part.dead[r] && !is_fact[rule.head as usize];
        let undecided = |(_, a): GroundLiteral| !is_fact[a as usize] && !is_false[a as usize];
        part.rules.filtered(live, undecided)
    });
    (kept, read_false)
}

/// One part of the rules while [`propagate`] decides atoms: where each atom occurs in its
/// bodies, and what is known of each rule.
struct Deciding {
    rules: Flat,
    /// Each atom's occurrences in a body: (rule, negated), as lists indexed by atom.
    occurrences: Lists<(u32, bool)>,
    /// Each rule's body literals not yet known to hold.
    open: Vec<u32>,
    /// Whether a literal of the rule is known to fail.
    dead: Vec<bool>,
}

impl Deciding {
    /// `rules` with their occurrence lists over `atoms` atoms, nothing decided.
    fn new(rules: Flat, atoms: usize) -> Deciding {
        let occurrences = Lists::new(atoms, || {
            (rules.iter().enumerate()).flat_map(|(r, rule)| {
                (rule.body.iter()).map(move |&(negated, a)| (a as usize, (r as u32, negated)))
            })
        });
        Deciding {
            open: rules.iter().map(|r| r.body.len() as u32).collect(),
            dead: vec![false; rules.len()],
            occurrences,
            rules,
        }
    }

    /// Takes in that atom `a` holds (or not, `holds`): the heads of the rules it decides, each
    /// with whether the rule died (else all its body holds now).
    fn decided(&mut self, a: AtomId, holds: bool) -> impl Iterator<Item = (AtomId, bool)> + '_ {
        let Deciding {
            rules,
            occurrences,
            open,
            dead,
        } = self;
        (occurrences.get(a as usize).iter()).filter_map(move |&(r, negated)| {
            let r = r as usize;
            if dead[r] {
                return None;
            }
            let head = rules.get(r).head;
            if negated == holds {
                dead[r] = true;
                return Some((head, true));
            }
            open[r] -= 1;
            (open[r] == 0).then_some((head, false))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(list: &[(AtomId, &[(bool, AtomId)])]) -> Flat {
        let mut rules = Flat::default();
        list.iter().for_each(|(head, body)| rules.push(*head, body));
        rules
    }

    /// A body that contains another body of the same head is dropped; other heads, bodies
    /// that only overlap, and negations that differ are kept.
    #[test]
    fn rules_whose_body_contains_another_of_the_same_head_are_dropped() {
        let list: Vec<(AtomId, &[(bool, AtomId)])> = vec![
            (1, &[(false, 5)]),
            (1, &[(false, 5), (false, 6)]),
            (1, &[(false, 6), (false, 7)]),
            (1, &[(false, 6), (true, 7), (false, 8)]),
            (1, &[(false, 6), (false, 7), (false, 8)]),
            (2, &[(false, 5), (false, 6)]),
        ];
        let (kept, heads) = Rules::sort_parts(&[rules(&list)], 1, drop_subsumed);
        assert_eq!(heads, vec![1]);
        let expected = rules(&[
            (1, &[(false, 5)]),
            (1, &[(false, 6), (false, 7)]),
            (1, &[(false, 6), (true, 7), (false, 8)]),
            (2, &[(false, 5), (false, 6)]),
        ]);
        assert_eq!(kept, Rules::from(expected).sorted(1));
    }

    /// `list` cut into parts every way [`propagate`] may see it: whole, reversed, in two at
    /// each place, and in three.
    fn in_parts(list: &[(AtomId, &[(bool, AtomId)])]) -> Vec<Vec<Flat>> {
        let reversed: Vec<_> = list.iter().rev().copied().collect();
        let mut ways = vec![vec![rules(list)], vec![rules(&reversed)]];
        for cut in 0..=list.len() {
            ways.push(vec![rules(&list[..cut]), rules(&list[cut..])]);
        }
        let third = list.len() / 3;
        let (first, rest) = list.split_at(third);
        let (second, last) = rest.split_at(third);
        ways.push(vec![rules(last), rules(first), rules(second)]);
        ways
    }

    /// [`propagate`] on `parts`: which atoms are facts, the rules left (all parts, sorted) and
    /// the false atoms read; checks that each part keeps its own rules.
    fn decide(parts: Vec<Flat>, given: &[bool]) -> (Vec<bool>, Rules, Vec<AtomId>) {
        let mut is_fact = vec![false; given.len()];
        let count = parts.len();
        let (kept, read_false) = propagate(parts, &mut is_fact, given);
        assert_eq!(kept.len(), count);
        let no_more = |rules| (rules, Vec::<()>::new());
        (is_fact, Rules::sort_parts(&kept, 1, no_more).0, read_false)
    }

    /// Regression: facts were only recognised in bodies processed after the rule that made
    /// them, so the output depended on the order of the instances (and on `-w`).
    #[test]
    fn facts_propagate_to_a_fixpoint_in_any_order() {
        let list: Vec<(AtomId, &[(bool, AtomId)])> = vec![
            (1, &[(false, 0)]),
            (0, &[]),
            (2, &[(true, 1), (false, 3)]),
            (4, &[(false, 1), (false, 3)]),
        ];
        let given = [false, false, false, true, false];
        for parts in in_parts(&list) {
            let (is_fact, rules, read_false) = decide(parts, &given);
            assert_eq!(is_fact, vec![true, true, false, false, false]);
            assert_eq!(rules, Rules::from(self::rules(&[(4, &[(false, 3)])])));
            assert!(read_false.is_empty());
        }
    }

    /// An atom with no rule that the state does not give is false, and so is one whose rules
    /// all die: rules that need it die, negations of it are dropped (here making a fact), and
    /// a given atom is never false for want of a rule.
    #[test]
    fn atoms_nothing_derives_are_false_to_a_fixpoint() {
        let list: Vec<(AtomId, &[(bool, AtomId)])> = vec![
            (1, &[(false, 0), (false, 5)]),
            (2, &[(false, 1)]),
            (3, &[(true, 2)]),
            (4, &[(false, 2), (false, 5)]),
            (4, &[(false, 5), (true, 6)]),
        ];
        let given = [false, false, false, false, false, true, false];
        for parts in in_parts(&list) {
            let (is_fact, rules, read_false) = decide(parts, &given);
            assert_eq!(
                is_fact,
                vec![false, false, false, true, false, false, false]
            );
            assert_eq!(rules, Rules::from(self::rules(&[(4, &[(false, 5)])])));
            assert_eq!(read_false, vec![0, 1, 2, 6]);
        }
    }
}
