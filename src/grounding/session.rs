//! Grounding held live: a session grounds a game once, then re-grounds each new version of
//! it by feeding the rule differences into the running dataflow (see
//! [`crate::engine::live`]) and patching the ground game with the instances that came and
//! went (see [`GroundProgram::patched`]), or, when a patch cannot be sure, by running the
//! whole ground stage on the dataflow's instances.

use super::delta::{GroundDelta, Keys};
use super::{prepare, Prepared, Steps};
use super::{GroundError, Grounded};
use crate::engine::live::{Edit, LiveGame};
use crate::engine::{Instantiation, Options};
use crate::ground::{carried_atoms, Carried, GroundProgram, Patch, Support};
use crate::program::encoding::Token;
use crate::program::project::Searches;
use crate::program::{Program, RelId};

/// A game grounded in a live dataflow.
pub struct Session {
    game: LiveGame,
    workers: usize,
    /// Which rewrites each version gets before the engine reads it.
    steps: Steps,
    /// The last version's group searches, for the next one's projection.
    searches: Searches,
    /// The ground game of the current version. Its instantiation has the atoms but not the
    /// instances, which live in the dataflow.
    grounded: Grounded,
    /// The keys of its atoms, by id: the same in every version.
    atom_keys: Vec<u64>,
    /// What patching it needs.
    support: Support,
}

/// What re-grounding a new version gives.
pub struct Update<'a> {
    /// The new version's ground game (the same as a full grounding gives).
    pub grounded: &'a Grounded,
    /// The previous version's ground game, which the delta's removed items index; `None`
    /// when the edit changed nothing in it.
    pub previous: Option<Grounded>,
    /// What the edit changed in the live dataflow.
    pub edit: Edit,
    /// What it changed in the ground game.
    pub delta: GroundDelta,
    /// Whether the ground game was patched (`false`: built by the whole ground stage).
    pub patched: bool,
    /// Whether the facts and rules both versions have are in the same order in both and
    /// written alike (the versions number atoms alike): then the new text can be made from
    /// the previous one by cutting and adding the delta's lines
    /// ([`crate::write::spliced::Text::advance`]).
    pub in_order: bool,
}

impl Session {
    /// Grounds `program` live over S* (GDL.md §2), returning the session and the ground
    /// game (the same as [`super::ground`] gives).
    pub fn start(program: &Program, options: &Options) -> Result<Session, GroundError> {
        let mut searches = Searches::default();
        let prepared = prepare(program, Steps::of(options), &mut searches);
        let grounding = prepared.program(program);
        let game = LiveGame::start(grounding, &prepared.encoding, options)
            .map_err(|e| super::too_large::located(e, grounding))?;
        let (grounded, atom_keys, support) = ground_of(&game, options.workers, prepared);
        let mut session = Session {
            game,
            workers: options.workers,
            steps: Steps::of(options),
            searches,
            grounded,
            atom_keys,
            support,
        };
        // The start plans with the exact relations' sizes, and an update with the facts' and
        // the plans it remembers: the first edit planned and keyed every rule afresh (connect
        // four's first goal edit 3.7 M instructions, the next 0.5 M). The same version given
        // as an update leaves those plans remembered, and changes nothing (but a rule that the
        // two statistics plan into different keys, which the first edit replaced until now:
        // one of ticTacHeavenFC's, none in 32 other games tried).
        session.apply(program)?;
        Ok(session)
    }

    /// The ground game of the current version (its instantiation without the instances).
    pub fn grounded(&self) -> &Grounded {
        &self.grounded
    }

