//! Corpus tests over `../shared/games`: every game checks, or is rejected for the reason
//! `tests/data/corpus_rejected.tsv` gives; every game that loads prints and reads back as the
//! same program; and the time to load them all is measured.
//!
//! Without the corpus the tests skip with a message on stderr (and fail when `CI=true`).

mod support;

use gdlground::load::load;
use gdlground::program::{Model, Program};
use gdlground::syntax::{SourceFile, Syntax};
use gdlground::write::{self, Format};
use gdlground::{read_game, Game, LoadError};
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The corpus of real games, beside the crate.
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/games");

/// The games that must be rejected: `relative/path<TAB>code-name` lines and `#` comments.
const REJECTED: &str = include_str!("data/corpus_rejected.tsv");

/// What loading one game gave.
enum Outcome {
    /// The game checks.
    Loaded(Box<Game>),
    /// The game is rejected with errors of these codes (by [`Code::name`]).
    ///
    /// [`Code::name`]: gdlground::syntax::Code::name
    Rejected(BTreeSet<&'static str>),
    /// The file could not be read.
    Unreadable(String),
    /// Loading panicked, with this message.
    Panicked(String),
}

/// The paths of every `.kif` and `.hrf` game in the corpus, relative to it and sorted; `None`
/// (after saying so on stderr) when the corpus is absent. Panics instead when `CI=true`.
fn games() -> Option<Vec<String>> {
    let root = Path::new(CORPUS);
    if !root.is_dir() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the game corpus {CORPUS} is missing; CI must have shared/ beside the crate"
        );
        eprintln!("SKIPPED: the game corpus {CORPUS} is missing");
        return None;
    }
    let relative = |path: PathBuf| {
        let relative = path.strip_prefix(root).expect("a path under the corpus");
        relative.to_string_lossy().replace('\\', "/")
    };
    let mut found: Vec<String> = support::game_files(root)
        .into_iter()
        .map(relative)
        .collect();
    // Sorted as text: `game_files` sorts paths component by component.
    found.sort();
    Some(found)
}

/// The full path of the corpus game `relative`.
fn full_path(relative: &str) -> PathBuf {
    Path::new(CORPUS).join(relative)
}

/// Loads the corpus game `relative` as `gdlground check` would, catching any panic.
fn outcome(relative: &str) -> Outcome {
    let path = full_path(relative);
    match catch_unwind(|| read_game(&path, None)) {
        Ok(Ok(game)) => Outcome::Loaded(Box::new(game)),
        Ok(Err(LoadError::Rejected(_, diagnostics))) => Outcome::Rejected(
            diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| d.code.name())
                .collect(),
        ),
        Ok(Err(e @ LoadError::Io(..))) => Outcome::Unreadable(e.render()),
        Err(payload) => Outcome::Panicked(panic_message(payload.as_ref())),
    }
}

/// The message of a caught panic.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

/// The rejected list: each listed game with the code name its errors must include.
fn rejected_list() -> BTreeMap<&'static str, &'static str> {
    let mut listed = BTreeMap::new();
    for (n, line) in REJECTED.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (path, code) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("corpus_rejected.tsv:{}: expected PATH<TAB>CODE", n + 1));
        let previous = listed.insert(path, code);
        assert!(
            previous.is_none(),
            "corpus_rejected.tsv:{}: {path} is listed twice",
            n + 1
        );
    }
    listed
}

#[test]
fn every_game_checks_or_fails_for_its_own_reason() {
    let Some(games) = games() else {
        return;
    };
    let mut listed = rejected_list();
    let mut failures = Vec::new();
    for game in &games {
        let expected = listed.remove(game.as_str());
        match (outcome(game), expected) {
            (Outcome::Loaded(_), None) => {}
            (Outcome::Loaded(_), Some(code)) => {
                failures.push(format!("{game}: loads, but is listed as rejected ({code})"));
            }
            (Outcome::Rejected(codes), Some(code)) if codes.contains(code) => {}
            (Outcome::Rejected(codes), Some(code)) => failures.push(format!(
                "{game}: rejected with {codes:?}, but listed as rejected for {code}"
            )),
            (Outcome::Rejected(codes), None) => {
                failures.push(format!("{game}: rejected with {codes:?}, but not listed"));
            }
            (Outcome::Unreadable(message), _) => failures.push(message),
            (Outcome::Panicked(message), _) => {
                failures.push(format!("{game}: PANIC: {message}"));
            }
        }
    }
    for stale in listed.keys() {
        failures.push(format!(
            "{stale}: listed as rejected, but not in the corpus"
        ));
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus games fail:\n{}",
        failures.len(),
        games.len(),
        failures.join("\n")
    );
}

