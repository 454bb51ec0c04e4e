//! The relations above the dataflow: those on no cycle of the rules, read only by rules of
//! relations above too, or by none (`goal`, `terminal`, and what only they read). Their
//! rules are not in the live dataflow: they are evaluated on the session's thread, against
//! the atoms the dataflow derives. An edit of them (a goal rule changed) then costs their
//! relation's rules evaluated once, not an epoch of every operator of the dataflow, whatever
//! the records (stop 51: 8 to 11 worker steps, most of a connect four edit).
//!
//! A relation above is evaluated again when its rules changed or when atoms of a relation
//! it reads came or went: its rules that are new or read what changed are evaluated, the
//! others' bindings are the last version's; its rules' bindings and its atoms are compared
//! with the last ones (the game's), and what came and went joins the dataflow's delta. The
//! indexes its joins read are kept for the next version, except those of relations whose
//! atoms changed.

use super::dataflow::advance;
use super::grouped::Grouped;
use super::statics::ByRelation;
use super::{Delta, LiveRule, Op, RuleId, ShapeId};
use crate::engine::dataflow::Guard;
use crate::engine::pattern::{Ranges, Row};
use crate::engine::plan::{heads_and_reads, RulePlan, Step};
use crate::engine::shape::Shape;
use crate::engine::Limits;
use crate::hash::{FastMap, FastSet};
use crate::program::RelId;
use std::sync::Arc;

/// The relations above the dataflow among the heads of `plans` (in the space), each after
/// the relations it reads.
fn relations<'a>(plans: impl Iterator<Item = &'a RulePlan>) -> Vec<RelId> {
    let mut edges: Vec<Vec<RelId>> = Vec::new();
    let mut heads: Vec<RelId> = Vec::new();
    let grow = |edges: &mut Vec<Vec<RelId>>, rel: RelId| {
        if edges.len() <= rel as usize {
            edges.resize(rel as usize + 1, Vec::new());
        }
    };
    for plan in plans {
        grow(&mut edges, plan.head_rel);
        heads.push(plan.head_rel);
        for rel in plan.reads() {
            grow(&mut edges, rel);
            edges[plan.head_rel as usize].push(rel);
        }
    }
    let mut above = vec![false; edges.len()];
    heads.iter().for_each(|&h| above[h as usize] = true);
    // In dependency order: each component after those it reads.
    let components = crate::analysis::components(&edges);
    for component in &components {
        let looped = component.len() > 1 || edges[component[0] as usize].contains(&component[0]);
        if looped {
            component.iter().for_each(|&r| above[r as usize] = false);
        }
    }
    // What a relation below reads is below: readers first, so that it spreads down.
    for &r in components.iter().rev().flatten() {
        if !above[r as usize] {
            edges[r as usize]
                .iter()
                .for_each(|&read| above[read as usize] = false);
        }
    }
    (components.into_iter().flatten())
        .filter(|&r| above[r as usize])
        .collect()
}

/// The last version's relations above the dataflow, kept with the heads and reads of the
/// plans they were found for: a version whose plans have the same ([`heads_and_reads`], as
/// after most edits of one rule) has the same, without finding them again (a twentieth of
/// a connect four goal edit).
#[derive(Default)]
pub struct Order {
    graph: Vec<u32>,
    relations: Vec<RelId>,
    /// Room for the next version's heads and reads.
    room: Vec<u32>,
}

impl Order {
    /// [`relations`] of `plans`.
    pub fn of<'a>(&mut self, plans: impl Iterator<Item = &'a RulePlan> + Clone) -> Vec<RelId> {
        self.room.clear();
        heads_and_reads(plans.clone(), &mut self.room);
        if self.room != self.graph {
            self.relations = relations(plans);
            std::mem::swap(&mut self.room, &mut self.graph);
        }
        self.relations.clone()
    }
}

/// The rules of the relations above and what they derived.
#[derive(Default)]
pub struct Above {
    /// The relations, each after those it reads.
    order: Vec<RelId>,
    /// The enabled rules.
    rules: FastMap<RuleId, Arc<LiveRule>>,
    /// Each shape's index of its relation's atoms ([`Context::index`]), kept from version to
    /// version while the relation's atoms stay the same: a relation evaluated again reads
    /// mostly relations that did not change. Chess_200's step counter edited (its check
    /// relation evaluated again for the state's change, the attack relations indexed afresh)
    /// took 15.3 ms, now 12.2; connect four's goal edits 0.24 → 0.18 ms.
    indexes: Indexes,
}

/// Indexes of atoms by shape: key values → the new variables' values.
type Indexes = FastMap<ShapeId, FastMap<Row, Vec<Row>>>;

