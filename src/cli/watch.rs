//! `gdlground watch`: ground a game live, then re-ground on every save.

use super::ground::{EngineArgs, FormatArg};
use super::interrupt::Interrupt;
use super::live::{load_version, LiveRun};
use super::saves::Saves;
use super::{SyntaxArg, EXIT_REJECTED};
use gdlground::load::Reader;
use gdlground::syntax::Syntax;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// How long a wait for a save lasts before Ctrl-C is looked at.
const INTERRUPT_CHECK: Duration = Duration::from_millis(50);

/// Flags of `watch`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game file to watch.
    #[arg(value_name = "GAME")]
    game: PathBuf,
    /// Where to write the ground game, rewritten atomically after each save [default: the
    /// game's name with `.ground` before the extension, beside it].
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Output format (default: the input's syntax).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Read the file in this syntax instead of guessing from extension and content.
    #[arg(long, value_enum)]
    syntax: Option<SyntaxArg>,
    /// How often to look at the file when no save is reported, in milliseconds (on Linux
    /// inotify reports a save the moment it is written; this is the fallback elsewhere).
    #[arg(long, default_value_t = 200, value_name = "MS")]
    interval: u64,
    /// After each save's line, print the ground facts and rules it removed (`- `) and added
    /// (`+ `).
    #[arg(long)]
    diff: bool,
    /// Stop after this many saves (for scripts and tests) [default: never].
    #[arg(long, value_name = "N")]
    saves: Option<usize>,
}

/// Runs `watch`, returning the exit code (on an error, after `--saves`, or after Ctrl-C:
/// 128 + the signal, as a shell reports a process the signal killed).
///
/// A game that is rejected, or whose grounding fails, is watched all the same: the first
/// save that fixes it grounds afresh (an author may start `watch` mid-edit). Only a file that
/// cannot be read at the start is an error.
pub fn run(args: &Args) -> i32 {
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_output(&args.game));
    if let Err(e) = super::output::check_target(&args.game, &output) {
        eprintln!("{e}");
        return super::EXIT_USAGE;
    }
    // Taken before the first read: a save while the game is read and grounded is seen.
    let mut waiting = Saves::new(&args.game, Duration::from_millis(args.interval.max(10)));
    let mut stamp = modified(&args.game);
    let name = args.game.display().to_string();
    let options = args.engine.options(Instant::now());
    let interrupt = Interrupt::catch();
    // `run` is no session when the game was rejected or its grounding failed (then, or after
    // an engine error later): the next good version grounds afresh. A rejected game's text
    // counts as seen, as a good game's does: only a save that changes it is one.
    let mut reader = Reader::new();
    let (mut last_text, mut run) = match super::load_game(&args.game, args.syntax) {
        Ok(game) => {
            reader.remember(&game);
            (
                Some(game.source.text.clone().into_bytes()),
                LiveRun::start(&game, args.format, &options, &output, args.diff).ok(),
            )
        }
        Err(EXIT_REJECTED) => (std::fs::read(&args.game).ok(), None),
        Err(code) => return code,
    };
    // Whether this run has written the output (a file there from before is not its own).
    let mut written = run.is_some();
    match run {
        Some(_) => eprintln!(
            "watching {} (writing {}); Ctrl-C stops",
            args.game.display(),
            output.display()
        ),
        None => eprintln!(
            "{name}: not grounded; watching it for a save that fixes it (then writing {}); Ctrl-C stops",
            output.display()
        ),
    }
    let mut saves = 0;
    while args.saves.is_none_or(|n| saves < n) {
        let due = waiting.wait(INTERRUPT_CHECK);
        if let Some(signal) = interrupt.signal() {
            // The run is dropped: the output's spare text goes with it.
            let kept = match written {
                true => "has the last good ground game",
                false => "was not written",
            };
            eprintln!("stopped; {} {kept}", output.display());
            return 128 + signal;
        }
        let now = modified(&args.game);
        if !due || now == stamp {
            continue;
        }
        stamp = now;
        let reading = Instant::now();
        let bytes = match std::fs::read(&args.game) {
            Ok(bytes) => bytes,
            Err(e) => {
                eprintln!("{name}: {}; {}", unreadable(&e), kept(&output, written));
                // The file's next version is a save even if its text is the last one's.
                last_text = None;
                continue;
            }
        };
        if last_text.as_ref() == Some(&bytes) {
            continue;
        }
        last_text = Some(bytes.clone());
        saves += 1;
        let syntax = (args.syntax.map(Into::into))
            .unwrap_or_else(|| Syntax::detect(&args.game, &String::from_utf8_lossy(&bytes)));
        let Some(version) = load_version(&mut reader, name.clone(), bytes, syntax) else {
            eprintln!("{name}: not re-grounded; {}", kept(&output, written));
            continue;
        };
        let label = format!("save {saves}");
        let result = match run.as_mut() {
            Some(session) => session.update(&version, &label, reading.elapsed()),
            None => {
                LiveRun::start(&version, args.format, &options, &output, args.diff).map(|fresh| {
                    (run, written) = (Some(fresh), true);
                    format!("{label}: grounded afresh")
                })
            }
        };
        match result {
            Ok(line) => eprintln!("{line}"),
            Err(_) => {
                // After an engine error the session is gone.
                run = None;
                eprintln!("{name}: not re-grounded; {}", kept(&output, written));
            }
        }
    }
    0
}

/// What `watch` says when the game cannot be read after a save.
fn unreadable(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "the file is gone; watching for it to come back".into(),
        _ => format!("cannot read the file ({e}); watching for a save that fixes it"),
    }
}

/// What is left at `output` when a version is not grounded (`written`: whether this run has
/// written it).
fn kept(output: &Path, written: bool) -> String {
    match written {
        true => format!("{} keeps the last good ground game", output.display()),
        false => format!("{} is written once a version grounds", output.display()),
    }
}

/// When `path` was last changed (and its size), or `None` if it cannot be read.
fn modified(path: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// `game.kif` → `game.ground.kif`, beside the game.
fn default_output(game: &Path) -> PathBuf {
    let stem = game
        .file_stem()
        .map_or("game".into(), |s| s.to_string_lossy().into_owned());
    let ext = game.extension().map(|e| e.to_string_lossy().into_owned());
    let name = match ext {
        Some(ext) => format!("{stem}.ground.{ext}"),
        None => format!("{stem}.ground"),
    };
    game.with_file_name(name)
}
