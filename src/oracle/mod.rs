//! External tools gdlground checks itself against (GDL.md §5): gringo, which grounds the ASP
//! translation of a game, and clingo, which solves it.
//!
//! Input: the text of [`crate::write::asp`]. Output: S (the least model of the relaxed
//! translation) as KIF atoms in the form `gdlground atoms` prints; gringo's wall time, peak
//! memory and ground rule count on the full translation; clingo's answer set. Shared by the
//! tests (`tests/support/oracle.rs`) and `gdlground bench`.
//!
//! Invariant: a tool runs as a child process fed on stdin and is killed at its time limit.

mod clingo;
mod gringo;
pub mod kif;
pub mod process;

pub use clingo::answer_set;
pub use gringo::{full_ground, relaxed_atoms, GringoRun};

use std::fmt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// An external tool, as the program and leading arguments that run it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tool {
    /// The command line: program, then arguments placed before the caller's.
    pub argv: Vec<String>,
}

impl Tool {
    /// The first grounder that runs: `gringo` (Debian's 5.4.1, the faster), `clingo
    /// --mode=gringo`, or `python3 -m clingo --mode=gringo` (PyPI's clingo).
    pub fn find_gringo() -> Option<Tool> {
        first_that_runs(&[
            &["gringo"],
            &["clingo", "--mode=gringo"],
            &["python3", "-m", "clingo", "--mode=gringo"],
        ])
    }

    /// The first solver that runs: `clingo`, or `python3 -m clingo`.
    pub fn find_clingo() -> Option<Tool> {
        first_that_runs(&[&["clingo"], &["python3", "-m", "clingo"]])
    }

    /// The grounder at `path`; a program named `clingo…` is run with `--mode=gringo`.
    pub fn gringo_at(path: &Path) -> Tool {
        let mut argv = vec![path.display().to_string()];
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.is_some_and(|n| n.starts_with("clingo")) {
            argv.push("--mode=gringo".into());
        }
        Tool { argv }
    }

    /// The first line the tool prints for `--version`, if it runs.
    pub fn version(&self) -> Option<String> {
        let output = self.command().arg("--version").output().ok()?;
        let text = String::from_utf8_lossy(&output.stdout);
        output
            .status
            .success()
            .then(|| text.lines().next().unwrap_or("").trim().to_owned())
    }

    /// The tool's command line with `args` appended.
    pub fn with_args(&self, args: &[&str]) -> Vec<String> {
        let mut argv = self.argv.clone();
        argv.extend(args.iter().map(|a| a.to_string()));
        argv
    }

    /// A `Command` for the tool, without the caller's arguments.
    fn command(&self) -> Command {
        let mut command = Command::new(&self.argv[0]);
        command.args(&self.argv[1..]);
        command
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.argv.join(" "))
    }
}

/// The first of `candidates` whose `--version` succeeds.
fn first_that_runs(candidates: &[&[&str]]) -> Option<Tool> {
    candidates
        .iter()
        .map(|c| Tool {
            argv: c.iter().map(|s| s.to_string()).collect(),
        })
        .find(|tool| {
            tool.command()
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
}

/// Why a tool gave no answer.
#[derive(Debug)]
#[non_exhaustive]
pub enum OracleError {
    /// The tool could not be started or waited for.
    Spawn(String, std::io::Error),
    /// The tool was killed at the time limit.
    Timeout(Duration),
    /// The tool exited with an error: its status and stderr.
    Failed(String, String),
    /// The tool's output could not be read back.
    Output(String),
}

impl fmt::Display for OracleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OracleError::Spawn(command, e) => write!(f, "cannot run {command}: {e}"),
            OracleError::Timeout(limit) => {
                write!(f, "timed out after {:.0} s", limit.as_secs_f64())
            }
            OracleError::Failed(status, stderr) => write!(f, "failed ({status}):\n{stderr}"),
            OracleError::Output(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for OracleError {}