/// Net changes being summed: atoms and bindings with +1 (came) or −1 (went).
#[derive(Default)]
struct Net {
    atoms: FastMap<(RelId, Row), isize>,
    bindings: FastMap<(RuleId, Row), isize>,
}

impl Net {
    /// Counts `atom` as came (`d` > 0) or went, and puts it in or takes it out of `atoms`.
    fn atom(&mut self, atoms: &mut Grouped, atom: (RelId, Row), d: isize) {
        atoms.put(atom.0, atom.1.clone(), d);
        *self.atoms.entry(atom).or_default() += d;
    }

    /// The changes that do not cancel out.
    fn into_delta(self) -> Delta {
        let nonzero = |(k, d): (_, isize)| (d != 0).then_some((k, d));
        Delta {
            atoms: (self.atoms.into_iter().filter_map(nonzero))
                .map(|((rel, row), d)| (rel, row, d))
                .collect(),
            bindings: (self.bindings.into_iter().filter_map(nonzero))
                .map(|((id, row), d)| (id, row, d))
                .collect(),
        }
    }
}

/// What an update has found so far: the relations whose atoms came or went, the relations
/// above whose rules changed, the rules above that the last version had too, and whether
/// every binding of the last version's rules above was retracted (a restart).
struct Pass {
    changed: FastSet<RelId>,
    dirty: FastSet<RelId>,
    kept: FastSet<RuleId>,
    restarted: bool,
}

/// What [`Above::update`] reads: the atoms, the bindings, the given atoms (which negation
/// reads), the shapes and the functor tokens' arities, all in the space.
pub struct World<'a> {
    /// Every atom of the last version, by relation.
    pub atoms: &'a mut Grouped,
    /// Every binding of the last version, by rule.
    pub bindings: &'a Grouped,
    /// The given atoms.
    pub given: &'a ByRelation,
    /// Every shape, by id.
    pub shapes: &'a [Arc<Shape>],
    /// Arities of functor tokens.
    pub arities: &'a [u32],
}

impl Above {
    /// Moves to a version whose relations above are `order` and their rules `rules`, after
    /// the dataflow's change `below`: applies both to `world.atoms` (the last version's)
    /// and returns the whole net delta, the dataflow's with this one's. Stops with the
    /// limits' reason when they stop.
    pub fn update(
        &mut self,
        order: Vec<RelId>,
        rules: Vec<(RuleId, Arc<LiveRule>)>,
        mut world: World<'_>,
        below: Delta,
        limits: &Arc<Limits>,
    ) -> Result<Delta, crate::engine::EngineError> {
        let mut net = Net::default();
        let mut pass = Pass {
            changed: below.atoms.iter().map(|(rel, ..)| *rel).collect(),
            dirty: FastSet::default(),
            kept: FastSet::default(),
            restarted: false,
        };
        // The atoms of relations that move there from here go first, then come back as
        // the dataflow says; those of relations moving here go as it says, then come back
        // as evaluated here. Only those can meet changes made here: the dataflow's other
        // changes pass as they are, and its bindings are of its own rules.
        let mut meet: FastSet<RelId> = self.order.iter().copied().collect();
        if !same_set(&order, &self.order) {
            self.restart(&mut world, &mut net, &mut pass);
            pass.dirty.extend(order.iter().copied());
            meet.extend(order.iter().copied());
        }
        let mut passed = Vec::with_capacity(below.atoms.len());
        for (rel, row, d) in below.atoms {
            match meet.contains(&rel) {
                true => net.atom(world.atoms, (rel, row), d),
                false => {
                    world.atoms.put(rel, row.clone(), d);
                    passed.push((rel, row, d));
                }
            }
        }
        self.replace_rules(rules, world.bindings, &mut net, &mut pass);
        self.order = order;
        self.evaluate(world, pass, &mut net, limits)?;
        let mut delta = net.into_delta();
        delta.atoms.extend(passed);
        delta.bindings.extend(below.bindings);
        Ok(delta)
    }

    /// Retracts every atom and binding of the relations above (into `net`), to evaluate
    /// them afresh.
    fn restart(&mut self, world: &mut World<'_>, net: &mut Net, pass: &mut Pass) {
        let rows = |rel| world.atoms.of(rel).into_iter().flatten();
        let went: Vec<_> = (self.order.iter())
            .flat_map(|&rel| rows(rel).map(move |row| (rel, row.clone())))
            .collect();
        for atom in went {
            pass.changed.insert(atom.0);
            net.atom(world.atoms, atom, -1);
        }
        for id in self.rules.keys() {
            retract(*id, world.bindings, net);
        }
        pass.restarted = true;
        self.rules.clear();
    }

