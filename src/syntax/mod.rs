//! The syntax stage: text → syntax tree, with spans and located diagnostics.
//!
//! Input: the bytes of one file and the syntax to read it in. Output: the statements the
//! parser could read, and the diagnostics of everything it could not. Parsers recover where the
//! grammar allows, so one run reports every syntax error of a file.
//! Invariant: nesting deeper than [`MAX_DEPTH`] is an error, never a stack overflow.

mod ast;
mod diagnostic;
pub mod edits;
mod infix;
mod infix_lexer;
mod kif;
mod kif_lexer;
mod source;
mod span;
pub mod split;

pub use ast::{Atom, Formula, Name, Statement, Term};
pub use diagnostic::{Code, Diagnostic, Note, Severity};
pub use source::SourceFile;
pub use span::Span;

use std::path::Path;

/// The deepest nesting of parentheses any parser accepts. Real games stay below 20.
pub const MAX_DEPTH: usize = 256;

/// The three syntaxes gdlground reads (GDL.md §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Syntax {
    /// KIF S-expressions, the GGP standard.
    Kif,
    /// Prolog-style infix with `:-`, `&`, `~`, classic GDL game model (`true`/`does`/`next`).
    Infix,
    /// Stanford infix with operation rules (`::`, `==>`), bare fluents and built-ins.
    Hrf,
}

impl Syntax {
    /// The syntax a file extension names, if it names one.
    pub fn from_extension(path: &Path) -> Option<Syntax> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "kif" | "gdl" | "lisp" => Some(Syntax::Kif),
            "hrf" => Some(Syntax::Hrf),
            "pl" | "epilog" | "infix" => Some(Syntax::Infix),
            _ => None,
        }
    }

    /// Guesses the syntax from the text: a first statement that opens with `(` is KIF; infix
    /// with an operation rule (`::`) is Stanford infix; other infix is classic.
    pub fn from_content(text: &str) -> Syntax {
        let mut rest = text.trim_start_matches('\u{feff}');
        loop {
            rest = rest.trim_start();
            if rest.starts_with(';') || rest.starts_with('%') {
                rest = rest.find(['\n', '\r']).map_or("", |i| &rest[i..]);
            } else {
                break;
            }
        }
        if rest.starts_with('(') {
            Syntax::Kif
        } else if text.contains("::") {
            Syntax::Hrf
        } else {
            Syntax::Infix
        }
    }

    /// The extension-named syntax of `path`, else the one its content suggests.
    pub fn detect(path: &Path, text: &str) -> Syntax {
        Syntax::from_extension(path).unwrap_or_else(|| Syntax::from_content(text))
    }
}

/// What parsing one file produced: the statements read and the problems found.
#[derive(Debug)]
pub struct Parsed {
    /// Every statement the parser could read, in file order.
    pub statements: Vec<Statement>,
    /// Syntax errors, in file order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses `file` in `syntax`. Never panics on any input.
pub fn parse(file: &SourceFile, syntax: Syntax) -> Parsed {
    parse_text(&file.text, syntax)
}

/// Parses `text` in `syntax`, spans counted from its start: a whole file, or one statement
/// of it (see [`split`]). Never panics on any input.
pub fn parse_text(text: &str, syntax: Syntax) -> Parsed {
    match syntax {
        Syntax::Kif => kif::parse(text),
        Syntax::Infix | Syntax::Hrf => infix::parse(text),
    }
}
