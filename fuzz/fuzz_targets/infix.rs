//! Fuzzes the infix parser (it serves both infix syntaxes) and the program checks: arbitrary
//! bytes, read as Stanford infix and as classic infix, must load or be rejected, never panic; a
//! program that loads must print in every format its model has and read back as the same
//! program.

#![no_main]

use gdlground::load::{load, model_of, source_from_bytes};
use gdlground::program::{Model, Program};
use gdlground::syntax::{SourceFile, Syntax};
use gdlground::write::{self, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = source_from_bytes("fuzz.hrf".into(), data.to_vec()) else {
        return;
    };
    for syntax in [Syntax::Hrf, Syntax::Infix] {
        if let Ok(game) = load(source.clone(), syntax) {
            for &(format, reread) in formats(model_of(syntax)) {
                round_trip(&game.program, format, reread);
            }
        }
    }
});

/// The formats a program of `model` prints in, each with the syntax that reads it back.
fn formats(model: Model) -> &'static [(Format, Syntax)] {
    match model {
        Model::Classic => &[(Format::Kif, Syntax::Kif), (Format::Infix, Syntax::Infix)],
        Model::Operations => &[(Format::Infix, Syntax::Hrf)],
    }
}

/// Prints `program` in `format`, reads the text back in `syntax` and asserts that the result is
/// the same program. The KIF writer may refuse a program (infix names can hold characters
/// KIF cannot spell); what it does print must read back the same.
fn round_trip(program: &Program, format: Format, syntax: Syntax) {
    let text = match write::program(program, format) {
        Ok(text) => text,
        Err(_) if format == Format::Kif => return,
        Err(e) => panic!("the program does not print in {format:?}: {e}"),
    };
    match load(SourceFile::new("printed", text.as_str()), syntax) {
        Ok(again) => assert!(
            again.program.same_as(program),
            "{format:?} round trip changed the program; printed text:\n{text}"
        ),
        Err(e) => panic!(
            "the {format:?} text of a valid program is rejected:\n{}printed text:\n{text}",
            e.render()
        ),
    }
}