    /// Enables `rules` in place of the current ones: a disabled rule's bindings go (into
    /// `net`), and the relations whose rules changed are to be evaluated.
    fn replace_rules(
        &mut self,
        rules: Vec<(RuleId, Arc<LiveRule>)>,
        bindings: &Grouped,
        net: &mut Net,
        pass: &mut Pass,
    ) {
        let rules: FastMap<RuleId, Arc<LiveRule>> = rules.into_iter().collect();
        for (id, rule) in &self.rules {
            if !rules.contains_key(id) {
                pass.dirty.insert(rule.head_rel);
                retract(*id, bindings, net);
            }
        }
        for (id, rule) in &rules {
            match self.rules.contains_key(id) {
                true => _ = pass.kept.insert(*id),
                false => _ = pass.dirty.insert(rule.head_rel),
            }
        }
        self.rules = rules;
    }

    /// Evaluates, in order, each relation above whose rules changed or that reads a
    /// relation whose atoms changed, putting what came and went into `world.atoms` and `net`.
    fn evaluate(
        &mut self,
        world: World<'_>,
        mut pass: Pass,
        net: &mut Net,
        limits: &Arc<Limits>,
    ) -> Result<(), crate::engine::EngineError> {
        let mut by_head: FastMap<RelId, Vec<(RuleId, Arc<LiveRule>)>> = FastMap::default();
        for (id, rule) in &self.rules {
            let rules = by_head.entry(rule.head_rel).or_default();
            rules.push((*id, rule.clone()));
        }
        // Taken out while this runs, and put back only when it completes: an evaluation
        // stopped halfway leaves no index of atoms that changed since.
        let mut indexes = std::mem::take(&mut self.indexes);
        let shape_rel = |shape: &ShapeId| world.shapes[*shape as usize].rel;
        indexes.retain(|shape, _| !pass.changed.contains(&shape_rel(shape)));
        let mut guard = Guard::new(limits);
        for &rel in &self.order {
            let rules = by_head.remove(&rel).unwrap_or_default();
            let reads_changed = (rules.iter().flat_map(|(_, rule)| reads(rule, world.shapes)))
                .any(|read| pass.changed.contains(&read));
            if !pass.dirty.contains(&rel) && !reads_changed {
                continue;
            }
            let mut heads: FastSet<Row> = FastSet::default();
            for (id, rule) in &rules {
                // A rule of the last version that reads no relation whose atoms changed has
                // the bindings it had, which the game keeps when it reports them: its head
                // atoms are made from those, without evaluating it. Chess_200's check
                // relation is evaluated again for the state, which few of its 12 rules read:
                // its step-counter edits 14.2 → 10.1 ms (`pass.kept` guards against bindings
                // of a rule that was not above in the last version; a restart clears them
                // anyway).
                let same = !pass.restarted
                    && rule.instances
                    && pass.kept.contains(id)
                    && !reads(rule, world.shapes).any(|read| pass.changed.contains(&read));
                let last = world.bindings.of(*id).filter(|_| same);
                let reused = last.is_some();
                let evaluated;
                let found = match last {
                    Some(last) => last,
                    None => {
                        let context = Context {
                            rule,
                            world: &world,
                            limits,
                        };
                        evaluated = context.bindings(&mut indexes, &mut guard);
                        if limits.stopped() {
                            return Err(limits.failure("the rules above the dataflow stopped"));
                        }
                        &evaluated
                    }
                };
                let mut ranges = Ranges::new(0);
                for row in found {
                    ranges.room(rule.vars);
                    ranges.read_binding(rule.binding(), row, world.arities);
                    heads.insert(ranges.instantiated(&rule.head, row));
                }
                if rule.instances && !reused {
                    // After a restart, the last bindings are retracted already.
                    let last = world.bindings.of(*id).filter(|_| !pass.restarted);
                    diff(
                        *id,
                        last.unwrap_or(&FastSet::default()),
                        found,
                        &mut net.bindings,
                    );
                }
            }
            let none = FastSet::default();
            let before = world.atoms.of(rel).unwrap_or(&none);
            if *before != heads {
                pass.changed.insert(rel);
                indexes.retain(|shape, _| shape_rel(shape) != rel);
                let went: Vec<Row> = before.difference(&heads).cloned().collect();
                for row in went {
                    net.atom(world.atoms, (rel, row), -1);
                }
                for row in heads {
                    if !world.atoms.of(rel).is_some_and(|rows| rows.contains(&row)) {
                        net.atom(world.atoms, (rel, row), 1);
                    }
                }
            }
        }
        self.indexes = indexes;
        Ok(())
    }
}

