//! Fuzzes the KIF parser and the program checks: arbitrary bytes must load or be rejected,
//! never panic; a program that loads must print (KIF and classic infix) and read back as the
//! same program.

#![no_main]

use gdlground::load::{load, source_from_bytes};
use gdlground::program::Program;
use gdlground::syntax::{SourceFile, Syntax};
use gdlground::write::{self, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = source_from_bytes("fuzz.kif".into(), data.to_vec()) else {
        return;
    };
    if let Ok(game) = load(source, Syntax::Kif) {
        round_trip(&game.program, Format::Kif, Syntax::Kif);
        round_trip(&game.program, Format::Infix, Syntax::Infix);
    }
});

/// Prints `program` in `format`, reads the text back in `syntax` and asserts that the result is
/// the same program.
fn round_trip(program: &Program, format: Format, syntax: Syntax) {
    let text = write::program(program, format)
        .unwrap_or_else(|e| panic!("a classic program does not print in {format:?}: {e}"));
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
