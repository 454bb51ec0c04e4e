//! Grounding held live: a session grounds a game once, then re-grounds each new version of
//! it by feeding the rule differences into the running dataflow (see
//! [`crate::engine::live`]).

use super::delta::{GroundDelta, Keys};
use super::prepare;
use super::{GroundError, Grounded};
use crate::engine::live::{Edit, LiveGame};
use crate::engine::Options;
use crate::ground::GroundProgram;
use crate::program::encoding::Encoding;
use crate::program::Program;

/// A game grounded in a live dataflow.
pub struct Session {
    game: LiveGame,
    workers: usize,
    /// The ground game of the current version.
    grounded: Grounded,
    /// Its keys, to compare the next version's with.
    keys: Keys,
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
}

impl Session {
    /// Grounds `program` live over S* (GDL.md §2), returning the session and the ground
    /// game (the same as [`super::ground`] gives).
    pub fn start(program: &Program, options: &Options) -> Result<Session, GroundError> {
        let (lowered, encoding) = prepare(program);
        let grounding = lowered.as_ref().unwrap_or(program);
        let game = LiveGame::start(grounding, &encoding, options).map_err(GroundError::Engine)?;
        let grounded = ground_of(&game, options.workers, program, lowered, encoding);
        let keys = keys(&game, &grounded);
        Ok(Session {
            game,
            workers: options.workers,
            grounded,
            keys,
        })
    }

    /// The ground game of the current version.
    pub fn grounded(&self) -> &Grounded {
        &self.grounded
    }

    /// Re-grounds for `program`, a new version of the game: only the rules that differ are
    /// changed in the dataflow. Returns the ground game (the same as a full grounding of
    /// `program` gives), the previous one, and what the edit changed in the dataflow and in
    /// the ground game. After an error the session is unusable.
    pub fn apply(&mut self, program: &Program) -> Result<Update<'_>, GroundError> {
        let (lowered, encoding) = prepare(program);
        let grounding = lowered.as_ref().unwrap_or(program);
        let edit = self
            .game
            .update(grounding, &encoding)
            .map_err(GroundError::Engine)?;
        if edit.unchanged {
            return Ok(Update {
                grounded: &self.grounded,
                previous: None,
                edit,
                delta: GroundDelta::default(),
            });
        }
        let grounded = ground_of(&self.game, self.workers, program, lowered, encoding);
        let keys = keys(&self.game, &grounded);
        let delta = GroundDelta::new(&self.keys, &keys);
        self.keys = keys;
        let previous = std::mem::replace(&mut self.grounded, grounded);
        Ok(Update {
            grounded: &self.grounded,
            previous: Some(previous),
            edit,
            delta,
        })
    }
}

/// The keys of `grounded`, the ground game of `game`'s current version.
fn keys(game: &LiveGame, grounded: &Grounded) -> Keys {
    let atoms = &grounded.ground.atoms;
    let atom_keys: Vec<u64> = atoms
        .iter()
        .map(|(r, row)| game.atom_key(*r, row))
        .collect();
    Keys::new(&grounded.ground, &atom_keys)
}

/// The ground game of `game`'s current version: `original`, or `lowered` for an operations
/// game, encoded by `encoding`.
fn ground_of(
    game: &LiveGame,
    workers: usize,
    original: &Program,
    lowered: Option<Program>,
    encoding: Encoding,
) -> Grounded {
    let program = lowered.as_ref().unwrap_or(original);
    let instantiation = game.instantiation(program, &encoding);
    let ground = GroundProgram::new(&instantiation, workers);
    Grounded {
        encoding,
        instantiation,
        ground,
        reduction: None,
        lowered,
    }
}