    /// Re-grounds for `program`, a new version of the game: only the rules that differ are
    /// changed in the dataflow. Returns the ground game (the same as a full grounding of
    /// `program` gives), the previous one, and what the edit changed in the dataflow and in
    /// the ground game. After an error the session is unusable.
    pub fn apply(&mut self, program: &Program) -> Result<Update<'_>, GroundError> {
        let prepared = prepare(program, self.steps, &mut self.searches);
        let edit = self
            .game
            .update(prepared.program(program), &prepared.encoding)
            .map_err(|e| super::too_large::located(e, prepared.program(program)))?;
        if edit.unchanged {
            return Ok(Update {
                grounded: &self.grounded,
                previous: None,
                edit,
                delta: GroundDelta::default(),
                patched: true,
                in_order: true,
            });
        }
        // Patching costs about twice as much per changed instance as the whole ground stage
        // per instance (hex: 3.5 against 1.8 µs): past a third of the instances, rebuild.
        let changed = edit.instances_added + edit.instances_removed;
        let patch = (changed <= self.game.instance_count() / 3).then(|| self.patch());
        let (grounded, atom_keys, delta, patched) = match patch.flatten() {
            Some((ground, atom_keys, delta)) => {
                let grounded = grounded(&self.game, ground, prepared);
                (grounded, atom_keys, delta, true)
            }
            None => {
                let (grounded, keys, support) = ground_of(&self.game, self.workers, prepared);
                let before = Keys::new(&self.grounded.ground, &self.atom_keys);
                let delta = GroundDelta::new(&before, &Keys::new(&grounded.ground, &keys));
                self.support = support;
                (grounded, keys, delta, false)
            }
        };
        self.atom_keys = atom_keys;
        let previous = std::mem::replace(&mut self.grounded, grounded);
        Ok(Update {
            grounded: &self.grounded,
            previous: (!delta.is_empty()).then_some(previous),
            edit,
            delta,
            patched,
            in_order: self.game.keeps_order(),
        })
    }

    /// The current ground game patched with the last update's changes, its atom keys and
    /// the delta; `None` when the changes cannot be patched in.
    fn patch(&mut self) -> Option<(GroundProgram, Vec<u64>, GroundDelta)> {
        let changes = self.game.changes()?;
        let previous = &self.grounded.ground;
        let carry = |rel, row: &[_]| self.game.carry(rel, row);
        let carry = (!self.game.same_ids()).then_some(carry);
        let added = changes.atoms_added.clone();
        let carried = carried_atoms(&previous.atoms, &changes.atoms_removed, added, carry)?;
        let keys = carried_keys(&carried, &self.atom_keys, |rel, row| {
            self.game.atom_key(rel, row)
        });
        let patch = Patch {
            carried,
            previous_keys: &self.atom_keys,
            keys: &keys,
            is_static: self.game.exact(),
            is_given: self.game.given(),
            was_static: &self.grounded.instantiation.is_static,
            added: &changes.instances_added,
            removed: &changes.instances_removed,
        };
        let patched = previous.patched(&mut self.support, patch)?;
        let ids = |atoms: &[(RelId, _)], of: &[(RelId, _)]| -> Vec<_> {
            let mut ids: Vec<_> = (of.iter())
                .filter_map(|atom| atoms.binary_search(atom).ok())
                .map(|i| i as crate::ground::AtomId)
                .collect();
            ids.sort_unstable();
            ids
        };
        let delta = GroundDelta {
            atoms_added: ids(&patched.ground.atoms, &changes.atoms_added),
            atoms_removed: ids(&previous.atoms, &changes.atoms_removed),
            facts_added: patched.facts_added,
            facts_removed: patched.facts_removed,
            rules_added: patched.rules_added,
            rules_removed: patched.rules_removed,
        };
        let mut ground = patched.ground;
        if patched.same_rules {
            // Moved when nothing changed (the previous version is not returned), else copied.
            ground.rules = match delta.is_empty() {
                true => std::mem::take(&mut self.grounded.ground.rules),
                false => self.grounded.ground.rules.clone(),
            };
        }
        Some((ground, keys, delta))
    }
}

/// The keys of `carried`'s atoms: a carried atom's is its previous key (`previous`, by
/// previous id: keys are the same in every version), the others' are computed by `key`.
/// Hashing every atom again took an eighth of a breakthrough goal edit's patch.
fn carried_keys(
    carried: &Carried,
    previous: &[u64],
    key: impl Fn(RelId, &[Token]) -> u64,
) -> Vec<u64> {
    let mut out = vec![None; carried.atoms.len()];
    for (old, new) in carried.ids.iter().enumerate() {
        if let Some(new) = new {
            out[*new as usize] = Some(previous[old]);
        }
    }
    (out.into_iter().zip(&carried.atoms))
        .map(|(known, (rel, row))| known.unwrap_or_else(|| key(*rel, row)))
        .collect()
}

/// The ground game of `game`'s current version built by the whole ground stage (`prepared`
/// says what program was grounded), with its atom keys and support.
fn ground_of(game: &LiveGame, workers: usize, prepared: Prepared) -> (Grounded, Vec<u64>, Support) {
    let instantiation = game.instantiation();
    let keys = game.atom_keys(&instantiation.atoms);
    let (ground, support) = GroundProgram::with_support(&instantiation, workers, &keys);
    (grounded(game, ground, prepared), keys, support)
}

/// `ground` as the [`Grounded`] of `game`'s current version.
fn grounded(game: &LiveGame, ground: GroundProgram, prepared: Prepared) -> Grounded {
    let instantiation = Instantiation {
        atoms: ground.atoms.clone(),
        is_static: game.exact().to_vec(),
        is_given: game.given().to_vec(),
        instances: Default::default(),
    };
    prepared.grounded(instantiation, ground, None)
}
