//! gringo on the ASP translation: S from the relaxed translation, and time, memory and ground
//! rule count from the full one.

use super::process::{self, Finished};
use super::{kif::kif_atom, OracleError, Tool};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::process::ChildStdout;
use std::time::Duration;

/// One gringo run: wall time (process start to exit, parsing included), peak resident memory,
/// and what it printed, split into rules with a non-empty body and the other statements
/// (facts, and the choice rules of the open dynamics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GringoRun {
    /// Wall time of the process.
    pub wall: Duration,
    /// Peak resident set size, KiB.
    pub peak_rss_kib: u64,
    /// Printed rules with a body (GDL.md §4's `rules`).
    pub rules: usize,
    /// Printed statements without a body.
    pub facts: usize,
}

/// S: the atoms gringo derives from a relaxed translation, as sorted KIF text, and the run.
pub fn relaxed_atoms(
    tool: &Tool,
    asp_text: &str,
    timeout: Duration,
) -> Result<(BTreeSet<String>, GringoRun), OracleError> {
    let done = ground(tool, asp_text, timeout, |stdout| {
        let mut atoms = BTreeSet::new();
        let mut first_error = None;
        for line in BufReader::new(stdout).lines() {
            let line = line.map_err(|e| format!("cannot read gringo's output: {e}"))?;
            if first_error.is_some() {
                continue; // drain the pipe so that gringo can finish
            }
            match line.strip_suffix('.').map(kif_atom) {
                Some(Ok(atom)) => {
                    atoms.insert(atom);
                }
                Some(Err(e)) => first_error = Some(format!("{e} in gringo's line `{line}`")),
                None => first_error = Some(format!("gringo's line `{line}` is not a fact")),
            }
        }
        first_error.map_or(Ok(atoms), Err)
    })?;
    let atoms = done.output.map_err(OracleError::Output)?;
    let run = GringoRun {
        wall: done.wall,
        peak_rss_kib: done.peak_rss_kib,
        rules: 0,
        facts: atoms.len(),
    };
    Ok((atoms, run))
}

/// Grounds a full translation: the run, with the number of ground rules with a non-empty body
/// gringo printed (facts are not counted as rules, as in GDL.md §4).
pub fn full_ground(
    tool: &Tool,
    asp_text: &str,
    timeout: Duration,
) -> Result<GringoRun, OracleError> {
    let done = ground(tool, asp_text, timeout, |stdout| {
        let (mut rules, mut facts) = (0, 0);
        for line in BufReader::new(stdout).lines() {
            let line = line.map_err(|e| format!("cannot read gringo's output: {e}"))?;
            if has_body(&line) {
                rules += 1;
            } else {
                facts += 1;
            }
        }
        Ok((rules, facts))
    })?;
    let (rules, facts) = done.output.map_err(OracleError::Output)?;
    Ok(GringoRun {
        wall: done.wall,
        peak_rss_kib: done.peak_rss_kib,
        rules,
        facts,
    })
}

/// Runs `gringo --text` on `asp_text`, with `read` consuming its output meanwhile; fails if
/// gringo cannot start, exits with an error, or runs out of time.
fn ground<T: Send + 'static>(
    tool: &Tool,
    asp_text: &str,
    timeout: Duration,
    read: impl FnOnce(ChildStdout) -> T + Send + 'static,
) -> Result<Finished<T>, OracleError> {
    let argv = tool.with_args(&["--text"]);
    let done = process::run(&argv, Some(asp_text.to_owned()), timeout, read)
        .map_err(|e| OracleError::Spawn(tool.to_string(), e))?;
    match done.status {
        None => Err(OracleError::Timeout(timeout)),
        Some(s) if s.success() => Ok(done),
        Some(s) => Err(OracleError::Failed(s.to_string(), done.stderr)),
    }
}

/// Whether a line of `gringo --text` output is a rule with a body: `:-` outside strings.
fn has_body(line: &str) -> bool {
    let mut in_string = false;
    let mut escaped = false;
    let mut previous = ' ';
    for c in line.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '-' if !in_string && previous == ':' => return true,
            _ => {}
        }
        previous = c;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::has_body;

    #[test]
    fn a_body_is_a_colon_dash_outside_strings() {
        assert!(has_body("r_a :- r_b."));
        assert!(!has_body("r_a(\":-\")."));
        assert!(!has_body("{r_true(\"x\")}."));
    }
}
