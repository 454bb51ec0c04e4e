//! A game held live: its current version's rules enabled in a [`Live`] dataflow, its atoms
//! and instances kept current as versions change.

use super::rules::{candidates, Candidate};
use super::space::{Mapping, Space};
use super::{Change, Live, LiveRule, RuleId, ShapeId};
use crate::engine::pattern::{Ranges, Row};
use crate::engine::shape::Shape;
use crate::engine::stats::Stats;
use crate::engine::templates::Forms;
use crate::engine::{EngineError, Instances, Instantiation, Limits, Options, Tables};
use crate::hash::{FastMap, FastSet};
use crate::program::encoding::Encoding;
use crate::program::{Program, RelId};
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

/// A game held in a live dataflow.
pub struct LiveGame {
    live: Live,
    space: Space,
    mapping: Mapping,
    shapes: HashMap<Shape, ShapeId>,
    /// Enabled rules by key (a key may be held by several equal rules).
    enabled: HashMap<String, Vec<Enabled>>,
    next_rule: RuleId,
    atoms: FastSet<(RelId, Row)>,
    bindings: FastSet<(RuleId, Row)>,
    /// Which relations of the current version are computed exactly.
    exact: Vec<bool>,
}

impl LiveGame {
    /// Starts a live dataflow holding `program` (classic, or operations lowered to rules).
    pub fn start(
        program: &Program,
        encoding: &Encoding,
        options: &Options,
    ) -> Result<LiveGame, EngineError> {
        let limits = Limits::new(options);
        // The first version is planned like a full grounding: with the exact relations'
        // sizes known.
        let stats = crate::engine::run::exact(program, encoding, options, &limits, Tables::new())?;
        let mut game = LiveGame {
            live: Live::start(options)?,
            space: Space::default(),
            mapping: Mapping::default(),
            shapes: HashMap::new(),
            enabled: HashMap::new(),
            next_rule: 0,
            atoms: FastSet::default(),
            bindings: FastSet::default(),
            exact: Vec::new(),
        };
        game.move_to(program, encoding, &stats)?;
        Ok(game)
    }

    /// Moves to a new version of the game: rules it no longer has are disabled, new ones
    /// enabled, the rest kept running.
    pub fn update(&mut self, program: &Program, encoding: &Encoding) -> Result<Edit, EngineError> {
        let arities = Arc::new(encoding.arities());
        let stats = Stats::new(crate::engine::run::facts(program, encoding), arities);
        self.move_to(program, encoding, &stats)
    }

    fn move_to(
        &mut self,
        program: &Program,
        encoding: &Encoding,
        stats: &Stats,
    ) -> Result<Edit, EngineError> {
        let start = std::time::Instant::now();
        let mapping = self.space.map(program, encoding);
        let exact = crate::analysis::Dependencies::new(program).exact_relations(program);
        let mut old = std::mem::take(&mut self.enabled);
        let mut change = Change::default();
        for Candidate {
            key,
            plan,
            level,
            instances,
        } in candidates(program, encoding, &mapping, stats, &exact)?
        {
            let kept = old.get_mut(&key).and_then(|same| same.pop());
            let (id, rule) = match kept {
                Some(e) => (e.id, e.rule),
                None => {
                    let (shapes, added) = (&mut self.shapes, &mut change.shapes);
                    let mut shape_id = |shape: Shape| {
                        let next = shapes.len() as ShapeId;
                        *shapes.entry(shape.clone()).or_insert_with(|| {
                            added.push((next, Arc::new(shape)));
                            next
                        })
                    };
                    let rule = Arc::new(LiveRule::new(
                        &plan,
                        level,
                        instances.is_some(),
                        &mut shape_id,
                    ));
                    let id = self.next_rule;
                    self.next_rule += 1;
                    change.added.push((id, rule.clone()));
                    (id, rule)
                }
            };
            let enabled = Enabled {
                id,
                rule,
                source: instances,
            };
            self.enabled.entry(key).or_default().push(enabled);
        }
        change.removed = (old.into_values().flatten())
            .map(|e| (e.id, e.rule.level))
            .collect();
        change.arities = self.space.arities();
        let mut edit = Edit {
            rules_added: change.added.len(),
            rules_removed: change.removed.len(),
            ..Edit::default()
        };
        let delta = self.live.apply(change)?;
        (edit.atoms_added, edit.atoms_removed) = update(&mut self.atoms, delta.atoms);
        (edit.instances_added, edit.instances_removed) = update(&mut self.bindings, delta.bindings);
        edit.unchanged = edit.atoms_added + edit.atoms_removed == 0
            && edit.instances_added + edit.instances_removed == 0
            && mapping == self.mapping
            && exact == self.exact;
        self.mapping = mapping;
        self.exact = exact;
        edit.elapsed = start.elapsed();
        Ok(edit)
    }

    /// [`Mapping::atom_key`] of the current version's atom `rel(row)`.
    pub fn atom_key(&self, rel: RelId, row: &[crate::program::encoding::Token]) -> u64 {
        self.mapping.atom_key(rel, row)
    }

    /// The current version's instantiation, in the ids of `program` (the version last
    /// moved to) and `encoding`: the same as a full grounding of it computes.
    pub fn instantiation(&self, program: &Program, encoding: &Encoding) -> Instantiation {
        let exact = self.exact.clone();
        let m = &self.mapping;
        let mut atoms: Vec<(RelId, Row)> = (self.atoms.iter())
            .filter_map(|(rel, row)| Some((m.relation_back(*rel)?, m.row_back(row)?)))
            .collect();
        atoms.sort_unstable();
        let sources: FastMap<RuleId, (usize, &LiveRule)> = (self.enabled.values().flatten())
            .filter_map(|e| Some((e.id, (e.source?, &*e.rule))))
            .collect();
        let forms = Forms::new(program, encoding, &exact);
        let mut instances = Instances::default();
        let mut ranges = Ranges::new(0);
        for (id, row) in &self.bindings {
            let (Some(&(source, rule)), Some(row)) = (sources.get(id), m.row_back(row)) else {
                continue;
            };
            ranges.room(rule.vars);
            let head_rel = program.rules[source].head.rel;
            forms.instantiate(
                source,
                head_rel,
                rule.binding(),
                &row,
                &mut ranges,
                &mut instances,
            );
        }
        Instantiation {
            atoms,
            is_static: exact,
            instances,
        }
    }
}

/// Applies net `changes` to `set`; how many records came and went.
fn update<A: Eq + std::hash::Hash, B: Eq + std::hash::Hash>(
    set: &mut FastSet<(A, B)>,
    changes: Vec<(A, B, isize)>,
) -> (usize, usize) {
    let (mut added, mut removed) = (0, 0);
    for (a, b, diff) in changes {
        if diff > 0 {
            set.insert((a, b));
            added += 1;
        } else {
            set.remove(&(a, b));
            removed += 1;
        }
    }
    (added, removed)
}
