//! A game held live: its current version's rules enabled in a [`Live`] dataflow, its atoms
//! and instances kept current as versions change.

use super::above::{self, Above, World};
use super::copies::Copies;
use super::grouped::Grouped;
use super::rules::{candidates, plan, Candidate, Made, Planned, RuleKey};
use super::space::{Mapping, Space};
use super::statics::{kept_rows, replace_unkept, take_kept, unreached, ByRelation};
use super::{Change, Delta, Live, LiveRule, RuleId, ShapeId};
use crate::engine::pattern::{Ranges, Row};
use crate::engine::plan::{Kinds, Memo};
use crate::engine::run::{statics, Given};
use crate::engine::shape::Shape;
use crate::engine::stats::Stats;
use crate::engine::templates::Forms;
use crate::engine::{EngineError, Instances, Instantiation, Limits, Options, Tables};
use crate::hash::{FastMap, FastSet};
use crate::program::encoding::Encoding;
use crate::program::{Demand, Program, RelId};
use std::collections::HashMap;
use std::sync::Arc;

/// What moving to a version changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Edit {
    /// Rules of P+ enabled (new or changed).
    pub rules_added: usize,
    /// Rules of P+ disabled (gone or changed).
    pub rules_removed: usize,
    /// Atoms of S* that came.
    pub atoms_added: usize,
    /// Atoms of S* that went.
    pub atoms_removed: usize,
    /// Rule instances that came.
    pub instances_added: usize,
    /// Rule instances that went.
    pub instances_removed: usize,
    /// How long planning and updating the dataflow took.
    pub elapsed: std::time::Duration,
    /// Whether the live dataflow ran (`false`: only rules above it changed, or none, and
    /// the atoms it gives them did not: see [`super::above`]).
    pub dataflow_ran: bool,
    /// How many exact relations kept their rows from the previous version when static rules
    /// changed (the edit reached neither their rules nor what they read: see [`super::statics`]).
    pub statics_kept: usize,
    /// How many rules were planned afresh, their plans not remembered from earlier versions
    /// (a rule new or changed, or one reading a relation whose facts changed).
    pub rules_planned: usize,
    /// Whether the version's instantiation is the previous version's, ids included (no atom
    /// nor instance changed, the same numbering, the same exact relations): its ground game
    /// is the previous one, byte for byte.
    pub unchanged: bool,
}

/// An enabled rule: its id, definition, and the current version's rule it instantiates.
#[derive(Clone)]
struct Enabled {
    id: RuleId,
    rule: Arc<LiveRule>,
    source: Option<usize>,
}

/// What the last update changed, each side in its own version's ids: what a ground game
/// is patched with.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    /// Atoms of S* that came (current ids).
    pub atoms_added: Vec<(RelId, Row)>,
    /// Atoms of S* that went (previous ids).
    pub atoms_removed: Vec<(RelId, Row)>,
    /// Instances that came (current ids).
    pub instances_added: Instances,
    /// Instances that went (previous ids).
    pub instances_removed: Instances,
}

/// The version before the last update: what reads the bindings that update removed.
struct Previous {
    mapping: Mapping,
    sources: FastMap<RuleId, (usize, Arc<LiveRule>)>,
    forms: Forms,
    /// The exact relations, in space ids.
    exact: Vec<RelId>,
    /// Its demand relations.
    demand: Demand,
}

