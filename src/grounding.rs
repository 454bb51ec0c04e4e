//! The grounding pipeline after loading: program → encoding → engine → ground program.

use crate::engine::{self, EngineError, Instantiation, Options};
use crate::ground::GroundProgram;
use crate::program::encoding::Encoding;
use crate::program::{Model, Program};
use crate::write::ground::AtomText;
use crate::write::Notation;

/// A grounded game: the encoding of its terms, the engine's result and the ground program.
#[derive(Clone, Debug)]
pub struct Grounded {
    /// How ground terms are encoded.
    pub encoding: Encoding,
    /// S* and the instances.
    pub instantiation: Instantiation,
    /// The simplified ground program.
    pub ground: GroundProgram,
}

/// Why a game could not be grounded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroundError {
    /// The engine stopped.
    Engine(EngineError),
    /// The game model is not supported yet.
    Unsupported(String),
}

/// Grounds `program` with `options`.
pub fn ground(program: &Program, options: &Options) -> Result<Grounded, GroundError> {
    if program.model == Model::Operations {
        return Err(GroundError::Unsupported(
            "grounding operation games (.hrf) is not implemented yet".into(),
        ));
    }
    let encoding = Encoding::new(program);
    let instantiation =
        engine::instantiate(program, &encoding, options).map_err(GroundError::Engine)?;
    let ground = GroundProgram::new(&instantiation);
    Ok(Grounded {
        encoding,
        instantiation,
        ground,
    })
}

impl GroundError {
    /// The error as the user should see it, with a hint.
    pub fn render(&self, program: &Program, encoding: &Encoding) -> String {
        match self {
            GroundError::Unsupported(m) => format!("error: {m}\n"),
            GroundError::Engine(EngineError::TooDeep { relation, atom }) => {
                let mut text = String::new();
                AtomText::new(program, encoding, Notation::Kif).atom(*relation, atom, &mut text);
                format!(
                    "error: the relaxed closure of `{}` grows without bound: function terms nest deeper than the limit, as in\n  {text}\n  hint: a game whose terms grow needs `base`/`input` declarations to bound them; raise --max-depth if the depth is real\n",
                    program.relation_name(*relation)
                )
            }
            GroundError::Engine(EngineError::TooManyAtoms) => "error: more atoms than --max-atoms allows\n  hint: raise --max-atoms if the machine has the memory\n".into(),
            GroundError::Engine(EngineError::Deadline) => "error: the deadline passed before grounding finished\n".into(),
            GroundError::Engine(EngineError::Worker(e)) => format!("error: a dataflow worker failed: {e}\n"),
        }
    }
}
