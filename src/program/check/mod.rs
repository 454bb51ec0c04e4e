//! The checks a program must pass to be a game (GDL.md §1): safety, stratification, GDL
//! keyword use, required relations; undefined relations are warnings.

use super::Program;
use crate::syntax::Diagnostic;

/// Every diagnostic of the checks, in no particular order.
pub fn run(program: &Program) -> Vec<Diagnostic> {
    let _ = program;
    Vec::new()
}
