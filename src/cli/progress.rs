//! Progress bars for long commands: one look on every command, drawn only on a terminal.

use indicatif::{ProgressBar, ProgressStyle};

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
