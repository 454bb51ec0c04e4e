//! Writers: programs back to text, in KIF, classic infix or Stanford infix.
//!
//! Input: a [`Program`]. Output: text that the matching parser reads back into the same
//! program ([`Program::same_as`]); the round-trip tests hold every writer to that.

mod asp;
pub mod ground;
mod names;
mod notation;
mod printer;

pub use notation::Notation;

use crate::program::{Model, Program};

/// A text syntax to write a program in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// KIF S-expressions.
    Kif,
    /// Infix: classic (`:-`, `&`, `~`) for classic games, Stanford `.hrf` for operation games.
    Infix,
}

/// Why a program cannot be written in a format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteError(pub String);

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `program` as text in `format`.
pub fn program(program: &Program, format: Format) -> Result<String, WriteError> {
    match (format, program.model) {
        (Format::Kif, Model::Operations) => Err(WriteError(
            "operation games (.hrf) have no KIF form; write them with `--to infix`".into(),
        )),
        (Format::Kif, Model::Classic) => Ok(printer::print(program, Notation::Kif)),
        (Format::Infix, _) => Ok(printer::print(program, Notation::Infix)),
    }
}

/// The ASP translation of a classic game for gringo (GDL.md §5): `relaxed` drops negative
/// literals, so that grounding it gives the reachable superset S; the full translation keeps
/// them. Both add the dynamics of GDL.md §2 (as choice rules in the full translation, so that
/// gringo's output is a ground program of the game). Operation games are an error.
pub fn asp(program: &Program, relaxed: bool) -> Result<String, WriteError> {
    asp::translate(program, relaxed)
}
