//! Progress bars for long commands: one look on every command, drawn only on a terminal.

use gdlground::progress::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long a grounding runs before its status line appears: short runs print nothing.
const QUIET: Duration = Duration::from_secs(2);
/// How often the status line is brought up to date.
const TICK: Duration = Duration::from_millis(200);

/// A bar of `len` units on stderr: elapsed time, the bar, `pos/len` and a message. Hidden
/// when stderr is not a terminal (a log, a CI job): callers print their own lines there.
pub fn bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

/// A status line on stderr for a grounding that records into a [`Progress`]: after two
/// seconds, the elapsed time, the stage, the atoms derived so far and the peak memory,
/// brought up to date five times a second, and cleared when the grounding ends (the
/// [`Status`] is dropped). Drawn only on a terminal, like the bars.
pub struct Status {
    /// What stops the thread, and the thread; `None` when nothing is shown.
    running: Option<(Sender<()>, JoinHandle<()>)>,
}

impl Status {
    /// Starts showing `progress` if stderr is a terminal (elsewhere, such as in a benchmark's
    /// runs, not even the thread is started).
    pub fn show(progress: Arc<Progress>) -> Status {
        match std::io::stderr().is_terminal() {
            true => Status::start(progress),
            false => Status { running: None },
        }
    }

    /// Starts the thread that shows `progress`.
    fn start(progress: Arc<Progress>) -> Status {
        let (stop, stopped) = channel::<()>();
        let thread = std::thread::spawn(move || {
            if stopped.recv_timeout(QUIET) != Err(RecvTimeoutError::Timeout) {
                return;
            }
            let line = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
                .with_elapsed(QUIET)
                .with_style(
                    ProgressStyle::with_template("{elapsed_precise} {spinner} {wide_msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
            loop {
                line.set_message(status_line(&progress));
                line.tick();
                if stopped.recv_timeout(TICK) != Err(RecvTimeoutError::Timeout) {
                    break;
                }
            }
            line.finish_and_clear();
        });
        Status {
            running: Some((stop, thread)),
        }
    }
}

impl Drop for Status {
    fn drop(&mut self) {
        if let Some((stop, thread)) = self.running.take() {
            drop(stop);
            let _ = thread.join();
        }
    }
}

/// The status line of `progress`: the stage, the atoms derived so far and the peak memory.
fn status_line(progress: &Progress) -> String {
    let (stage, atoms) = progress.status();
    let mut line = format!("{}: {} atoms derived", stage.describe(), grouped(atoms));
    if let Some(bytes) = gdlground::memory::peak_resident_bytes() {
        line.push_str(&format!(", {:.1} GiB", bytes as f64 / (1u64 << 30) as f64));
    }
    line
}

/// `n` with its digits in groups of three: 4,512,000.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gdlground::progress::Stage;

    #[test]
    fn the_status_line_says_the_stage_and_the_atoms() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(4_512_000), "4,512,000");
        let progress = Progress::default();
        progress.enter(Stage::Reachable);
        progress.derived(1234);
        let line = status_line(&progress);
        assert!(
            line.starts_with("computing S* and the rule instances: 1,234 atoms derived"),
            "{line}"
        );
    }

    #[test]
    fn a_status_stops_when_dropped() {
        let status = Status::start(Arc::new(Progress::default()));
        let start = std::time::Instant::now();
        drop(status);
        assert!(start.elapsed() < Duration::from_secs(1));
    }
}