/// A game held in a live dataflow.
pub struct LiveGame {
    live: Live,
    /// What the later versions' static runs run with (without the deadline, which held for
    /// the first).
    options: Options,
    /// The statistics the last update planned with, and the rule plans made with them.
    stats: Option<(Stats, Memo)>,
    /// What the last versions made of those plans in the space.
    made: Made,
    space: Space,
    mapping: Mapping,
    /// The id of every shape.
    shapes: HashMap<Arc<Shape>, ShapeId>,
    /// Every shape, by id.
    shape_list: Vec<Arc<Shape>>,
    /// The shapes the dataflow has not been sent yet (first used by rules above it).
    unsent: Vec<(ShapeId, Arc<Shape>)>,
    /// Enabled rules by whether they are above the dataflow, the relations that copy their
    /// atoms ([`Copies`]), and key (a key may be held by several equal rules).
    enabled: FastMap<(bool, Vec<RelId>, RuleKey), Vec<Enabled>>,
    /// The rules above the dataflow and what they derived.
    above: Above,
    /// Which relations are above it.
    order: above::Order,
    next_rule: RuleId,
    /// The keys of the rules that give the exact relations and the certain atoms, sorted.
    static_rules: Vec<RuleKey>,
    /// The atoms they give (space ids): the dataflow's given atoms.
    static_atoms: ByRelation,
    /// The rows they give (and the facts), sorted, in the ids of the current version if they
    /// were computed for a version with those ids: the next version's unreached relations
    /// are taken from them as they are (see [`take_kept`]).
    static_rows: Option<Tables>,
    /// Every atom (space ids), by relation.
    atoms: Grouped,
    /// Every binding of the rules with instances, by rule.
    bindings: Grouped,
    /// Which relations of the current version are computed exactly.
    exact: Vec<bool>,
    /// Which relations of the current version the state or the moves give.
    given: Vec<bool>,
    /// The current version's demand relations, whose atoms are calls, not atoms of the game.
    demand: Demand,
    /// The current version's instance forms.
    forms: Forms,
    /// The version before the last update.
    previous: Option<Previous>,
    /// The last update's net changes, in space ids.
    delta: Delta,
}

impl LiveGame {
    /// Starts a live dataflow holding `program` (classic, or operations lowered to rules).
    pub fn start(
        program: &Program,
        encoding: &Encoding,
        options: &Options,
    ) -> Result<LiveGame, EngineError> {
        let start = std::time::Instant::now();
        let limits = Limits::new(options);
        // The first version is planned like a full grounding: with the exact relations'
        // sizes known (and the certain atoms, which the dataflow is given).
        let stats = statics(program, encoding, options, &limits, Given::default())?;
        let kinds = Kinds::new(program);
        let planned = plan(program, encoding, (&stats, None), &kinds);
        let exact = kinds.exact;
        let mut game = LiveGame {
            live: Live::start(options)?,
            options: Options {
                deadline: None,
                ..options.clone()
            },
            stats: None,
            made: Made::default(),
            space: Space::default(),
            mapping: Mapping::default(),
            shapes: HashMap::new(),
            shape_list: Vec::new(),
            unsent: Vec::new(),
            enabled: FastMap::default(),
            above: Above::default(),
            order: above::Order::default(),
            next_rule: 0,
            static_rules: Vec::new(),
            static_atoms: ByRelation::default(),
            static_rows: None,
            atoms: Grouped::default(),
            bindings: Grouped::default(),
            exact: Vec::new(),
            given: Vec::new(),
            demand: Demand::default(),
            forms: Forms::default(),
            previous: None,
            delta: Delta::default(),
        };
        let rows = Some(stats.into_rows());
        game.move_to(program, encoding, (exact, planned), rows, &limits, start)?;
        Ok(game)
    }

    /// Moves to a new version of the game: rules it no longer has are disabled, new ones
    /// enabled, the rest kept running; the exact relations and certain atoms are computed
    /// anew if their rules changed, and what changed in them is given to the dataflow.
    pub fn update(&mut self, program: &Program, encoding: &Encoding) -> Result<Edit, EngineError> {
        let start = std::time::Instant::now();
        let (facts, arities) = (
            crate::engine::run::facts(program, encoding),
            encoding.arities(),
        );
        // The same facts give the same statistics: the rules they planned plan alike. Other
        // facts in the same tokens: the rules that read none of the relations whose facts
        // changed plan alike.
        let kept = match self.stats.take() {
            Some((stats, memo)) if stats.over(&facts, &arities) => Ok((stats, memo)),
            Some((stats, memo)) => match stats.changed(&facts, &arities) {
                Some(changed) => {
                    memo.forget_reading(&changed);
                    Err(memo)
                }
                None => Err(Memo::default()),
            },
            None => Err(Memo::default()),
        };
        let (stats, memo) = match kept {
            Ok(kept) => kept,
            Err(memo) => (
                Stats::new(facts, Arc::new(arities)).remembering_orders(),
                memo,
            ),
        };
        let kinds = Kinds::new(program);
        let planned = plan(program, encoding, (&stats, Some(&memo)), &kinds);
        let rules_planned = memo.made();
        let exact = kinds.exact;
        self.stats = Some((stats, memo));
        let limits = Limits::new(&self.options);
        let edit = self.move_to(program, encoding, (exact, planned), None, &limits, start)?;
        Ok(Edit {
            rules_planned,
            ..edit
        })
    }