/// The formats a program of `model` prints in, each with the syntax whose model matches.
fn formats(model: Model) -> &'static [(Format, Syntax)] {
    match model {
        Model::Classic => &[(Format::Kif, Syntax::Kif), (Format::Infix, Syntax::Infix)],
        Model::Operations => &[(Format::Infix, Syntax::Hrf)],
    }
}

/// Prints `program` in `format` and reads it back in `syntax`: `None` if the program comes
/// back the same, else what went wrong (the first line where the two programs print
/// differently, when they do).
fn round_trip(program: &Program, format: Format, syntax: Syntax) -> Option<String> {
    let text = match write::program(program, format) {
        Ok(text) => text,
        Err(e) => return Some(format!("does not print: {e}")),
    };
    let again = match load(SourceFile::new("printed", text.as_str()), syntax) {
        Ok(again) => again.program,
        Err(e) => {
            let first = e
                .render()
                .lines()
                .take(3)
                .collect::<Vec<_>>()
                .join("\n    ");
            return Some(format!("the printed text is rejected:\n    {first}"));
        }
    };
    if again.same_as(program) {
        return None;
    }
    let reprinted = write::program(&again, format).unwrap_or_default();
    let first_difference = text
        .lines()
        .zip(reprinted.lines())
        .find(|(a, b)| a != b)
        .map(|(a, b)| format!("first difference:\n    printed: {a}\n    reread:  {b}"));
    Some(first_difference.unwrap_or_else(|| {
        format!(
            "reads back as a different program ({} rules, {} operations before; {}, {} after) \
             that prints the same",
            program.rules.len(),
            program.operations.len(),
            again.rules.len(),
            again.operations.len()
        )
    }))
}

#[test]
fn round_trip_over_the_corpus() {
    let Some(games) = games() else {
        return;
    };
    let mut failures = Vec::new();
    let mut trips = 0;
    for game in &games {
        let Outcome::Loaded(loaded) = outcome(game) else {
            continue;
        };
        for &(format, syntax) in formats(loaded.program.model) {
            trips += 1;
            let result = catch_unwind(AssertUnwindSafe(|| {
                round_trip(&loaded.program, format, syntax)
            }));
            match result {
                Ok(None) => {}
                Ok(Some(problem)) => failures.push(format!("{game} as {format:?}: {problem}")),
                Err(payload) => failures.push(format!(
                    "{game} as {format:?}: PANIC: {}",
                    panic_message(payload.as_ref())
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {trips} round trips fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_checks_fast() {
    let Some(games) = games() else {
        return;
    };
    let mut times: Vec<(Duration, &str)> = games
        .iter()
        .map(|game| {
            let path = full_path(game);
            let start = Instant::now();
            let _ = read_game(&path, None);
            (start.elapsed(), game.as_str())
        })
        .collect();
    let total: Duration = times.iter().map(|(took, _)| *took).sum();
    times.sort_unstable_by(|a, b| b.cmp(a));
    let slowest: Vec<String> = times
        .iter()
        .take(5)
        .map(|(took, game)| format!("{game} {took:.1?}"))
        .collect();
    eprintln!(
        "loading the {} corpus games took {total:.1?} in all; slowest: {}",
        games.len(),
        slowest.join(", ")
    );
}

#[test]
fn domains_over_the_corpus_never_panic_and_are_fast() {
    let Some(games) = games() else {
        return;
    };
    let mut failures = Vec::new();
    let mut slowest = (Duration::ZERO, "");
    for game in &games {
        let Outcome::Loaded(loaded) = outcome(game) else {
            continue;
        };
        let start = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| {
            let domains = gdlground::analysis::domains::Domains::new(&loaded.program);
            let notation = write::Notation::Kif;
            write::domains::table(&loaded.program, &domains, notation, 20).len()
        }));
        let took = start.elapsed();
        slowest = slowest.max((took, game.as_str()));
        if let Err(payload) = result {
            failures.push(format!(
                "{game}: PANIC: {}",
                panic_message(payload.as_ref())
            ));
        }
    }
    eprintln!("domains: slowest game {} in {:.1?}", slowest.1, slowest.0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        slowest.0 < Duration::from_secs(2),
        "{} took {:.1?}",
        slowest.1,
        slowest.0
    );
}
