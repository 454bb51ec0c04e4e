//! gdlground: a bottom-up grounder for GDL game descriptions.
//!
//! The data flows one way: text → [`syntax`] tree → [`program`] (interned, normalised,
//! checked) → … → [`write`](mod@write)rs. Each stage is a module; no stage reaches back into an earlier
//! one. [`load`] strings the first stages together.

pub mod analysis;
pub mod bench;
pub mod engine;
pub mod graph;
pub mod ground;
pub mod grounding;
pub mod hash;
pub mod load;
pub mod memory;
pub mod oracle;
pub mod parallel;
pub mod program;
pub mod progress;
pub mod reason;
pub mod syntax;
pub mod write;

pub use grounding::{
    ground, ground_with, GroundDelta, GroundError, Grounded, LoopOptions, LoopReport, Session,
    Superset, Update,
};
pub use load::{read_game, Game, LoadError};
pub use reason::machine::{Machine, MachineState};