    /// Moves the dataflow to the version of `program` whose relations computed exactly are
    /// `exact`, as `planned`; `rows` has the rows of those relations and of the certain
    /// atoms (program ids) if they are known already. The rules of the relations above the
    /// dataflow ([`above`]) are evaluated here; the dataflow runs an epoch only when its own
    /// rules or given atoms changed.
    fn move_to(
        &mut self,
        program: &Program,
        encoding: &Encoding,
        (exact, planned): (Vec<bool>, Planned),
        rows: Option<Tables>,
        limits: &Arc<Limits>,
        start: std::time::Instant,
    ) -> Result<Edit, EngineError> {
        let mapping = self.space.map(program, encoding);
        // The version being left, as its removed bindings will be read.
        let (sources, exact_before) = (self.sources(), in_space(&self.mapping, &self.exact));
        // The new version's map, with room for as many rules as the last one's.
        let room = FastMap::with_capacity_and_hasher(self.enabled.len(), Default::default());
        let mut old = std::mem::replace(&mut self.enabled, room);
        let mut change = Change::default();
        let same_ids = mapping == self.mapping;
        self.made.begin(same_ids);
        let made = &mut self.made;
        let (static_rules, rules, mut forms) =
            candidates(planned, (program, encoding), &mapping, &exact, made);
        let (mut static_changes, mut statics_kept) = ((0, 0), 0);
        let exact_now = in_space(&mapping, &exact);
        if static_rules != self.static_rules {
            static_changes = changed(&self.static_rules, &static_rules);
            let last_rows = self.static_rows.take().filter(|_| same_ids);
            let mut kept = FastSet::default();
            let rows = match rows {
                Some(rows) => rows,
                None => {
                    // The exact relations the edit did not reach keep their rows, if they are
                    // the same relations as before.
                    let heads =
                        differing(&self.static_rules, &static_rules).map(|(k, _)| k.head_rel());
                    let known = (exact_now == exact_before)
                        .then(|| {
                            let unreached = unreached(program, &mapping, &exact, heads);
                            match last_rows {
                                Some(last) => Some(take_kept(&unreached, last)),
                                None => kept_rows(&unreached, &mapping, &self.static_atoms),
                            }
                        })
                        .flatten()
                        .unwrap_or_default();
                    kept = known.keys().copied().collect();
                    let options = &self.options;
                    let given = Given {
                        known,
                        ..Given::default()
                    };
                    statics(program, encoding, options, limits, given)?.into_rows()
                }
            };
            // The kept relations' atoms are the last version's: only the others are compared.
            statics_kept = kept.len();
            let fresh = static_atoms(&rows, &kept, &exact, &mapping);
            let kept = kept.into_iter().map(|r| mapping.relation(r)).collect();
            change.given = replace_unkept(&mut self.static_atoms, fresh, &kept);
            self.static_rows = Some(rows);
            self.static_rules = static_rules;
        } else if !same_ids {
            // Kept only in the ids of the version that computed them.
            self.static_rows = None;
        }
        let order = self.order.of(rules.iter().map(|c| &*c.plan));
        let is_above: FastSet<RelId> = order.iter().copied().collect();
        let copies = Copies::new(&rules, &is_above, |r| exact_now.binary_search(&r).is_ok());
        let (mut above_rules, mut above_changes) = (Vec::new(), (0, 0));
        for (
            i,
            Candidate {
                key,
                plan,
                instances,
                form,
            },
        ) in rules.into_iter().enumerate()
        {
            if let Some(source) = instances {
                forms[source] = form;
            }
            if copies.folded(i) {
                continue;
            }
            let above = is_above.contains(&plan.head_rel);
            let also = match above {
                true => Vec::new(),
                false => copies.of(plan.head_rel).to_vec(),
            };
            let key = (above, also, key);
            let kept = old.get_mut(&key).and_then(|same| same.pop());
            let (id, rule) = match kept {
                Some(e) => (e.id, e.rule),
                None => {
                    let mut shape_id = |shape: Shape| self.shape_id(shape);
                    let also = key.1.clone();
                    let rule = LiveRule::new(&plan, instances.is_some(), also, &mut shape_id);
                    let rule = Arc::new(rule);
                    let id = self.next_rule;
                    self.next_rule += 1;
                    match key.0 {
                        true => above_changes.0 += 1,
                        false => change.added.push((id, rule.clone())),
                    }
                    (id, rule)
                }
            };
            if key.0 {
                above_rules.push((id, rule.clone()));
            }
            let enabled = Enabled {
                id,
                rule,
                source: instances,
            };
            self.enabled.entry(key).or_default().push(enabled);
        }
        for ((is_above, _, _), gone) in old {
            match is_above {
                true => above_changes.1 += gone.len(),
                false => change.removed.extend(gone.iter().map(|e| e.id)),
            }
        }
        let mut edit = Edit {
            rules_added: change.added.len() + above_changes.0 + static_changes.0,
            rules_removed: change.removed.len() + above_changes.1 + static_changes.1,
            statics_kept,
            ..Edit::default()
        };
        let idle = change.added.is_empty() && change.removed.is_empty() && change.given.is_empty();
        edit.dataflow_ran = !idle;
        let arities = self.space.arities();
        let below = match idle {
            true => Delta::default(),
            false => {
                change.shapes = std::mem::take(&mut self.unsent);
                change.arities = arities.clone();
                self.live.apply(change)?
            }
        };
        let world = World {
            atoms: &mut self.atoms,
            bindings: &self.bindings,
            given: &self.static_atoms,
            shapes: &self.shape_list,
            arities: &arities,
        };
        let delta = self
            .above
            .update(order, above_rules, world, below, limits)?;
        if self.atoms.len() > self.options.max_atoms {
            return Err(EngineError::TooManyAtoms);
        }
        (edit.atoms_added, edit.atoms_removed) = counts(&delta.atoms);
        (edit.instances_added, edit.instances_removed) = counts(&delta.bindings);
        self.bindings.update(&delta.bindings);
        edit.unchanged = edit.atoms_added + edit.atoms_removed == 0
            && edit.instances_added + edit.instances_removed == 0
            && mapping == self.mapping
            && exact == self.exact;
        let forms = Forms::with_known(program, encoding, &exact, |i| forms[i].take());
        let previous = Previous {
            mapping: std::mem::replace(&mut self.mapping, mapping),
            sources,
            forms: std::mem::replace(&mut self.forms, forms),
            exact: exact_before,
            demand: std::mem::replace(&mut self.demand, program.demand.clone()),
        };
        self.previous = Some(previous);
        self.exact = exact;
        self.given = program.given_relations();
        self.delta = delta;
        edit.elapsed = start.elapsed();
        Ok(edit)
    }