/// Whether `a` and `b` hold the same relations (in whatever order).
fn same_set(a: &[RelId], b: &[RelId]) -> bool {
    let sorted = |x: &[RelId]| {
        let mut x = x.to_vec();
        x.sort_unstable();
        x
    };
    sorted(a) == sorted(b)
}

/// The relations `rule` joins with or negates.
fn reads<'a>(rule: &'a LiveRule, shapes: &'a [Arc<Shape>]) -> impl Iterator<Item = RelId> + 'a {
    rule.ops.iter().filter_map(|op| match op {
        Op::Join { shape, .. } => Some(shapes[*shape as usize].rel),
        Op::Check(Step::Antijoin { rel, .. }) => Some(*rel),
        _ => None,
    })
}

/// Adds every binding of rule `id` in `bindings` to `net` as gone.
fn retract(id: RuleId, bindings: &Grouped, net: &mut Net) {
    for row in bindings.of(id).into_iter().flatten() {
        *net.bindings.entry((id, row.clone())).or_default() -= 1;
    }
}

/// Adds rule `id`'s bindings that went (in `before`, not in `after`) and came to `net`.
fn diff(
    id: RuleId,
    before: &FastSet<Row>,
    after: &FastSet<Row>,
    net: &mut FastMap<(RuleId, Row), isize>,
) {
    for row in before.difference(after) {
        *net.entry((id, row.clone())).or_default() -= 1;
    }
    for row in after.difference(before) {
        *net.entry((id, row.clone())).or_default() += 1;
    }
}

/// One rule evaluated against the current atoms.
struct Context<'a, 'w> {
    rule: &'a LiveRule,
    /// The current atoms: those of the relations it reads are final (the relations above
    /// are evaluated in order).
    world: &'a World<'w>,
    limits: &'a Limits,
}

impl Context<'_, '_> {
    /// The rule's complete bindings, as the dataflow would give them (the same rows): each
    /// partial binding advanced through the rule's ops, depth first. `indexes` keeps each
    /// shape's index of the atoms, built when first needed.
    fn bindings(&self, indexes: &mut Indexes, guard: &mut Guard) -> FastSet<Row> {
        let (rule, arities) = (self.rule, self.world.arities);
        let mut ranges = Ranges::new(0);
        let mut found = FastSet::default();
        let mut stack: Vec<(u32, Row)> = advance(rule, arities, &mut ranges, 0, Row::new())
            .into_iter()
            .collect();
        let mut popped = 0u32;
        while let Some((step, row)) = stack.pop() {
            popped = popped.wrapping_add(1);
            if popped.is_multiple_of(1 << 12) {
                self.limits.check_deadline();
            }
            if guard.stop() {
                break;
            }
            let s = step as usize;
            let Some(op) = rule.ops.get(s) else {
                found.insert(row);
                continue;
            };
            ranges.room(rule.vars);
            ranges.read_binding(&rule.bound[s], &row, arities);
            match op {
                Op::Join { shape, key } => {
                    let mut values = Row::new();
                    key.iter()
                        .for_each(|&v| ranges.push_value(v, &row, &mut values));
                    let index = indexes.entry(*shape).or_insert_with(|| self.index(*shape));
                    for new in index.get(&values).into_iter().flatten() {
                        let mut out = row.clone();
                        out.extend_from_slice(new);
                        stack.extend(advance(rule, arities, &mut ranges, s + 1, out));
                    }
                }
                Op::Check(Step::Antijoin { rel, pattern }) => {
                    let atom = ranges.instantiated(pattern, &row);
                    let given = self.world.given.get(rel);
                    if !given.is_some_and(|rows| rows.contains(&atom)) {
                        stack.extend(advance(rule, arities, &mut ranges, s + 1, row));
                    }
                }
                // `advance` passes filters and computations.
                Op::Check(_) | Op::Compute { .. } => {}
            }
        }
        found
    }

    /// The index of `shape`'s relation's atoms: key values → the new variables' values.
    fn index(&self, shape: ShapeId) -> FastMap<Row, Vec<Row>> {
        let s = &self.world.shapes[shape as usize];
        let mut ranges = Ranges::new(0);
        let mut index: FastMap<Row, Vec<Row>> = FastMap::default();
        for row in self.world.atoms.of(s.rel).into_iter().flatten() {
            ranges.room(s.pattern.len());
            if let Some((key, new)) = s.entry(row, &mut ranges, self.world.arities) {
                index.entry(key).or_default().push(new);
            }
        }
        index
    }
}
