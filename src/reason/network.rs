//! The ground program as a network of OR (an atom over its rules), AND (a rule over its
//! literals) and NOT, compiled once into flat arrays and evaluated in one pass.
//!
//! The program is stratified on *atoms*, once: the strongly connected components of the ground
//! dependency graph (head → body atom), in dependency order. Ordering atoms rather than
//! relations is what makes rule-level stratification such as `goal(R,0) :- ~goal(R,100)`
//! exact: the ground atom `goal(x,100)` gets its final value before any rule reads its
//! negation, although both atoms are `goal`s. (Iterating a relation component to a fixpoint
//! with negations read "as of now" would not do: a rule for `goal(x,0)` evaluated before
//! `goal(x,100)` is derived fires wrongly, and a monotone fixpoint never retracts it.)
//! An evaluation is one pass in that order: an atom outside any cycle is the disjunction of its
//! rules' bodies, all of whose atoms are final; a cyclic component (positive recursion, as in a
//! path relation) is closed by counting: each rule waits for its body atoms inside the
//! component, and fires when the count reaches zero. Each rule is looked at a bounded number of
//! times, so an evaluation is linear in the size of the program. A negative literal inside its
//! own component (recursion through negation, which the program checks exclude) is an error.
//!
//! The components are split in two *layers*: the early one does not depend on the *late*
//! inputs (the moves), the late one does. A player evaluates the early layer once per state
//! (legal moves, goals, terminal) and the late one once per joint move (the next state), so
//! that a state's views are not computed again for its move.

use super::ReasonError;
use crate::graph::Lists;
use crate::ground::{AtomId, GroundProgram};
use std::ops::Range;

/// The counter of a rule that can no longer fire in this evaluation.
const DEAD: u32 = u32::MAX;

/// Which components an evaluation covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// The components that do not depend on the late inputs.
    Early,
    /// The components that do.
    Late,
}

/// A ground program compiled for evaluation (see the module doc).
#[derive(Clone, Debug)]
pub struct Network {
    /// Rules in evaluation order: head, and body as a range of `literals`.
    rules: Vec<(AtomId, Range<u32>)>,
    /// `(negated, atom)`.
    literals: Vec<(bool, AtomId)>,
    /// Groups of consecutive rules whose heads share a component; `true` if it is cyclic.
    groups: Vec<(Range<u32>, bool)>,
    /// `groups[..early]` is the early layer.
    early: usize,
    /// The component of each atom.
    component: Vec<u32>,
    /// For each atom, the rules of its own cyclic component that have it as a positive body
    /// literal (one entry per occurrence): `watchers[watch_start[a]..watch_start[a + 1]]`.
    watch_start: Vec<u32>,
    watchers: Vec<u32>,
    /// Scratch: the counter of each rule, rules ready to fire.
    waiting: Vec<u32>,
    ready: Vec<u32>,
}

impl Network {
    /// The network of `ground`, whose atoms marked in `late` are the late inputs.
    pub fn new(ground: &GroundProgram, late: &[bool]) -> Result<Network, ReasonError> {
        let n = ground.atoms.len();
        let component = atom_components(n, ground);
        let mut order: Vec<usize> = (0..ground.rules.len()).collect();
        order.sort_by_key(|&r| component[ground.rules.get(r).head as usize]);
        let groups = groups_of(&order, |r| component[ground.rules.get(r).head as usize]);
        let mut late_atom = late.to_vec();
        let mut layered: Vec<(bool, Range<usize>)> = Vec::with_capacity(groups.len());
        for range in groups {
            let rules = || order[range.clone()].iter().map(|&r| ground.rules.get(r));
            let is_late = rules().any(|rule| rule.body.iter().any(|&(_, a)| late_atom[a as usize]));
            if is_late {
                rules().for_each(|rule| late_atom[rule.head as usize] = true);
            }
            layered.push((is_late, range));
        }
        // A stable partition keeps the dependency order: an early group uses no late one.
        layered.sort_by_key(|(is_late, _)| *is_late);
        let early = layered.iter().filter(|(is_late, _)| !is_late).count();
        let mut network = Network {
            rules: Vec::with_capacity(order.len()),
            literals: Vec::new(),
            groups: Vec::with_capacity(layered.len()),
            early,
            component,
            watch_start: Vec::new(),
            watchers: Vec::new(),
            waiting: vec![0; order.len()],
            ready: Vec::new(),
        };
        for (_, range) in layered {
            network.add_group(order[range].iter().map(|&r| ground.rules.get(r)))?;
        }
        (network.watch_start, network.watchers) = network.watch_lists(n);
        Ok(network)
    }

