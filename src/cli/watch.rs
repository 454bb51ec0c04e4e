//! `gdlground watch`: ground a game live, then re-ground on every save.

use super::ground::{EngineArgs, FormatArg};
use super::interrupt::Interrupt;
use super::live::{load_version, LiveRun};
use super::SyntaxArg;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

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
    /// How often to look at the file, in milliseconds.
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
pub fn run(args: &Args) -> i32 {
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| default_output(&args.game));
    // Taken before the first read: a save while the game is read and grounded is seen.
    let mut stamp = modified(&args.game);
    let game = match super::load_game(&args.game, args.syntax) {
        Ok(game) => game,
        Err(code) => return code,
    };
    let options = args.engine.options(Instant::now());
    let interrupt = Interrupt::catch();
    let mut run = match LiveRun::start(&game, args.format, &options, &output, args.diff) {
        Ok(run) => run,
        Err(code) => return code,
    };
    eprintln!(
        "watching {} (writing {}); Ctrl-C stops",
        args.game.display(),
        output.display()
    );
    let (syntax, name) = (game.syntax, game.source.name.clone());
    let mut last_text = game.source.text.clone();
    let mut saves = 0;
    // After an engine error the session is gone: the next good version grounds afresh.
    let mut broken = false;
    while args.saves.is_none_or(|n| saves < n) {
        std::thread::sleep(Duration::from_millis(args.interval.max(10)));
        if let Some(signal) = interrupt.signal() {
            // The run is dropped: the output's spare text goes with it.
            eprintln!(
                "stopped; {} has the last good ground game",
                output.display()
            );
            return 128 + signal;
        }
        let now = modified(&args.game);
        if now == stamp {
            continue;
        }
        stamp = now;
        let Ok(text) = std::fs::read_to_string(&args.game) else {
            continue;
        };
        if text == last_text {
            continue;
        }
        last_text = text.clone();
        saves += 1;
        let Some(version) = load_version(name.clone(), text, syntax) else {
            eprintln!(
                "{name}: not re-grounded; {} keeps the last good ground game",
                output.display()
            );
            continue;
        };
        let label = format!("save {saves}");
        let result = if broken {
            LiveRun::start(&version, args.format, &options, &output, args.diff).map(|fresh| {
                run = fresh;
                format!("{label}: grounded afresh")
            })
        } else {
            run.update(&version, &label)
        };
        match result {
            Ok(line) => {
                broken = false;
                eprintln!("{line}");
            }
            Err(_) => {
                broken = true;
                eprintln!(
                    "{name}: not re-grounded; {} keeps the last good ground game",
                    output.display()
                );
            }
        }
    }
    0
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