    /// The id of `shape`, numbered now if it is new (and kept to be sent to the dataflow).
    fn shape_id(&mut self, shape: Shape) -> ShapeId {
        if let Some(&id) = self.shapes.get(&shape) {
            return id;
        }
        let id = self.shape_list.len() as ShapeId;
        let shape = Arc::new(shape);
        self.shape_list.push(shape.clone());
        self.unsent.push((id, shape.clone()));
        self.shapes.insert(shape, id);
        id
    }

    /// The keys of the current version's `atoms` (see [`LiveGame::atom_key`]).
    pub fn atom_keys(&self, atoms: &[(RelId, Row)]) -> Vec<u64> {
        (atoms.iter())
            .map(|(rel, row)| self.atom_key(*rel, row))
            .collect()
    }

    /// The key of the current version's atom `rel(row)`: a hash of its relation and tokens
    /// in stable ids, the same in every version.
    pub fn atom_key(&self, rel: RelId, row: &[crate::program::encoding::Token]) -> u64 {
        self.mapping.atom_key(rel, row)
    }

    /// The current version's instantiation, in its ids: the same as a full grounding of it
    /// computes.
    pub fn instantiation(&self) -> Instantiation {
        let m = &self.mapping;
        let mut atoms: Vec<(RelId, Row)> = (self.atoms.iter())
            .filter_map(|(rel, row)| Some((m.relation_back(rel)?, m.row_back(row)?)))
            .filter(|(rel, _)| !self.demand.has(*rel))
            .collect();
        atoms.sort_unstable();
        let sources = self.sources();
        let instances = instances(self.bindings.iter(), &sources, m, &self.forms);
        Instantiation {
            atoms: Arc::new(atoms),
            is_static: self.exact.clone(),
            is_given: self.given.clone(),
            instances,
        }
    }

