//! Live re-grounding from the command line: the session behind `ground --edits` and
//! `watch`, writing the output after every version and saying in one line what changed.

use super::ground::{report, FormatArg, Rendering};
use super::output;
use super::{EXIT_REJECTED, EXIT_USAGE};
use gdlground::engine::Options;
use gdlground::load::{source_from_bytes, Reader};
use gdlground::program::Program;
use gdlground::syntax::edits::{apply, parse_script};
use gdlground::syntax::{SourceFile, Syntax};
use gdlground::write::ground::{lines, AtomText};
use gdlground::write::spliced::Text;
use gdlground::{Game, GroundDelta, Grounded, Session};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A game grounded live, and where its ground game goes.
pub struct LiveRun {
    session: Session,
    output: Output,
    /// The version grounded last, kept when the ground rules and facts each version adds
    /// and removes are printed (its program names the removed ones); `None` otherwise, so
    /// that an edit does not copy the whole game.
    last: Option<Game>,
}

/// Where and how the ground game is written, and the last version's text.
struct Output {
    rendering: Rendering,
    path: PathBuf,
    /// Writes `path`, each time over the pages of the text before last.
    file: output::Rewriter,
    /// The last version's text, to splice the next version's from (`None` for JSON).
    text: Option<Text>,
}

impl LiveRun {
    /// Grounds `game` live and writes the output; prints the counts line.
    pub fn start(
        game: &Game,
        format: Option<FormatArg>,
        options: &Options,
        output: &Path,
        diff: bool,
    ) -> Result<LiveRun, i32> {
        tune_allocator();
        let start = Instant::now();
        // The first grounding is watched like `ground`'s; the edits after it are not (an edit
        // that explodes stops with the engine's error and the last good output stays).
        let watchdog = super::watchdog::Watchdog::start(
            options.max_memory,
            options.deadline,
            &game.source.name,
        );
        let session = Session::start(&game.program, options);
        drop(watchdog);
        let session = session.map_err(|e| report(game, &e))?;
        let rendering = Rendering::new(format, game, options.workers)?;
        let mut output = Output {
            rendering,
            path: output.to_path_buf(),
            file: output::Rewriter::new(output),
            text: None,
        };
        output.write(session.grounded(), &game.program, None)?;
        let run = LiveRun {
            session,
            output,
            last: diff.then(|| game.clone()),
        };
        let grounded = run.session.grounded();
        let counts = grounded.ground.counts(grounded.program(&game.program));
        let ms = start.elapsed().as_millis();
        eprintln!(
            "{}: grounded live: {}",
            game.source.name,
            gdlground::write::ground::stats_line(&counts, ms)
        );
        Ok(run)
    }

    /// Re-grounds for `version` of the game (loaded as `game`), rewrites the output and
    /// returns the line that says what changed; `label` names the version, and `read` is the
    /// time it took to load it (parse and checks), which the line gives before the time from
    /// the loaded version to the written file: together they are the whole save's.
    pub fn update(&mut self, game: &Game, label: &str, read: Duration) -> Result<String, i32> {
        let start = Instant::now();
        let update = self
            .session
            .apply(&game.program)
            .map_err(|e| report(game, &e))?;
        let (edit, delta) = (update.edit, &update.delta);
        let grounded = start.elapsed();
        let how = if update.patched { "patched" } else { "rebuilt" };
        // The same ground program, numbered alike, is the same text: the file already has it
        // (an unchanged instantiation gives both).
        if !(update.in_order && delta.is_empty()) {
            let spliced = update.in_order.then_some(delta);
            (self.output).write(update.grounded, &game.program, spliced)?;
        }
        let mut line = format!(
            "{label}: P+ rules +{}/-{} · ground rules +{}/-{} · facts +{}/-{} · atoms +{}/-{} · read {:.2} ms + {:.2} ms (dataflow {:.2} ms; ground game {:.2} ms, {how})",
            edit.rules_added,
            edit.rules_removed,
            delta.rules_added.len(),
            delta.rules_removed.len(),
            delta.facts_added.len(),
            delta.facts_removed.len(),
            delta.atoms_added.len(),
            delta.atoms_removed.len(),
            ms(read),
            ms(start.elapsed()),
            ms(edit.elapsed),
            ms(grounded),
        );
        if let (Some(last), Some(previous)) = (&self.last, &update.previous) {
            let notation = self.output.rendering.notation();
            let before = AtomText::new(
                previous.program(&last.program),
                &previous.encoding,
                notation,
            );
            let now = update.grounded;
            let after = AtomText::new(now.program(&game.program), &now.encoding, notation);
            let removed = lines(
                &previous.ground,
                &before,
                &delta.facts_removed,
                &delta.rules_removed,
            );
            let added = lines(&now.ground, &after, &delta.facts_added, &delta.rules_added);
            for l in removed {
                line.push_str("\n- ");
                line.push_str(&l);
            }
            for l in added {
                line.push_str("\n+ ");
                line.push_str(&l);
            }
        }
        if let Some(last) = &mut self.last {
            last.clone_from(game);
        }
        Ok(line)
    }
}

