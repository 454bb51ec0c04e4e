//! Writers: programs back to text, in KIF, classic infix or Stanford infix.
//!
//! Input: a [`Program`]. Output: text that the matching parser reads back into the same
//! program ([`Program::same_as`]); the round-trip tests hold every writer to that.

mod asp;
pub mod domains;
pub mod ground;
mod names;
mod notation;
mod printer;
pub mod spliced;

pub use notation::Notation;
pub use printer::rule_line;

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
        (Format::Kif, Model::Classic) => {
            kif_names(program)?;
            Ok(printer::print(program, Notation::Kif))
        }
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

/// Checks that every name of `program` reads back as itself in KIF: KIF folds case (so no two
/// names may differ in case only), splits at whitespace, parentheses and `;`, reads `?x` as a
/// variable, and gives `or`, `and`, `not` and `<=` in relation position their logical meaning.
/// Infix names can be any of these.
pub fn kif_names(program: &Program) -> Result<(), WriteError> {
    let mut folded = crate::hash::FastMap::default();
    for sym in 0..program.symbols.len() as u32 {
        let name = program.symbols.spelling(sym);
        let spellable = !name.is_empty()
            && !name.starts_with('?')
            && !name
                .chars()
                .any(|c| c.is_whitespace() || matches!(c, '(' | ')' | ';'));
        if !spellable {
            return Err(WriteError(format!(
                "the name `{name}` has no KIF spelling (KIF splits at spaces and parentheses); write the game in infix"
            )));
        }
        if let Some(other) = folded.insert(name.to_lowercase(), name) {
            return Err(WriteError(format!(
                "the names `{other}` and `{name}` differ in case only, and KIF folds case; write the game in infix"
            )));
        }
    }
    for relation in &program.relations {
        let name = program.symbols.spelling(relation.name).to_lowercase();
        if matches!(name.as_str(), "or" | "and" | "not" | "<=") {
            return Err(WriteError(format!(
                "the relation `{name}` would read back as a connective in KIF; write the game in infix"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{load, model_of};
    use crate::syntax::{SourceFile, Syntax};

    /// The infix program `text` printed as KIF.
    fn as_kif(text: &str) -> Result<String, WriteError> {
        let game = load(SourceFile::new("t.pl", text), Syntax::Infix).expect("valid game");
        assert_eq!(model_of(game.syntax), Model::Classic);
        program(&game.program, Format::Kif)
    }

    #[test]
    fn names_kif_cannot_spell_are_refused_not_garbled() {
        let base = "legal(r,a)\ngoal(r,1)\nterminal\n";
        assert!(as_kif(&format!("role(r)\n{base}")).is_ok());
        let mixed = as_kif(&format!("role(xE)\n{base}")).expect("a mixed-case name");
        assert!(mixed.contains("(role xE)"), "{mixed}");
        let e = as_kif(&format!("role(xE)\nrole(xe)\n{base}")).expect_err("case only");
        assert!(e.0.contains("differ in case only"), "{}", e.0);
        for bad in ["role(\"a b\")", "role(\"(c d)\")", "role(\"?v\")"] {
            let e = as_kif(&format!("{bad}\n{base}")).expect_err(bad);
            assert!(e.0.contains("no KIF spelling"), "{bad}: {}", e.0);
        }
        let e = as_kif(&format!("role(r)\nor(a,b)\n{base}")).expect_err("or");
        assert!(e.0.contains("connective"), "{}", e.0);
    }
}