    /// The last update's changes, when the same relations are computed exactly before and
    /// after it; `None` otherwise, before any update, and after one that started a new
    /// dataflow.
    ///
    /// Besides the bindings that came and went, a binding the update kept counts as removed
    /// and added again when its instance negates an atom that came or went: a negation of an
    /// atom outside S* is dropped from an instance, so the instance changed.
    pub fn changes(&self) -> Option<Changes> {
        let previous = self.previous.as_ref()?;
        let (now, then) = (&self.mapping, &previous.mapping);
        if previous.exact != in_space(now, &self.exact) {
            return None;
        }
        let mut changes = Changes::default();
        let mut negated = FastSet::default();
        for (rel, row, diff) in &self.delta.atoms {
            let (mapping, forms, demand, atoms) = match diff > &0 {
                true => (now, &self.forms, &self.demand, &mut changes.atoms_added),
                false => (
                    then,
                    &previous.forms,
                    &previous.demand,
                    &mut changes.atoms_removed,
                ),
            };
            if mapping.is_certain(*rel) {
                continue;
            }
            let atom = (mapping.relation_back(*rel)?, mapping.row_back(row)?);
            if demand.has(atom.0) {
                continue;
            }
            if forms.negates(atom.0) {
                negated.insert(*rel);
            }
            atoms.push(atom);
        }
        let (mut added, mut removed): (Vec<_>, Vec<_>) = (Vec::new(), Vec::new());
        for (id, row, diff) in &self.delta.bindings {
            match *diff > 0 {
                true => added.push((*id, row)),
                false => removed.push((*id, row)),
            }
        }
        let sources = self.sources();
        let touched: FastSet<RuleId> = (sources.iter())
            .filter(|(_, (source, _))| {
                (self.forms.negated_in(*source)).any(|rel| negated.contains(&now.relation(rel)))
            })
            .map(|(id, _)| *id)
            .collect();
        if !touched.is_empty() {
            let fresh: FastSet<(RuleId, &Row)> = added.iter().copied().collect();
            let changed: FastSet<(RelId, Row)> = (self.delta.atoms.iter())
                .map(|(rel, row, _)| (*rel, row.clone()))
                .collect();
            for &id in &touched {
                for row in self.bindings.of(id).into_iter().flatten() {
                    let binding = (id, row);
                    if !fresh.contains(&binding) && self.negates_any(binding, &sources, &changed) {
                        added.push(binding);
                        removed.push(binding);
                    }
                }
            }
        }
        changes.instances_added = instances(added.into_iter(), &sources, now, &self.forms);
        changes.instances_removed = instances(
            removed.into_iter(),
            &previous.sources,
            then,
            &previous.forms,
        );
        Some(changes)
    }

    /// Whether the current version's instance of `binding` negates one of the atoms `changed`
    /// (space ids).
    fn negates_any(
        &self,
        binding: (RuleId, &Row),
        sources: &FastMap<RuleId, (usize, Arc<LiveRule>)>,
        changed: &FastSet<(RelId, Row)>,
    ) -> bool {
        let m = &self.mapping;
        let instance = instances(std::iter::once(binding), sources, m, &self.forms);
        let mut negated = instance.iter().flat_map(|i| i.body().filter(|l| l.0));
        negated.any(|(_, rel, args)| changed.contains(&(m.relation(rel), m.row(args))))
    }

    /// Whether the last update kept the order of ids: every functor token and relation of
    /// the previous version that the current one has keeps its relative order, so the atoms
    /// and rules both versions have sort alike (`false` before any update).
    pub fn keeps_order(&self) -> bool {
        (self.previous.as_ref()).is_some_and(|p| self.mapping.keeps_order_of(&p.mapping))
    }

    /// Whether the current version numbers relations and tokens as the previous one did:
    /// then [`Self::carry`] gives every atom back as it is.
    pub fn same_ids(&self) -> bool {
        (self.previous.as_ref()).is_some_and(|p| p.mapping == self.mapping)
    }

    /// The current version's atom of the previous version's `rel(row)`, if it has it.
    pub fn carry(
        &self,
        rel: RelId,
        row: &[crate::program::encoding::Token],
    ) -> Option<(RelId, Row)> {
        let then = &self.previous.as_ref()?.mapping;
        let (rel, row) = (then.relation(rel), then.row(row));
        Some((
            self.mapping.relation_back(rel)?,
            self.mapping.row_back(&row)?,
        ))
    }

    /// How many rule instances the current version has.
    pub fn instance_count(&self) -> usize {
        self.bindings.len()
    }