    /// Appends the rules of one component, checking that none reads the component negatively.
    fn add_group<'a>(
        &mut self,
        rules: impl Iterator<Item = crate::ground::Rule<'a>>,
    ) -> Result<(), ReasonError> {
        let first = self.rules.len() as u32;
        let mut cyclic = false;
        for rule in rules {
            let c = self.component[rule.head as usize];
            let start = self.literals.len() as u32;
            self.literals.extend_from_slice(rule.body);
            self.rules
                .push((rule.head, start..self.literals.len() as u32));
            let inside = |a: AtomId| self.component[a as usize] == c;
            if let Some(&(_, a)) = rule.body.iter().find(|l| l.0 && inside(l.1)) {
                return Err(ReasonError::Unstratified(format!(
                    "ground atom #{a} depends on itself through negation"
                )));
            }
            cyclic |= rule.body.iter().any(|&(_, a)| inside(a));
        }
        self.groups.push((first..self.rules.len() as u32, cyclic));
        Ok(())
    }

    /// The groups of `layer`.
    fn layer(&self, layer: Layer) -> Range<usize> {
        match layer {
            Layer::Early => 0..self.early,
            Layer::Late => self.early..self.groups.len(),
        }
    }

    /// The rules of `layer`: the early groups' rules come first.
    fn rules_of(&self, layer: Layer) -> Range<usize> {
        let split = (self.groups.get(self.early)).map_or(self.rules.len(), |g| g.0.start as usize);
        match layer {
            Layer::Early => 0..split,
            Layer::Late => split..self.rules.len(),
        }
    }

    /// Sets every atom `layer` derives to false, before an evaluation.
    pub fn clear(&self, values: &mut [bool], layer: Layer) {
        for &(head, _) in &self.rules[self.rules_of(layer)] {
            values[head as usize] = false;
        }
    }

    /// Computes the atoms of `layer` from `values`, where the inputs and the atoms of the
    /// layers it depends on are already set and its own atoms are false ([`Network::clear`]).
    pub fn evaluate(&mut self, values: &mut [bool], layer: Layer) {
        for g in self.layer(layer) {
            let (range, cyclic) = self.groups[g].clone();
            if cyclic {
                self.close_cycle(values, range);
                continue;
            }
            for (head, body) in &self.rules[range.start as usize..range.end as usize] {
                if values[*head as usize] {
                    continue;
                }
                let literals = &self.literals[body.start as usize..body.end as usize];
                if literals.iter().all(|&(neg, a)| values[a as usize] != neg) {
                    values[*head as usize] = true;
                }
            }
        }
    }

    /// Evaluates the rules `range` of one cyclic component by counting, as the module says.
    fn close_cycle(&mut self, values: &mut [bool], range: Range<u32>) {
        self.ready.clear();
        let c = self.component[self.rules[range.start as usize].0 as usize];
        for r in range {
            let body = &self.rules[r as usize].1;
            let mut waiting = 0;
            let mut alive = true;
            for &(neg, a) in &self.literals[body.start as usize..body.end as usize] {
                if self.component[a as usize] == c && !neg {
                    waiting += 1;
                } else if values[a as usize] == neg {
                    alive = false;
                    break;
                }
            }
            self.waiting[r as usize] = if alive { waiting } else { DEAD };
            if alive && waiting == 0 {
                self.ready.push(r);
            }
        }
        while let Some(r) = self.ready.pop() {
            let head = self.rules[r as usize].0 as usize;
            if values[head] {
                continue;
            }
            values[head] = true;
            let watchers = self.watch_start[head] as usize..self.watch_start[head + 1] as usize;
            for w in watchers {
                let rule = self.watchers[w] as usize;
                if self.waiting[rule] != DEAD {
                    self.waiting[rule] -= 1;
                    if self.waiting[rule] == 0 {
                        self.ready.push(rule as u32);
                    }
                }
            }
        }
    }

    /// For each of `n` atoms, the rules of its own cyclic component that read it positively.
    fn watch_lists(&self, n: usize) -> (Vec<u32>, Vec<u32>) {
        let mut pairs: Vec<(AtomId, u32)> = Vec::new();
        for (range, _) in self.groups.iter().filter(|g| g.1) {
            for r in range.clone() {
                let (head, body) = &self.rules[r as usize];
                let c = self.component[*head as usize];
                for &(neg, a) in &self.literals[body.start as usize..body.end as usize] {
                    if !neg && self.component[a as usize] == c {
                        pairs.push((a, r));
                    }
                }
            }
        }
        pairs.sort_unstable();
        let lists = Lists::new(n, || pairs.iter().map(|&(a, r)| (a as usize, r)));
        let starts = lists.starts.iter().map(|&s| s as u32).collect();
        (starts, lists.items)
    }
}

/// The runs of consecutive positions of `order` with the same key.
fn groups_of(order: &[usize], key: impl Fn(usize) -> u32) -> Vec<Range<usize>> {
    let mut groups: Vec<Range<usize>> = Vec::new();
    for (i, &r) in order.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if key(order[g.start]) == key(r) => g.end = i + 1,
            _ => groups.push(i..i + 1),
        }
    }
    groups
}

/// The strongly connected component of each atom in the graph head → body atom, numbered in
/// dependency order (a component's number is larger than those of the components it uses).
fn atom_components(n: usize, ground: &GroundProgram) -> Vec<u32> {
    let uses = Lists::new(n, || {
        (ground.rules.iter())
            .flat_map(|rule| (rule.body.iter()).map(move |&(_, a)| (rule.head as usize, a)))
    });
    crate::graph::components(n, |v, i| uses.get(v).get(i).map(|&a| a as usize))
}
