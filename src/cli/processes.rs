//! `ground`'s process flags (`-n`, `-p`, `--hostfile`: timely's cluster flags), turned
//! into the engine's [`Cluster`].

use super::EXIT_USAGE;
use gdlground::engine::cluster::{local_addresses, Cluster};
use std::path::PathBuf;
use std::sync::Arc;

/// Flags for grounding with several processes, on one machine or several.
#[derive(clap::Args, Debug, Clone)]
pub struct ProcessArgs {
    /// Processes that ground the game together, on one machine or several. Start each with
    /// the same game and flags, `-p` aside (the same `-w` too: every process runs that many
    /// worker threads); their workers form one dataflow, and process 0 builds the ground game
    /// and writes it (the same bytes as one process writes). On one machine `-w` is faster:
    /// processes are for adding other machines' cores. Example, two on one machine:
    /// `gdlground ground GAME -n 2 -p 0 -o out.kif & gdlground ground GAME -n 2 -p 1`.
    #[arg(short = 'n', long, default_value_t = 1, value_name = "N")]
    pub processes: usize,
    /// This process's index, 0 to N-1.
    #[arg(
        short = 'p',
        long,
        default_value_t = 0,
        value_name = "P",
        requires = "processes"
    )]
    pub process: usize,
    /// A file of `host:port` lines, process 0's first, where each process listens for the
    /// others [default: localhost:2101, localhost:2102, …]. Blank lines and lines starting
    /// with `#` are skipped.
    #[arg(long, value_name = "FILE", requires = "processes")]
    pub hostfile: Option<PathBuf>,
}

impl ProcessArgs {
    /// Whether this process writes the output: process 0 does.
    pub fn writes(&self) -> bool {
        self.process == 0
    }

    /// The cluster these flags ask for (`None` for one process), listening already; an
    /// error is printed, with the exit code.
    pub fn cluster(&self) -> Result<Option<Arc<Cluster>>, i32> {
        if self.processes <= 1 {
            return match self.process {
                0 => Ok(None),
                p => usage(format!("-p {p} needs -n {} or more", p + 1)),
            };
        }
        let addresses = match &self.hostfile {
            None => local_addresses(self.processes),
            Some(path) => match std::fs::read_to_string(path) {
                Ok(text) => {
                    let lines = (text.lines().map(str::trim))
                        .filter(|l| !l.is_empty() && !l.starts_with('#'));
                    let addresses: Vec<String> = lines.map(String::from).collect();
                    if addresses.len() < self.processes {
                        return usage(format!(
                            "{} names {} addresses, and -n {} needs one per process",
                            path.display(),
                            addresses.len(),
                            self.processes
                        ));
                    }
                    addresses.into_iter().take(self.processes).collect()
                }
                Err(e) => return usage(format!("cannot read {}: {e}", path.display())),
            },
        };
        quiet_lost_connections();
        match Cluster::new(self.process, addresses) {
            Ok(cluster) => Ok(Some(Arc::new(cluster))),
            Err(e) => usage(e),
        }
    }
}

/// Prints `error: {message}` with a hint; the usage exit code.
fn usage<T>(message: String) -> Result<T, i32> {
    eprintln!("error: {message}\n  hint: see `gdlground ground --help` on -n, -p and --hostfile");
    Err(EXIT_USAGE)
}

/// When another process stops, timely's connection threads panic and the workers after them;
/// the error returned says what happened, so their panic messages are not printed.
fn quiet_lost_connections() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = (info.payload().downcast_ref::<String>().map(String::as_str))
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if !text.starts_with("timely communication error") && !text.contains("poisoned") {
            default(info);
        }
    }));
}
