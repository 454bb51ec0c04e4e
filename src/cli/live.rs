//! Live re-grounding from the command line: the session behind `ground --edits` and
//! `watch`, writing the output after every version and saying in one line what changed.

use super::ground::{FormatArg, Rendering};
use super::output;
use super::{EXIT_REJECTED, EXIT_USAGE};
use gdlground::engine::Options;
use gdlground::load::{load, source_from_bytes};
use gdlground::program::Program;
use gdlground::syntax::edits::{apply, parse_script};
use gdlground::syntax::{SourceFile, Syntax};
use gdlground::{Game, GroundError, Grounded, Session};
use std::hash::BuildHasher;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A game grounded live, and where its ground game goes.
pub struct LiveRun {
    session: Session,
    rendering: Rendering,
    output: PathBuf,
    /// Hashes of the lines of the output last written, sorted.
    lines: Vec<u64>,
}

impl LiveRun {
    /// Grounds `game` live and writes the output; prints the counts line.
    pub fn start(
        game: &Game,
        format: Option<FormatArg>,
        options: &Options,
        output: &Path,
    ) -> Result<LiveRun, i32> {
        let start = Instant::now();
        let session =
            Session::start(&game.program, options).map_err(|e| report(game, &game.program, &e))?;
        let rendering = Rendering::new(format, game, session.grounded())?;
        let mut run = LiveRun {
            session,
            rendering,
            output: output.to_path_buf(),
            lines: Vec::new(),
        };
        let grounded = run.session.grounded();
        let (added, _) = write(
            &run.rendering,
            &run.output,
            &mut run.lines,
            grounded,
            &game.program,
        )?;
        let counts = grounded.ground.counts(grounded.program(&game.program));
        let ms = start.elapsed().as_millis();
        eprintln!(
            "{}: grounded live, {added} lines written: {}",
            game.source.name,
            gdlground::write::ground::stats_line(&counts, ms)
        );
        Ok(run)
    }

    /// Re-grounds for `version` of the game (loaded as `game`), rewrites the output and
    /// returns the line that says what changed; `label` names the version.
    pub fn update(&mut self, game: &Game, label: &str) -> Result<String, i32> {
        let start = Instant::now();
        let (grounded, edit) = self
            .session
            .apply(&game.program)
            .map_err(|e| report(game, &game.program, &e))?;
        let (added, removed) = match edit.unchanged {
            true => (0, 0),
            false => write(
                &self.rendering,
                &self.output,
                &mut self.lines,
                grounded,
                &game.program,
            )?,
        };
        Ok(format!(
            "{label}: rules +{}/-{} · ground +{added}/-{removed} lines · atoms +{}/-{} · {} ms (dataflow {} ms)",
            edit.rules_added,
            edit.rules_removed,
            edit.atoms_added,
            edit.atoms_removed,
            start.elapsed().as_millis(),
            edit.elapsed.as_millis()
        ))
    }
}

/// Writes `grounded` to `path` (atomically) as `rendering` says; returns how many lines
/// came and went since `lines`, the hashes of the lines written last (sorted), which it
/// updates.
fn write(
    rendering: &Rendering,
    path: &Path,
    lines: &mut Vec<u64>,
    grounded: &Grounded,
    program: &Program,
) -> Result<(usize, usize), i32> {
    let mut bytes = Vec::new();
    if let Err(e) = rendering.write(grounded, program, &mut bytes) {
        eprintln!("error: cannot render the ground game: {e}");
        return Err(EXIT_USAGE);
    }
    let hasher = gdlground::hash::FastBuild::default();
    let mut now: Vec<u64> = bytes
        .split(|&b| b == b'\n')
        .map(|l| hasher.hash_one(l))
        .collect();
    now.sort_unstable();
    let (added, removed) = difference(&now, lines);
    if let Err(e) = output::write_bytes(path, &bytes) {
        eprintln!("error: cannot write {}: {e}", path.display());
        return Err(EXIT_USAGE);
    }
    *lines = now;
    Ok((added, removed))
}

/// How many elements of sorted `now` are not in sorted `before`, and the other way round
/// (multisets).
fn difference(now: &[u64], before: &[u64]) -> (usize, usize) {
    let (mut i, mut j, mut added, mut removed) = (0, 0, 0, 0);
    while i < now.len() || j < before.len() {
        match (now.get(i), before.get(j)) {
            (Some(a), Some(b)) if a == b => (i, j) = (i + 1, j + 1),
            (Some(a), Some(b)) if a < b => (i, added) = (i + 1, added + 1),
            (Some(_), None) => (i, added) = (i + 1, added + 1),
            _ => (j, removed) = (j + 1, removed + 1),
        }
    }
    (added, removed)
}

/// Prints a grounding error; the exit code.
fn report(game: &Game, program: &Program, error: &GroundError) -> i32 {
    let encoding = gdlground::program::encoding::Encoding::new(program);
    eprint!("{}: {}", game.source.name, error.render(program, &encoding));
    EXIT_USAGE
}

/// Loads `text` as the game `name` in `syntax`, printing its problems; `None` if invalid.
pub fn load_version(name: String, text: String, syntax: Syntax) -> Option<Game> {
    let loaded = source_from_bytes(name, text.into_bytes()).and_then(|s| load(s, syntax));
    match loaded {
        Ok(game) => {
            for w in &game.warnings {
                eprint!("{}", w.render(&game.source));
            }
            Some(game)
        }
        Err(e) => {
            eprint!("{}", e.render());
            None
        }
    }
}

/// `ground GAME --edits SCRIPT`: grounds live, then applies each edit of the script.
pub fn script(args: &super::ground::Args, path: &Path) -> i32 {
    let script = match std::fs::read_to_string(path) {
        Ok(text) => SourceFile::new(path.display().to_string(), text),
        Err(e) => {
            eprintln!(
                "{}: error: cannot read the edit script: {e}",
                path.display()
            );
            return EXIT_USAGE;
        }
    };
    let edits = match parse_script(&script) {
        Ok(edits) => edits,
        Err(e) => {
            eprint!("{e}");
            return EXIT_USAGE;
        }
    };
    let game = match super::load_game(&args.game, args.syntax) {
        Ok(game) => game,
        Err(code) => return code,
    };
    let options = args.engine.options(Instant::now());
    let mut run = match LiveRun::start(&game, args.format, &options, &args.output) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let mut text = game.source.text.clone();
    for edit in &edits {
        text = match apply(&text, game.syntax, edit, &script.name) {
            Ok(text) => text,
            Err(e) => {
                eprint!("{e}");
                return EXIT_REJECTED;
            }
        };
        let name = format!("{} (after {})", game.source.name, edit.label);
        let Some(version) = load_version(name, text.clone(), game.syntax) else {
            return EXIT_REJECTED;
        };
        match run.update(&version, &edit.label) {
            Ok(line) => eprintln!("{line}"),
            Err(code) => return code,
        }
    }
    0
}