impl Output {
    /// Writes `grounded`, the current version (a grounding of `program`), atomically; its
    /// text is spliced from the last version's when `spliced` gives what changed since (see
    /// [`gdlground::Update::in_order`]).
    fn write(
        &mut self,
        grounded: &Grounded,
        program: &Program,
        spliced: Option<&GroundDelta>,
    ) -> Result<(), i32> {
        if spliced.is_none() {
            // Rendered afresh, the text shares no line with those written before: the
            // rewriter need not keep them (they would stay in memory while it renders).
            self.file.forget_texts();
        }
        (self.rendering).advance(&mut self.text, grounded, program, spliced);
        let written = match &self.text {
            Some(text) => self.file.write_text(text),
            None => (self.file).write(|out| self.rendering.write(grounded, program, out)),
        };
        written.map_err(|e| {
            eprintln!("error: cannot write {}: {e}", self.path.display());
            EXIT_USAGE
        })
    }
}

/// Sets the allocator for a run of edits: memory freed is kept for the next edit rather than
/// given back, and small blocks are merged as they are freed.
///
/// Each edit builds the new ground game's arrays and frees the last one's, a few megabytes
/// to tens. With glibc's defaults, whether those come from memory the process already has
/// or from fresh pages (a page fault every 4 KiB) depends on its moving thresholds: hex's goal
/// edits took 3.0 or 5.0 ms to file with two builds whose only difference was elsewhere, a
/// third of the slower one in page faults. Fixed thresholds (arrays up to 32 MiB from the
/// heap, up to 64 MiB of its free top kept) make them 3.0–3.3 ms in both; a skirmish session
/// peaks at 223 MB of resident memory instead of 183 MB.
///
/// Small blocks freed are merged with their neighbours as they are freed (no "fast bins"):
/// an edit frees thousands, and glibc merged them all at once in whichever larger allocation
/// came next. Connect four's goal edits 0.192–0.202 → 0.186–0.189 ms to file.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters, under the allocator's own lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_MXFAST, 0);
    }
}

/// A duration in milliseconds, for the edit lines (written to a hundredth: small games'
/// edits take a few tenths, which a tenth's rounding would move by a sixth).
fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// Loads `bytes` as the game `name` in `syntax` (by `reader`, which parses and lowers only the
/// statements new since the last version it read), printing its problems; `None` if invalid.
pub fn load_version(
    reader: &mut Reader,
    name: String,
    bytes: Vec<u8>,
    syntax: Syntax,
) -> Option<Game> {
    let loaded = source_from_bytes(name, bytes, syntax).and_then(|s| reader.read(s, syntax));
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
    let mut run = match LiveRun::start(&game, args.format, &options, &args.output, args.diff) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let mut reader = Reader::new();
    reader.remember(&game);
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
        let reading = Instant::now();
        let Some(version) = load_version(&mut reader, name, text.clone().into_bytes(), game.syntax)
        else {
            return EXIT_REJECTED;
        };
        match run.update(&version, &edit.label, reading.elapsed()) {
            Ok(line) => eprintln!("{line}"),
            Err(code) => return code,
        }
    }
    0
}