    /// Which of the current version's relations are computed exactly (static).
    pub fn exact(&self) -> &[bool] {
        &self.exact
    }

    /// Which of the current version's relations the state or the moves give.
    pub fn given(&self) -> &[bool] {
        &self.given
    }

    /// The enabled rules with instances: each one's program rule and definition.
    fn sources(&self) -> FastMap<RuleId, (usize, Arc<LiveRule>)> {
        (self.enabled.values().flatten())
            .filter_map(|e| Some((e.id, (e.source?, e.rule.clone()))))
            .collect()
    }
}

/// The instances of `bindings` (space ids) in a version's ids: `sources` its rules,
/// `mapping` its ids, `forms` its instance forms. Bindings of other rules are skipped.
fn instances<'a>(
    bindings: impl Iterator<Item = (RuleId, &'a Row)>,
    sources: &FastMap<RuleId, (usize, Arc<LiveRule>)>,
    mapping: &Mapping,
    forms: &Forms,
) -> Instances {
    let mut instances = Instances::default();
    let mut ranges = Ranges::new(0);
    for (id, row) in bindings {
        let (Some((source, rule)), Some(row)) = (sources.get(&id), mapping.row_back(row)) else {
            continue;
        };
        ranges.room(rule.vars);
        forms.instantiate(*source, rule.binding(), &row, &mut ranges, &mut instances);
    }
    instances
}

/// How many items of the sorted `after` are not in the sorted `before`, and how many of
/// `before` not in `after` (counting repeats): the static rules an edit added and removed.
fn changed<T: Ord>(before: &[T], after: &[T]) -> (usize, usize) {
    let added = differing(before, after).filter(|(_, added)| *added).count();
    (added, differing(before, after).count() - added)
}

/// The items of the sorted `before` that the sorted `after` lacks (`false`) and those of
/// `after` that `before` lacks (`true`), in order (counting repeats).
fn differing<'a, T: Ord>(before: &'a [T], after: &'a [T]) -> impl Iterator<Item = (&'a T, bool)> {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || loop {
        match (before.get(i), after.get(j)) {
            (Some(b), Some(a)) if a == b => (i, j) = (i + 1, j + 1),
            (Some(b), Some(a)) if b < a => {
                i += 1;
                return Some((b, false));
            }
            (Some(b), None) => {
                i += 1;
                return Some((b, false));
            }
            (_, Some(a)) => {
                j += 1;
                return Some((a, true));
            }
            (None, None) => return None,
        }
    })
}

/// The atoms of `rows` (program ids) that the dataflow is given, by relation, in the space of
/// `mapping`, but those of the `kept` relations: those of the relations computed exactly
/// (`exact`) and the certain atoms (ids past the program's relations).
fn static_atoms(
    rows: &Tables,
    kept: &FastSet<RelId>,
    exact: &[bool],
    mapping: &Mapping,
) -> ByRelation {
    let given = |rel: RelId| exact.get(rel as usize).is_none_or(|&e| e) && !kept.contains(&rel);
    let mut atoms = ByRelation::default();
    for (&rel, rows) in rows.iter().filter(|(rel, _)| given(**rel)) {
        let set = atoms.entry(mapping.relation(rel)).or_default();
        set.extend(rows.iter().map(|row| mapping.row(row)));
    }
    atoms
}

/// The space ids of the relations `flags` marks (a version's relations).
fn in_space(mapping: &Mapping, flags: &[bool]) -> Vec<RelId> {
    let mut rels: Vec<RelId> = (0..flags.len() as RelId)
        .filter(|&r| flags[r as usize])
        .map(|r| mapping.relation(r))
        .collect();
    rels.sort_unstable();
    rels
}

/// How many of net `changes` came and went.
fn counts<A, B>(changes: &[(A, B, isize)]) -> (usize, usize) {
    let came = changes.iter().filter(|(_, _, d)| *d > 0).count();
    (came, changes.len() - came)
}

#[cfg(test)]
mod tests {
    use super::changed;

    #[test]
    fn changed_counts_what_each_sorted_list_has_that_the_other_lacks() {
        assert_eq!(changed(&[1, 2, 2, 5], &[2, 3, 5, 7]), (2, 2));
        assert_eq!(changed::<u32>(&[], &[1, 1]), (2, 0));
        assert_eq!(changed(&[4], &[]), (0, 1));
        assert_eq!(changed(&[1, 2], &[1, 2]), (0, 0));
    }
}
