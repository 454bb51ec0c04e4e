//! Reading a game: file → source → syntax tree → checked `Program`.
//!
//! The pipeline stops between stages on error: syntax errors are reported alone, since a
//! statement the parser dropped would make the program checks report nonsense.

use crate::program::{self, Model, Program};
use crate::syntax::{self, Code, Diagnostic, SourceFile, Span, Syntax};
use std::path::Path;

mod decode;
mod reader;

pub use reader::Reader;

/// A game read and checked: its source, the syntax it was read in, the program, and the
/// warnings the checks gave.
#[derive(Clone, Debug)]
pub struct Game {
    /// The text it was read from.
    pub source: SourceFile,
    /// The syntax used.
    pub syntax: Syntax,
    /// The checked program.
    pub program: Program,
    /// Warnings (never errors).
    pub warnings: Vec<Diagnostic>,
}

/// Why a game could not be read.
#[derive(Debug)]
pub enum LoadError {
    /// The file could not be read.
    Io(String, std::io::Error),
    /// The text is not a valid game: every diagnostic, errors and warnings, in file order.
    Rejected(Box<SourceFile>, Vec<Diagnostic>),
}

impl LoadError {
    /// The error as the user should see it: a message, or every diagnostic rendered.
    pub fn render(&self) -> String {
        match self {
            LoadError::Io(path, e) => format!("{path}: error: cannot read the file: {e}\n"),
            LoadError::Rejected(source, diagnostics) => {
                diagnostics.iter().map(|d| d.render(source)).collect()
            }
        }
    }
}

/// The game model a syntax describes.
pub fn model_of(syntax: Syntax) -> Model {
    match syntax {
        Syntax::Kif | Syntax::Infix => Model::Classic,
        Syntax::Hrf => Model::Operations,
    }
}

/// Reads the game in `path`, in `syntax` or else the one its extension or content suggests.
pub fn read_game(path: &Path, syntax: Option<Syntax>) -> Result<Game, LoadError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| LoadError::Io(name.clone(), e))?;
    let syntax = syntax.unwrap_or_else(|| Syntax::detect(path, &String::from_utf8_lossy(&bytes)));
    let source = source_from_bytes(name, bytes, syntax)?;
    load(source, syntax)
}

/// A source file from the raw bytes of a game in `syntax`, rejecting text too large for
/// spans or not UTF-8 outside its comments (inside them, such bytes read as `?`).
pub fn source_from_bytes(
    name: String,
    bytes: Vec<u8>,
    syntax: Syntax,
) -> Result<SourceFile, LoadError> {
    if bytes.len() >= u32::MAX as usize {
        let source = SourceFile::new(name, "");
        let d = Diagnostic::error(
            Code::Limit,
            Span::default(),
            "the file is larger than 4 GiB",
        );
        return Err(LoadError::Rejected(Box::new(source), vec![d]));
    }
    decode::decode(name, bytes, syntax)
}

/// Parses, lowers and checks `source` in `syntax`.
pub fn load(source: SourceFile, syntax: Syntax) -> Result<Game, LoadError> {
    let parsed = syntax::parse(&source, syntax);
    if parsed.diagnostics.iter().any(Diagnostic::is_error) {
        return Err(LoadError::Rejected(Box::new(source), parsed.diagnostics));
    }
    let (program, diagnostics) = program::lower(&parsed.statements, model_of(syntax));
    game(source, syntax, program, diagnostics)
}

/// The game of `source` with its lowered `program`, or its rejection if one of the
/// `diagnostics` of lowering and checking is an error.
fn game(
    source: SourceFile,
    syntax: Syntax,
    program: Program,
    diagnostics: Vec<Diagnostic>,
) -> Result<Game, LoadError> {
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(LoadError::Rejected(Box::new(source), diagnostics));
    }
    Ok(Game {
        source,
        syntax,
        program,
        warnings: diagnostics,
    })
}
