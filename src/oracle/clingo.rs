//! clingo as a solver: the unique answer set of a stratified program, read back as KIF atoms.

use super::process;
use super::{kif::kif_atom, OracleError, Tool};
use std::collections::BTreeSet;
use std::io::Read;
use std::time::Duration;

/// The unique answer set of `asp_text` (a stratified program), as KIF atoms in the form
/// `gdlground atoms` prints; an error if clingo fails, runs out of time, or finds no or two
/// answer sets.
pub fn answer_set(
    tool: &Tool,
    asp_text: &str,
    timeout: Duration,
) -> Result<BTreeSet<String>, OracleError> {
    let argv = tool.with_args(&["2", "-V0", "--outf=0"]);
    let done = process::run(&argv, Some(asp_text.to_owned()), timeout, |mut stdout| {
        let mut text = Vec::new();
        let _ = stdout.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    })
    .map_err(|e| OracleError::Spawn(tool.to_string(), e))?;
    // clingo exits 10 or 30 when satisfiable (20 unsatisfiable); python3 -m clingo exits 0.
    match done.status {
        None => return Err(OracleError::Timeout(timeout)),
        Some(s) if matches!(s.code(), Some(0 | 10 | 30)) => {}
        Some(s) => return Err(OracleError::Failed(s.to_string(), done.stderr)),
    }
    let text = done.output;
    let models: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("SATISFIABLE") && !l.starts_with("UNSATISFIABLE"))
        .collect();
    let [model] = models[..] else {
        return Err(OracleError::Output(format!(
            "expected one answer set, clingo printed:\n{text}"
        )));
    };
    let mut atoms = BTreeSet::new();
    let mut start = 0;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in model.char_indices().chain([(model.len(), ' ')]) {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            ' ' if !in_string => {
                if i > start {
                    atoms.insert(kif_atom(&model[start..i]).map_err(OracleError::Output)?);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    Ok(atoms)
}
